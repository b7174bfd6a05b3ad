//go:build !amd64

package sim

import "unsafe"

// prefetch is a no-op where labctl has no prefetch instruction for the
// CPU (prefetch_amd64.s): the engine is the same, its misses only cost
// more.
func prefetch(unsafe.Pointer) {}
