package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/plural"
)

// How a compare matched the run's figures with the baseline's
// (Basis.How).
const (
	// BasisSameSeed: both records ran at one seed, so each variant (and
	// repetition) is the same simulation on both sides, compared one to
	// one.
	BasisSameSeed = "same-seed"
	// BasisSamples: the seeds differ and every point has two or more
	// repetitions on both sides, compared as samples (pooledPoints).
	BasisSamples = "samples"
	// BasisImported: either record holds a tool's output (labctl parse
	// nccl-tests --record), compared table by table with the other.
	BasisImported = "imported"
	// BasisSeedsDiffer: the seeds (or a point's split into partitions,
	// which decides the simulation as the seed does) differ and a point
	// has one repetition on a side, so its figures are compared one to
	// one with another simulation's. CheckSameExperiment refuses it;
	// Compare, called directly, compares and says so.
	BasisSeedsDiffer = "seeds-differ"
)

// How far a verdict goes (Basis.Confidence).
const (
	// ConfidenceHigh: the same simulation on both sides; the simulator
	// is deterministic for a seed, so whatever moved was moved by what
	// changed (configs, scenario, labctl), never by chance.
	ConfidenceHigh = "high"
	// ConfidenceModerate: figures that vary by chance (seeds' samples,
	// measurements), compared within tolerances meant to absorb that
	// variation: a smaller change goes unseen, and a few samples may
	// understate the variation.
	ConfidenceModerate = "moderate"
	// ConfidenceLow: one sample of another seed a side; a finding may be
	// the seed's alone and a regression may hide in it.
	ConfidenceLow = "low"
)

// Basis says what a compare set against what and how far its verdict can
// be trusted, so a reader knows whether "regressed" means the configs did
// it or may be chance.
type Basis struct {
	How        string `json:"how"`
	Confidence string `json:"confidence"`
	// RunSeed and BaselineSeed are the records' seeds (repetition r of a
	// point runs at seed + r).
	RunSeed      int64 `json:"run_seed"`
	BaselineSeed int64 `json:"baseline_seed"`
	// RunRepetitions and BaselineRepetitions are the most repetitions a
	// point has on each side.
	RunRepetitions      int `json:"run_repetitions"`
	BaselineRepetitions int `json:"baseline_repetitions"`
	// Measured says the figures were measured on a live lab.
	Measured bool `json:"measured,omitempty"`
	// Text says all of it in a sentence or two, as the text output
	// prints it after "compared: ".
	Text string `json:"text"`
	// Next, where the verdict rests on one sample a side of an edit, is
	// what to run so that a regression can be told from the timing shift
	// an edit causes (the text output prints it under a REGRESSED
	// verdict whose regressions are all figures beyond tolerance).
	Next string `json:"next,omitempty"`
}

// pooledPoint is a point whose repetitions both records ran with other
// seeds: base and run are its variants on each side, in record order.
type pooledPoint struct {
	name      string
	base, run []*Variant
	// elsewhere: the two sides ran at other seeds, so the hash placed
	// their flows on other ports, or after an edit the point's paths are
	// chosen as the run goes (pathsByTiming) (Finding.Elsewhere).
	elsewhere bool
}

// comparison is how Compare matches the records' points, decided in one
// place (planComparison) for Compare and CheckSameExperiment alike.
type comparison struct {
	// pooled are the points compared as samples, by name.
	pooled map[string]*pooledPoint
	// acrossSeeds are the points both records have that would be
	// compared one to one although the seeds differ, in the baseline's
	// order, with the repetitions each side has.
	acrossSeeds []seedPoint
}

type seedPoint struct {
	name          string
	run, baseline int
	// runSplit and baseSplit are the point's partitions on each side
	// (splitOf), which decide the simulation as the seed does.
	runSplit, baseSplit string
}

// splitOf is the number of partitions a variant's simulator split the
// fabric into ("1" when it kept one): with the seed, it decides the
// simulation (events of the same time in different partitions are
// ordered by the windows they cross in), so two runs of other splits are
// other simulations, as two runs of other seeds are.
func splitOf(v *Variant) string {
	if p := v.Params[ParamPartitions]; p != "" {
		return p
	}
	return "1"
}

