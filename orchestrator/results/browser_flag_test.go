//go:build browser

package results

// browserTag is set by -tags browser: run the headless Chromium check.
const browserTag = true
