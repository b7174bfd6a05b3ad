package sizing

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A pod of a 3-tier rail fabric holds as many leaves as a spine takes
// links from, half its ports: with spines smaller than twice the rails
// (8-port spines under 8 rails: pods of 4 leaves) a server group's rail
// leaves span pods. The plan says so, in rail_group_pods, the table's
// pods row and a warning naming the cost (the traffic between server
// groups on a rail, and between a group's rails in other pods, crosses
// the super-spines) and the fix; it used to plan the same fabric without
// a word. The placement agrees: a server's NICs, one per rail, land in
// that many pods.
func TestRailGroupsSpanPods(t *testing.T) {
	p, err := Compute(Input{GPUs: 512, Layout: LayoutRail, LeafPorts: 16, SpinePorts: 8})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tiers != 3 || p.Leaf.PerPod != 4 || p.Leaf.Rails != 8 || p.Leaf.RailGroupPods != 2 {
		t.Fatalf("512 GPUs on 16-port leaves and 8-port spines: %d tiers, pods of %d leaves, %d rails, rail_group_pods %d; want 3, 4, 8, 2",
			p.Tiers, p.Leaf.PerPod, p.Leaf.Rails, p.Leaf.RailGroupPods)
	}
	want := "rail layout: a pod holds 4 leaves but a server group has 8 rail leaves, so each group's rails span 2 pods: all rail traffic between server groups (NIC i to NIC i of a server in another group) and traffic between a group's rails in different pods cross the super-spine tier (leaf, spine, super-spine, spine, leaf: 5 switch hops where a pod's spines take 3), and the super-spines carry it; spines of 16 ports or more, or servers with fewer NICs (rails), keep a group's rails in one pod"
	if !strings.Contains(strings.Join(p.Warnings, "\n"), want) {
		t.Errorf("warnings lack %q:\n%s", want, strings.Join(p.Warnings, "\n"))
	}
	var b bytes.Buffer
	if err := WriteTable(&b, p); err != nil || !strings.Contains(b.String(), "8 (4 leaves and 8 spines each); a server group's 8 rail leaves span 2 pods\n") {
		t.Errorf("table (%v):\n%s", err, b.String())
	}
	// The fix the warning names keeps each group's rails in one pod.
	fixed, err := Compute(Input{GPUs: 512, Layout: LayoutRail, LeafPorts: 16, SpinePorts: 16})
	if err != nil || fixed.Leaf.RailGroupPods != 1 || strings.Contains(strings.Join(fixed.Warnings, "\n"), "span") {
		t.Errorf("16-port spines: %v, rail_group_pods %d, warnings %v", err, fixed.Leaf.RailGroupPods, fixed.Warnings)
	}

	spanned, planned := 0, 0
	for _, gpus := range []int{64, 256, 512, 1000, 2048} {
		for _, gps := range []int{8, 4} {
			for _, leafPorts := range []int{8, 16, 32} {
				for _, spinePorts := range []int{6, 8, 12, 16, 32} {
					for _, spineSpeed := range []int{400, 800} {
						in := Input{GPUs: gpus, GPUsPerServer: gps, Layout: LayoutRail, LeafPorts: leafPorts, SpinePorts: spinePorts, SpineSpeedGbps: spineSpeed}.Normalize()
						p, err := Compute(in)
						if err != nil {
							var fe *FitError
							if !errors.As(err, &fe) {
								t.Fatalf("%+v: %v", in, err)
							}
							continue
						}
						planned++
						span := 0
						for _, s := range p.Placement {
							pods := map[int]bool{}
							for _, leaf := range s.Leaves {
								pods[(leaf-1)/p.Leaf.PerPod] = true
							}
							span = max(span, len(pods))
						}
						warned := strings.Contains(strings.Join(p.Warnings, "\n"), "rails span")
						if p.Leaf.RailGroupPods != span || warned != (span > 1) {
							t.Errorf("%+v: rail_group_pods %d, a server's NICs span %d pods, warned %v", in, p.Leaf.RailGroupPods, span, warned)
						}
						if span <= 1 {
							continue
						}
						spanned++
						// The spines the warning names hold a group in a pod.
						var need int
						w := p.Warnings[len(p.Warnings)-1]
						for _, x := range p.Warnings {
							if strings.Contains(x, "rails span") {
								w = x
							}
						}
						if _, err := fmt.Sscanf(w[strings.Index(w, "spines of "):], "spines of %d ports", &need); err != nil {
							t.Fatalf("%q: %v", w, err)
						}
						in.SpinePorts = need
						if f, err := Compute(in); err == nil && f.Leaf.RailGroupPods != 1 {
							t.Errorf("%+v: the spines the warning names still span %d pods", in, f.Leaf.RailGroupPods)
						}
					}
				}
			}
		}
	}
	t.Logf("%d rail plans, %d with groups across pods", planned, spanned)
	if spanned == 0 {
		t.Fatal("no plan spans pods: the grid checks nothing")
	}
}