// planComparison decides how the points of run and baseline are compared.
// Repetition r runs at seed + r, so at one seed, with the same inputs,
// repetition r of a point is the same simulation on both sides, compared
// one to one. With other seeds the two sides of a point are different
// simulations: the seed places flows on ECMP paths and sets their timing,
// and that alone moves figures (incast's p50 latency on 16gpu is 16.6 us
// at seed 1 and 36.9 us at seed 2). So is a change of the inputs
// (inputsChanged: the switches' configs or the scenario's values) at one
// seed: a change on a congested path shifts the flows' timing, which
// alone moves figures about as much (a WRED Kmax 0.7% higher on 16gpu's
// incast moved its p50 latency +23% at seed 1, and not beyond tolerance
// over three seeds' mean). A point with two or more repetitions on each
// side is then compared as samples, each figure the mean of the run's
// repetitions against the mean of the baseline's, allowed the baseline's
// spread. A point run once on a side is compared one to one at one seed
// (one sample of the change, which Basis says) and listed in acrossSeeds
// with other seeds (CheckSeeds refuses it). Records of a tool's output
// are never pooled.
func planComparison(run, baseline *Run, inputsChanged bool) comparison {
	var c comparison
	if run.Imported != nil || baseline.Imported != nil {
		return c
	}
	byName := func(r *Run) (map[string][]*Variant, []string) {
		out := map[string][]*Variant{}
		var order []string
		for i := range r.Variants {
			v := &r.Variants[i]
			if out[v.Name] == nil {
				order = append(order, v.Name)
			}
			out[v.Name] = append(out[v.Name], v)
		}
		return out, order
	}
	bs, order := byName(baseline)
	rs, _ := byName(run)
	// A point whose split differs is another simulation, as at another
	// seed: each point's splits, the run's first that differs from the
	// baseline's.
	type splits struct {
		run, base string
		differ    bool
	}
	pointSplits := map[string]splits{}
	// Measured figures vary from run to run whatever the seed: a live
	// lab's repetitions are samples too.
	sameSimulations := run.Seed == baseline.Seed && !inputsChanged && !measured(run) && !measured(baseline)
	for _, name := range order {
		b, r := bs[name], rs[name]
		if len(b) == 0 || len(r) == 0 {
			continue
		}
		sp := splits{run: splitOf(r[0]), base: splitOf(b[0])}
		for _, v := range r {
			if s := splitOf(v); s != sp.base {
				sp.run, sp.differ = s, true
				break
			}
		}
		pointSplits[name] = sp
		sameSimulations = sameSimulations && !sp.differ
	}
	if sameSimulations {
		return c
	}
	c.pooled = map[string]*pooledPoint{}
	for _, name := range order {
		b, r := bs[name], rs[name]
		sp := pointSplits[name]
		rsplit, bsplit, split := sp.run, sp.base, sp.differ
		switch {
		case len(r) == 0:
			// Only the baseline has it: missing, whatever the seeds.
		case len(b) >= 2 && len(r) >= 2:
			c.pooled[name] = &pooledPoint{name: name, base: b, run: r,
				elsewhere: run.Seed != baseline.Seed || flowsMovedByEdit(inputsChanged, b[0], r[0])}
		case run.Seed != baseline.Seed || split:
			c.acrossSeeds = append(c.acrossSeeds, seedPoint{name: name, run: len(r), baseline: len(b), runSplit: rsplit, baseSplit: bsplit})
		}
	}
	return c
}

// splitText says which points' splits differ, "" when none does:
// "point ecn=on,pfc=on ran in 4 partitions here and 8 in the baseline",
// "each of 4 points ran in 4 partitions here and 8 in the baseline".
func splitText(ps []seedPoint) string {
	var differ []seedPoint
	for _, p := range ps {
		if p.runSplit != p.baseSplit {
			differ = append(differ, p)
		}
	}
	say := func(p seedPoint) string {
		unit := "partitions"
		if p.runSplit == "1" {
			unit = "partition"
		}
		return fmt.Sprintf("ran in %s %s here and %s in the baseline", p.runSplit, unit, p.baseSplit)
	}
	switch {
	case len(differ) == 0:
		return ""
	case len(differ) == 1:
		return "point " + differ[0].name + " " + say(differ[0])
	case !slices.ContainsFunc(differ, func(p seedPoint) bool { return say(p) != say(differ[0]) }):
		return fmt.Sprintf("each of %d points %s", len(differ), say(differ[0]))
	}
	var out []string
	for _, p := range differ {
		out = append(out, "point "+p.name+" "+say(p))
	}
	return strings.Join(out, "; ")
}

