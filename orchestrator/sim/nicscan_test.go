package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// A NIC whose round-robin QPs are all paused skips the scan of them
// (nicSend) and parks its suspects instead: the result must be the one of
// scanning at every turn, byte for byte, and the skip must happen where
// many QPs per NIC meet PFC.
func TestNICScanSkipSameResult(t *testing.T) {
	var ranks []string
	for l := range 2 {
		for h := range 8 {
			ranks = append(ranks, fmt.Sprintf("h%d-%d", l, h))
		}
	}
	// Every NIC a QP to each of the 15 others, on switches with small
	// buffers: PFC pauses the NICs while ACKs keep kicking them.
	a2a := func(ecn, dcqcn bool, faults ...LinkFault) Config {
		cfg := Config{
			Topology: leafSpine(2, 2, 8, 100, 100), DefaultQoS: losslessQoS(true, ecn, 20_000, 80_000),
			DurationNs: 3_000_000, Seed: 1, DCQCN: PaperDCQCN(100), DCQCNEnabled: dcqcn,
			AllToAll: []AllToAll{{ID: "a2a", Ranks: ranks, Bytes: 256 << 10, DSCP: 26}},
			Faults:   faults,
		}
		for i := range cfg.Topology.Nodes {
			if cfg.Topology.Nodes[i].Kind == Switch {
				cfg.Topology.Nodes[i].BufferBytes = 300_000
			}
		}
		return cfg
	}
	partitioned := a2a(false, false)
	partitioned.Partitions, partitioned.Threads = 4, 2
	// Several QPs per NIC with a tx depth, their messages acknowledged
	// one by one, beside a lossy priority that drops and goes back N on
	// the same NICs.
	mixed := incastConfig(6, true, false, false, 2_000_000)
	mixed.DefaultQoS = map[int]PortQoS{3: {PFC: true}, 6: {Strict: true}}
	for i := range mixed.Topology.Nodes {
		if mixed.Topology.Nodes[i].Kind == Switch {
			mixed.Topology.Nodes[i].BufferBytes = 400_000
		}
	}
	for i := range 6 {
		src := fmt.Sprintf("h%d", i+1)
		for q := range 3 {
			mixed.Flows = append(mixed.Flows,
				Flow{ID: fmt.Sprintf("ll%d-%d", i, q), Src: src, Dst: "h0", DSCP: 26, MessageBytes: 16 << 10, TxDepth: 2},
				Flow{ID: fmt.Sprintf("lossy%d-%d", i, q), Src: src, Dst: "h0", DSCP: 10, Bytes: 256 << 10})
		}
	}
	// Short lossy QPs on each NIC finish early; once compact drops their
	// priority the NICs' lossless QPs, paused by the incast, skip scans.
	shortFirst := incastConfig(6, true, false, false, 2_000_000)
	shortFirst.DefaultQoS = map[int]PortQoS{3: {PFC: true}, 6: {Strict: true}}
	for i := range 6 {
		for q := range 20 {
			shortFirst.Flows = append(shortFirst.Flows, Flow{ID: fmt.Sprintf("short%d-%d", i, q), Src: fmt.Sprintf("h%d", i+1), Dst: "h0", DSCP: 10, Bytes: 8 << 10})
		}
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		skip bool // scans must be skipped
	}{
		{"all-to-all, PFC", a2a(false, false), true},
		{"all-to-all, PFC, ECN and DCQCN", a2a(true, true), true},
		{"all-to-all, PFC, 4 partitions on 2 threads", partitioned, true},
		// Packets lost on the wire: go-back-N, and ACKs past what it
		// resent (port.suspects).
		{"all-to-all, PFC, a link failure", a2a(false, false, LinkFault{Link: PortRef{"spine0", "Ethernet0"}, DownNs: 300_000, UpNs: 900_000, DetectNs: 20_000, ConvergeNs: 50_000}), true},
		{"lossless and lossy QPs on each NIC", mixed, false},
		{"lossy QPs done first", shortFirst, true},
		{"mixed", mixedConfig(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(always bool) (*Result, int64) {
				s := runSim(t, tc.cfg, func(s *sim) { s.scanAlways = always })
				return s.result(), s.scansSkipped
			}
			lean, skipped := run(false)
			full, _ := run(true)
			if tc.skip && skipped == 0 {
				t.Error("no scan was skipped")
			}
			a, _ := json.Marshal(lean)
			b, _ := json.Marshal(full)
			if !bytes.Equal(a, b) {
				t.Errorf("results differ with scans skipped (%d of them): %d against %d bytes of JSON", skipped, len(a), len(b))
			}
			if lean.Totals.BytesDelivered == 0 {
				t.Error("nothing was delivered")
			}
			t.Logf("%d scans skipped; %d drops, %d pause frames, %d retransmits", skipped, lean.Totals.Drops, lean.Totals.PauseFrames, lean.Totals.Retransmits)
		})
	}
}
