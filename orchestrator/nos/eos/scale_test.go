package eos

import (
	"fmt"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// bigSwitch renders a switch of n 400G ports with the lab profile's QoS:
// the QoS running-config of a large chassis.
func bigSwitch(tb testing.TB, n int) []byte {
	tb.Helper()
	in, err := qos.Profile("roce-dcqcn")
	if err != nil {
		tb.Fatal(err)
	}
	dev := qos.Device{Name: "leaf1", Role: "leaf"}
	for i := range n {
		dev.Ports = append(dev.Ports, qos.Port{Name: InterfaceName(i + 1), SpeedGbps: 400, CableM: 5, Peer: fmt.Sprintf("h%d:eth1", i), Fabric: true})
	}
	dc, err := qos.Apply(in, dev)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := Render(dc)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestParseLargeSwitch: every port of a large switch resolves, each
// through its service-profile (BenchmarkParseLargeSwitch measures the
// parse, which must stay linear in ports).
func TestParseLargeSwitch(t *testing.T) {
	data := bigSwitch(t, 1000)
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if len(dc.Ports) != 1000 {
		t.Fatalf("%d ports, want 1000", len(dc.Ports))
	}
	last := dc.Port(InterfaceName(1000))
	if last == nil || !last.Class(3).Lossless || last.Queue(3).ECN == nil {
		t.Errorf("last port = %+v", last)
	}
}

func BenchmarkParseLargeSwitch(b *testing.B) {
	data := bigSwitch(b, 3000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}
