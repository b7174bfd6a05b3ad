package results

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCostFigures(t *testing.T) {
	c := PacketCost(2500*time.Millisecond, 18_312_345, 6_100_000, 1)
	if c.WallS != 2.5 || *c.EventsPerS != 7_324_938 || *c.Events != 18_312_345 || *c.PacketHops != 6_100_000 || c.Threads != 1 {
		t.Errorf("packet cost %+v", c)
	}
	if got, want := c.String(), "2.50 s wall, 18.3M events (7.32M/s), 6.1M packet-hops, 1 thread"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// Where nothing counted events, they are absent from the record, not 0.
	for _, w := range []*Cost{WallCost(1234567*time.Microsecond, 1), WallCost(time.Second, 0)} {
		b, _ := json.Marshal(w)
		if strings.Contains(string(b), "events") || strings.Contains(string(b), "hops") {
			t.Errorf("wall-only cost %s names events or hops", b)
		}
	}
	if got := WallCost(1234*time.Millisecond, 0).String(); got != "1.23 s wall" {
		t.Errorf("live cost %q", got)
	}
	if (*Cost)(nil).String() != "" {
		t.Error("nil cost says something")
	}
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1k", 12_345: "12.3k", 100_000: "100k", 7_000_000: "7M", 1.5e9: "1.5G"} {
		if got := si(v); got != want {
			t.Errorf("si(%v) = %q, want %q", v, got, want)
		}
	}
}

// A split run's cost line says over how many partitions its threads ran;
// a sequential one's and a live one's say nothing of partitions.
func TestCostLinesNamePartitions(t *testing.T) {
	split := Variant{Params: map[string]string{ParamPartitions: "8"}, Cost: PacketCost(2*time.Second, 1_000_000, 500_000, 2)}
	if got := CostLines(split); len(got) != 1 || !strings.Contains(got[0], "2 threads, 8 partitions (measured wall time of the simulator") {
		t.Errorf("split run: %q", got)
	}
	// Fewer than asked: the line after says why.
	split.Cost.PartitionsNote = "64 partitions asked, 8 made: the fabric holds 8 groups"
	if got := CostLines(split); len(got) != 2 || got[1] != split.Cost.PartitionsNote {
		t.Errorf("split run with fewer partitions than asked: %q", got)
	}
	one := Variant{Params: map[string]string{}, Cost: PacketCost(2*time.Second, 1_000_000, 500_000, 1)}
	live := Variant{Params: map[string]string{ParamPartitions: "8"}, Cost: WallCost(time.Second, 0)}
	for _, v := range []Variant{one, live} {
		if got := CostLines(v); len(got) != 1 || strings.Contains(got[0], "partitions") {
			t.Errorf("%+v: %q", v.Cost, got)
		}
	}
}

// What a run cost differs between two runs of one seed; everything that
// compares records leaves it out: WithoutCost, a baseline, regress.
func TestCostLeftOutOfComparisons(t *testing.T) {
	a := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	a.Variants[0].Simulated = &SimulatedPart{ConfigSource: "read back", Cost: PacketCost(time.Second, 10, 5, 1)}
	b := cloneRun(t, a)
	for i := range a.Variants {
		a.Variants[i].Cost = PacketCost(time.Second, 1000, 400, 1)
		b.Variants[i].Cost = PacketCost(3*time.Second, 1000, 400, 1)
	}
	b.Variants[0].Simulated.Cost = PacketCost(2*time.Second, 10, 5, 1)
	ja, _ := json.Marshal(WithoutCost(a))
	jb, _ := json.Marshal(WithoutCost(b))
	if string(ja) != string(jb) {
		t.Error("records that differ only in cost differ without it")
	}
	if a.Variants[0].Cost == nil || a.Variants[0].Simulated.Cost == nil {
		t.Error("WithoutCost changed the record it copied")
	}
	if full, _ := json.Marshal(a); string(full) == string(ja) || !strings.Contains(string(full), `"cost":{"wall_s":1,`) {
		t.Errorf("the record does not carry its cost: %.300s", full)
	}

	base := ForBaseline(a)
	for _, v := range base.Variants {
		if v.Cost != nil || (v.Simulated != nil && v.Simulated.Cost != nil) {
			t.Errorf("baseline variant %s keeps its cost", v.Name)
		}
	}
	if !slices.Contains(base.Omitted, OmittedCost) {
		t.Errorf("baseline omitted = %v, want %s listed", base.Omitted, OmittedCost)
	}
	if r := Compare(b, a, nil); r.Regressed {
		t.Errorf("regress compared cost: %v", regressions(r))
	}
	if r, rb := Compare(b, a, nil), Compare(WithoutCost(b), WithoutCost(a), nil); r.Compared != rb.Compared {
		t.Errorf("regress compared %+v with cost, %+v without", r.Compared, rb.Compared)
	}
}
