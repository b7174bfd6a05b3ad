package sim

import "unsafe"

// prefetch asks the CPU to bring the cache line at p into its caches
// without waiting for it: a load the program does not use still holds up
// every instruction after it until it completes, a prefetch does not.
//
//go:noescape
func prefetch(p unsafe.Pointer)
