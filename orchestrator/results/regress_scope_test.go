package results

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

func i64(v int64) *int64 { return &v }

// scopedRun is one ecn=on,pfc=on variant shaped like a simulated incast:
// four incast flows and a victim, and counters as the simulator writes
// them: switch ports with queue depth, a NIC port without. leaf1
// Ethernet0 is the congested receiver port; leaf1 Ethernet32 carries
// the victim with a short queue (not congested); host5 eth0 receives
// pauses.
func scopedRun(t *testing.T, id string) *Run {
	t.Helper()
	run := syntheticRun(id, t0)
	run.Variants = run.Variants[:1]
	v := &run.Variants[0]
	v.Flows = append(v.Flows, Flow{ID: "h5:0->h10:0", Src: "h5", Dst: "h10", Pattern: "incast", Role: "victim", ThroughputGbps: 175,
		LatencyUs: &Latency{P50: 1.8, P99: 1.9, Max: 2}, Source: Simulated})
	v.Counters = []Counter{
		{Node: "leaf1", Port: "Ethernet0", Priority: 3, TxBytes: 4e8, ECNMarked: 9500, PFCTx: 120,
			QueueP50Bytes: i64(360 << 10), QueueP99Bytes: i64(8 << 20), QueueMaxBytes: i64(9_900_000), Source: Simulated},
		{Node: "leaf1", Port: "Ethernet32", Priority: 3, TxBytes: 4e8,
			QueueP50Bytes: i64(0), QueueP99Bytes: i64(48 << 10), QueueMaxBytes: i64(60 << 10), Source: Simulated},
		{Node: "leaf1", Port: "Ethernet4", Priority: 6, TxBytes: 4e5,
			QueueP50Bytes: i64(0), QueueP99Bytes: i64(0), QueueMaxBytes: i64(98), Source: Simulated},
		{Node: "host5", Port: "eth0", Priority: 3, TxBytes: 4e8, PFCRx: 120, Source: Simulated},
	}
	return run
}

func findingsOf(r Report, keep func(Finding) bool) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}

