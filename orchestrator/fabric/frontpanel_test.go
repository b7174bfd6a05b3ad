package fabric

import "testing"

// FrontPanelNumber is PortName's inverse, and names no port for what a
// switch of the kind never creates.
func TestFrontPanelNumber(t *testing.T) {
	for _, kind := range []string{KindSonicVS, KindCEOS} {
		for n := 1; n <= 130; n++ {
			if got, ok := FrontPanelNumber(kind, PortName(kind, n)); !ok || got != n {
				t.Errorf("%s: FrontPanelNumber(%s) = %d, %v, want %d", kind, PortName(kind, n), got, ok, n)
			}
		}
	}
	for _, c := range []struct{ kind, name string }{
		{KindSonicVS, "Ethernet6"},  // not a multiple of 4: a lane, no port
		{KindSonicVS, "Ethernet08"}, // not as SONiC writes 8
		{KindSonicVS, "Ethernet-4"}, // no number
		{KindSonicVS, "Ethernet"},   // no number
		{KindSonicVS, "PortChannel1"},
		{KindCEOS, "Ethernet0"},   // EOS counts from 1
		{KindCEOS, "Ethernet1/1"}, // a breakout name cEOS never creates
		{KindCEOS, "Port-Channel1"},
		{KindSonicVS, "eth1"},
	} {
		if n, ok := FrontPanelNumber(c.kind, c.name); ok {
			t.Errorf("%s: FrontPanelNumber(%s) = %d, true, want no port", c.kind, c.name, n)
		}
	}
}

// A switch has its NOS's budget of ports, or more where the lab wires a
// larger one (a simulated lab is not held to the budget).
func TestFrontPanelPorts(t *testing.T) {
	g := &Graph{PortBudget: Budget{MaxDataPorts: 64}}
	small := &Node{Kind: KindSonicVS, Ports: []*Port{{Name: "Ethernet0"}, {Name: "Ethernet92"}}}
	large := &Node{Kind: KindSonicVS, Ports: []*Port{{Name: "Ethernet0"}, {Name: "Ethernet508"}}}
	if got := g.FrontPanelPorts(small); got != 64 {
		t.Errorf("small switch: %d front-panel ports, want the budget's 64", got)
	}
	if got := g.FrontPanelPorts(large); got != 128 {
		t.Errorf("a switch wired up to Ethernet508: %d front-panel ports, want 128", got)
	}
}