// baselineSplit is the split the baseline ran its points in, for the fix
// of a refusal: the first point whose split differs.
func baselineSplit(ps []seedPoint) string {
	for _, p := range ps {
		if p.runSplit != p.baseSplit {
			return p.baseSplit
		}
	}
	return ""
}

// basis says what c compares and how far its verdict goes. changed names
// what differs between the records' inputs besides the seed ("the
// switches' QoS", "the scenario's values"), which at one seed decides
// whether the two sides are the same simulation.
func (c comparison) basis(run, baseline *Run, changed []string) Basis {
	b := Basis{RunSeed: run.Seed, BaselineSeed: baseline.Seed,
		RunRepetitions: maxRepetitions(run), BaselineRepetitions: maxRepetitions(baseline), Measured: measured(run) || measured(baseline)}
	switch {
	case run.Imported != nil || baseline.Imported != nil:
		b.How, b.Confidence = BasisImported, ConfidenceModerate
		side, tool := "run", ""
		if run.Imported != nil {
			tool = run.Imported.Tool
		} else {
			side, tool = "baseline", baseline.Imported.Tool
		}
		b.Text = fmt.Sprintf("the %s is a record of %s output: its tables are compared size by size with the other record's, variant by variant; measured figures vary from run to run, so a change within tolerance is not flagged and one beyond it may still be the cluster's noise", side, tool)
	case run.Seed == baseline.Seed && len(c.pooled) == 0 && len(c.acrossSeeds) == 0:
		b.How = BasisSameSeed
		reps := ""
		if b.RunRepetitions > 1 || b.BaselineRepetitions > 1 {
			reps = ", repetition r at seed + r on both sides"
		}
		switch {
		case b.Measured:
			b.Confidence = ConfidenceModerate
			b.Text = fmt.Sprintf("each variant one to one with the baseline's (seed %d%s), measured on a live lab: measured figures vary from run to run, so a change within tolerance is not flagged and one beyond it may still be noise; runs with repetitions at other seeds compare samples instead", run.Seed, reps)
		case len(changed) == 0:
			b.Confidence = ConfidenceHigh
			b.Text = fmt.Sprintf("the same simulation on both sides (seed %d%s), each variant one to one with the baseline's: the simulator is deterministic for a seed, so a figure that moved was moved by what differs between the two runs, not by chance", run.Seed, reps)
		case len(edits(changed, run, baseline)) == 0:
			// Only the simulator differs: every figure that moved is its
			// doing, and repetitions would only say so again.
			b.Confidence = ConfidenceModerate
			b.Text = fmt.Sprintf("the same seed and inputs on both sides (seed %d%s), each variant one to one with the baseline's, but not the same simulation: %s differs, so every figure that moved was moved by the simulator's changes (listed below), not by the configs or the scenario", run.Seed, reps, changed[0])
			b.Next = simulatorNext(run, baseline, nil)
		default:
			// A change on a congested path shifts the flows' timing, and
			// that alone moves latency and queue figures about as much as
			// another seed does: on 16gpu's incast a WRED Kmax 0.7% higher
			// moved the incast's p50 latency +23%, Kmin 5% higher +78%,
			// seed 2 for seed 1 +121%, a harmful Kmin (3 MB) +601%.
			b.Confidence = ConfidenceModerate
			b.Text = fmt.Sprintf("the same seed on both sides (seed %d%s), each variant one to one with the baseline's: the simulator is deterministic for a seed, so every figure that moved was moved by what differs (%s), but each side is one sample of it: a change on a congested path also shifts the flows' timing, which alone can move latency and queue figures about as much as another seed does, so a finding well beyond tolerance is the change's, one just beyond it may be that shift; runs with repetitions compare samples and tell them apart", run.Seed, reps, strings.Join(changed, " and "))
			// On 16gpu's incast the role's p50 latency spans 14-37 us over
			// seeds 1-20 with nothing changed, against a tolerance of 10%:
			// an edit that only shifts timing can fail it. Repetitions on
			// both sides compare the edit's mean with the spread.
			b.Next = fmt.Sprintf("a regression here may be the timing shift alone: run the scenario with repetitions on these configs and on the baseline's (labctl run %s --lab %s --seed %d --repetitions 5, with each set of configs in place) and compare those two runs; regress then compares each point's means against the spread of its repetitions (results/baselines/README.md)", run.ScenarioArg(), run.Lab, baseline.Seed)
			if _, ok := simulatorChange(run, baseline); ok {
				b.Next = simulatorNext(run, baseline, edits(changed, run, baseline))
			}
		}
	case len(c.acrossSeeds) > 0 && run.Seed == baseline.Seed:
		b.How, b.Confidence = BasisSeedsDiffer, ConfidenceLow
		b.Text = fmt.Sprintf("different simulations: the fabric's split differs (%s) and %s, so its figures are compared one to one with another simulation's; the split alone moves figures as a seed does (it orders events of the same time in different partitions), so a regression here may be the split's and a real one may hide in its noise: rerun with --partitions %s, or run both with repetitions", splitText(c.acrossSeeds), acrossSeedsText(c.acrossSeeds), baselineSplit(c.acrossSeeds))
	case len(c.acrossSeeds) > 0:
		b.How, b.Confidence = BasisSeedsDiffer, ConfidenceLow
		b.Text = fmt.Sprintf("different simulations: the seeds differ (run %d, baseline %d) and %s, so its figures are compared one to one with another seed's; the seed alone moves figures (it places flows on ECMP paths and sets their timing), so a regression here may be the seed's and a real one may hide in its noise: rerun at seed %d, or run both with repetitions", run.Seed, baseline.Seed, acrossSeedsText(c.acrossSeeds), baseline.Seed)
	case len(c.pooled) == 0:
		b.How, b.Confidence = BasisSamples, ConfidenceModerate
		b.Text = fmt.Sprintf("no point both records have, so nothing was compared as samples (seeds: run %d, baseline %d)", run.Seed, baseline.Seed)
	default:
		b.How, b.Confidence = BasisSamples, ConfidenceModerate
		why := "the seeds differ"
		if run.Seed == baseline.Seed {
			// Inputs that changed, or a split that differs (a point run in
			// other partitions is another simulation, as at another seed).
			differ := changed
			for _, p := range c.pooled {
				if splitOf(p.run[0]) != splitOf(p.base[0]) {
					differ = append(slices.Clone(differ), "the fabric's splits")
					break
				}
			}
			why = fmt.Sprintf("%s differ, and a change on a congested path shifts the flows' timing as another seed would", strings.Join(differ, " and "))
			switch {
			case len(differ) == 0:
				why = "the figures are measured on a live lab, where they vary from run to run"
			case len(changed) == 0:
				why = "the fabric's splits differ, which shifts the flows' timing as another seed would"
			}
		}
		b.Text = fmt.Sprintf("samples: %s, so each point's %s (seeds %s) are compared as their mean against the mean of the baseline's %d (seeds %s), allowed the larger of the tolerance and the spread of either side's repetitions (the baseline's alone where it holds one value at every seed). The verdict is as good as the samples: a change smaller than the seeds' spread goes unseen, %d samples a side may understate that spread (a figure with two modes, such as a lossy incast's goodput, can land in one mode on every seed of a side), and a port's figures follow where each seed placed the flows, so at other seeds a port's figure beyond tolerance is listed, not a regression (but for the queue and marks of a port the flows' routes show the same flows at on both sides); more repetitions narrow all of it",
			why, plural.N(b.RunRepetitions, "repetition"), seedRange(run.Seed, b.RunRepetitions), b.BaselineRepetitions, seedRange(baseline.Seed, b.BaselineRepetitions), min(b.RunRepetitions, b.BaselineRepetitions))
	}
	return b
}

