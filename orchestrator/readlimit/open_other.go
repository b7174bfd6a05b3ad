//go:build !unix

package readlimit

// openFlags: elsewhere opening a file does not block on a named pipe's
// writer, so there is nothing to add.
const openFlags = 0
