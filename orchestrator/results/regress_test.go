package results

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func cloneRun(t *testing.T, r *Run) *Run {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var c Run
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func regressions(r Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Regression {
			out = append(out, f.Kind+":"+f.Variant+":"+f.Metric)
		}
	}
	return out
}

func TestCompareIdentical(t *testing.T) {
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	r := Compare(run, base, nil)
	if r.Regressed || r.Regressions != 0 {
		t.Fatalf("identical runs regressed: %v", regressions(r))
	}
	// Per variant: the 11 summary metrics, the 7 of the incast role (its
	// flows have latencies and completion times), and pfc_tx, pfc_rx,
	// ecn_marked and drops of each congested port (the fixture's counters
	// carry no queue depth, so those are absent on both sides and not
	// compared): two ports where PFC is on, one where it is off.
	c := r.Compared
	if c.Summary != 44 || c.Role != 28 || c.Roles != 4 || c.Ports != 6 || c.Port != 24 || c.Metrics != 96 || len(r.Findings) != 96 {
		t.Errorf("compared %+v with %d findings, want 44 summary, 28 role (4 roles), 24 port (6 ports) metrics", c, len(r.Findings))
	}
	if c.Unchanged != c.Metrics || c.Worse+c.Better+c.Moved+c.AbsentInRun+c.AbsentInBaseline != 0 {
		t.Errorf("identical runs: %+v, want every comparison unchanged", c)
	}
	var b bytes.Buffer
	r.WriteText(&b)
	for _, want := range []string{
		"compared 4 variants with the baseline: 44 summary metrics, 28 role metrics (4 roles), 24 port metrics (6 congested ports and priorities): 96 comparisons, 0 worse beyond tolerance, 0 better beyond tolerance, 0 moved within tolerance, 96 unchanged\n",
		"OK: no regression (all 96 comparisons within tolerance)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// pfcRemoved is what a vendor config edit that drops PFC does to the run:
// the pfc=on variants now lose packets and retransmit, and never pause.
func pfcRemoved(t *testing.T, base *Run) *Run {
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	run.ConfigDigest = "sha256:9e02"
	for i := range run.Variants {
		v := &run.Variants[i]
		if !v.PFC {
			continue
		}
		v.Summary.Drops = 180
		v.Summary.Retransmits = 25
		v.Summary.PFCPauseFrames = 0
		v.Summary.PFCPauseUs = 0
		v.Assertions[0].Passed = false
		v.Assertions[0].Detail = "drops=180"
	}
	return run
}

func TestComparePFCRemoved(t *testing.T) {
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	r := Compare(pfcRemoved(t, base), base, nil)
	if !r.Regressed || !r.ConfigChanged {
		t.Fatalf("regressed=%v config_changed=%v", r.Regressed, r.ConfigChanged)
	}
	want := map[string]bool{
		"metric:ecn=on,pfc=on:drops": true, "metric:ecn=on,pfc=on:retransmits": true,
		"metric:ecn=off,pfc=on:drops": true, "metric:ecn=off,pfc=on:retransmits": true,
		"assertion:ecn=on,pfc=on:no drops with PFC on": true, "assertion:ecn=off,pfc=on:no drops with PFC on": true,
	}
	got := regressions(r)
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected regression %s", g)
		}
		delete(want, g)
	}
	for w := range want {
		t.Errorf("missing regression %s (got %v)", w, got)
	}
	var b bytes.Buffer
	r.WriteText(&b)
	out := b.String()
	for _, s := range []string{
		"REGRESSED: 6 regressions\n",
		"  ecn=on,pfc=on: assertion \"no drops with PFC on\": passed in baseline (drops=0), fails now (drops=180)\n  ecn=on,pfc=on\n    summary\n      drops: 0 -> 180 (+180), allowed +0 (20%, higher-is-worse)\n",
		"vendor configs changed",
		"REGRESSED: 6 regressions: 4 metrics worse beyond tolerance, 2 assertions that passed in the baseline and fail now\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("text lacks %q:\n%s", s, out)
		}
	}
}

