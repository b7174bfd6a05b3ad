package qos

import (
	"fmt"
	"testing"
)

// The egress lossless pool holds all that ingress admits to the PGs (the
// ingress pool, its shared headroom pool and the PGs' reserves), in the
// configs labctl renders (sizeEgressLossless, from the intent) and in a
// platform's assumed buffer (holdIngressAtEgress, from the ports once
// AttachTopology knows them all): a pool below it drops at egress what
// PFC holds lossless at ingress.
func TestEgressLosslessHoldsWhatIngressAdmits(t *testing.T) {
	in, err := Profile("")
	if err != nil {
		t.Fatal(err)
	}
	dev := Device{Name: "sw"}
	for i := range 64 {
		dev.Ports = append(dev.Ports, Port{Name: fmt.Sprintf("Ethernet%d", 4*i), SpeedGbps: 400, Fabric: true})
	}
	dc, err := Apply(in, dev)
	if err != nil {
		t.Fatal(err)
	}
	pl := dc.Pool(EgressLosslessPool)
	if pl == nil || pl.SizeBytes < dc.ingressAdmitsBytes() {
		t.Fatalf("rendered: egress lossless pool %+v, ingress admits %d", pl, dc.ingressAdmitsBytes())
	}

	// A platform's assumed buffer, its egress pool sized to the two
	// ingress pools alone (as EOS's is before the ports are known): the
	// 64 ports' lossless reserves are added. A config's own pools are
	// its own, not resized.
	two := dc.IngressPoolBytes() + Val(dc.Pool(IngressLosslessPool).HeadroomPoolBytes)
	if dc.ingressAdmitsBytes() <= two {
		t.Fatalf("the PGs reserve nothing (ingress admits %d, the pools %d): the test would show nothing", dc.ingressAdmitsBytes(), two)
	}
	for _, assumed := range []bool{true, false} {
		c := dc
		c.Pools = append([]PoolConfig(nil), dc.Pools...)
		c.PlatformBuffer = assumed
		c.Pool(EgressLosslessPool).SizeBytes = two
		cfgs := []DeviceConfig{c}
		AttachTopology(cfgs, []Device{dev}, in)
		want := two
		if assumed {
			want = cfgs[0].ingressAdmitsBytes()
		}
		if got := cfgs[0].Pool(EgressLosslessPool).SizeBytes; got != want {
			t.Errorf("platform buffer %v: egress lossless pool %d, want %d", assumed, got, want)
		}
	}
}
