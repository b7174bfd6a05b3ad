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

// TestFlowLayout keeps a flow's fields in the cache lines of the path that
// reads them (see flowState): a data packet sent reads lines 0-1, an ACK
// or NAK back line 2, a packet received lines 3-4. The flow array of a
// large fabric is page aligned (the runtime's large allocations), so with
// flowState a whole number of lines each group stays on its lines for
// every flow. A field moved out of its group, or one added in front that
// shifts a group across a line, fails here.
func TestFlowLayout(t *testing.T) {
	const line = 64
	var f flowState
	if n := unsafe.Sizeof(f); n%line != 0 {
		t.Errorf("flowState is %d bytes, not a multiple of the %d-byte cache line: fix the padding at its end", n, line)
	}
	groups := []struct {
		what     string
		from, to uintptr // bytes [from, to)
		fields   map[string][2]uintptr
	}{
		{"sending (lines 0-1)", 0, 2 * line, map[string][2]uintptr{
			"f": {unsafe.Offsetof(f.f), unsafe.Sizeof(f.f)}, "src": {unsafe.Offsetof(f.src), unsafe.Sizeof(f.src)},
			"dst": {unsafe.Offsetof(f.dst), unsafe.Sizeof(f.dst)}, "prio": {unsafe.Offsetof(f.prio), unsafe.Sizeof(f.prio)},
			"dscp": {unsafe.Offsetof(f.dscp), unsafe.Sizeof(f.dscp)}, "started": {unsafe.Offsetof(f.started), unsafe.Sizeof(f.started)},
			"sendDone": {unsafe.Offsetof(f.sendDone), unsafe.Sizeof(f.sendDone)}, "hashFwd": {unsafe.Offsetof(f.hashFwd), unsafe.Sizeof(f.hashFwd)},
			"total": {unsafe.Offsetof(f.total), unsafe.Sizeof(f.total)}, "msg": {unsafe.Offsetof(f.msg), unsafe.Sizeof(f.msg)},
			"perMsg": {unsafe.Offsetof(f.perMsg), unsafe.Sizeof(f.perMsg)}, "avail": {unsafe.Offsetof(f.avail), unsafe.Sizeof(f.avail)},
			"winEnd": {unsafe.Offsetof(f.winEnd), unsafe.Sizeof(f.winEnd)}, "sndNxt": {unsafe.Offsetof(f.sndNxt), unsafe.Sizeof(f.sndNxt)},
			"sndMax": {unsafe.Offsetof(f.sndMax), unsafe.Sizeof(f.sndMax)}, "nextAvail": {unsafe.Offsetof(f.nextAvail), unsafe.Sizeof(f.nextAvail)},
			"lastSend": {unsafe.Offsetof(f.lastSend), unsafe.Sizeof(f.lastSend)}, "lastWire": {unsafe.Offsetof(f.lastWire), unsafe.Sizeof(f.lastWire)},
			"rp": {unsafe.Offsetof(f.rp), unsafe.Sizeof(f.rp)}, "retx": {unsafe.Offsetof(f.retx), unsafe.Sizeof(f.retx)},
		}},
		{"ACKs back (line 2)", 2 * line, 3 * line, map[string][2]uintptr{
			"sndUna": {unsafe.Offsetof(f.sndUna), unsafe.Sizeof(f.sndUna)}, "lastProgress": {unsafe.Offsetof(f.lastProgress), unsafe.Sizeof(f.lastProgress)},
			"retriesLeft": {unsafe.Offsetof(f.retriesLeft), unsafe.Sizeof(f.retriesLeft)}, "naksRecv": {unsafe.Offsetof(f.naksRecv), unsafe.Sizeof(f.naksRecv)},
			"cnpsRecv": {unsafe.Offsetof(f.cnpsRecv), unsafe.Sizeof(f.cnpsRecv)}, "depthPkts": {unsafe.Offsetof(f.depthPkts), unsafe.Sizeof(f.depthPkts)},
		}},
		{"receiving (lines 3-4)", 3 * line, 5 * line, map[string][2]uintptr{
			"rcvNxt": {unsafe.Offsetof(f.rcvNxt), unsafe.Sizeof(f.rcvNxt)}, "pendingAck": {unsafe.Offsetof(f.pendingAck), unsafe.Sizeof(f.pendingAck)},
			"lastAck": {unsafe.Offsetof(f.lastAck), unsafe.Sizeof(f.lastAck)}, "delivered": {unsafe.Offsetof(f.delivered), unsafe.Sizeof(f.delivered)},
			"winBytes": {unsafe.Offsetof(f.winBytes), unsafe.Sizeof(f.winBytes)}, "completeAt": {unsafe.Offsetof(f.completeAt), unsafe.Sizeof(f.completeAt)},
			"hashRev": {unsafe.Offsetof(f.hashRev), unsafe.Sizeof(f.hashRev)}, "hist": {unsafe.Offsetof(f.hist), unsafe.Sizeof(f.hist)},
			"ring": {unsafe.Offsetof(f.ring), unsafe.Sizeof(f.ring)}, "stream": {unsafe.Offsetof(f.stream), unsafe.Sizeof(f.stream)},
		}},
	}
	for _, g := range groups {
		for name, at := range g.fields {
			if at[0] < g.from || at[0]+at[1] > g.to {
				t.Errorf("flowState.%s is at bytes %d-%d, outside its group, %s: bytes %d-%d", name, at[0], at[0]+at[1], g.what, g.from, g.to)
			}
		}
	}
}
