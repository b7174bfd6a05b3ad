package sim

// TestUETAgainstUETHtsim keeps the "Ultra Ethernet against uet-htsim"
// section of docs/fidelity.md true: it runs the section's lab spec and
// scenarios (docs/labs/uet-fattree16.yaml, docs/scenarios/uet-incast.yaml
// and uet-permutation.yaml) as labctl run does, on seeds 1 to 5, in two
// buffer set-ups, and puts each figure beside what uet-htsim gave on the
// same fabric and traffic (testdata/fidelity/uet-htsim.json, copied from
// its output). It fails when labctl's aggregate goodput, mean FCT or last
// FCT leaves 15% of uet-htsim's. Regenerate after a deliberate change to
// the model:
//
//	go test ./orchestrator/runtime/sim -run TestUETAgainstUETHtsim -update
//
// and review the diff of docs/fidelity.md like code.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/docblock"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/transport"
)

// The section's lab spec and scenarios, from this package's directory.
const (
	uetFidelityLab = "../../../docs/labs/uet-fattree16.yaml"
	uetFidelityDir = "../../../docs/scenarios"
)

// uetTolerance is the agreement the page states and issue 24 asks for.
const uetTolerance = 0.15

// uetHtsimQueueBytes is uet-htsim's per-port queue limit in the runs: 29
// packets of 4160 bytes (-q 29), one BDP of its 9.35 µs network RTT.
const uetHtsimQueueBytes = 29 * 4160

// uetHtsim is testdata/fidelity/uet-htsim.json.
type uetHtsim struct {
	Simulator struct {
		Name, Repository, Commit, Command string
	} `json:"simulator"`
	Runs []uetHtsimRun `json:"runs"`
}

type uetHtsimRun struct {
	Case, LB, CC string
	Seeds        []int64
	MeanFCTUs    []float64 `json:"mean_fct_us"`
	LastFCTUs    []float64 `json:"last_fct_us"`
	GoodputGbps  []float64 `json:"goodput_gbps"`
	Trims        []float64 `json:"trims"`
}

// uetFigures are one simulator's figures of a case over its seeds.
type uetFigures struct {
	mean, last, goodput, trims []float64
}

func (f uetFigures) of(what string) []float64 {
	switch what {
	case "goodput":
		return f.goodput
	case "mean FCT":
		return f.mean
	}
	return f.last
}

// uetVariant is a row group: the load balancing, and RCCC beside NSCC
// or not.
type uetVariant struct {
	lb   string
	rccc bool
}

// uetVariants are the compared variants: the scenarios as written (NSCC,
// REPS) first.
var uetVariants = []uetVariant{{lb: transport.UETLBReps}, {lb: transport.UETLBOblivious}, {lb: transport.UETLBReps, rccc: true}}

// cc is the variant's congestion control as uet-htsim.json names it.
func (v uetVariant) cc() string {
	if v.rccc {
		return "nscc+rccc"
	}
	return "nscc"
}

func (v uetVariant) String() string {
	if v.rccc {
		return v.lb + ", NSCC + RCCC"
	}
	return v.lb + ", NSCC"
}

// uetSetup is how labctl's switches hold the UET traffic.
type uetSetup struct {
	label string
	edit  func(map[string]map[string]map[string]string) // nil: the lab spec's configs as rendered
}

