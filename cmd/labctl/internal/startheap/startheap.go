// Package startheap lets labctl allocate its first startHeapBytes without
// a garbage collection. It does so as it is initialized, which is before
// most of the packages whose initialization allocates (tables, parsed
// templates, the regular expressions compiled at start): main imports it
// for that effect alone, and Go initializes packages in import-path order
// as far as their dependencies allow, so this one (which needs only the
// runtime and os) comes early.
package startheap

import (
	"os"
	"runtime"
	"runtime/debug"
)

// startHeapBytes is the heap labctl may grow to before its first garbage
// collection.
const startHeapBytes = 128 << 20

// start lets the process allocate its first startHeapBytes without a
// collection, then hands pacing back to the default (GOGC=100), as the Go
// compiler does for the same reason (cmd/compile's AdjustStartingHeap). A
// command's set-up (parsing a lab's vendor configs, linting them, building
// the engine's fabric) allocates tens of MiB of short-lived data, and from
// the runtime's 4 MiB starting goal the collector ran a cycle at every
// doubling: a third of `labctl run`'s CPU outside the engine on the
// 128-NIC bench lab. Large runs lose nothing: their first collection comes
// at this size and from then on the default pacing holds (2x the live
// heap), so their peak is the same. A GOGC or GOMEMLIMIT in the
// environment is the user's choice and is left alone.
func init() { start() }

func start() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	// No collection until the heap nears the limit; the first one runs the
	// sentinel's finalizer, which restores the default for the rest of
	// the run.
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(startHeapBytes)
	s := &heapSentinel{}
	runtime.SetFinalizer(s, func(*heapSentinel) {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	})
}

// heapSentinel holds a pointer so that it is never a tiny allocation (whose
// finalizer may not run); start drops it at once, so the first
// collection finds it unreachable.
type heapSentinel struct{ _ *byte }
