package results

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// flowLevelRun is a flow-level run's record whose figures say src: an
// earlier labctl wrote "simulated" of them, this one "estimated".
func flowLevelRun(id string, src Source, tp float64) *Run {
	s := Summary{ThroughputGbpsTotal: 2 * tp, ThroughputGbpsMinFlow: tp, JainFairness: 1, Source: src, Model: ModelFlow}
	s.MarkNotComputed("drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99", "failed_flows")
	return &Run{SchemaVersion: SchemaVersion, RunID: id, Scenario: "incast", Lab: "64gpu", Runtime: "sim", Seed: 1, Model: ModelFlow, Status: StatusPassed,
		Variants: []Variant{{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Summary: s,
			Flows: []Flow{{ID: "a", Role: "incast", ThroughputGbps: tp, Source: src}, {ID: "b", Role: "incast", ThroughputGbps: tp, Source: src}}}}}
}

// A flow-level figure's origin is estimated whether its record says so
// (this labctl's) or says simulated with the flow model (an earlier
// one's); a packet-level or measured figure keeps its source.
func TestOriginOfFlowLevelFigures(t *testing.T) {
	for _, c := range []struct {
		s     Source
		model string
		want  Source
	}{
		{Estimated, ModelFlow, Estimated},
		{Simulated, ModelFlow, Estimated},
		{Simulated, ModelPacket, Simulated},
		{Simulated, "", Simulated},
		{Measured, ModelLive, Measured},
		{"", ModelFlow, ""},
	} {
		if got := Origin(c.s, c.model); got != c.want {
			t.Errorf("Origin(%q, %q) = %q, want %q", c.s, c.model, got, c.want)
		}
	}
	if SimulatorSource(ModelFlow) != Estimated || SimulatorSource(ModelPacket) != Simulated {
		t.Errorf("the simulator's figures: flow %q, packet %q", SimulatorSource(ModelFlow), SimulatorSource(ModelPacket))
	}
}

// Regress of a record an earlier labctl wrote of a flow-level run (its
// figures "simulated") against this labctl's (their figures "estimated"):
// both records are accepted, the runs compare without a warning that their
// sources differ, and every finding says estimated, in JSON and text.
func TestRegressOldFlowLevelRecordAgainstNew(t *testing.T) {
	old, cur := flowLevelRun("old", Simulated, 24.5), flowLevelRun("new", Estimated, 20)
	for _, r := range []*Run{old, cur} {
		if err := CheckComparable(r.RunID+".json", r); err != nil {
			t.Fatalf("record %s refused: %v", r.RunID, err)
		}
	}
	for _, pair := range [][2]*Run{{cur, old}, {old, cur}} {
		r := Compare(pair[0], pair[1], nil)
		if len(r.Warnings) > 0 {
			t.Errorf("run %s against baseline %s: warnings %q", pair[0].RunID, pair[1].RunID, r.Warnings)
		}
		regressed := 0
		for _, f := range r.Findings {
			if f.Source != "" && f.Source != Estimated {
				t.Errorf("run %s: finding %s %s says %q", pair[0].RunID, f.Metric, f.Scope, f.Source)
			}
			if f.Kind == FindingMetric && f.Regression {
				regressed++
			}
		}
		if pair[0] == cur && regressed == 0 {
			t.Errorf("24.5 -> 20 Gb/s a flow: no regression found: %+v", r.Findings)
		}
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "figures of the run: estimated, flow-level\n") {
			t.Errorf("run %s: text does not say the figures are estimated:\n%s", pair[0].RunID, b.String())
		}
	}
}

// The HTML report colours a flow-level run's source badge and chart
// labels as its own (orange), whichever way its record says it: each
// badge-<source> and src-<source> class the page uses beyond the
// packet-level default (simulated) has a rule in its style. They were
// named for the label 'simulated, flow-level' the reports no longer use.
func TestHTMLStylesFlowLevelSource(t *testing.T) {
	used := regexp.MustCompile(`class="(?:badge|src) ((?:badge|src)-[a-z-]+)"`)
	for _, src := range []Source{Estimated, Simulated} {
		html := renderedReports(t, flowLevelRun("r", src, 20))["html"]
		style, _, _ := strings.Cut(html, "</style>")
		classes := map[string]bool{}
		for _, m := range used.FindAllStringSubmatch(html, -1) {
			classes[m[1]] = true
		}
		if !classes["badge-"+sourceClass(flowLevelLabel)] {
			t.Errorf("record saying %s: no flow-level badge (classes %v)", src, classes)
		}
		for c := range classes {
			if c != "badge-simulated" && !strings.Contains(style, "."+c+"{") {
				t.Errorf("record saying %s: class %s has no style", src, c)
			}
		}
	}
}