// CheckSeeds refuses a run and a baseline that ran at different seeds
// where a point has a single repetition on either side: compared one to
// one, every figure of it would be set against another simulation's, and
// the seed's noise would read as regressions (or hide one). The error is
// bad input (exit 2) and says how to compare like with like. Records of a
// tool's output are not checked: they have no seed.
func CheckSeeds(run, baseline *Run) error {
	c := planComparison(run, baseline, false)
	if len(c.acrossSeeds) == 0 {
		return nil
	}
	if run.Seed == baseline.Seed {
		// The seeds agree and a split does not: labctl run --partitions
		// (or a labctl that splits the fabric otherwise) made another
		// simulation of the same point.
		split := baselineSplit(c.acrossSeeds)
		return exitcode.Usagef("run %s and baseline %s ran at seed %d, but %s, and %s: compared one to one, each figure would be set against another simulation's, and the split alone moves them (it orders events of the same time in different partitions), so its noise would read as regressions. Fix: rerun with the baseline's split (labctl run %s --lab %s --partitions %s); or compare samples: run both with repetitions (labctl run %s --lab %s --repetitions 5)",
			run.RunID, baseline.RunID, run.Seed, splitText(c.acrossSeeds), acrossSeedsText(c.acrossSeeds), run.ScenarioArg(), run.Lab, split, run.ScenarioArg(), run.Lab)
	}
	same := "to compare the same simulation"
	if sim, ok := simulatorChange(run, baseline); ok {
		// Even at the baseline's seed the two would differ by the
		// simulator: one sample of its changes, which regress then names.
		same = "to compare one to one (" + sim + " differs as well, which regress will name)"
	}
	return exitcode.Usagef("run %s ran at seed %d and baseline %s at seed %d, and %s: compared one to one, each figure would be set against another simulation's, and the seed alone moves them (it places flows on ECMP paths and sets their timing), so its noise would read as regressions. Fix: rerun at the baseline's seed %s (labctl run %s --lab %s --seed %d); or compare samples: run both with repetitions (labctl run %s --lab %s --repetitions 5, at each side's seed), and regress compares each point's mean with the baseline's, allowed the spread of its repetitions",
		run.RunID, run.Seed, baseline.RunID, baseline.Seed, acrossSeedsText(c.acrossSeeds), same, run.ScenarioArg(), run.Lab, baseline.Seed, run.ScenarioArg(), run.Lab)
}

