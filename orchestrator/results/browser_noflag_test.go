//go:build !browser

package results

const browserTag = false
