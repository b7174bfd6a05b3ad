package scenario

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
	simrt "github.com/labctl/labctl/orchestrator/runtime/sim"
)

// upSimLab brings a lab (catalog name or spec path) up in the simulator in
// a temporary folder.
func upSimLab(t *testing.T, nameOrPath string) *runtime.Lab {
	t.Helper()
	l := runtimetest.NewLab(t, nameOrPath, "")
	if _, err := runtime.Up(context.Background(), simrt.New(), l, runtime.RenderStep); err != nil {
		t.Fatal(err)
	}
	return l
}

// tracedRoute is a trace's path and each switch's egress port as the
// simulator names it (a merged link's member by fabric.MemberPort): the
// shape of results.Flow's path and route. A trace that does not arrive
// gives its hops up to the switch without a route.
func tracedRoute(p fabric.Path) (path, route []string) {
	for _, h := range p.Hops {
		if len(h.Candidates) == 0 {
			continue
		}
		c := h.Candidates[h.Chosen]
		route = append(route, h.Node+":"+fabric.MemberPort(h.Out, c.Member-1))
	}
	return p.Nodes(), route
}

func parseEndpoint(t *testing.T, s string) fabric.Endpoint {
	t.Helper()
	host, nic, ok := strings.Cut(s, ":")
	n, err := strconv.Atoi(nic)
	if !ok || err != nil {
		t.Fatalf("endpoint %q", s)
	}
	return fabric.Endpoint{Host: host, NIC: n}
}

// flowSport is the UDP source port of a recorded flow's first QP: the
// builder numbers a variant's flows' QPs 49152 + 64 i + q, the simulator
// a ring's QPs 49152 + rank.
func flowSport(t *testing.T, vs runtime.VariantSpec, f results.Flow) uint16 {
	t.Helper()
	if rest, ok := strings.CutPrefix(f.ID, "allreduce r"); ok {
		rank, err := strconv.Atoi(strings.Fields(rest)[0])
		if err != nil {
			t.Fatalf("ring flow %q", f.ID)
		}
		return uint16(49152 + rank%16384)
	}
	i := slices.IndexFunc(vs.Flows, func(fs runtime.FlowSpec) bool { return fs.ID == f.ID })
	if i < 0 {
		t.Fatalf("recorded flow %q is not one of the variant's", f.ID)
	}
	return uint16(49152 + (i*64)%16384)
}

// routeCheck runs a variant and compares every recorded flow's path and
// route with `labctl trace --hash-seed <seed>`'s, and, when the variant
// takes links down, the path it ends with with the trace taking the same
// links down. It returns how many flows the faults moved.
func routeCheck(t *testing.T, l *runtime.Lab, r *fabric.Router, vs runtime.VariantSpec) (checked, moved int) {
	t.Helper()
	v, err := simrt.New().RunVariant(context.Background(), l, vs)
	if err != nil {
		t.Fatalf("%s: %v", vs.Name, err)
	}
	var down []fabric.LinkMember
	for _, f := range vs.Faults {
		if f.Link != "" {
			lms, err := l.Graph.LinkMembers(f.Link, f.All)
			if err != nil {
				t.Fatal(err)
			}
			down = append(down, lms...)
		}
	}
	for _, f := range v.Flows {
		if f.Path == nil {
			continue // an all-to-all rank: no path of its own
		}
		src, dst := parseEndpoint(t, f.Src), parseEndpoint(t, f.Dst)
		key, err := l.Graph.FlowKeyFor(src, dst, flowSport(t, vs, f))
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.Trace(src, dst, key, uint64(vs.Seed), nil)
		if err != nil {
			t.Fatalf("%s: trace of %s: %v", vs.Name, f.ID, err)
		}
		path, route := tracedRoute(p)
		if !slices.Equal(f.Path, path) || !slices.Equal(f.Route, route) {
			t.Errorf("%s seed %d flow %s: simulated %v %v, trace %v %v", vs.Name, vs.Seed, f.ID, f.Path, f.Route, path, route)
		}
		checked++
		if down == nil {
			if f.PathAfterFaults != nil || f.RouteAfterFaults != nil || f.UnreachableAfterFaults {
				t.Errorf("%s flow %s: no link fault, yet paths after faults %v %v", vs.Name, f.ID, f.PathAfterFaults, f.RouteAfterFaults)
			}
			continue
		}
		after, err := r.Trace(src, dst, key, uint64(vs.Seed), down)
		_, unreachable := fabric.IsUnreachable(err)
		if err != nil && !unreachable {
			t.Fatal(err)
		}
		apath, aroute := tracedRoute(after)
		if slices.Equal(aroute, route) && !unreachable {
			if f.PathAfterFaults != nil || f.RouteAfterFaults != nil || f.UnreachableAfterFaults {
				t.Errorf("%s flow %s: the trace with %v down is unchanged, the run reports %v %v", vs.Name, f.ID, after.Down, f.PathAfterFaults, f.RouteAfterFaults)
			}
			continue
		}
		moved++
		if !slices.Equal(f.PathAfterFaults, apath) || !slices.Equal(f.RouteAfterFaults, aroute) || f.UnreachableAfterFaults != unreachable {
			t.Errorf("%s seed %d flow %s after the faults: simulated %v %v (unreachable %v), trace with %d links down %v %v (unreachable %v)",
				vs.Name, vs.Seed, f.ID, f.PathAfterFaults, f.RouteAfterFaults, f.UnreachableAfterFaults, len(down), apath, aroute, unreachable)
		}
	}
	return checked, moved
}