func TestCompareJUnitAndJSON(t *testing.T) {
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	r := Compare(pfcRemoved(t, base), base, nil)
	var b bytes.Buffer
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	parseXML(t, b.String())
	var doc JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != len(r.Findings) || doc.Failures != r.Regressions || doc.Failures != 6 {
		t.Errorf("junit tests=%d failures=%d, findings=%d regressions=%d", doc.Tests, doc.Failures, len(r.Findings), r.Regressions)
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["regressed"] != true || back["regressions"] != float64(6) {
		t.Errorf("json: %v %v", err, back)
	}
}

func TestCompareMissingVariantAndErrors(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	run := cloneRun(t, base)
	run.Status = StatusInterrupted
	run.Variants = run.Variants[:2]
	run.Variants[1].Error = "simulation aborted"
	run.Variants = append(run.Variants, Variant{Name: "ecn=on,pfc=on,mtu=9000"})
	r := Compare(run, base, nil)
	got := strings.Join(regressions(r), " ")
	for _, w := range []string{"missing_variant:ecn=off,pfc=on:", "missing_variant:ecn=off,pfc=off:", "variant_error:ecn=on,pfc=off:", "not_in_baseline:ecn=on,pfc=on,mtu=9000:"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %s in %s", w, got)
		}
	}
	if len(r.VariantsAdded) != 1 || r.VariantsAdded[0] != "ecn=on,pfc=on,mtu=9000" {
		t.Errorf("variants added = %v", r.VariantsAdded)
	}
}

// A baseline that stopped early must not leave the run's other variants
// unchecked, and a run without variants is never "no regression".
func TestCompareIncompleteBaselineAndEmptyRun(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	run := cloneRun(t, base)
	base.Status = StatusInterrupted
	base.Variants = base.Variants[:1]
	r := Compare(run, base, nil)
	got := strings.Join(regressions(r), " ")
	for _, v := range run.Variants[1:] {
		if !strings.Contains(got, "not_in_baseline:"+v.Name+":") {
			t.Errorf("variant %s not flagged in %s", v.Name, got)
		}
	}
	if !r.Regressed {
		t.Error("an incomplete baseline passed")
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "not in the baseline") {
		t.Errorf("text report does not name the unchecked variants:\n%s", text.String())
	}

	empty := cloneRun(t, base)
	empty.Variants = nil
	emptyBase := cloneRun(t, base)
	emptyBase.Variants = nil
	if r := Compare(empty, emptyBase, nil); !r.Regressed || !strings.Contains(strings.Join(regressions(r), " "), "no_variants") {
		t.Errorf("empty run vs empty baseline: %+v", r)
	}
}

