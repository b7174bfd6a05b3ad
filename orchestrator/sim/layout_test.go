package sim

import (
	"testing"
	"unsafe"
)

// TestPortLayout keeps the hot per-queue state of a port on whole cache
// lines: the port array is line aligned (the runtime aligns large
// allocations), so with the port a whole number of lines long and every
// lane and PG starting on a line, queue i's lane is exactly two lines and
// PG g's two, whatever the port's index. A field added to port, portLane
// or pgState that breaks this fails here; fix the padding beside it.
func TestPortLayout(t *testing.T) {
	const line = 64
	var p port
	checks := []struct {
		what string
		got  uintptr
	}{
		{"size of port", unsafe.Sizeof(p)},
		{"offset of port.lane", unsafe.Offsetof(p.lane)},
		{"size of portLane", unsafe.Sizeof(portLane{})},
		{"offset of port.pg", unsafe.Offsetof(p.pg)},
		{"size of pgState", unsafe.Sizeof(pgState{})},
		{"offset of port.c", unsafe.Offsetof(p.c)},
	}
	for _, c := range checks {
		if c.got%line != 0 {
			t.Errorf("%s is %d bytes, not a multiple of the %d-byte cache line", c.what, c.got, line)
		}
	}
	if n := unsafe.Sizeof(portLane{}); n > 2*line {
		t.Errorf("portLane is %d bytes, more than two cache lines", n)
	}
}
