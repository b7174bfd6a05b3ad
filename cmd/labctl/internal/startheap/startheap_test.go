package startheap

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings reads the collector's percent and memory limit as the runtime
// reports them.
func gcSettings() (percent, limit int64) {
	m := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(m)
	return int64(m[0].Value.Uint64()), int64(m[1].Value.Uint64())
}

// restored waits (collecting) until no start is in effect: the collector
// is on and under no start limit.
func restored(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, l := gcSettings(); p != -1 && l != startHeapBytes {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the collector's settings were not restored after collections for 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStartHeap: until the first collection the collector is off under a
// limit of startHeapBytes; the first collection restores the default
// pacing and no limit; with GOGC or GOMEMLIMIT set nothing changes.
func TestStartHeap(t *testing.T) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// This test binary ran start as it was initialized; its first
		// collections end that.
		restored(t)
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before, beforeLimit := gcSettings()
	start()
	if p, l := gcSettings(); p != -1 || l != startHeapBytes {
		t.Fatalf("after start: GOGC %d, limit %d; want off (-1) and %d", p, l, startHeapBytes)
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, l := gcSettings()
		if p == before && l == beforeLimit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the first collection: GOGC %d, limit %d; want %d and %d back", p, l, before, beforeLimit)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if beforeLimit != math.MaxInt64 {
		t.Logf("the test process runs with a memory limit of %d", beforeLimit)
	}

	t.Setenv("GOGC", "150")
	start()
	if p, l := gcSettings(); p != before || l != beforeLimit {
		t.Errorf("with GOGC set: GOGC %d, limit %d; want them untouched (%d, %d)", p, l, before, beforeLimit)
	}
}

// gcCycles is the number of collections the runtime has completed.
func gcCycles() uint64 {
	m := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// garbage allocates n bytes in 64 KiB pieces and drops them.
func garbage(n int) {
	var keep [][]byte
	for range n >> 16 {
		keep = append(keep, make([]byte, 64<<10))
	}
	runtime.KeepAlive(keep)
}

// TestCollect: with the start on, Collect collects a heap of collectAbove
// or more and leaves the start on, so that the collector stays off until
// the next collection restores the default; below collectAbove, or with
// the start ended, it collects nothing.
func TestCollect(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before, beforeLimit := gcSettings()
	if before == -1 {
		restored(t)
		before, beforeLimit = gcSettings()
	}
	start()
	defer restored(t)

	// A small heap: no collection. (A collection the runtime starts on
	// its own would end the start; none is due this far under the limit.)
	cycles := gcCycles()
	if heapBytes() >= collectAbove {
		t.Skipf("the test heap holds %d bytes already, above %d", heapBytes(), collectAbove)
	}
	Collect()
	if n := gcCycles(); n != cycles {
		t.Errorf("Collect on a heap of %d bytes (under %d) ran %d collections, want none", heapBytes(), collectAbove, n-cycles)
	}

	garbage(2 * collectAbove)
	full := heapBytes()
	Collect()
	if n := gcCycles(); n == cycles {
		t.Fatalf("Collect on a heap of %d bytes (over %d) ran no collection", full, collectAbove)
	}
	if h := heapBytes(); h >= full/2 {
		t.Errorf("after Collect the heap holds %d of %d bytes: the garbage was not collected", h, full)
	}
	// Its collection must not end the start: give the old sentinel's
	// finalizer time to run, then the collector must still be off.
	time.Sleep(50 * time.Millisecond)
	if p, l := gcSettings(); p != -1 || l != startHeapBytes {
		t.Fatalf("after Collect: GOGC %d, limit %d; want the start still on (-1, %d)", p, l, startHeapBytes)
	}
	// The next collection ends the start as the first one would have.
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, l := gcSettings(); p == before && l == beforeLimit {
			break
		}
		if time.Now().After(deadline) {
			p, l := gcSettings()
			t.Fatalf("collections after Collect did not end the start: GOGC %d, limit %d; want %d and %d", p, l, before, beforeLimit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Once the start has ended Collect does nothing. (The collector is
	// turned off here by hand, so that no collection of the runtime's
	// own comes between the two counts.)
	percent := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(percent)
	garbage(2 * collectAbove)
	cycles = gcCycles()
	Collect()
	if n := gcCycles(); n != cycles {
		t.Errorf("Collect after the start ended ran %d collections, want none", n-cycles)
	}
}
