package startheap

import (
	"math"
	"os"
	"runtime"
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
