package nos

import (
	"fmt"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// bigSwitch renders, in n's config format, a switch of ports 400G ports
// with the lab profile's QoS: a large chassis (3000 ports of SONiC are
// about 4 MB of config_db, labctl's size limit).
func bigSwitch(tb testing.TB, n NOS, ports int) []byte {
	tb.Helper()
	in, err := qos.Profile("roce-dcqcn")
	if err != nil {
		tb.Fatal(err)
	}
	dev := qos.Device{Name: "leaf1", Role: "leaf"}
	for i := range ports {
		dev.Ports = append(dev.Ports, qos.Port{Name: n.InterfaceName(i + 1), SpeedGbps: 400, CableM: 5, Peer: fmt.Sprintf("h%d:eth1", i), Fabric: true})
	}
	dc, err := qos.Apply(in, dev)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := n.RenderQoS(dc)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestParseLargeSwitch: every port of a large switch resolves, in each
// NOS (BenchmarkParseLargeSwitch measures the parse, which must stay
// linear in ports: SONiC's resolver indexes its per-port tables).
func TestParseLargeSwitch(t *testing.T) {
	for _, name := range Names() {
		n, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		dc, err := n.ParseQoS("leaf1", qos.Source{Name: "leaf1" + n.ConfigExt(), Data: bigSwitch(t, n, 1000)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(dc.Ports) != 1000 {
			t.Fatalf("%s: %d ports, want 1000", name, len(dc.Ports))
		}
		last := dc.Port(n.InterfaceName(1000))
		if last == nil || !last.Class(3).Lossless || last.Queue(3).ECN == nil {
			t.Errorf("%s: last port = %+v", name, last)
		}
	}
}

func BenchmarkParseLargeSwitch(b *testing.B) {
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			n, err := Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			data := bigSwitch(b, n, 3000)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := n.ParseQoS("leaf1", qos.Source{Name: "leaf1" + n.ConfigExt(), Data: data}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
