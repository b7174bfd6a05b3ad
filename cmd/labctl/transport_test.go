package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// An InfiniBand lab gets its topology and its subnet manager's settings,
// no vendor configs; the config commands say why they have nothing to do.
func TestInfiniBandLabHasNoVendorConfigs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "ibl.yaml")
	if err := os.WriteFile(spec, []byte("name: ibl\nsizing: {gpus: 16}\ntransport: infiniband\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "up", spec, "--dir", dir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies/ibl/configs")); !os.IsNotExist(err) {
		t.Errorf("an InfiniBand lab got a configs folder (%v)", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "topologies/ibl/subnet-manager.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sm map[string]any
	if err := json.Unmarshal(data, &sm); err != nil || sm["infiniband"] == nil {
		t.Errorf("subnet-manager.json: %v\n%s", err, data)
	}
	for _, args := range [][]string{{"config", "render", spec}, {"config", "lint", spec}, {"config", "show", spec, "leaf1"}} {
		code, _, stderr := runCLI(t, append(args, "--dir", dir)...)
		if code != 2 || !strings.Contains(stderr, "runs InfiniBand: its switches take no vendor QoS configs") || !strings.Contains(stderr, "fix:") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// A scenario that runs RoCE or UET there is refused at its transport
	// key before anything runs: the variants would run on switches without
	// PFC, ECN or buffers and be named as if they had them.
	for _, c := range []struct{ name, text, at string }{
		{"roce.yaml", "name: r\ntransport: roce\nduration: 1ms\ntraffic:\n  - pattern: incast\n    senders: 2\n", "roce.yaml:2:12: "},
		{"sweep.yaml", "name: s\nduration: 1ms\nmatrix:\n  pfc: [on]\n  transport: [infiniband, uet]\ntraffic:\n  - pattern: incast\n    senders: 2\n", "sweep.yaml:5:3: "},
	} {
		sc := filepath.Join(dir, c.name)
		if err := os.WriteFile(sc, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "run", sc, "--lab", "ibl", "--dir", dir)
		if code != 2 || !strings.Contains(stderr, c.at) || !strings.Contains(stderr, "on lab ibl, whose fabric is InfiniBand") || !strings.Contains(stderr, "fix: run the scenario on a RoCE or UET lab") {
			t.Errorf("%s on the InfiniBand lab: exit %d: %s", c.name, code, stderr)
		}
	}
	// An InfiniBand run records the digest of what configures the fabric
	// (the subnet manager's settings), with no warning.
	sc := filepath.Join(dir, "ib.yaml")
	if err := os.WriteFile(sc, []byte("name: i\nduration: 200us\nmatrix:\n  pfc: [on]\n  ecn: [on]\ntraffic:\n  - pattern: incast\n    senders: 2\n    bytes: 64KiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "run", sc, "--lab", "ibl", "--dir", dir, "-o", "json")
	if code != 0 || strings.Contains(stderr, "no config digest") {
		t.Errorf("an InfiniBand run: exit %d: %s", code, stderr)
	}
	// A RoCE lab is unchanged: configs, no SM file.
	if code, _, stderr := runCLI(t, "up", "16gpu", "--dir", dir); code != 0 {
		t.Fatalf("up 16gpu: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies/16gpu/configs/leaf1.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies/16gpu/subnet-manager.json")); !os.IsNotExist(err) {
		t.Errorf("a RoCE lab got an SM file (%v)", err)
	}
}

// A vendor config edit that hurts UET, the leaf's shared pool cut from
// SONiC's 20 MB to 512 KiB, leaves an 8:1 incast without PFC complete and
// lossless (the switches trim instead of dropping), so drops, pauses and
// completion pass; regress must still fail it on uet.trimmed. An unchanged
// rerun must pass with the transport's metrics compared.
func TestRegressCatchesUETTrims(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "64gpu")
	scen := filepath.Join(dir, "uet-incast.yaml")
	if err := os.WriteFile(scen, []byte(`name: uet-incast
matrix: {ecn: [on], pfc: [off]}
transport: uet
duration: 5ms
sample_every: 0
traffic: [{pattern: incast, senders: 8, bytes: 4MiB}]
assertions:
  - expr: summary.drops == 0 && summary.failed_flows == 0
`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() { runOK(t, dir, scen, "64gpu") }
	run()
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "good"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	run()
	code, rep, errs := regressJSON(t, dir)
	compared := false
	for _, f := range rep.Findings {
		compared = compared || f.Metric == "uet.trimmed"
	}
	if code != 0 || rep.Regressed || !compared {
		t.Fatalf("unchanged rerun: exit %d, regressed %v, uet.trimmed compared %v: %s", code, rep.Regressed, compared, errs)
	}
	path := filepath.Join(dir, "topologies", "64gpu", "configs", "leaf1.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal(data, &db); err != nil {
		t.Fatal(err)
	}
	for _, pool := range db["BUFFER_POOL"] {
		pool["size"] = "524288"
	}
	if data, err = json.MarshalIndent(db, "", "    "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run() // its assertion passes: no drop, every flow completes
	code, rep, _ = regressJSON(t, dir)
	var trims *results.Finding
	for i, f := range rep.Findings {
		if f.Metric == "uet.trimmed" && f.Regression {
			trims = &rep.Findings[i]
		}
	}
	if code != 1 || trims == nil || trims.Baseline != 0 || trims.Current == 0 {
		t.Errorf("the shallow pool: exit %d, uet.trimmed finding %+v; findings %+v", code, trims, rep.Findings)
	}
}

// Variants that differ only in what their transport does not read would
// run the same simulation under two names, and a section no variant's
// transport reads would change nothing: both are refused at their key
// before anything runs. What a transport reads is still swept freely.
func TestTransportIgnoredKnobsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "up", "16gpu", "--dir", dir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	const traffic = "duration: 100us\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 2\n    bytes: 64KiB\n"
	for _, c := range []struct {
		name, text, want string
		exit             int
	}{
		{"ib-kmin", "name: a\ntransport: infiniband\nmatrix:\n  pfc: [on]\n  ecn: [on]\n  qos.ecn.kmin_kb: [100, 400]\n", "a.yaml:6:3: variants ecn=on,pfc=on,qos.ecn.kmin_kb=100 and ecn=on,pfc=on,qos.ecn.kmin_kb=400 would run the same simulation under two names: transport infiniband reads no qos.ecn.kmin_kb", 2},
		{"uet-dcqcn-sweep", "name: a\ntransport: uet\nmatrix:\n  pfc: [on]\n  ecn: [on]\n  nic.dcqcn.rpg_ai_rate: [5, 40]\n", "transport uet reads no nic.dcqcn.rpg_ai_rate", 2},
		{"ib-swept-kmin", "name: a\nmatrix:\n  pfc: [on]\n  ecn: [on]\n  transport: [roce, infiniband]\n  qos.ecn.kmin_kb: [100, 400]\n", "exclude: [{transport: infiniband, qos.ecn.kmin_kb: 400}]", 2},
		{"roce-ib-section", "name: a\ntransport: roce\ninfiniband:\n  vls: 8\nmatrix:\n  pfc: [on]\n  ecn: [on]\n", "a.yaml:4:", 2},
		{"uet-dcqcn", "name: a\ntransport: uet\ndcqcn: paper\nmatrix:\n  pfc: [on]\n  ecn: [on]\n", "a.yaml:3:8: dcqcn sets DCQCN, RoCE's congestion control, but no variant of this run uses roce", 2},
		// Benign: each transport's own knobs, and a sweep whose
		// InfiniBand twins the matrix leaves out.
		{"roce-kmin", "name: a\nmatrix:\n  pfc: [on]\n  ecn: [on]\n  qos.ecn.kmin_kb: [100, 400]\n", "", 0},
		{"mixed-excluded", "name: a\ndcqcn: paper\nmatrix:\n  pfc: [on]\n  ecn: [on]\n  transport: [roce, infiniband]\n  qos.ecn.kmin_kb: [100, 400]\n  exclude:\n    - {transport: infiniband, qos.ecn.kmin_kb: 400}\n", "", 0},
	} {
		sc := filepath.Join(dir, c.name, "a.yaml")
		if err := os.MkdirAll(filepath.Dir(sc), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sc, []byte(c.text+traffic), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "run", sc, "--lab", "16gpu", "--dir", dir)
		if code != c.exit || !strings.Contains(stderr, c.want) || c.exit == 2 && !strings.Contains(stderr, "fix:") {
			t.Errorf("%s: exit %d, want %d and %q: %s", c.name, code, c.exit, c.want, stderr)
		}
	}
}

// A transport without a figure has it absent, never a zero: InfiniBand's
// variants list PFC's pause figures as not computed (it has no PFC), UET's
// the CNPs (NSCC sends none); reports print n/a, an assertion on them says
// why instead of passing on 0, and RoCE's figures are all there.
func TestTransportLacksFigures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "up", "16gpu", "--dir", dir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	sc := filepath.Join(dir, "tx.yaml")
	text := "name: tx\nduration: 100us\nsample_every: 0\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  transport: [roce, infiniband, uet]\ntraffic:\n  - pattern: incast\n    senders: 2\n    bytes: 64KiB\n"
	if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "run", sc, "--lab", "16gpu", "--dir", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var run results.Run
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// The record lists the variants it planned, as its variants' labels,
	// so a run that stops early can name those it lacks.
	var labels []string
	for i := range run.Variants {
		labels = append(labels, run.Variants[i].Label())
	}
	if !slices.Equal(run.PlannedVariants, labels) || run.NotRun() != "" {
		t.Errorf("planned %v, variants %v", run.PlannedVariants, labels)
	}
	want := map[string][]string{"roce": nil, "infiniband": {"pfc_pause_frames", "pfc_pause_us"}, "uet": {"cnp"}}
	for _, v := range run.Variants {
		tr := v.Params["transport"]
		if tr == "" {
			tr = "roce"
		}
		if got := v.Summary.NotComputed; !slices.Equal(got, want[tr]) {
			t.Errorf("%s: not computed %v, want %v", v.Name, got, want[tr])
		}
	}
	// An assertion reading PFC's pauses on InfiniBand cannot pass on 0.
	if err := os.WriteFile(sc, []byte(strings.Replace(text, "transport: [roce, infiniband, uet]", "transport: [infiniband]", 1)+"assertions:\n  - expr: summary.pfc_pause_frames == 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "run", sc, "--lab", "16gpu", "--dir", dir)
	if code != 1 || !strings.Contains(out, "cannot evaluate") || !strings.Contains(out, "is not computed: InfiniBand has no PFC") {
		t.Errorf("an assertion on InfiniBand's PFC pauses: exit %d: %s%s", code, out, stderr)
	}
}
