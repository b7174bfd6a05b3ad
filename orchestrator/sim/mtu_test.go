package sim

import (
	"strings"
	"testing"
)

// A switch port's MTU drops the packets it cannot carry, where they
// arrive on it and where they would leave by it, and counts them as MTU
// drops; a limit they fit passes them; the flow-level model gives a flow
// over such a port no rate.
func TestPortMTUDropsOversizePackets(t *testing.T) {
	base := func() Config {
		cfg := incastConfig(2, true, false, false, 200_000)
		cfg.Threads = 1
		return cfg
	}
	clean := mustRun(t, base())
	if clean.Totals.Drops != 0 || clean.Totals.GoodputGbps <= 0 {
		t.Fatalf("without a limit: drops %d goodput %g", clean.Totals.Drops, clean.Totals.GoodputGbps)
	}
	for _, tc := range []struct {
		name     string
		port     string // Ethernet1 faces sender h1, Ethernet0 receiver h0
		payload  int
		dropping bool
	}{
		{"the receiver's port, at egress", "Ethernet0", 1440, true},
		{"a sender's port, at ingress", "Ethernet1", 1440, true},
		{"a limit the packets fit", "Ethernet0", DefaultMTU, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			cfg.PortMaxPayload = map[PortRef]int{{Node: "sw", Port: tc.port}: tc.payload}
			r := mustRun(t, cfg)
			if !tc.dropping {
				if r.Totals.Drops != 0 || r.Totals.MTUDrops != 0 || r.Totals.GoodputGbps != clean.Totals.GoodputGbps {
					t.Errorf("drops %d (MTU %d), goodput %g, want the run without a limit's %g", r.Totals.Drops, r.Totals.MTUDrops, r.Totals.GoodputGbps, clean.Totals.GoodputGbps)
				}
				return
			}
			if r.Totals.MTUDrops == 0 || r.Totals.MTUDrops != r.Totals.Drops {
				t.Errorf("drops %d, of which over the MTU %d: want every drop an MTU drop", r.Totals.Drops, r.Totals.MTUDrops)
			}
			var at int64
			for _, p := range r.Ports {
				if p.Node == "sw" && p.Port == tc.port {
					at += p.MTUDrops
				}
			}
			if at != r.Totals.MTUDrops {
				t.Errorf("MTU drops at sw:%s %d of %d", tc.port, at, r.Totals.MTUDrops)
			}
			rates, err := FlowLevelRates(cfg)
			if err != nil {
				t.Fatal(err)
			}
			zero := 0
			for _, x := range rates {
				if x == 0 {
					zero++
				}
			}
			if want := map[string]int{"Ethernet0": 2, "Ethernet1": 1}[tc.port]; zero != want {
				t.Errorf("flow level: %d flows without a rate (%v), want %d", zero, rates, want)
			}
		})
	}
	cfg := base()
	cfg.PortMaxPayload = map[PortRef]int{{Node: "h0", Port: "eth0"}: 1000}
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "not a switch port") {
		t.Errorf("an MTU on a NIC: %v", err)
	}
}
