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

// TestPortHotLines keeps what every hop reads in the port's first two cache
// lines: a NIC's send (round robin, pacing, clock) and a switch port's
// alike, so that a packet touches those two lines and its lane and
// counters, not a third line at the end of a 3.7 KB port; and what a
// switch's ingress port reads (identity, flags, PG map: line0) in the
// first line alone. A field moved out of the header, or one added before
// these that pushes them past their line, fails here.
func TestPortHotLines(t *testing.T) {
	const line, hot = 64, 2 * 64
	var p port
	fields := []struct {
		name      string
		off, size uintptr
		line0     bool
	}{
		{"node", unsafe.Offsetof(p.node), unsafe.Sizeof(p.node), true},
		{"peer", unsafe.Offsetof(p.peer), unsafe.Sizeof(p.peer), true},
		{"host", unsafe.Offsetof(p.host), unsafe.Sizeof(p.host), true},
		{"peerHost", unsafe.Offsetof(p.peerHost), unsafe.Sizeof(p.peerHost), true},
		{"down", unsafe.Offsetof(p.down), unsafe.Sizeof(p.down), true},
		{"storming", unsafe.Offsetof(p.storming), unsafe.Sizeof(p.storming), true},
		{"wdDrop", unsafe.Offsetof(p.wdDrop), unsafe.Sizeof(p.wdDrop), true},
		{"txPending", unsafe.Offsetof(p.txPending), unsafe.Sizeof(p.txPending), true},
		{"held", unsafe.Offsetof(p.held), unsafe.Sizeof(p.held), true},
		{"strict", unsafe.Offsetof(p.strict), unsafe.Sizeof(p.strict), true},
		{"wred", unsafe.Offsetof(p.wred), unsafe.Sizeof(p.wred), true},
		{"ecn", unsafe.Offsetof(p.ecn), unsafe.Sizeof(p.ecn), true},
		{"visited", unsafe.Offsetof(p.visited), unsafe.Sizeof(p.visited), true},
		{"credit", unsafe.Offsetof(p.credit), unsafe.Sizeof(p.credit), true},
		{"rr", unsafe.Offsetof(p.rr), unsafe.Sizeof(p.rr), true},
		{"dead", unsafe.Offsetof(p.dead), unsafe.Sizeof(p.dead), false},
		{"rrFlow", unsafe.Offsetof(p.rrFlow), unsafe.Sizeof(p.rrFlow), false},
		{"rateKbps", unsafe.Offsetof(p.rateKbps), unsafe.Sizeof(p.rateKbps), false},
		{"propPs", unsafe.Offsetof(p.propPs), unsafe.Sizeof(p.propPs), false},
		{"busyUntil", unsafe.Offsetof(p.busyUntil), unsafe.Sizeof(p.busyUntil), false},
		{"lastArrive", unsafe.Offsetof(p.lastArrive), unsafe.Sizeof(p.lastArrive), false},
		{"wakeAt", unsafe.Offsetof(p.wakeAt), unsafe.Sizeof(p.wakeAt), false},
		{"capKbps", unsafe.Offsetof(p.capKbps), unsafe.Sizeof(p.capKbps), false},
		{"capFree", unsafe.Offsetof(p.capFree), unsafe.Sizeof(p.capFree), false},
		{"flows", unsafe.Offsetof(p.flows), unsafe.Sizeof(p.flows), false},
		{"queueOf", unsafe.Offsetof(p.queueOf), unsafe.Sizeof(p.queueOf), true},
		{"pgOf", unsafe.Offsetof(p.pgOf), unsafe.Sizeof(p.pgOf), true},
	}
	for _, f := range fields {
		if f.line0 && f.off+f.size > line {
			t.Errorf("port.%s ends at byte %d, past the first cache line (%d): a switch's ingress reads it with the port's identity", f.name, f.off+f.size, line)
		}
		if f.off+f.size > hot {
			t.Errorf("port.%s ends at byte %d, past the first two cache lines (%d): every hop reads it", f.name, f.off+f.size, hot)
		}
	}
	if off := unsafe.Offsetof(p.lane); off != hot {
		t.Errorf("port.lane starts at byte %d, not right after the two hot lines (%d)", off, hot)
	}
}