// shorten cuts a variant to what routing needs: paths are chosen when
// flows are set up, so a few microseconds show them; link faults stay
// down to the end and every switch learns of them when its ends do, so
// that the run ends with the converged routes the trace computes (the
// scenario's own fault may come back up, or converge after the run
// ends). PFC storms do not route and are dropped.
func shorten(vs runtime.VariantSpec) runtime.VariantSpec {
	vs.DurationUs, vs.WarmupUs, vs.SeriesEvery = 20, 0, -1
	var faults []runtime.FaultSpec
	for _, f := range vs.Faults {
		if f.Link == "" {
			continue
		}
		if f.DetectUs == 0 {
			// The simulator's default, given so that the convergence
			// delay can equal it (0 there would mean its own default).
			f.DetectUs = 1000
		}
		f.ForUs, f.ConvergeUs = 0, f.DetectUs
		vs.DurationUs = max(vs.DurationUs, f.AtUs+max(f.DetectUs, 0)+500)
		faults = append(faults, f)
	}
	vs.Faults = faults
	return vs
}

// Every flow of every catalog scenario, on 64gpu and 128gpu and at two
// seeds, crosses the switches and ports `labctl trace --hash-seed` shows
// for it (one routing implementation, one hash), and after
// link-failure's fault its data packets take the path the trace shows
// with that link down.
func TestCatalogPathsFollowTrace(t *testing.T) {
	for _, labName := range []string{"64gpu", "128gpu"} {
		l := upSimLab(t, labName)
		r, err := l.Graph.NewRouter()
		if err != nil {
			t.Fatal(err)
		}
		nics := NICsFromGraph(l.Graph)
		for _, name := range CatalogNames() {
			s, err := Resolve(name)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(s.Traffic, func(t Traffic) bool { return t.Pattern == PatternNCCL }) {
				// nccl collectives report a table per size, not a path
				// per QP: their streams' routes are the engine's, tested
				// there.
				continue
			}
			if err := s.CheckLab(l.Graph); err != nil {
				t.Fatal(err)
			}
			seeds := []int64{1, 7}
			checked, moved := 0, 0
			for _, seed := range seeds {
				for _, pt := range s.Points() {
					vs, err := s.Expand(nics, pt, seed)
					if err != nil {
						t.Fatal(err)
					}
					c, m := routeCheck(t, l, r, shorten(vs))
					checked, moved = checked+c, moved+m
				}
			}
			if checked == 0 {
				t.Errorf("%s on %s: no flow with a path to check", name, labName)
			}
			if name == "link-failure" && moved == 0 {
				t.Errorf("link-failure on %s: no flow moved, the after-fault check checked nothing", labName)
			}
			t.Logf("%s on %s: %d flow paths checked, %d moved by faults", name, labName, checked, moved)
		}
	}
}

