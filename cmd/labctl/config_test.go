package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigRenderLintDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "topologies", "16gpu", "configs")

	code, out, stderr := runCLI(t, "config", "render", "16gpu", "--dir", dir)
	if code != 0 || !strings.Contains(out, "2 written") {
		t.Fatalf("render: exit %d: %s%s", code, out, stderr)
	}
	for _, f := range []string{"leaf1.json", "spine1.json", ".labctl-manifest.json"} {
		if _, err := os.Stat(filepath.Join(cfgDir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	code, out, stderr = runCLI(t, "config", "lint", "16gpu", "--dir", dir)
	if code != 0 || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Fatalf("lint of a fresh render: exit %d: %s%s", code, out, stderr)
	}
	// Keep a copy, then edit a file: lint fails, render refuses.
	before := filepath.Join(dir, "before")
	if err := os.MkdirAll(before, 0o755); err != nil {
		t.Fatal(err)
	}
	leaf := filepath.Join(cfgDir, "leaf1.json")
	data, err := os.ReadFile(leaf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(before, "leaf1.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"pfc_enable": "3"`, `"pfc_enable": "4"`, 1)
	if edited == string(data) {
		t.Fatal("no pfc_enable in the rendered config")
	}
	if err := os.WriteFile(leaf, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "config", "lint", "16gpu", "--dir", dir, "-o", "json")
	if code != 1 {
		t.Errorf("lint of an edited config: exit %d, want 1", code)
	}
	var res struct {
		Findings []struct{ Rule, Severity, Device, Port string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("lint -o json: %v\n%s", err, out)
	}
	rules := map[string]bool{}
	for _, f := range res.Findings {
		rules[f.Rule] = true
	}
	if !rules["QOS001"] {
		t.Errorf("no QOS001 finding after dropping PFC on priority 3: %+v", res.Findings)
	}
	code, _, stderr = runCLI(t, "config", "render", "16gpu", "--dir", dir)
	if code != 2 || !strings.Contains(stderr, "leaf1.json") || !strings.Contains(stderr, "--force") {
		t.Errorf("render over an edited file: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(leaf); string(got) != edited {
		t.Error("edited file changed without --force")
	}
	// Diff of the edit: one device, differing PFC priorities; exit 1.
	code, out, _ = runCLI(t, "config", "diff", filepath.Join(before, "leaf1.json"), leaf)
	if code != 1 || !strings.Contains(out, "pfc_priorities") || !strings.Contains(out, "[3]") || !strings.Contains(out, "[4]") {
		t.Errorf("diff: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "config", "diff", filepath.Join(before, "leaf1.json"), filepath.Join(before, "leaf1.json"))
	if code != 0 || !strings.Contains(out, "0 differences") {
		t.Errorf("diff of a file with itself: exit %d:\n%s", code, out)
	}
	// One field apart (a port remarking RoCE's class): counted as one.
	remarked := filepath.Join(dir, "remarked.json")
	one := strings.Replace(string(data), `"pfc_enable": "3"`, `"tc_to_dscp_map": "R", "pfc_enable": "3"`, 1)
	one = strings.Replace(one, "{", `{"TC_TO_DSCP_MAP": {"R": {"3": "10"}},`, 1)
	if err := os.WriteFile(remarked, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "config", "diff", filepath.Join(before, "leaf1.json"), remarked)
	if code != 1 || !strings.Contains(out, "tc_to_dscp.3") || !strings.Contains(stderr, "differ in 1 QoS field\n") {
		t.Errorf("diff of one remarking port: exit %d:\n%s%s", code, out, stderr)
	}
	// In JSON the side without the field is null, as the text's "-":
	// "" would read as a value (schema_version 2; 1 wrote "").
	code, out, _ = runCLI(t, "config", "diff", filepath.Join(before, "leaf1.json"), remarked, "-o", "json")
	var diff struct {
		SchemaVersion int              `json:"schema_version"`
		Differences   []map[string]any `json:"differences"`
	}
	if err := json.Unmarshal([]byte(out), &diff); err != nil || code != 1 || diff.SchemaVersion != 2 || len(diff.Differences) != 1 {
		t.Fatalf("diff -o json: exit %d, %v:\n%s", code, err, out)
	}
	if d := diff.Differences[0]; d["field"] != "tc_to_dscp.3" || d["b"] != "10" {
		t.Errorf("diff -o json: %v", d)
	} else if a, ok := d["a"]; !ok || a != nil {
		t.Errorf("diff -o json: the side without tc_to_dscp.3 is %q (present %v), want null", a, ok)
	}
	// --force with the PFC-off variant.
	code, out, stderr = runCLI(t, "config", "render", "16gpu", "--dir", dir, "--force", "--pfc", "off")
	if code != 0 || !strings.Contains(out, "pfc off") || !strings.Contains(out, "overwrote edited files (--force): leaf1.json") {
		t.Fatalf("render --force --pfc off: exit %d: %s%s", code, out, stderr)
	}
	if got, _ := os.ReadFile(leaf); strings.Contains(string(got), "pfc_enable") {
		t.Error("--pfc off config still has pfc_enable")
	}
	// Linted against the lab's intent, PFC off is an error; against the
	// variant it is clean.
	if code, _, _ := runCLI(t, "config", "lint", "16gpu", "--dir", dir); code != 1 {
		t.Errorf("lint of the pfc-off variant against the lab intent: exit %d, want 1", code)
	}
	if code, out, stderr := runCLI(t, "config", "lint", "16gpu", "--dir", dir, "--pfc", "off"); code != 0 {
		t.Errorf("lint --pfc off: exit %d: %s%s", code, out, stderr)
	}
}

func TestConfigLintFilesAndUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "sw1.json")
	if err := os.WriteFile(bad, []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "dscp_to_tc_map": "AZURE"}},
 "DSCP_TO_TC_MAP": {"AZURE": {"26": "1", "3": "3"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "config", "lint", "--roce-dscp", "26", bad)
	if code != 1 || !strings.Contains(out, "QOS003") || !strings.Contains(out, "RoCE DSCP 26 maps to TC1") {
		t.Errorf("lint --roce-dscp 26: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "config", "lint", bad)
	if !strings.Contains(out, "lossless DSCPs inferred from pfc_enable and the maps: 3") {
		t.Errorf("bare lint does not report inferred lossless DSCPs (exit %d):\n%s", code, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "render", "16gpu", "--ecn", "maybe", "--dir", dir}, "--ecn \"maybe\""},
		{[]string{"config", "render", "nolab", "--dir", dir}, "nolab"},
		{[]string{"config", "lint", "16gpu", "--dir", dir}, "fix: run 'labctl config render 16gpu'"},
		{[]string{"config", "lint", "--nos", "junos", bad}, "unknown NOS"},
		{[]string{"config", "diff", bad}, "config diff takes two config sets (files or folders), or --run <run> and variants; got 1 argument (fix: "},
		{[]string{"config", "lint", "-o", "yaml", bad}, "output format"},
	} {
		code, _, stderr := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestConfigRealFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "..", "shared", "reference", "real-configs")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("real configs not found at %s: %v", dir, err)
		}
		t.Skipf("real configs not found at %s", dir)
	}
	// Parsing works, and the real samples have no lint error (exit 0):
	// SONiC's Mellanox sample is a dual-ToR switch whose uplinks run
	// pfc_enable 3,4 with a map sending DSCP 2 and 6 to a lossy class,
	// which is consistent (a warning that the ports differ, QOS012), and
	// relies on the watchdog pfcwd start_default writes (QOS017); EOS's
	// AVD sample marks ECN in a step, Kmin = Kmax, which switches take (a
	// warning), and its interface Ethernet7 takes service-profile QoS,
	// which neither file defines: EOS gives the port no profile's
	// settings, an error (QOS013, exit 1); never 2, bad input.
	for _, c := range []struct {
		sub  string
		exit int
		want []string
	}{
		{"sonic", 0, []string{"QOS012", "PFC_WD (pfcwd_sw_enable without an entry) is not set, so the switch uses its default: detection 200 ms, restoration 200 ms, action drop"}},
		{"eos", 1, []string{"ECN Kmin and Kmax are both 327680 bytes: the queue marks every packet above it", "interface Ethernet7 service-profile names qos profile QoS, which the config does not define"}},
	} {
		code, out, stderr := runCLI(t, "config", "lint", filepath.Join(dir, c.sub))
		if code != c.exit || !strings.Contains(out, "devices:") || !strings.Contains(out, c.want[0]) || !strings.Contains(out, c.want[len(c.want)-1]) {
			t.Errorf("lint %s: exit %d (want %d and %q): %s%s", c.sub, code, c.exit, c.want, out, stderr)
		}
	}
}

// TestConfigLintGroupsSwitches: a finding of one cause on many switches
// (EOS's note on the PFC watchdog's coverage on each; an edit made to
// every switch's config) is one entry of the text output naming the
// switches, each naming its own config file counting as the same; the
// counts, the exit code and the JSON (one finding per switch) stay.
func TestConfigLintGroupsSwitches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, out, stderr := runCLI(t, "config", "render", "128gpu", "--nos", "eos", "--dir", dir); code != 0 {
		t.Fatalf("render: exit %d: %s%s", code, out, stderr)
	}
	cfgDir := filepath.Join(dir, "topologies", "128gpu", "configs")
	names, err := filepath.Glob(filepath.Join(cfgDir, "*.cfg"))
	if err != nil || len(names) != 6 {
		t.Fatalf("want 6 configs (4 leaves, 2 spines): %v %v", names, err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.ReplaceAll(string(data), "minimum-threshold 1600 kbytes", "minimum-threshold 9000 kbytes")
		if edited == string(data) {
			t.Fatalf("%s: no 400G ECN threshold to edit", name)
		}
		if err := os.WriteFile(name, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := runCLI(t, "config", "lint", "128gpu", "--nos", "eos", "--dir", dir)
	if code != 1 {
		t.Errorf("lint: exit %d, want 1:\n%s", code, out)
	}
	lines := strings.Split(out, "\n")
	count := func(sub string) (n int, first string) {
		for _, l := range lines {
			if strings.Contains(l, sub) {
				if n == 0 {
					first = l
				}
				n++
			}
		}
		return n, first
	}
	// Leaves and spines note other ports: each set after its switches.
	if n, l := count("QOS000"); n != 1 || !strings.Contains(l, "6 switches (leaf1-4 (Ethernet1-48); spine1, spine2 (Ethernet1-32))") {
		t.Errorf("the watchdog note of 6 switches: %d lines, want 1 naming them and their ports:\n%s", n, out)
	}
	if n, _ := count("QOS018"); n != 1 {
		t.Errorf("QOS018 of 6 switches on other ports: %d lines, want 1:\n%s", n, out)
	}
	// Leaves and spines differ in the line of the profile: one entry
	// each, the file written <switch>.cfg.
	if n, l := count("QOS004"); n != 2 || !strings.Contains(l, "4 switches (leaf1-4) Ethernet33-48") || !strings.Contains(l, filepath.Join(cfgDir, "<switch>.cfg:74")) {
		t.Errorf("QOS004 of 4 leaves and 2 spines: %d lines, want 2, the first of 4 switches in <switch>.cfg:74:\n%s", n, out)
	}
	if !strings.Contains(out, "\n6 devices: 6 errors, 6 warnings, 6 info\n") {
		t.Errorf("the counts are of findings, one a switch:\n%s", out)
	}
	code, out, _ = runCLI(t, "config", "lint", "128gpu", "--nos", "eos", "--dir", dir, "-o", "json")
	var res struct {
		Findings []struct{ Rule, Device, Where string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 {
		t.Fatalf("lint -o json: exit %d, %v:\n%s", code, err, out)
	}
	perRule := map[string]int{}
	for _, f := range res.Findings {
		perRule[f.Rule]++
		if f.Rule == "QOS004" && !strings.Contains(f.Where, f.Device+".cfg:") {
			t.Errorf("JSON QOS004 of %s names another file: %s", f.Device, f.Where)
		}
	}
	if perRule["QOS000"] != 6 || perRule["QOS004"] != 6 {
		t.Errorf("JSON: %v findings by rule, want 6 QOS000 and 6 QOS004 (one a switch)", perRule)
	}
}

// TestRunLintWarningGroupsSwitches: labctl run's warning of lint errors
// names a cause on many switches once, so its first five causes are five,
// not the same one on five switches.
func TestRunLintWarningGroupsSwitches(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "128gpu", "--nos", "eos")
	names, err := filepath.Glob(filepath.Join(dir, "topologies", "128gpu", "configs", "*.cfg"))
	if err != nil || len(names) != 6 {
		t.Fatalf("want 6 configs: %v %v", names, err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(strings.ReplaceAll(string(data), "minimum-threshold 1600 kbytes", "minimum-threshold 9000 kbytes")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, stderr := runCLI(t, "run", "baseline-bw", "--lab", "128gpu", "--dir", dir)
	if !strings.Contains(stderr, "have 6 lint errors") || strings.Count(stderr, "  QOS004 ") != 2 ||
		!strings.Contains(stderr, "  QOS004 4 switches (leaf1-4) Ethernet33-48: queue 3: ECN Kmin") || !strings.Contains(stderr, "  QOS004 2 switches (spine1, spine2) Ethernet1-32: ") {
		t.Errorf("run's warning of the QOS004 of 4 leaves and 2 spines, want 2 lines:\n%s", stderr)
	}
}
