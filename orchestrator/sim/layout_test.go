package sim

import (
	"reflect"
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
	const line = cacheLine
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
// switch's ingress port reads (identity, flags, PG map) in the first line
// alone. A field moved out of the header, or one added before these that
// pushes them past their line, fails here.
func TestPortHotLines(t *testing.T) {
	const line, hot = 64, 2 * 64
	pt := reflect.TypeFor[port]()
	fieldsWithin(t, pt, "line 0, where a switch's ingress reads the port's identity", 0, line,
		"node", "peer", "host", "peerHost", "down", "storming", "wdDrop", "txPending",
		"held", "strict", "wred", "ecn", "visited", "credit", "rr", "queueOf", "pgOf", "capped")
	fieldsWithin(t, pt, "the two lines every hop reads", 0, hot,
		"dead", "rrFlow", "rateKbps", "propPs", "busyUntil", "lastArrive",
		"wakeAt", "serFull", "capFree", "flows")
	if off := unsafe.Offsetof(port{}.lane); off != hot {
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
	const line = cacheLine
	ft := reflect.TypeFor[flowState]()
	if n := ft.Size(); n%line != 0 {
		t.Errorf("flowState is %d bytes, not a multiple of the %d-byte cache line: fix the padding at its end", n, line)
	}
	fieldsWithin(t, ft, "lines 0-1, sending", 0, 2*line,
		"f", "src", "dst", "prio", "dscp", "started", "sendDone", "hashFwd", "total", "msg",
		"perMsg", "avail", "winEnd", "sndNxt", "sndMax", "nextAvail", "lastSend", "lastWire", "rp", "retx")
	fieldsWithin(t, ft, "line 2, ACKs back", 2*line, 3*line,
		"sndUna", "lastProgress", "retriesLeft", "naksRecv", "cnpsRecv", "depthPkts")
	fieldsWithin(t, ft, "lines 3-4, receiving", 3*line, 5*line,
		"rcvNxt", "pendingAck", "lastAck", "delivered", "winBytes", "completeAt", "hashRev", "hist", "ring", "stream")
}

// fieldsWithin fails t for each named field of struct type typ that does
// not lie wholly within bytes [from, to) (what names that span), or that
// typ does not have (a rename: update the list).
func fieldsWithin(t *testing.T, typ reflect.Type, what string, from, to uintptr, names ...string) {
	t.Helper()
	for _, name := range names {
		f, ok := typ.FieldByName(name)
		if !ok {
			t.Errorf("%s has no field %s: update the test's list", typ.Name(), name)
			continue
		}
		if end := f.Offset + f.Type.Size(); f.Offset < from || end > to {
			t.Errorf("%s.%s is at bytes %d-%d, outside %s (bytes %d-%d)", typ.Name(), name, f.Offset, end, what, from, to)
		}
	}
}

// TestPrefetchNextBySize: the engine reads ahead on fabrics whose ports
// outgrow a core's cache (the 1024-host permutation's 4096 ports), where it
// saved 12-16% of the CPU, and not on small ones (the incast's 18 ports, a
// 64-NIC leaf-spine), where it cost 4%. A change to the port's size moves
// where the line falls: re-measure then (prefetchPortBytes).
func TestPrefetchNextBySize(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want bool
	}{
		{"incast", incastConfig(8, true, false, false, 1_000_000), false},
		{"64 NICs", permutationConfig(2, 2, 1, 32), false},
		{"1024 NICs", permutationConfig(32, 16, 1, 32), true},
	} {
		cfg := tc.cfg
		s, err := newSim(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.prefetchNext != tc.want {
			t.Errorf("%s (%d ports, %d KiB): prefetchNext %v, want %v", tc.name, len(s.ports), len(s.ports)*int(unsafe.Sizeof(port{}))>>10, s.prefetchNext, tc.want)
		}
	}
}

// TestSerMatchesSerPs: the engine's serialization times (ser, which reads
// a port's serFull for a full-size data packet) are serPs's on every port,
// with each port's clock skew and for MTUs other than the default, so the
// shortcut can never move a packet in time.
func TestSerMatchesSerPs(t *testing.T) {
	for _, mtu := range []int{0, 1024, 9000} {
		cfg := permutationConfig(2, 2, 1, 4)
		cfg.MTU = mtu
		s, err := newSim(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		full := s.fullWire()
		for pi := range s.ports {
			p := &s.ports[pi]
			for _, w := range []int64{full, full - 1, full + 1, PauseWireBytes, 64, 1} {
				if got, want := s.ser(p, w), p.serPs(w); got != want {
					t.Fatalf("MTU %d, port %s (%d kb/s): ser(%d) = %d ps, serPs = %d ps", mtu, p.ref, p.rateKbps, w, got, want)
				}
			}
		}
	}
}

// TestPartitionStateOwnLines keeps what each partition of a parallel run
// writes, and allocates on its own (its random generator, its partition
// record, the window pool's counter of each thread's home), a whole number of cache lines, so that the runtime's size class
// gives each one lines of its own: two threads writing state of two
// partitions in one line pass it back and forth (the 1024-host
// permutation took 11% more CPU on 2 threads so). The sim itself is a
// large object in a size class of whole lines (1536 bytes at 1472).
func TestPartitionStateOwnLines(t *testing.T) {
	for _, c := range []struct {
		what string
		size uintptr
	}{
		{"simRand", unsafe.Sizeof(simRand{})},
		{"partition", unsafe.Sizeof(partition{})},
		{"home (the window pool's per-thread counter)", unsafe.Sizeof(home{})},
	} {
		if c.size%cacheLine != 0 {
			t.Errorf("%s is %d bytes, not a multiple of the %d-byte cache line: fix its padding", c.what, c.size, cacheLine)
		}
	}
	// Two generators made one after the other on the heap, as split
	// makes them, do not share a line.
	escapedRands = []*simRand{newSimRand(1, 1), newSimRand(1, 2)}
	pa, pb := uintptr(unsafe.Pointer(escapedRands[0])), uintptr(unsafe.Pointer(escapedRands[1]))
	if pa/cacheLine == pb/cacheLine || pa%cacheLine != 0 {
		t.Errorf("generators at %#x and %#x share a cache line or are not line aligned", pa, pb)
	}
}

// escapedRands keeps TestPartitionStateOwnLines's generators on the heap
// (on the test's stack they would be laid out as the compiler likes).
var escapedRands []*simRand