// The deadlock scenario's failures (leaf1 cut off from spine1, leaf2 from
// spine2): on the 128gpu lab (RFC 7938, one spine ASN) the flows between
// leaf1 and leaf2 end unreachable, as the trace says; on the per-spine
// ASN lab they end on the trace's valley paths.
func TestDeadlockScenarioPaths(t *testing.T) {
	s, err := Resolve(filepath.Join("..", "..", "docs", "scenarios", "deadlock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lab         string
		unreachable bool
	}{
		{"128gpu", true},
		{filepath.Join("..", "..", "docs", "labs", "128gpu-per-spine-asn.yaml"), false},
	} {
		l := upSimLab(t, c.lab)
		r, err := l.Graph.NewRouter()
		if err != nil {
			t.Fatal(err)
		}
		vs, err := s.Expand(NICsFromGraph(l.Graph), s.Points()[0], 1)
		if err != nil {
			t.Fatal(err)
		}
		vs = shorten(vs)
		v, err := simrt.New().RunVariant(context.Background(), l, vs)
		if err != nil {
			t.Fatal(err)
		}
		cut, valley := 0, 0
		for _, f := range v.Flows {
			if f.UnreachableAfterFaults {
				cut++
			}
			if len(f.PathAfterFaults) == 7 {
				valley++
			}
		}
		if c.unreachable && (cut == 0 || valley > 0) || !c.unreachable && (cut > 0 || valley == 0) {
			t.Errorf("%s: %d flows cut off, %d on valley paths", c.lab, cut, valley)
		}
		// The scenario's assertions read the same through extra.faults.
		x, _ := v.Extra["faults"].(map[string]any)
		if x["unreachable_qps"] != cut || x["rerouted_qps"] != len(v.Flows) {
			t.Errorf("%s: extra.faults unreachable_qps %v rerouted_qps %v, flows: %d cut off of %d", c.lab, x["unreachable_qps"], x["rerouted_qps"], cut, len(v.Flows))
		}
		if _, m := routeCheck(t, l, r, vs); m == 0 {
			t.Errorf("%s: no flow moved", c.lab)
		}
	}
}

// The same agreement on the other shapes routing has to get right: three
// tiers (two pods, super-spines in planes), merged lab links (a member of
// a merged link fails alone) and an ASN per spine (a failure opens valley
// paths), each with a link fault whose end-of-run paths must be the
// trace's with that link down.
func TestShapesPathsFollowTrace(t *testing.T) {
	cases := []struct {
		name, lab, fault string
	}{
		{"three tiers", "name: t3\nsizing:\n  gpus: 128\n  leaf_ports: 16\n  spine_ports: 8\n  tiers: 3\n",
			"link: spine1-superspine1\n    all: true"},
		{"merged links", "name: m96\nsizing:\n  gpus: 96\n  leaf_ports: 64\n", ""},
		{"ASN per spine", "name: ps\nsizing:\n  gpus: 128\nbgp:\n  spine_asn: per-spine\n",
			"link: leaf1-spine1\n    all: true\n  - kind: link-down\n    at: 10us\n    link: leaf2-spine2\n    all: true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lab.yaml")
			if err := os.WriteFile(path, []byte(c.lab), 0o644); err != nil {
				t.Fatal(err)
			}
			l := upSimLab(t, path)
			r, err := l.Graph.NewRouter()
			if err != nil {
				t.Fatal(err)
			}
			fault := c.fault
			if fault == "" {
				// One member of leaf1's merged uplink to spine1.
				lk := l.Graph.LinksBetween("leaf1", "spine1")[0]
				if lk.Merged < 4 {
					t.Fatalf("leaf1-spine1 merges %d links: the lab does not test merged links", lk.Merged)
				}
				fault = "link: leaf1:" + fabric.MemberPort(lk.A.Port, 2)
			}
			spec := "name: s\nduration: 100us\ntraffic:\n  - pattern: pairs\n    pairs: 16\n    cross_leaf: true\n  - pattern: ring-allreduce\n    bytes: 1MiB\n" +
				"faults:\n  - kind: link-down\n    at: 10us\n    " + fault + "\n"
			s, err := Parse("s.yaml", []byte(spec))
			if err != nil {
				t.Fatal(err)
			}
			checked, moved := 0, 0
			for _, seed := range []int64{1, 3} {
				vs, err := s.Expand(NICsFromGraph(l.Graph), s.Points()[0], seed)
				if err != nil {
					t.Fatal(err)
				}
				ch, m := routeCheck(t, l, r, shorten(vs))
				checked, moved = checked+ch, moved+m
			}
			if checked < 2*(16+len(NICsFromGraph(l.Graph))) || moved == 0 {
				t.Errorf("%d flow paths checked, %d moved by the fault", checked, moved)
			}
		})
	}
}