func TestUETAgainstUETHtsim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the uet-htsim cases 40 times; skipped with -short")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "fidelity", "uet-htsim.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ext uetHtsim
	if err := json.Unmarshal(data, &ext); err != nil {
		t.Fatalf("testdata/fidelity/uet-htsim.json: %v", err)
	}
	htsim := func(c string, v uetVariant) uetHtsimRun {
		for _, r := range ext.Runs {
			if r.Case == c && r.LB == v.lb && r.CC == v.cc() {
				return r
			}
		}
		t.Fatalf("testdata/fidelity/uet-htsim.json has no %s run with %s and %s", c, v.lb, v.cc())
		return uetHtsimRun{}
	}
	labSpec, err := os.ReadFile(uetFidelityLab)
	if err != nil {
		t.Fatal(err)
	}
	setups := []uetSetup{
		{label: "the lab spec: a 135,720 B shared pool, `dynamic_th` 3"},
		{label: "uet-htsim's queues: `static_th` 120,640 B per egress queue", edit: func(doc map[string]map[string]map[string]string) {
			allPools(32 << 20)(doc)
			p := doc["BUFFER_PROFILE"]["egress_lossy_profile"]
			delete(p, "dynamic_th")
			p["static_th"] = fmt.Sprint(uetHtsimQueueBytes)
		}},
	}
	labs := make([]*runtime.Lab, len(setups))
	for i, su := range setups {
		labs[i] = upSpec(t, string(labSpec), "sonic")
		if su.edit != nil {
			for _, sw := range labs[i].Graph.Switches() {
				editSONiC(t, labs[i], sw.Name, su.edit)
			}
		}
	}
	var b strings.Builder
	worst := map[uetVariant]float64{}   // the largest |ratio - 1|
	trimRatio := map[string][]float64{} // by case and set-up: labctl's trims over uet-htsim's
	b.WriteString("| case | load balancing, CC | simulator | set-up | goodput, Gb/s | mean FCT, µs | last FCT, µs | trims | labctl / uet-htsim: goodput, mean FCT, last FCT |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range []string{"incast", "permutation"} {
		for _, uv := range uetVariants {
			h := htsim(c, uv)
			want := uetFigures{mean: h.MeanFCTUs, last: h.LastFCTUs, goodput: h.GoodputGbps, trims: h.Trims}
			fmt.Fprintf(&b, "| **%s** | %s | uet-htsim (seeds %s) | `-q 29 -ecn 6 24`, per-port queues | %s | %s | %s | %s | |\n",
				c, uv, seedSpan(h.Seeds), meanSpan(want.goodput, "%.2f"), meanSpan(want.mean, "%.1f"), meanSpan(want.last, "%.1f"), meanSpan(want.trims, "%.0f"))
			for i, su := range setups {
				got := uetRuns(t, labs[i], c, uv, h.Seeds)
				var ratios []string
				for _, what := range []string{"goodput", "mean FCT", "last FCT"} {
					r := mean(got.of(what)) / mean(want.of(what))
					ratios = append(ratios, fmt.Sprintf("%.3f", r))
					worst[uv] = max(worst[uv], math.Abs(r-1))
					if math.IsNaN(r) || math.Abs(r-1) > uetTolerance {
						t.Errorf("%s, %s, %s: labctl's %s is %.3f x uet-htsim's (%.1f against %.1f): want within %.0f%%, as docs/fidelity.md says",
							c, uv, su.label, what, r, mean(got.of(what)), mean(want.of(what)), 100*uetTolerance)
					}
				}
				if c == "incast" && slices.Min(got.trims) == 0 {
					t.Errorf("%s, %s, %s: a seed completed the incast without trimming; the page says every one trims", c, uv, su.label)
				}
				k := fmt.Sprintf("%s, set-up %d", c, i)
				trimRatio[k] = append(trimRatio[k], mean(got.trims)/mean(want.trims))
				fmt.Fprintf(&b, "| | | labctl (seeds %s) | %s | %s | %s | %s | %s | %s |\n",
					seedSpan(h.Seeds), su.label, meanSpan(got.goodput, "%.2f"), meanSpan(got.mean, "%.1f"), meanSpan(got.last, "%.1f"), meanSpan(got.trims, "%.0f"), strings.Join(ratios, ", "))
			}
		}
	}
	fmt.Fprintf(&b, "\nThe largest gap to uet-htsim in goodput, mean FCT or last FCT: %.1f%% with NSCC and REPS, %.1f%% with oblivious spraying, %.1f%% with RCCC beside NSCC (the test fails past %.0f%%). ",
		100*worst[uetVariants[0]], 100*worst[uetVariants[1]], 100*worst[uetVariants[2]], 100*uetTolerance)
	span := func(k string) string {
		return fmt.Sprintf("%.1f–%.1f", slices.Min(trimRatio[k]), slices.Max(trimRatio[k]))
	}
	fmt.Fprintf(&b, "labctl's trims over uet-htsim's (the three row groups of a case): incast %s (shared pool) and %s (uet-htsim's queues), permutation %s and %s.\n",
		span("incast, set-up 0"), span("incast, set-up 1"), span("permutation, set-up 0"), span("permutation, set-up 1"))
	docblock.Check(t, fidelityPage, map[string]string{"uet-htsim": b.String()}, *updateFidelity,
		"go test ./orchestrator/runtime/sim -run TestUETAgainstUETHtsim -update")
}