// acrossSeedsText says which points have a single repetition on a side:
// "every point has one repetition on both sides", "point ecn=on,pfc=on
// has 3 repetitions in the run and one in the baseline".
func acrossSeedsText(ps []seedPoint) string {
	side := func(p seedPoint) string {
		switch {
		case p.run == 1 && p.baseline == 1:
			return "one repetition on both sides"
		case p.run == 1:
			return fmt.Sprintf("one repetition in the run and %d in the baseline", p.baseline)
		}
		return fmt.Sprintf("%s in the run and one in the baseline", plural.N(p.run, "repetition"))
	}
	same := true
	for _, p := range ps[1:] {
		same = same && side(p) == side(ps[0])
	}
	switch {
	case len(ps) == 1:
		return fmt.Sprintf("point %s has %s", ps[0].name, side(ps[0]))
	case same:
		return fmt.Sprintf("each of %d points has %s", len(ps), side(ps[0]))
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.name+" ("+side(p)+")")
	}
	return "points have a single repetition on a side: " + strings.Join(names, "; ")
}

// seedRange names the seeds of n repetitions from seed: "2", "2-4".
func seedRange(seed int64, n int) string {
	if n <= 1 {
		return fmt.Sprint(seed)
	}
	return fmt.Sprintf("%d-%d", seed, seed+int64(n)-1)
}

// maxRepetitions is the most variants of one name a record has.
func maxRepetitions(r *Run) int {
	n := map[string]int{}
	most := 0
	for i := range r.Variants {
		name := r.Variants[i].Name
		n[name]++
		most = max(most, n[name])
	}
	return most
}

// measured says whether a record's figures were measured on a live lab.
func measured(r *Run) bool {
	for i := range r.Variants {
		if r.Variants[i].Model() == ModelLive {
			return true
		}
	}
	return false
}
