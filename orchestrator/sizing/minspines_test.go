package sizing

import (
	"errors"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// min_spines splits each leaf's uplinks over more spines: the same
// uplinks, the same oversubscription and leaf-spine cables, more spines,
// and the bill of materials follows.
func TestMinSpines(t *testing.T) {
	for _, c := range []struct {
		name                  string
		in                    Input
		spines, perSpine      int
		cables, spineOptics   int
		portsUsedPerSpineDown int
	}{
		{"64gpu", Input{GPUs: 64, MinSpines: 2}, 2, 8, 32, 32, 16},
		{"16gpu", Input{GPUs: 16, MinSpines: 2}, 2, 4, 8, 8, 4},
		{"64gpu 4 spines", Input{GPUs: 64, MinSpines: 4}, 4, 4, 32, 32, 8},
		{"128gpu already 2", Input{GPUs: 128, MinSpines: 2}, 2, 8, 64, 64, 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, err := Compute(Input{GPUs: c.in.GPUs})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compute(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Spine.Count != c.spines || p.Leaf.LinksPerSpine != c.perSpine || p.Cables.LeafSpine != c.cables || p.Spine.DownlinkPortsPerSpine != c.portsUsedPerSpineDown {
				t.Errorf("spines %d, links per spine %d, leaf-spine cables %d, ports per spine %d; want %d, %d, %d, %d",
					p.Spine.Count, p.Leaf.LinksPerSpine, p.Cables.LeafSpine, p.Spine.DownlinkPortsPerSpine, c.spines, c.perSpine, c.cables, c.portsUsedPerSpineDown)
			}
			if p.Leaf.UplinksPerLeaf != base.Leaf.UplinksPerLeaf || p.Oversubscription.Actual != base.Oversubscription.Actual || p.Leaf.Count != base.Leaf.Count {
				t.Errorf("uplinks %d at %v:1 over %d leaves, want the plan's own %d at %v:1 over %d", p.Leaf.UplinksPerLeaf, p.Oversubscription.Actual, p.Leaf.Count,
					base.Leaf.UplinksPerLeaf, base.Oversubscription.Actual, base.Leaf.Count)
			}
			spineSide := 0
			for _, o := range p.Optics {
				if o.Where == "leaf-spine" && o.Side == "spine" {
					spineSide = o.Count
				}
			}
			if spineSide != c.spineOptics || p.SwitchCount() != p.Leaf.Count+c.spines {
				t.Errorf("spine-side optics %d, switches %d", spineSide, p.SwitchCount())
			}
			for _, w := range p.Warnings {
				if strings.Contains(w, "single point of failure") {
					t.Errorf("warns of a single spine with %d spines: %s", p.Spine.Count, w)
				}
			}
		})
	}
	// 3 tiers: at least that many spines per pod.
	p, err := Compute(Input{GPUs: 4096, LeafPorts: 64, SpinePorts: 64, Tiers: 3, MinSpines: 20})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tiers != 3 || p.Spine.PerPod < 20 || p.Spine.Count != p.Spine.PerPod*p.Pods {
		t.Errorf("3 tiers, min 20 per pod: %d tiers, %d spines per pod in %d pods (%d in all)", p.Tiers, p.Spine.PerPod, p.Pods, p.Spine.Count)
	}
	// 1 asked for: no warning.
	if p, _ := Compute(Input{GPUs: 64, MinSpines: 1}); p == nil || p.Spine.Count != 1 || len(p.Warnings) != 0 {
		t.Errorf("min_spines 1: %+v", p)
	}
}

// The single-spine warning gives the fix and what it plans.
func TestSingleSpineWarning(t *testing.T) {
	p, err := Compute(Input{GPUs: 64})
	if err != nil {
		t.Fatal(err)
	}
	want := "1 spine: every leaf uplink ends on it, a single point of failure for traffic between leaves (fix: --min-spines 2, or min_spines: 2 in the lab spec's sizing, plans 2 spines at 1.00:1 with 32 leaf-spine cables)"
	if len(p.Warnings) != 1 || p.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", p.Warnings, want)
	}
}

func TestMinSpinesErrors(t *testing.T) {
	for _, c := range []struct {
		in   Input
		want string
	}{
		{Input{GPUs: 64, MinSpines: 40}, "40 spines at least were asked, but a leaf has room for 16 uplinks"},
		{Input{GPUs: 64, MinSpines: -1}, "-1 is out of range"},
		{Input{GPUs: 64, MinSpines: 5000}, "5000 is out of range"},
		{Input{GPUs: 8, Tiers: 1, MinSpines: 2}, "a 1-tier fabric has no spine"},
	} {
		_, err := Compute(c.in)
		var ie *InputError
		if exitcode.Code(err) != exitcode.BadInput || !errors.As(err, &ie) || ie.Field != "min_spines" || !strings.Contains(ie.Msg, c.want) || ie.Fix == "" {
			t.Errorf("%+v: %v, want an input error of min_spines saying %q with a fix", c.in, err, c.want)
		}
	}
}
