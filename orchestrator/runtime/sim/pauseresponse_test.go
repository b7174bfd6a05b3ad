package sim

import (
	"fmt"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// The headroom formula's frames are what the simulator charges a buffer
// (the payload MTU plus the same wire overhead), and its switch pipeline
// the simulator's switches'.
func TestHeadroomFramesAreTheSimulatorsWireBytes(t *testing.T) {
	if qos.RoCEWireOverheadBytes != engine.WireOverheadBytes {
		t.Errorf("qos.RoCEWireOverheadBytes %d, sim.WireOverheadBytes %d: the headroom lint sizes and the bytes a run charges would differ", qos.RoCEWireOverheadBytes, engine.WireOverheadBytes)
	}
	if qos.SwitchPipelineNs != engine.DefaultSwitchJitterNs {
		t.Errorf("qos.SwitchPipelineNs %d, sim.DefaultSwitchJitterNs %d: the headroom lint sizes and the pipeline a run's switches have would differ", qos.SwitchPipelineNs, engine.DefaultSwitchJitterNs)
	}
}

// The lab's ports take the PAUSE response lint sizes headroom for: each
// speed's IEEE bound by default, the lab's pause_response_quanta where it
// gives one, none at 0 (as HPCC's ns-3 and htsim model them). A lossless
// profile whose xoff holds the formula's headroom for that response loses
// nothing in an 8:1 PFC-only incast. One of 16000 bytes, below the IEEE
// bound's 35531 at 100G over 5 m but above what arrives where ports obey
// at once (two frames, the PFC frame, the cable both ways, a frame more
// for deciding on whole packets and the switches' pipeline jitter: some
// 15,700 bytes), loses packets where ports take the bound and none where
// they obey at once: the run tells the two apart as lint does.
func TestPauseResponseReachesTheRun(t *testing.T) {
	for _, tt := range []struct {
		name       string
		key        string
		wantBits   int
		dropsShort bool
	}{
		{"IEEE bound", "", 394 * 512, true},
		{"at once", "  pause_response_quanta: 0\n", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := upSpec(t, nineHosts+tt.key, "sonic")
			in, err := l.Intent()
			if err != nil {
				t.Fatal(err)
			}
			vs := incast8(t, l, "duration: 1ms", false, true)
			// The links the simulator gets carry the response.
			_, cfg := engineConfig(t, l, vs)
			for _, lk := range cfg.Topology.Links {
				if lk.PauseResponseBits != tt.wantBits {
					t.Fatalf("link %s-%s: PAUSE response %d bit times, want %d", lk.A, lk.B, lk.PauseResponseBits, tt.wantBits)
				}
			}
			need := qos.HeadroomBytes(100, 4096, 5, qos.PauseResponseBits(&in, 100))
			if v := runVariant(t, l, vs); v.Summary.Drops != 0 {
				t.Errorf("the rendered profile (xoff %d, the formula's) dropped %d packets", need, v.Summary.Drops)
			}
			editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
				for name, p := range doc["BUFFER_PROFILE"] {
					if p["xoff"] != "" {
						if p["xoff"] != fmt.Sprint(need) {
							t.Fatalf("profile %s: xoff %s, not the formula's %d", name, p["xoff"], need)
						}
						p["xoff"] = "16000"
						p["size"] = fmt.Sprint(16000 + 8192)
					}
				}
			})
			v := runVariant(t, l, vs)
			if got := v.Summary.Drops > 0; got != tt.dropsShort {
				t.Errorf("xoff 16000 (the formula's %d): %d drops, want drops %v", need, v.Summary.Drops, tt.dropsShort)
			}
		})
	}
}