// uetRuns runs the section's scenario of case c (uet-incast or
// uet-permutation) with variant uv's load balancing and CC on each seed, as labctl run
// resolves it: the scenario's ECN on, PFC off point, the lab's nic and uet
// sections with the scenario's over them.
func uetRuns(t *testing.T, l *runtime.Lab, c string, uv uetVariant, seeds []int64) uetFigures {
	t.Helper()
	path := filepath.Join(uetFidelityDir, "uet-"+c+".yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	sc.UET.LB, sc.UET.RCCC = &uv.lb, &uv.rccc
	var f uetFigures
	for _, seed := range seeds {
		vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: scenario.VariantName(true, false), ECN: true, PFC: false}, seed)
		if err != nil {
			t.Fatal(err)
		}
		if vs.NIC, err = l.Spec.NICSettings(&sc.NIC); err != nil {
			t.Fatal(err)
		}
		if vs.Transport, err = l.Spec.TransportSettings(nil, []*transport.UETSpec{&sc.UET}, sc.Transport); err != nil {
			t.Fatal(err)
		}
		if vs.Transport.Name != transport.UET {
			t.Fatalf("%s on %s runs transport %q, want uet", path, l.Spec.Name, vs.Transport.Name)
		}
		v := runVariant(t, l, vs)
		m, last, ok := fctStats(v)
		if !ok || v.Summary.GoodputGbpsAggregate == nil || v.Summary.UET == nil {
			t.Fatalf("%s, %s, seed %d: not every flow completed (%d failed)", c, uv, seed, v.Summary.FailedFlows)
		}
		f.mean = append(f.mean, m)
		f.last = append(f.last, last)
		f.goodput = append(f.goodput, *v.Summary.GoodputGbpsAggregate)
		f.trims = append(f.trims, float64(v.Summary.UET.Trimmed))
		// The page says every trim was recovered by its NACK: like
		// uet-htsim, no timeout fires in these runs.
		if u := v.Summary.UET; u.RTORetransmits != 0 || v.Summary.Drops != 0 {
			t.Errorf("%s, %s, seed %d: %d timeout retransmits, %d drops: want none, as docs/fidelity.md says", c, uv, seed, u.RTORetransmits, v.Summary.Drops)
		}
	}
	return f
}

// fctStats is the mean and the largest of a variant's flow completion
// times; ok is false unless every flow completed.
func fctStats(v *results.Variant) (meanUs, lastUs float64, ok bool) {
	var fcts []float64
	for _, fl := range v.Flows {
		if fl.FCTUs == nil {
			return 0, 0, false
		}
		fcts = append(fcts, *fl.FCTUs)
	}
	if len(fcts) == 0 {
		return 0, 0, false
	}
	return mean(fcts), slices.Max(fcts), true
}

// meanSpan is "mean (min–max)" of xs in format.
func meanSpan(xs []float64, format string) string {
	return fmt.Sprintf(format+" ("+format+"–"+format+")", mean(xs), slices.Min(xs), slices.Max(xs))
}

// seedSpan is "1–5" for consecutive seeds.
func seedSpan(seeds []int64) string {
	return fmt.Sprintf("%d–%d", seeds[0], seeds[len(seeds)-1])
}
