package sim

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestParkedNICSchedulesNoTxDone: leaving out the TxDone of a NIC whose QPs
// are all parked (nicMayHaveData) changes no result, only the number of
// events, on runs that park QPs and wake them in every way the engine does:
// an incast's receiver sending only ACKs, a ring AllReduce's steps, a
// program's posted messages, senders held back by a tx depth, a PFC storm
// with its watchdog, a link failure with a go-back-N retransmission, and
// the mixed scenario with DCQCN. A wake that forgot to kick its NIC would
// leave a QP silent here, and its flows short of their bytes.
func TestParkedNICSchedulesNoTxDone(t *testing.T) {
	ranks := ringRanks(2, 4)
	ring := Config{
		Topology:   leafSpine(2, 2, 4, 100, 100),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		Flows:      RingAllReduceFlows("ar", ranks, 2<<20, 26),
		DurationNs: 5_000_000,
		Seed:       3,
	}
	failure := twoSpines()
	failure.Faults = []LinkFault{{Link: PortRef{"spine0", "Ethernet1"}, DownNs: 200_000, UpNs: 700_000, DetectNs: 10_000, ConvergeNs: 50_000}}
	// Senders held back by their tx depth park between ACKs, and only an
	// ACK (or a timeout) wakes them.
	window := incastConfig(4, true, false, false, 1_000_000)
	for i := range window.Flows {
		window.Flows[i].MessageBytes, window.Flows[i].TxDepth = 4096, 2
	}
	for _, tc := range []struct {
		name  string
		cfg   Config
		fewer bool // the run must have events to save
	}{
		{"incast PFC", incastConfig(incastN, true, false, false, 2_000_000), true},
		{"incast DCQCN", incastConfig(incastN, true, true, true, 2_000_000), true},
		{"tx depth", window, true},
		{"ring allreduce", ring, false},
		{"rail ring program", railRingConfig(4, 4<<20), false},
		{"pfc storm", stormConfig(&Watchdog{DetectionNs: 1_000_000, RestorationNs: 5_000_000, PollNs: 100_000, Action: "drop"}), false},
		{"link failure", failure, false},
		{"mixed", mixedConfig(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(always bool) *Result {
				return runSim(t, tc.cfg, func(s *sim) { s.txDoneAlways = always }).result()
			}
			lean, full := run(false), run(true)
			if lean.Events > full.Events || tc.fewer && lean.Events == full.Events {
				t.Errorf("%d events against %d with every TxDone", lean.Events, full.Events)
			}
			lean.Events, full.Events = 0, 0
			a, _ := json.Marshal(lean)
			b, _ := json.Marshal(full)
			if !bytes.Equal(a, b) {
				t.Errorf("results differ without the parked NICs' TxDones (%d against %d bytes of JSON)", len(a), len(b))
			}
			if lean.Totals.BytesDelivered == 0 {
				t.Error("nothing was delivered")
			}
		})
	}
}
