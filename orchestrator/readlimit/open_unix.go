//go:build unix

package readlimit

import "syscall"

// openFlags opens without blocking: the open of a FIFO returns at once
// instead of waiting for a writer.
const openFlags = syscall.O_NONBLOCK