func textOf(t *testing.T, r Report) string {
	t.Helper()
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A change that hurts one role while the whole-run p99 improves: the
// summary passes, the role does not.
func TestCompareRoleRegressionTheSummaryHides(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	v := &run.Variants[0]
	for i := range v.Flows {
		if v.Flows[i].Role == "incast" {
			v.Flows[i].LatencyUs.P50 *= 7 // 3 us -> 21 us
			v.Flows[i].LatencyUs.P99 *= 0.9
		}
	}
	v.Summary.LatencyUsP99 *= 0.9
	r := Compare(run, base, nil)
	got := regressions(r)
	if len(got) != 1 || got[0] != "metric:ecn=on,pfc=on:role.latency_us_p50" {
		t.Fatalf("regressions %v, want only the incast role's p50 latency", got)
	}
	f := findingsOf(r, func(f Finding) bool { return f.Regression })[0]
	if f.Scope != ScopeRole || f.Role != "incast" || f.Flows != 4 || f.Baseline != 3 || f.Current != 21 || f.Unit != "us" {
		t.Errorf("finding %+v", f)
	}
	// The victim's p50 is compared on its own and did not move.
	victim := findingsOf(r, func(f Finding) bool { return f.Role == "victim" && f.Metric == "role.latency_us_p50" })
	if len(victim) != 1 || victim[0].Delta != 0 {
		t.Errorf("victim p50: %+v", victim)
	}
	text := textOf(t, r)
	for _, want := range []string{
		"REGRESSED: 1 regression\n  ecn=on,pfc=on\n    role incast (4 flows)\n      role.latency_us_p50: 3 us -> 21 us (+600.0%), allowed +1 us (the larger of 10% and 1 us, higher-is-worse)\n",
		"REGRESSED: 1 regression: 1 metric worse beyond tolerance\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "OK:") {
		t.Errorf("text says OK on a regression:\n%s", text)
	}
	// The tolerance override addresses the role metric.
	tol, err := ParseTolerances([]string{"role.latency_us_p50=700%"})
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare(run, base, tol); r.Regressed {
		t.Errorf("with role.latency_us_p50=700%%: %v", regressions(r))
	}
}

func TestCompareRoleMetrics(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	incast := func(r *Run) []*Flow {
		var out []*Flow
		for i := range r.Variants[0].Flows {
			if f := &r.Variants[0].Flows[i]; f.Role == "incast" {
				out = append(out, f)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		change func(*Run)
		want   []string // regressions, kind:metric
	}{
		{"one incast flow starves", func(r *Run) { incast(r)[2].ThroughputGbps = 4 }, []string{"metric:role.throughput_gbps_min_flow", "metric:role.throughput_gbps_total"}},
		{"the victim slows", func(r *Run) {
			f := &r.Variants[0].Flows[4]
			f.ThroughputGbps = 150
		}, []string{"metric:role.throughput_gbps_total", "metric:role.throughput_gbps_min_flow"}},
		{"one flow's p99 doubles", func(r *Run) { incast(r)[0].LatencyUs.P99 *= 2 }, []string{"metric:role.latency_us_p99_max"}},
		{"three retransmits from zero", func(r *Run) { incast(r)[1].Retransmits = new(int64(3)) }, []string{"metric:role.retransmits"}},
		{"the incast completes 20% later", func(r *Run) {
			for _, f := range incast(r) {
				*f.FCTUs *= 1.2
			}
		}, []string{"metric:role.fct_us_max"}},
		{"p50 up 0.9 us, under the 1 us floor", func(r *Run) {
			for _, f := range incast(r) {
				f.LatencyUs.P50 += 0.9
			}
		}, nil},
		{"one incast flow does not complete", func(r *Run) { incast(r)[3].FCTUs = nil }, []string{"metric_absent:role.fct_us_max"}},
		{"the incast flows are gone", func(r *Run) { r.Variants[0].Flows = r.Variants[0].Flows[4:] }, []string{"missing_role:"}},
		{"a new role", func(r *Run) {
			r.Variants[0].Flows = append(r.Variants[0].Flows, Flow{ID: "x", Role: "storage", ThroughputGbps: 10, Source: Simulated})
		}, []string{"role_not_in_baseline:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := cloneRun(t, base)
			tt.change(run)
			r := Compare(run, base, nil)
			var got []string
			for _, f := range r.Findings {
				if f.Regression {
					got = append(got, f.Kind+":"+f.Metric)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("regressions %v, want %v", got, want)
			}
		})
	}
}

// A metric one side lacks is absent, never a zero: the run lacking what
// the baseline had regresses; the baseline lacking it is not compared.
func TestCompareAbsentMetrics(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")

	// The flow-level model computes no drops, pauses, marks, CNPs,
	// retransmits or latency: none of those is compared between two
	// flow-level runs, and a packet-level baseline's are absent in a
	// flow-level run.
	flow := cloneRun(t, base)
	fv := &flow.Variants[0]
	fv.Summary.Model, fv.Summary.NotComputed = ModelFlow, []string{"drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99"}
	fv.Counters = nil
	for i := range fv.Flows {
		fv.Flows[i].LatencyUs, fv.Flows[i].Retransmits = nil, nil
	}
	r := Compare(flow, cloneRun(t, flow), nil)
	if r.Regressed || r.Compared.AbsentInRun+r.Compared.AbsentInBaseline != 0 {
		t.Errorf("flow-level vs flow-level: %v %+v", regressions(r), r.Compared)
	}
	for _, f := range r.Findings {
		if slices.Contains(fv.Summary.NotComputed, f.Metric) || f.Metric == "role.retransmits" || strings.HasPrefix(f.Metric, "role.latency") {
			t.Errorf("compared %s, which the flow-level model does not compute", f.Metric)
		}
	}
	r = Compare(flow, base, nil)
	absent := findingsOf(r, func(f Finding) bool { return f.Kind == FindingAbsent })
	if len(absent) == 0 {
		t.Fatal("no absent findings for a flow-level run against a packet-level baseline")
	}
	for _, f := range absent {
		if f.Absent != AbsentInRun || !f.Regression || !strings.Contains(f.Detail, "the run has none") {
			t.Errorf("absent in the run: %+v", f)
		}
	}
	drops := findingsOf(r, func(f Finding) bool { return f.Metric == "drops" })
	if len(drops) != 1 || drops[0].Kind != FindingAbsent || !strings.Contains(drops[0].Detail, "not computed by the flow-level model") {
		t.Errorf("summary drops of a flow-level run: %+v", drops)
	}
	// The other way round nothing regresses from absence: the flow-level
	// baseline has nothing to compare with.
	r = Compare(base, flow, nil)
	for _, f := range r.Findings {
		if f.Kind == FindingAbsent && (f.Regression || f.Absent != AbsentInBaseline) {
			t.Errorf("absent in the baseline regressed: %+v", f)
		}
	}
	if r.Compared.AbsentInBaseline == 0 || !strings.Contains(textOf(t, r), "not compared, absent in the baseline: ") {
		t.Errorf("absent in the baseline not listed: %+v\n%s", r.Compared, textOf(t, r))
	}
}

func TestComparePorts(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	r := Compare(cloneRun(t, base), base, nil)
	var ports []string
	for _, f := range r.Findings {
		if f.Scope == ScopePort && f.Metric == "port.ecn_marked" {
			ports = append(ports, strings.TrimPrefix(f.place(), "port "))
		}
	}
	// leaf1 Ethernet32 (p99 48 KiB, no pause, mark or drop) and the
	// ACK queue are not congested; the NIC receiving pauses is.
	if want := []string{"host5 eth0 priority 3", "leaf1 Ethernet0 priority 3"}; !slices.Equal(ports, want) {
		t.Errorf("compared ports %v, want %v", ports, want)
	}
	// The NIC port has no queue depth on either side: not compared.
	for _, f := range r.Findings {
		if f.Node == "host5" && strings.HasPrefix(f.Metric, "port.queue") {
			t.Errorf("compared a NIC's queue: %+v", f)
		}
	}

	// The victim's queue grows from 48 KiB to 1.1 MiB: the port becomes
	// congested and is compared; the receiver port's queue drains to
	// nothing and its row is gone (better, and not a missing value: the
	// simulator lists only ports with traffic and keeps leaf1's depth).
	run := cloneRun(t, base)
	v := &run.Variants[0]
	v.Counters[1].QueueP99Bytes, v.Counters[1].QueueMaxBytes = i64(1_150_000), i64(1_200_000)
	v.Counters = slices.Delete(v.Counters, 0, 1)
	r = Compare(run, base, nil)
	got := regressions(r)
	// ECN marking stopped at the receiver port: a change either way.
	if want := []string{"metric:ecn=on,pfc=on:port.ecn_marked", "metric:ecn=on,pfc=on:port.queue_p99_bytes", "metric:ecn=on,pfc=on:port.queue_max_bytes"}; !slices.Equal(got, want) {
		t.Fatalf("regressions %v, want %v", got, want)
	}
	text := textOf(t, r)
	for _, want := range []string{
		"    port leaf1 Ethernet32 priority 3\n      port.queue_p99_bytes: 48 KiB -> 1.1 MiB (+2239.7%), allowed +32 KiB (the larger of 25% and 32 KiB, higher-is-worse)\n",
		"    port leaf1 Ethernet0 priority 3\n      port.queue_p50_bytes: 360 KiB -> 0 B (-100.0%)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, f := range r.Findings {
		if f.Node == "leaf1" && f.Port == "Ethernet0" && f.Kind != FindingMetric {
			t.Errorf("a port without a row on a node with queue depth is not absent but empty: %+v", f)
		}
	}
	tol, _ := ParseTolerances([]string{"port.queue_p99_bytes=off", "port.queue_max_bytes=2500%", "port.ecn_marked=10000"})
	if r := Compare(run, base, tol); r.Regressed {
		t.Errorf("with the port tolerances raised: %v", regressions(r))
	}
}

// Records made before the counters carried queue depth compare without a
// spurious regression, against each other and against new records.
func TestComparePortsOldRecords(t *testing.T) {
	newer := scopedRun(t, "20261129T120000Z-ecn-pfc-64gpu")
	old := cloneRun(t, newer)
	old.RunID = "20261129T110000Z-ecn-pfc-64gpu"
	for i := range old.Variants[0].Counters {
		c := &old.Variants[0].Counters[i]
		c.QueueP50Bytes, c.QueueP99Bytes, c.QueueMaxBytes = nil, nil, nil
	}
	// Old against old: no queue comparison, no absence.
	r := Compare(cloneRun(t, old), old, nil)
	if r.Regressed || r.Compared.AbsentInRun+r.Compared.AbsentInBaseline != 0 {
		t.Errorf("old vs old: %v %+v", regressions(r), r.Compared)
	}
	// A new run against an old baseline: the queue depths are not
	// compared, and the text says why, once per variant and reason.
	r = Compare(newer, old, nil)
	if r.Regressed {
		t.Errorf("new run vs old baseline regressed: %v", regressions(r))
	}
	if r.Compared.AbsentInBaseline != 3 {
		t.Errorf("absent in the baseline %d, want the 3 queue metrics of leaf1 Ethernet0", r.Compared.AbsentInBaseline)
	}
	want := "not compared, absent in the baseline: 3\n  ecn=on,pfc=on\n    port.queue_p50_bytes, port.queue_p99_bytes, port.queue_max_bytes at port leaf1 Ethernet0 priority 3: its counters carry no queue depth (a record made before labctl kept it, or counters read from live switches)\n"
	if text := textOf(t, r); !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
	// An old record as JSON (no queue fields at all) reads the same.
	data, err := json.Marshal(old)
	if err != nil || bytes.Contains(data, []byte("queue_p")) {
		t.Fatalf("old record carries queue fields: %v", err)
	}
}

// The verdict never says OK right after changes beyond tolerance without
// saying what they were.
func TestCompareTextBetterOnly(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	run := cloneRun(t, base)
	v := &run.Variants[0]
	v.Summary.ThroughputGbpsMinFlow *= 1.2
	for i := range v.Flows {
		v.Flows[i].ThroughputGbps *= 1.2
	}
	v.Summary.ThroughputGbpsTotal *= 1.2
	v.Summary.LatencyUsP99 *= 1.01
	r := Compare(run, base, nil)
	if r.Regressed {
		t.Fatalf("regressed: %v", regressions(r))
	}
	c := r.Compared
	if c.Better != 6 || c.Moved != 1 || c.Worse != 0 || c.Better+c.Moved+c.Unchanged != c.Metrics {
		t.Errorf("tally %+v, want 6 better (summary total and min flow, each role's total and min flow), 1 moved", c)
	}
	text := textOf(t, r)
	// The verdict counts the better changes apart from those within
	// tolerance: it never calls all of them "within tolerance".
	want := "OK: no regression (" + itoa(c.Metrics-6) + " within tolerance, 6 better beyond tolerance: check they are intended)\n"
	if !strings.HasSuffix(text, want) || strings.Contains(text, itoa(c.Metrics)+" comparisons within tolerance") {
		t.Errorf("text does not end with %q:\n%s", want, text)
	}
	if !strings.Contains(text, "better beyond tolerance (not regressions; check they are intended): 6\n  ecn=on,pfc=on\n    summary\n      throughput_gbps_total: ") {
		t.Errorf("better changes not listed by variant and place:\n%s", text)
	}
}

func itoa(n int) string { return strings.TrimSpace(fmtFloat(float64(n))) }

func TestCompareJUnitCases(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	old := cloneRun(t, base)
	for i := range old.Variants[0].Counters {
		old.Variants[0].Counters[i].QueueP99Bytes = nil
	}
	run := cloneRun(t, base)
	run.Variants[0].Flows[0].LatencyUs.P50 = 50
	r := Compare(run, old, nil)
	var b bytes.Buffer
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var doc JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Tests != len(r.Findings) || s.Failures != r.Regressions || s.Skipped != r.Compared.AbsentInBaseline || s.Skipped != 1 {
		t.Errorf("junit tests=%d failures=%d skipped=%d; findings %d regressions %d absent in baseline %d", s.Tests, s.Failures, s.Skipped, len(r.Findings), r.Regressions, r.Compared.AbsentInBaseline)
	}
	names := map[string]bool{}
	for _, c := range s.Cases {
		names[c.Name] = true
	}
	for _, want := range []string{"regress:throughput_gbps_total", "regress:role.latency_us_p50 incast", "regress:role.latency_us_p50 victim",
		"regress:port.queue_p99_bytes leaf1 Ethernet0 priority 3", "regress:port.pfc_rx host5 eth0 priority 3"} {
		if !names[want] {
			t.Errorf("junit lacks testcase %q", want)
		}
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Findings []map[string]any `json:"findings"`
		Compared map[string]any   `json:"compared"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Compared["ports"] != float64(2) {
		t.Fatalf("json: %v %v", err, back.Compared)
	}
	var port map[string]any
	for _, f := range back.Findings {
		if f["metric"] == "port.queue_p50_bytes" {
			port = f
		}
	}
	if port == nil || port["node"] != "leaf1" || port["port"] != "Ethernet0" || port["priority"] != float64(3) || port["scope"] != "port" || port["unit"] != "bytes" {
		t.Errorf("json port finding %v", port)
	}
}

func TestParseScopedTolerance(t *testing.T) {
	for in, want := range map[string]Tolerance{
		"role.latency_us_p50=20%":          {Rel: 0.2},
		"role.fct_us_max=5%+10":            {Rel: 0.05, Abs: 10},
		"port.queue_p99_bytes=25%+65536":   {Rel: 0.25, Abs: 65536},
		"port.drops=off":                   {Disabled: true},
		"role.throughput_gbps_min_flow=1%": {Rel: 0.01},
	} {
		name, got, err := ParseTolerance(in)
		if err != nil || got != want || name != strings.Split(in, "=")[0] {
			t.Errorf("ParseTolerance(%q) = %q %+v %v, want %+v", in, name, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"role.latency=20%":     `unknown metric "role.latency"; metrics are throughput_gbps_total, `,
		"port.queue_p98=1":     "port.queue_p99_bytes",
		"latency_us_p50=3%":    "role.latency_us_p50",
		"port.queue_p99_bytes": "want metric=value, for example throughput_gbps_total=3%, role.latency_us_p50=20%, role[victim].latency_us_p50=5% or port.queue_p99_bytes=25%+65536",
	} {
		if _, _, err := ParseTolerance(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTolerance(%q) = %v, want an error with %q", in, err, want)
		}
	}
	for _, m := range AllMetrics() {
		if m.Scope == "" || m.Means == "" {
			t.Errorf("metric %s lacks a scope or a meaning", m.Name)
		}
	}
}

// The regressions show regressedPorts ports per variant in full and sum
// up the rest by metric: one edit on every switch of 1024gpu regressed
// 683 ports and priorities, listed on 1,400 lines.
func TestCompareTextCapsRegressedPorts(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	v := &base.Variants[0]
	for i := range 300 {
		v.Counters = append(v.Counters, Counter{Node: "spine" + itoa(1+i/30), Port: "Ethernet" + itoa(4*(i%30)), Priority: 3, Source: Simulated})
	}
	run := cloneRun(t, base)
	for i := range run.Variants[0].Counters {
		if c := &run.Variants[0].Counters[i]; strings.HasPrefix(c.Node, "spine") {
			c.PFCRx = 500
			if c.Node == "spine7" && c.Port == "Ethernet8" {
				c.PFCRx = 5000
			}
		}
	}
	r := Compare(run, base, nil)
	text := textOf(t, r)
	if r.Regressions != 300 {
		t.Fatalf("%d regressions, want 300:\n%s", r.Regressions, text)
	}
	if n := strings.Count(text, "\n    port spine"); n != regressedPorts {
		t.Errorf("%d ports listed in full, want %d:\n%s", n, regressedPorts, text)
	}
	want := "    and 280 more ports and priorities (-o json lists every finding)\n" +
		"      port.pfc_rx on 280 of them (spine1-10), the largest at spine7 Ethernet8 priority 3: 0 -> 5000 (+5000)\n"
	if !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
	if n := strings.Count(text, "\n"); n > 80 {
		t.Errorf("%d lines for 300 ports of one cause:\n%s", n, text)
	}
}

// The changes in the better direction show a few ports per variant and
// count the rest.
func TestCompareTextCapsBetterPorts(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	v := &base.Variants[0]
	for i := range 6 {
		v.Counters = append(v.Counters, Counter{Node: "spine1", Port: "Ethernet" + itoa(4*i), Priority: 3, PFCRx: 500, Source: Simulated})
	}
	run := cloneRun(t, base)
	for i := range run.Variants[0].Counters {
		if c := &run.Variants[0].Counters[i]; c.Node == "spine1" {
			c.PFCRx = 0
			if c.Port == "Ethernet0" {
				c.PFCRx = 5000
			}
		}
	}
	r := Compare(run, base, nil)
	text := textOf(t, r)
	if r.Compared.Better != 5 || !strings.Contains(text, "    and 1 more ports and priorities (-o json lists every finding)\n") ||
		!strings.Contains(text, "    port spine1 Ethernet0 priority 3\n      port.pfc_rx: 500 -> 5000") {
		t.Errorf("better %d:\n%s", r.Compared.Better, text)
	}
}

// Config changes, when a report has them, come before the findings they
// likely explain.
func TestCompareTextConfigChangesFirst(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	run := cloneRun(t, base)
	run.ConfigDigest = "sha256:9e02"
	run.Variants[0].Flows[0].LatencyUs.P50 = 50
	run.Variants[0].Flows[1].LatencyUs.P50 = 50
	r := Compare(run, base, nil)
	r.ConfigChanges = []qos.Difference{{Device: "leaf1", Port: "Ethernet0-124", Field: "queue.3.ecn", A: "min=819200", B: "min=3000000"}}
	text := textOf(t, r)
	want := "switch QoS changed between the baseline and this run (baseline -> run):\n  leaf1 Ethernet0-124 queue.3.ecn: min=819200 -> min=3000000\n\nREGRESSED: 1 regression\n"
	if !r.ConfigChanged || !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
}

// A run on the other NOS than its baseline's says so before the QoS
// changes, which are then largely the other NOS's reading; the same NOS
// says nothing.
func TestCompareTextNamesANOSChange(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	for _, nos := range []string{"sonic", "eos"} {
		base.NOS = "sonic"
		run := cloneRun(t, base)
		run.NOS = nos
		r := Compare(run, base, nil)
		text := textOf(t, r)
		said := strings.Contains(text, "the switches' NOS changed between the baseline and this run: sonic -> eos")
		if said != (nos == "eos") || r.NOS != nos || r.BaselineNOS != "sonic" {
			t.Errorf("run on %s: said %v, report %q/%q:\n%s", nos, said, r.BaselineNOS, r.NOS, text)
		}
	}
}

// Every compared figure says how the run obtained it.
func TestCompareFindingsSayTheSource(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	run := cloneRun(t, base)
	v := &run.Variants[0]
	for i := range v.Flows {
		if v.Flows[i].Role == "victim" {
			v.Flows[i].Source = Measured
		}
	}
	r := Compare(run, base, nil)
	for _, f := range r.Findings {
		want := Simulated
		if f.Role == "victim" {
			want = Measured
		}
		if f.Kind == FindingMetric && f.Source != want {
			t.Errorf("%s %s: source %q, want %q", f.place(), f.Metric, f.Source, want)
		}
	}
	if text := textOf(t, r); !strings.Contains(text, "\nfigures of the run: measured, simulated\n") {
		t.Errorf("text does not say the sources:\n%s", text)
	}
}

// TestCompareFailedFlows: a flow that fails in the run and not in the
// baseline (a QP out of retries: its throughput is what it moved before)
// is a regression of the summary's and its role's failed flows; under a
// model that does not compute failures the metric is absent, not 0.
func TestCompareFailedFlows(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	v := &run.Variants[0]
	i := slices.IndexFunc(v.Flows, func(f Flow) bool { return f.Role == "victim" })
	v.Flows[i].State, v.Flows[i].Reason = FlowFailed, "retry count exceeded after 8 timeouts at 5000 µs (retry_cnt 7)"
	v.Summary.FailedFlows = CountFailed(v.Flows)
	got := regressions(Compare(run, base, nil))
	want := []string{"metric:ecn=on,pfc=on:failed_flows", "metric:ecn=on,pfc=on:role.failed_flows"}
	if !slices.Equal(got, want) {
		t.Errorf("regressions %v, want %v", got, want)
	}
	for _, r := range []*Run{run, base} {
		r.Variants[0].Summary.NotComputed = append(r.Variants[0].Summary.NotComputed, "failed_flows")
	}
	if got := regressions(Compare(run, base, nil)); len(got) != 0 {
		t.Errorf("with failed_flows not computed on both sides: regressions %v", got)
	}
}

// TestCompareLiveTwins: on a live lab the virtual data planes count no
// pauses or marks, so a config change that hurts RoCE moves only the
// variant's simulated twin (the variant simulated with the configs read
// back from the switches). Regress compares the twin as a variant of its
// own, "<variant> (simulated twin)", so the change regresses there while
// the measured part, zeros on both sides, stays unchanged; a twin the
// run lacks (its simulation failed) is not compared.
func TestCompareLiveTwins(t *testing.T) {
	live := func(id string, twinPauses int64, twinP99 float64) *Run {
		sim := scopedRun(t, id)
		run := cloneRun(t, sim)
		v := &run.Variants[0]
		twin := &SimulatedPart{ConfigSource: "read back from the switches", Summary: sim.Variants[0].Summary, Flows: sim.Variants[0].Flows, Counters: sim.Variants[0].Counters}
		twin.Summary.PFCPauseFrames, twin.Summary.LatencyUsP99 = twinPauses, twinP99
		v.Simulated = twin
		v.Summary.Source = Measured
		v.Summary.PFCPauseFrames, v.Summary.ECNMarked, v.Summary.Drops = 0, 0, 0
		v.Counters = nil
		for i := range v.Flows {
			v.Flows[i].Source = Measured
		}
		return run
	}
	base := live("20261129T110000Z-ecn-pfc-64gpu", 0, 12)
	run := live("20261129T120000Z-ecn-pfc-64gpu", 210000, 3200)
	r := Compare(run, base, nil)
	var twinRegressed, measuredRegressed bool
	for _, f := range r.Findings {
		if !f.Regression {
			continue
		}
		switch f.Variant {
		case "ecn=on,pfc=on" + TwinSuffix:
			twinRegressed = twinRegressed || f.Metric == "pfc_pause_frames" || f.Metric == "latency_us_p99"
			if f.Source != Simulated {
				t.Errorf("twin finding %s: source %q, want simulated", f.Metric, f.Source)
			}
		case "ecn=on,pfc=on":
			measuredRegressed = true
		}
	}
	if !twinRegressed || measuredRegressed || !r.Regressed {
		t.Errorf("twin regressed %v (want true), measured part regressed %v (want false):\n%s", twinRegressed, measuredRegressed, textOf(t, r))
	}
	// The same twin on both sides: nothing regresses.
	if r := Compare(live("20261129T120000Z-ecn-pfc-64gpu", 0, 12), base, nil); r.Regressed {
		t.Errorf("unchanged twin regressed:\n%s", textOf(t, r))
	}
	// A run whose twin failed: the twin is not compared.
	failed := live("20261129T120000Z-ecn-pfc-64gpu", 210000, 3200)
	failed.Variants[0].Simulated.Error = "simulation failed"
	fr := Compare(failed, base, nil)
	for _, f := range fr.Findings {
		if strings.HasSuffix(f.Variant, TwinSuffix) {
			t.Errorf("a failed twin was compared: %+v", f)
		}
	}
	if !slices.ContainsFunc(fr.Warnings, func(w string) bool {
		return strings.Contains(w, "the baseline has a simulated twin and the run none that finished")
	}) {
		t.Errorf("no warning of the twin left out: %q", fr.Warnings)
	}
}

// TestRoleTolerance: role[victim].latency_us_p50 applies to the victim
// alone, before role.latency_us_p50 and the default; a role no flow has is
// warned of, not silently ignored; the overrides are listed with where
// each came from.
func TestRoleTolerance(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	base.Variants = base.Variants[:1]
	v := &base.Variants[0]
	v.Flows[3].Role = "victim"
	for i := range v.Flows {
		v.Flows[i].LatencyUs.P50 = 100
	}
	run := cloneRun(t, base)
	for i := range run.Variants[0].Flows {
		run.Variants[0].Flows[i].LatencyUs.P50 = 108 // +8%: within the default 10%
	}
	regressed := func(tol Tolerances) []string {
		t.Helper()
		var got []string
		for _, f := range Compare(run, base, tol).Findings {
			if f.Regression {
				got = append(got, f.Role+":"+f.Metric)
			}
		}
		return got
	}
	parse := func(specs ...string) Tolerances {
		t.Helper()
		tol, err := ParseTolerances(specs)
		if err != nil {
			t.Fatal(err)
		}
		return tol
	}
	for _, tc := range []struct {
		tol  []string
		want string
	}{
		{nil, ""},
		{[]string{"role[victim].latency_us_p50=5%"}, "victim:role.latency_us_p50"},
		{[]string{"role.latency_us_p50=5%"}, "incast:role.latency_us_p50,victim:role.latency_us_p50"},
		// The role's own tolerance comes first, whichever is tighter.
		{[]string{"role.latency_us_p50=5%", "role[victim].latency_us_p50=20%"}, "incast:role.latency_us_p50"},
		{[]string{"role[victim].latency_us_p50=off", "role.latency_us_p50=5%"}, "incast:role.latency_us_p50"},
	} {
		if got := strings.Join(regressed(parse(tc.tol...)), ","); got != tc.want {
			t.Errorf("tolerances %v: regressions %q, want %q", tc.tol, got, tc.want)
		}
	}
	rep := Compare(run, base, parse("role[victm].latency_us_p50=5%", "drops=2"))
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, `tolerance role[victm].latency_us_p50 (--tolerance) names role "victm", which no flow of either run has (their roles: incast, victim)`) {
		t.Errorf("a misspelt role is not warned of: %q", w)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "tolerances: drops 2 (--tolerance), role[victm].latency_us_p50 5% (--tolerance); every other metric its default\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
	if len(rep.Tolerances) != 2 || rep.Tolerances[0] != (AppliedTolerance{Metric: "drops", Tolerance: "2", From: FromFlag}) {
		t.Errorf("report tolerances %+v", rep.Tolerances)
	}
	b.Reset()
	if err := rep.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if want := `<property name="tolerance role[victm].latency_us_p50" value="5% (--tolerance)">`; !strings.Contains(b.String(), want) {
		t.Errorf("JUnit lacks %s:\n%s", want, b.String())
	}
	for in, want := range map[string]string{
		"role[victim].latency_us_p50=5%":  "",
		"role[victim].drops=1":            "role.drops is not a role's metric, so it cannot be set for one role; a role's are role.throughput_gbps_total,",
		"role[].latency_us_p50=1":         "role[<role>].<metric>",
		"role[victim]latency_us_p50=1":    "role[<role>].<metric>",
		"role[victim].latency_us_p5=1":    "did you mean role.latency_us_p50?",
		"latency_us_p50=3%":               `unknown metric "latency_us_p50": did you mean role.latency_us_p50?`,
		"throughput_gbps_totl=3%":         "did you mean throughput_gbps_total?",
		"role[victim].jain_fairness=0.01": "jain_fairness",
	} {
		_, _, err := ParseTolerance(in)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseTolerance(%q) = %v, want %q", in, err, want)
		}
	}
}

// TestScenarioTolerances: a run's scenario may carry its tolerances
// (regress.tolerances), read back from the record as --tolerance reads
// them; a record without a scenario has none.
func TestScenarioTolerances(t *testing.T) {
	run := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	if tol, err := ScenarioTolerances(run); err != nil || len(tol) != 0 {
		t.Errorf("no scenario: %v %v", tol, err)
	}
	run.ScenarioYAML = "name: ecn-pfc\nregress:\n  tolerances:\n    throughput_gbps_total: 3%\n    role[victim].latency_us_p50: 5\n    drops: off\n"
	tol, err := ScenarioTolerances(run)
	if err != nil {
		t.Fatal(err)
	}
	want := Tolerances{
		"throughput_gbps_total":       {Rel: 0.03, From: FromScenario},
		"role[victim].latency_us_p50": {Abs: 5, From: FromScenario},
		"drops":                       {Disabled: true, From: FromScenario},
	}
	if !maps.Equal(tol, want) {
		t.Errorf("tolerances %+v, want %+v", tol, want)
	}
	run.ScenarioYAML = "name: ecn-pfc\nregress:\n  tolerances:\n    throughput: 3%\n"
	if _, err := ScenarioTolerances(run); err == nil || !strings.Contains(err.Error(), "regress.tolerances") {
		t.Errorf("a bad tolerance in the record: %v", err)
	}
}

// A change made to every switch's config is one line naming the switches
// (and each set of ports), where each switch had one and the text showed
// 20 of them.
func TestCompareTextConfigChangesGrouped(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	run := cloneRun(t, base)
	run.ConfigDigest = "sha256:9e02"
	r := Compare(run, base, nil)
	r.ConfigChanges = nil
	for i := 1; i <= 32; i++ {
		r.ConfigChanges = append(r.ConfigChanges, qos.Difference{Device: fmt.Sprintf("leaf%d", i), Port: "Ethernet33-48", Field: "queue.3.ecn", A: "min=1638400", B: "min=1228800"})
	}
	for i := 1; i <= 16; i++ {
		r.ConfigChanges = append(r.ConfigChanges, qos.Difference{Device: fmt.Sprintf("spine%d", i), Port: "Ethernet1-32", Field: "queue.3.ecn", A: "min=1638400", B: "min=1228800"})
	}
	r.ConfigChanges = append(r.ConfigChanges, qos.Difference{Device: "spine3", Field: "buffer.pool", A: "a", B: "b"})
	text := textOf(t, r)
	want := "switch QoS changed between the baseline and this run (baseline -> run):\n" +
		"  48 switches (leaf1-32 (Ethernet33-48); spine1-16 (Ethernet1-32)) queue.3.ecn: min=1638400 -> min=1228800\n" +
		"  spine3 buffer.pool: a -> b\n\n"
	if !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
}

// Past maxConfigChanges lines the text says how many more lines and how
// many changes they hold (one a switch, as -o json lists them), where it
// counted the lines as the changes.
func TestCompareTextConfigChangesCappedCountsChanges(t *testing.T) {
	base := scopedRun(t, "20261129T110000Z-ecn-pfc-64gpu")
	run := cloneRun(t, base)
	run.ConfigDigest = "sha256:9e02"
	r := Compare(run, base, nil)
	r.ConfigChanges = nil
	for q := range maxConfigChanges + 5 {
		for _, d := range []string{"leaf1", "leaf2", "leaf3"} {
			r.ConfigChanges = append(r.ConfigChanges, qos.Difference{Device: d, Port: "Ethernet33-48", Field: fmt.Sprintf("field%02d", q), A: "a", B: "b"})
		}
	}
	text := textOf(t, r)
	want := "  3 switches (leaf1-3) Ethernet33-48 field19: a -> b\n  ... and 5 more lines, 15 changes ('labctl regress -o json' lists them all, one a switch)\n"
	if !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
}

// The sum of the ports a capped list leaves out names the metrics absent
// in the run too, so its lines add up to the count it gives.
func TestHiddenPortsByMetricAbsent(t *testing.T) {
	var fs []Finding
	for i := range 3 {
		fs = append(fs, Finding{Kind: FindingAbsent, Absent: AbsentInRun, Scope: ScopePort, Metric: "port.queue_depth_p99", Node: "leaf" + itoa(1+i), Port: "Ethernet0", Regression: true})
	}
	fs = append(fs, Finding{Kind: FindingMetric, Scope: ScopePort, Metric: "port.pfc_rx", Node: "leaf9", Port: "Ethernet0", Delta: 10, Regression: true})
	got := strings.Join(hiddenPortsByMetric(fs), "\n")
	if !strings.Contains(got, "port.queue_depth_p99 absent in the run on 3 of them (leaf1-3)") || !strings.Contains(got, "port.pfc_rx on 1 of them (leaf9)") {
		t.Errorf("lines:\n%s", got)
	}
}
