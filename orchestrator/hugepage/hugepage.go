// Package hugepage asks Linux for transparent huge pages on memory labctl
// is about to fill: one page fault per 2 MiB instead of one per 4 KiB. On
// 2026-12-05's virtual machine a fault on a fresh 4 KiB page took 10.5 µs
// and a 2 MiB page 115-123 µs (0.23 µs per 4 KiB), so a run that
// allocates a few hundred MiB spent a tenth to a third of its CPU faulting
// pages in (bench/compare/README.md). The Go runtime maps its heap as it
// grows and advises none of it (unless the machine's mode is "always"), so
// labctl advises what it knows will be large and fresh: the start heap's
// block (cmd/labctl/internal/startheap) and the simulator's growing arrays.
//
// Advice is only advice: where the kernel has no huge pages free it falls
// back to small ones, in mode "never" it ignores it, and elsewhere than
// Linux Advise does nothing.
package hugepage

import (
	"bytes"
	"unsafe"
)

// Size is the huge page size labctl advises for: x86-64's and arm64's
// (with 4 KiB pages) 2 MiB.
const Size = 2 << 20

// Mode is the kernel's transparent huge page mode: "always" (every
// anonymous mapping gets them), "madvise" (those advised), "never", or ""
// where it cannot be read (not Linux, or no huge page support).
func Mode() string { return mode() }

// parseMode reads the bracketed word of the kernel's mode file, whose
// contents are like "always [madvise] never".
func parseMode(b []byte) string {
	i := bytes.IndexByte(b, '[')
	j := bytes.IndexByte(b, ']')
	if i < 0 || j < i {
		return ""
	}
	return string(b[i+1 : j])
}

// Advise asks for huge pages on the 2 MiB pages that b overlaps, and
// reports whether the kernel took the advice. Memory already touched
// keeps its small pages, and so does a 2 MiB page any part of which was
// touched: the head and tail pages b shares with other memory come huge
// only where that memory is fresh too, as at the heap's growing end,
// where what follows b is what the heap gives out next. Advise only what
// is large and about to be written (advice splits a mapping at its ends).
//
// Memory smaller than one huge page is not advised (Advise reports false):
// the kernel would zero a whole 2 MiB page at its first touch for memory
// of which the caller fills less, and on 2026-12-06's VM a 2 MiB fault
// took 237 µs against 1.2-1.4 µs for a 4 KiB one, so below about 0.7 MiB
// filled the small faults cost less. The bench incast's packet pool, grown
// to 512 KiB and advised, took a huge page fault (2% of its run's CPU,
// perf); not advised, the run took 0.5-1% less CPU (36 interleaved pairs,
// 26 lower). Beyond a huge page the advice pays on any VM measured.
func Advise(b []byte) bool {
	if len(b) < Size {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := start &^ (Size - 1)
	hi := (start + uintptr(len(b)) + Size - 1) &^ (Size - 1)
	return advise(lo, hi-lo)
}

// AdviseSlice is Advise over s's whole capacity.
func AdviseSlice[T any](s []T) bool {
	if cap(s) == 0 {
		return false
	}
	var zero T
	n := cap(s) * int(unsafe.Sizeof(zero))
	return Advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n))
}
