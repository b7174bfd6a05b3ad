package fabric

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/labctl/labctl/orchestrator/sizing"
)

// The plan's bill of materials is what Build builds: over a grid of sizes,
// speeds, layouts and tiers, every cable and optic count equals the one
// counted on the built graph, every switch fits its ports, and the worst
// leaf's oversubscription is the one the plan reports. (Leaf-spine cables
// counted the unused lane of a broken-out leaf port, and a partly empty
// last pod's spines were counted with a full pod's ports.)
func TestPlanBOMMatchesBuild(t *testing.T) {
	gpus := []int{7, 40, 259, 1025, 2049, 4097}
	if testing.Short() {
		gpus = []int{40, 1025}
	}
	built := 0
	for _, n := range gpus {
		for _, gps := range []int{8, 3} {
			for _, nic := range []int{100, 400} {
				for _, speeds := range [][2]int{{400, 400}, {800, 400}, {400, 800}} {
					for _, os := range []float64{1, 1.5, 3} {
						for _, layout := range []sizing.Layout{sizing.LayoutToR, sizing.LayoutRail} {
							for _, tiers := range []int{0, 3} {
								in := sizing.Input{GPUs: n, GPUsPerServer: gps, NICSpeedGbps: nic, LeafSpeedGbps: speeds[0], SpineSpeedGbps: speeds[1],
									Oversubscription: os, Layout: layout, Tiers: tiers}.Normalize()
								p, err := sizing.Compute(in)
								if err != nil {
									var fe *sizing.FitError
									if !errors.As(err, &fe) {
										t.Fatalf("%+v: %v", in, err)
									}
									continue
								}
								g, err := Build(spec("bom", NOSSonic), p)
								if err != nil {
									t.Fatalf("%+v: %v", in, err)
								}
								checkBOM(t, in, p, g)
								built++
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d plans built and counted", built)
}

// checkBOM counts cables (one per link, merged lab links counted by their
// members) and optics (one per switch port, a broken-out port once; one
// per NIC) on g and compares them with p.
func checkBOM(t *testing.T, in sizing.Input, p *sizing.Plan, g *Graph) {
	t.Helper()
	ports := func(links, speed, portSpeed int) int { // switch ports links of speed take
		return (links*speed + portSpeed - 1) / portSpeed
	}
	cables := map[LinkKind]int{}
	for _, l := range g.Links {
		cables[l.Kind] += l.Merged
		want := p.NICSpeedGbps
		switch l.Kind {
		case KindLeafSpine:
			want = p.Leaf.UplinkSpeedGbps
		case KindSpineSuperSpine:
			want = p.Spine.PortSpeedGbps
		}
		if l.MemberSpeedGbps != want {
			t.Fatalf("%+v: %s link %s-%s at %dG, plan says %dG", in, l.Kind, l.A.Node, l.B.Node, l.MemberSpeedGbps, want)
		}
	}
	optics := map[string]int{}
	worst := 0.0
	for _, n := range g.Switches() {
		links := map[Role]int{} // member links by the peer's role
		speed := map[Role]int{}
		for _, pt := range n.Ports {
			r := g.Node(pt.Peer).Role
			links[r] += pt.Merged
			speed[r] = pt.SpeedGbps / pt.Merged
		}
		var used, have int
		switch n.Role {
		case RoleLeaf:
			down := ports(links[RoleHost], p.NICSpeedGbps, in.LeafSpeedGbps)
			up := ports(links[RoleSpine], speed[RoleSpine], in.LeafSpeedGbps)
			optics["server-leaf/leaf"] += down
			optics["leaf-spine/leaf"] += up
			used, have = down+up, in.LeafPorts
			if links[RoleSpine] > 0 {
				worst = math.Max(worst, float64(links[RoleHost]*p.NICSpeedGbps)/float64(links[RoleSpine]*speed[RoleSpine]))
			}
		case RoleSpine:
			down := ports(links[RoleLeaf], speed[RoleLeaf], in.SpineSpeedGbps)
			up := ports(links[RoleSuperSpine], speed[RoleSuperSpine], in.SpineSpeedGbps)
			optics["leaf-spine/spine"] += down
			optics["spine-super-spine/spine"] += up
			used, have = down+up, in.SpinePorts
		case RoleSuperSpine:
			used, have = ports(links[RoleSpine], speed[RoleSpine], in.SpineSpeedGbps), in.SpinePorts
			optics["spine-super-spine/super-spine"] += used
		}
		if used > have {
			t.Fatalf("%+v: %s is built with %d of its %d ports", in, n.Name, used, have)
		}
	}
	optics["server-leaf/nic"] = cables[KindHostLeaf]
	for _, o := range p.Optics {
		if key := o.Where + "/" + o.Side; optics[key] != o.Count {
			t.Errorf("%+v: optics %s: plan %d, built %d", in, key, o.Count, optics[key])
		}
	}
	if got, want := fmt.Sprint(cables[KindHostLeaf], cables[KindLeafSpine], cables[KindSpineSuperSpine], optics["server-leaf/leaf"]),
		fmt.Sprint(p.Cables.ServerLeaf, p.Cables.LeafSpine, p.Cables.SpineSuperSpine, p.Cables.BreakoutServerLeaf); got != want {
		t.Errorf("%+v: server-leaf, leaf-spine, spine-super-spine cables and server-leaf switch ports built %s, plan %s", in, got, want)
	}
	if p.Tiers > 1 && math.Abs(worst-p.Oversubscription.Actual) > 0.0051 { // the plan rounds to 2 decimals
		t.Errorf("%+v: the worst leaf is built at %.3f:1, plan says %.2f:1", in, worst, p.Oversubscription.Actual)
	}
}

// Rail plans whose server groups span pods (spines smaller than twice the
// rails) are built as planned: every cable and optic, every switch's
// ports, and each server's NICs in the pods the plan says.
func TestPlanBOMMatchesBuildRailsAcrossPods(t *testing.T) {
	spanned := 0
	for _, in := range []sizing.Input{
		{GPUs: 512, LeafPorts: 16, SpinePorts: 8},
		{GPUs: 2048, LeafPorts: 32, SpinePorts: 12},
		{GPUs: 1000, LeafPorts: 16, SpinePorts: 12},
		{GPUs: 128, LeafPorts: 8, SpinePorts: 8, NICSpeedGbps: 400},
	} {
		in.Layout = sizing.LayoutRail
		in = in.Normalize()
		p, err := sizing.Compute(in)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		g, err := Build(spec("bom", NOSSonic), p)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		checkBOM(t, in, p, g)
		if p.Leaf.RailGroupPods > 1 {
			spanned++
		}
	}
	if spanned == 0 {
		t.Fatal("no plan's rail groups span pods")
	}
}