// The index (results.db) names a flow-level variant's source as the
// record's figures are read: estimated, for a record written before
// flow-level figures said so as for one written now.
func TestIndexSaysFlowLevelEstimated(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	for i, src := range []Source{Simulated, Estimated} {
		id, err := s.NewRunID(t0.Add(time.Duration(i)*time.Minute), "incast", "64gpu")
		if err != nil {
			t.Fatal(err)
		}
		run := flowLevelRun(id, src, 20)
		run.Started = t0
		if err := s.SaveRun(run); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.db.QueryRow(`SELECT source FROM variants WHERE run_id = ?`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != string(Estimated) {
			t.Errorf("record saying %s: indexed as %q", src, got)
		}
	}
}

// A figure a variant's model does not compute is NULL in the index, not a
// 0 a query would take for a result (a flow-level estimate's drops and
// p99), while a packet-level run's 0 drops stay 0; an index of an earlier
// schema, whose rows hold zeros for them, is rebuilt from the run folders
// when it is migrated.
func TestIndexLeavesUncomputedFiguresNull(t *testing.T) {
	dir, check := schema3Zeros(t)
	check(openTestStore(t, dir), "migrated from schema 3")
}

// schema3Zeros writes a flow-level and a packet-level run to a results
// folder whose index is of schema 3, zeros in every figure column as that
// schema held them, and returns the folder and a check that an index holds
// NULL for the flow-level run's uncomputed figures and 0 for the
// packet-level run's drops.
func schema3Zeros(t *testing.T) (string, func(s *Store, when string)) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	flow := flowLevelRun("20261129T090000Z-incast-64gpu", Estimated, 20)
	flow.Started = t0
	packet := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0.Add(time.Hour))
	packet.Variants[0].Summary.Drops = 0
	for _, r := range []*Run{flow, packet} {
		if err := s.SaveRun(r); err != nil {
			t.Fatal(err)
		}
	}
	check := func(s *Store, when string) {
		t.Helper()
		var drops, p99 sql.NullFloat64
		var tp float64
		if err := s.db.QueryRow(`SELECT drops, latency_us_p99, throughput_gbps_total FROM variants WHERE run_id = ?`, flow.RunID).Scan(&drops, &p99, &tp); err != nil {
			t.Fatal(err)
		}
		if drops.Valid || p99.Valid || tp != 40 {
			t.Errorf("%s: the flow-level variant's drops %v, p99 %v, throughput %v: want NULL, NULL, 40", when, drops, p99, tp)
		}
		if err := s.db.QueryRow(`SELECT drops FROM variants WHERE run_id = ?`, packet.RunID).Scan(&drops); err != nil || !drops.Valid {
			t.Errorf("%s: the packet-level variant's 0 drops: %v %v", when, drops, err)
		}
	}
	check(s, "saved")
	s.Close()

	// The same runs in an index of schema 3, zeros in every column.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`DROP TABLE variants`, `DROP TABLE runs`, `PRAGMA user_version = 0`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := migrateTo(db, 3, ""); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Run{flow, packet} {
		if _, err := db.Exec(`INSERT INTO runs (id, lab, scenario, runtime, status, seed, started) VALUES (?, '64gpu', ?, 'sim', 'passed', 1, ?)`, r.RunID, r.Scenario, r.Started.UnixNano()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO variants (run_id, name, ecn, pfc, throughput_gbps_total, throughput_gbps_min_flow, jain_fairness, drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99, source, position)
			VALUES (?, ?, 1, 1, 40, 20, 1, 0, 0, 0, 0, 0, 0, 0, 'simulated', 0)`, r.RunID, r.Variants[0].Name); err != nil {
			t.Fatal(err)
		}
	}
	return dir, check
}

// A labctl killed while it migrates an index of schema 3, after the
// schema step and before the runs' rows are put right from their records,
// leaves the index as it was: the next open migrates it again and the
// flow-level run's uncomputed figures are NULL, not the zeros schema 3
// held, without a 'labctl results reindex'.
func TestMigrationToNullableIsAtomic(t *testing.T) {
	dir, check := schema3Zeros(t)
	killed := errors.New("killed between the schema step and the records")
	migrationInterrupt = func() error { return killed }
	s, err := Open(dir)
	migrationInterrupt = nil
	if !errors.Is(err, killed) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open with the migration interrupted: %v, want %v", err, killed)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 3 {
		t.Errorf("schema after the interrupted migration: %d (%v), want 3 as it was", v, err)
	}
	db.Close()
	check(openTestStore(t, dir), "opened after a migration interrupted")
}

// A record the index cannot hold (two variants of one name and
// repetition, as a hand edit of run.json makes) does not stop the
// migration across schema 4: that run keeps its schema-3 row, the others
// are put right, and labctl opens the index, where the whole migration
// failed, and with it every later 'labctl run' and reindex.
func TestMigrationSkipsARecordItCannotIndex(t *testing.T) {
	dir, check := schema3Zeros(t)
	bad := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(2*time.Hour))
	bad.Variants = append(bad.Variants, bad.Variants[0])
	data, err := json.Marshal(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, bad.RunID), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, bad.RunID, RunFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO runs (id, lab, scenario, runtime, status, seed, started) VALUES (?, '64gpu', 'ecn-pfc', 'sim', 'passed', 1, ?)`, bad.RunID, bad.Started.UnixNano()); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open with a record the index cannot hold: %v", err)
	}
	defer s.Close()
	check(s, "migrated past a record it cannot index")
	var v, n int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("schema after the migration: %d (%v), want %d", v, err, len(migrations))
	}
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM runs WHERE id = ?`, bad.RunID).Scan(&n); err != nil || n != 1 {
		t.Errorf("the run it could not index: %d rows (%v), want its row kept", n, err)
	}
	// 'labctl results reindex' indexes the others and names the record.
	indexed, err := s.Reindex()
	if indexed != 2 || err == nil || !strings.Contains(err.Error(), filepath.Join(bad.RunID, RunFile)) || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("reindex with a record the index cannot hold: %d indexed, %v; want 2 and the record named with a fix", indexed, err)
	}
	check(s, "reindexed past a record it cannot index")
}

// A migration that waits for another labctl's write lock past the busy
// timeout says that another labctl is migrating results.db.
func TestMigrationBusySaysAnotherLabctl(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFile)
	holder, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), `ROLLBACK`)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(50)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := migrate(db, ""); err == nil || !strings.Contains(err.Error(), "another labctl is migrating results.db") {
		t.Errorf("migration behind another's write lock: %v", err)
	}
}