func TestCompareTolerances(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	base.Variants = base.Variants[:1] // ecn=on,pfc=on: 189 Gb/s, 120 pauses, 0 drops, 5400 marks
	tests := []struct {
		name   string
		change func(*Summary)
		tol    []string
		want   []string
	}{
		{"throughput -4% within default 5%", func(s *Summary) { s.ThroughputGbpsTotal *= 0.96 }, nil, nil},
		{"throughput -4% beyond override 3%", func(s *Summary) { s.ThroughputGbpsTotal *= 0.96 }, []string{"throughput_gbps_total=3%"}, []string{"throughput_gbps_total"}},
		{"throughput up is fine", func(s *Summary) { s.ThroughputGbpsTotal *= 1.5 }, nil, nil},
		{"pauses +40 under the 50 floor", func(s *Summary) { s.PFCPauseFrames += 40 }, nil, nil},
		{"pauses doubled", func(s *Summary) { s.PFCPauseFrames *= 2 }, nil, []string{"pfc_pause_frames"}},
		{"pauses doubled, metric off", func(s *Summary) { s.PFCPauseFrames *= 2 }, []string{"pfc_pause_frames=off"}, nil},
		{"one drop from zero", func(s *Summary) { s.Drops = 1 }, nil, []string{"drops"}},
		{"one drop allowed absolutely", func(s *Summary) { s.Drops = 1 }, []string{"drops=2"}, nil},
		{"ECN marking stopped", func(s *Summary) { s.ECNMarked, s.CNP = 0, 0 }, nil, []string{"ecn_marked", "cnp"}},
		{"latency +0.9us under floor", func(s *Summary) { s.LatencyUsP99 += 0.9 }, nil, nil},
		{"latency +20%", func(s *Summary) { s.LatencyUsP99 *= 1.2 }, nil, []string{"latency_us_p99"}},
		{"jain -0.05", func(s *Summary) { s.JainFairness -= 0.05 }, nil, []string{"jain_fairness"}},
		{"latency +20% within 10%+5", func(s *Summary) { s.LatencyUsP99 *= 1.2 }, []string{"latency_us_p99=10%+5"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := cloneRun(t, base)
			tt.change(&run.Variants[0].Summary)
			tol, err := ParseTolerances(tt.tol)
			if err != nil {
				t.Fatal(err)
			}
			r := Compare(run, base, tol)
			var got []string
			for _, f := range r.Findings {
				if f.Regression {
					got = append(got, f.Metric)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("regressions %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseTolerance(t *testing.T) {
	tests := []struct {
		in      string
		name    string
		want    Tolerance
		wantErr string
	}{
		{in: "throughput_gbps_total=3%", name: "throughput_gbps_total", want: Tolerance{Rel: 0.03}},
		{in: "drops=10", name: "drops", want: Tolerance{Abs: 10}},
		{in: " latency_us_p99 = 10%+2 ", name: "latency_us_p99", want: Tolerance{Rel: 0.1, Abs: 2}},
		{in: "ecn_marked=off", name: "ecn_marked", want: Tolerance{Disabled: true}},
		{in: "throughput=3%", wantErr: `unknown metric "throughput"; metrics are throughput_gbps_total`},
		{in: "drops", wantErr: "want metric=value"},
		{in: "drops=", wantErr: "want metric=value"},
		{in: "drops=lots", wantErr: `"lots" is not a non-negative number`},
		{in: "drops=-3%", wantErr: `"-3%" is not a non-negative number`},
		{in: "drops=NaN", wantErr: "not a non-negative number"},
		// A falling figure falls by 100% at most; a rising one has no bound.
		{in: "throughput_gbps_total=150%", wantErr: "throughput_gbps_total regresses when it falls, by 100% at most, so 150% could never flag it"},
		{in: "throughput_gbps_total=100%", wantErr: "could never flag it"},
		{in: "throughput_gbps_total=99%", name: "throughput_gbps_total", want: Tolerance{Rel: 0.99}},
		{in: "drops=150%", name: "drops", want: Tolerance{Rel: 1.5}},
	}
	for _, tt := range tests {
		name, tol, err := ParseTolerance(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseTolerance(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || name != tt.name || tol != tt.want {
			t.Errorf("ParseTolerance(%q) = %q, %+v, %v; want %q, %+v", tt.in, name, tol, err, tt.name, tt.want)
		}
	}
	if _, err := ParseTolerances([]string{"drops=1", "bogus=1"}); err == nil {
		t.Error("ParseTolerances accepted an unknown metric")
	}
}

func TestBaselines(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	runs := threeRuns()
	runs[0] = passingRun(runs[0].RunID, runs[0].Started)
	saveRuns(t, s, runs...)
	path, err := SaveBaseline(s, "20261129T10", "ecn-pfc-64gpu")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "baselines", "ecn-pfc-64gpu.json") {
		t.Errorf("path = %s", path)
	}
	for _, bad := range []string{"Bad", "-x", "a/b", "../x", ""} {
		if _, err := SaveBaseline(s, "latest", bad); err == nil || !strings.Contains(err.Error(), "lowercase") {
			t.Errorf("SaveBaseline name %q: %v", bad, err)
		}
	}
	other := filepath.Join(t.TempDir(), "run.json")
	data, _ := json.Marshal(syntheticRun("20261129T080000Z-ecn-pfc-64gpu", t0))
	os.WriteFile(other, data, 0o644)
	for ref, want := range map[string]string{
		"ecn-pfc-64gpu":                 "20261129T100000Z-ecn-pfc-64gpu",
		path:                            "20261129T100000Z-ecn-pfc-64gpu",
		other:                           "20261129T080000Z-ecn-pfc-64gpu",
		"latest":                        "20261129T120000Z-ecn-pfc-16gpu",
		"20261129T110000Z-incast-16gpu": "20261129T110000Z-incast-16gpu",
	} {
		r, err := LoadBaseline(s, ref)
		if err != nil || r.RunID != want {
			t.Errorf("LoadBaseline(%q) = %v, %v; want %s", ref, r, err, want)
		}
	}
	_, err = LoadBaseline(s, "nightly")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "saved baselines: ecn-pfc-64gpu") || !strings.Contains(err.Error(), "latest runs:") {
		t.Errorf("unknown baseline: %v", err)
	}
	// The baselines folder is not a run.
	if n, err := s.Reindex(); n != 3 || err != nil {
		t.Errorf("Reindex with baselines/ present = %d, %v", n, err)
	}
}

func FuzzParseTolerance(f *testing.F) {
	for _, s := range []string{"throughput_gbps_total=3%", "drops=10", "latency_us_p99=10%+2", "ecn_marked=off", "x", "drops=-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, tol, err := ParseTolerance(s)
		if err != nil {
			return
		}
		if _, ok := metricByName(name); !ok {
			t.Fatalf("accepted unknown metric %q", name)
		}
		if tol.Rel < 0 || tol.Abs < 0 || tol.Rel != tol.Rel || tol.Abs != tol.Abs {
			t.Fatalf("%q gave negative or NaN tolerance %+v", s, tol)
		}
	})
}

// The text output reads a two-part tolerance as what it is, the larger of
// the two, not their sum; its widening to the repetitions' spread stays.
func TestToleranceWords(t *testing.T) {
	for _, c := range []struct{ in, unit, want string }{
		// The floor in the unit of the figures beside it (it was 32768
		// beside KiB values).
		{"25%+32768", "bytes", "the larger of 25% and 32 KiB"},
		{"20%+50", "", "the larger of 20% and 50"},
		{"10%+1, widened to the spread of the run's repetitions", "us", "the larger of 10% and 1 us, widened to the spread of the run's repetitions"},
		{"20%", "", "20%"}, {"5", "", "5"}, {"off", "", "off"},
	} {
		if got := toleranceWords(c.in, c.unit); got != c.want {
			t.Errorf("toleranceWords(%q, %q) = %q, want %q", c.in, c.unit, got, c.want)
		}
	}
}

// A tolerance with a number in exponent form parses (the + of 1e+06 is
// not the one joining the percentage and its floor), and a tolerance of
// extreme magnitude prints short and reads back as itself: 1e-300% was
// printed with 300 zeros, and 25%+1e+06 was refused as three parts.
func TestToleranceExponents(t *testing.T) {
	for _, c := range []struct {
		in       string
		rel, abs float64
		str      string
	}{
		{"port.queue_p99_bytes=25%+1e+06", 0.25, 1e6, "25%+1000000"},
		{"throughput_gbps_total=1e-300%+1e-300", 1e-302, 1e-300, "1e-300%+1e-300"},
		{"throughput_gbps_total=50%+1E+300", 0.5, 1e300, "50%+1e+300"},
		{"throughput_gbps_total=3%+2", 0.03, 2, "3%+2"},
	} {
		name, tol, err := ParseTolerance(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if tol.Rel != c.rel || tol.Abs != c.abs || tol.String() != c.str {
			t.Errorf("%s: %+v, printed %q; want rel %g abs %g, %q", c.in, tol, tol.String(), c.rel, c.abs, c.str)
		}
		if _, back, err := ParseToleranceOf(name, tol.String()); err != nil || back.Rel != tol.Rel || back.Abs != tol.Abs {
			t.Errorf("%s: %q reads back as %+v, %v", c.in, tol.String(), back, err)
		}
	}
	if _, _, err := ParseTolerance("throughput_gbps_total=3%+2+1"); err == nil {
		t.Error("3%+2+1 accepted")
	}
}
