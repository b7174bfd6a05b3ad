// Package startheap lets labctl allocate its first startHeapBytes without
// a garbage collection. It does so as it is initialized, which is before
// most of the packages whose initialization allocates (tables, parsed
// templates, the regular expressions compiled at start): main imports it
// for that effect alone, and Go initializes packages in import-path order
// as far as their dependencies allow, so this one (which needs only the
// runtime, os and sync) comes early. Collect lets a command collect once,
// between a set-up that leaves much garbage and work that allocates,
// without ending the start; HugePages lets a command that is about to
// allocate much have that memory in huge pages, a page fault per 2 MiB
// instead of per 4 KiB.
package startheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/labctl/labctl/orchestrator/hugepage"
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
	regime.Lock()
	regime.on, regime.percent, regime.limit = true, percent, limit
	regime.Unlock()
	arm()
}

// regime is the start's state: whether it is still on, the settings it
// hands back, and the generation of the sentinel whose collection ends
// it (Collect replaces the sentinel, so a collection it makes itself does
// not end the start).
var regime struct {
	sync.Mutex
	on         bool
	percent    int
	limit      int64
	generation uint64
}

// arm makes the sentinel of the current generation: the first collection
// that finds it unreachable restores the default pacing, unless Collect
// made a new generation since.
func arm() {
	regime.Lock()
	gen := regime.generation
	regime.Unlock()
	s := &heapSentinel{}
	runtime.SetFinalizer(s, func(*heapSentinel) {
		regime.Lock()
		defer regime.Unlock()
		if !regime.on || regime.generation != gen {
			return
		}
		regime.on = false
		debug.SetMemoryLimit(regime.limit)
		debug.SetGCPercent(regime.percent)
	})
}

// collectAbove is the heap below which Collect does nothing: a collection
// costs about the same on a small heap as on a few MiB (the roots, the
// mark bits and work buffers it touches), while what it gives back is
// the garbage. The bench incast has 1 MiB at that point (a collection
// there cost 7% more CPU), the 64gpu ECN x PFC matrix 6 MiB (no
// difference either way), the 128-host bench permutation 15 MiB (7% less
// CPU with it); the 1024-host one has passed startHeapBytes by then, so
// its start has ended and Collect leaves it alone.
const collectAbove = 4 << 20

// Collect runs one collection now, while the start is on and the heap
// holds at least collectAbove bytes, and keeps the start on after it. A
// command calls it between a set-up that leaves much garbage (a lab's
// parsed configs and lint's work: 15 MiB, 12 of it garbage, on the
// 128-host bench lab) and work that allocates (the simulator's arrays),
// so that the work reuses the garbage's pages: with the collector off
// every allocation is a fresh page, a page fault each (8-13 µs on some
// VMs). It does nothing
// once the start has ended (the default pacing then collects anyway) or
// when GOGC or GOMEMLIMIT were set.
func Collect() {
	regime.Lock()
	on := regime.on
	regime.Unlock()
	if !on || heapBytes() < collectAbove {
		return
	}
	collectKeepingStart()
}

// collectKeepingStart runs a collection and keeps the start on after it.
func collectKeepingStart() {
	regime.Lock()
	regime.generation++ // the old sentinel's finalizer now does nothing
	regime.Unlock()
	runtime.GC()
	arm()
}

// hugeHeapBytes is the heap HugePages readies for huge pages: three
// quarters of startHeapBytes, so that the block it allocates for that,
// with what is live, stays under the start's limit (reaching it would
// collect and end the start). With 64 MiB a 16gpu ECN x PFC run still
// took 12,000 page faults, with 96 MiB 3,800.
const hugeHeapBytes = startHeapBytes * 3 / 4

// HugePages lets the next hugeHeapBytes of heap the process grows into
// come in 2 MiB pages instead of 4 KiB ones, where the kernel gives huge
// pages to memory that asks for them (transparent huge pages in "madvise"
// mode, the usual default). The start allocates without collecting, so
// every allocation of a command's set-up and simulation is fresh memory,
// and each 4 KiB of it a page fault: 10.5 µs on 2026-12-05's virtual
// machine, where a 2 MiB page took 115-123 µs (0.23 µs per 4 KiB) once
// the kernel had free ones. The Go runtime maps its heap as it grows and
// advises nothing, so HugePages allocates a block of hugeHeapBytes
// (mapped, never touched), advises it MADV_HUGEPAGE and collects it: the
// heap's next allocations reuse its pages. That collection costs 2-3 ms
// (mostly page faults of the collector's own span sets), so a command
// calls this only once its input is checked and it is about to allocate
// tens of MiB: `labctl up`, `labctl run`, and `labctl config lint` on a
// large lab. Measured there (CPU of whole processes, medians of
// interleaved pairs): 64gpu's ECN x PFC matrix 0.86 against 1.19 s
// (8,900 page faults against 34,200), `labctl up 1024gpu` 0.28 against
// 0.59 s; the bench incast, whose run allocates a few MiB, 1-3% more
// (bench/compare/README.md). It does nothing where the kernel gives huge pages to every heap
// ("always": no need) or to none ("never"), off Linux, and when GOGC or
// GOMEMLIMIT were set (the start is off then).
func HugePages() { hugePages(hugepage.Mode()) }

// hugePages is HugePages under the kernel's huge page mode (hugepage.Mode).
func hugePages(mode string) {
	regime.Lock()
	on := regime.on
	regime.Unlock()
	if !on || mode != "madvise" {
		return
	}
	adviseHugeHeap(hugeHeapBytes)
}

// adviseHugeHeap maps n bytes of heap advised for huge pages and frees
// them for the heap's next allocations (HugePages), keeping the start on.
func adviseHugeHeap(n int) {
	// The block is dead once advised, so the collection frees it.
	hugepage.Advise(make([]byte, n))
	collectKeepingStart()
}

// heapBytes is the memory the heap's objects take, live or not yet
// collected. Through runtime/metrics, whose initialization costs every
// process 0.7-1.0 ms: runtime.ReadMemStats, which needs no package,
// flushes every P's span cache, and cost the 4 KB bench incast 4 ms and
// 180 page faults more per run.
func heapBytes() uint64 {
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// heapSentinel holds a pointer so that it is never a tiny allocation (whose
// finalizer may not run); arm drops it at once, so the next collection
// finds it unreachable.
type heapSentinel struct{ _ *byte }
