package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/sim"
)

// simRevisionDir holds the fixed inputs whose figures stand for the
// simulator's revision (its README says why they are copies).
const simRevisionDir = "testdata/simrevision"

// TestSimulatorRevision runs fixed inputs (a lab, its configs, scenarios:
// testdata/simrevision) and holds their figures against figures.golden,
// made under the revision it names. Regress takes two records of the
// same inputs, seed and revision for the same simulation, so figures
// that move under an unchanged sim.Revision would be read as the
// configs' doing: the test fails then, and says to raise the revision;
// -update refuses to take such figures (LABCTL_SAME_SIMULATION=1 when
// only the record's shape changed).
func TestSimulatorRevision(t *testing.T) {
	if goruntime.GOARCH != "amd64" {
		// Go fuses multiply-adds on other architectures, which moves
		// the last digits of the figures the golden was made with.
		t.Skipf("the golden figures are of amd64; this is %s", goruntime.GOARCH)
	}
	t.Parallel()
	sonic := simRevisionLab(t, "lab.yaml", "simrev", "sonic", "configs/*.json")
	eos := simRevisionLab(t, "lab.yaml", "simrev", "eos", "configs-eos/*.cfg")
	threeTier := simRevisionLab(t, "lab-3tier.yaml", "simrev3", "sonic", "configs-3tier/*.json")
	shaped := simRevisionLab(t, "lab.yaml", "simrev", "eos", "configs-eos-shaped/*.cfg")
	remarked := simRevisionLab(t, "lab.yaml", "simrev", "sonic", "configs-remark/*.json")
	policed := simRevisionLab(t, "lab.yaml", "simrev", "eos", "configs-eos-policy/*.cfg")
	pcieBound := simRevisionLab(t, "lab-pcie3.yaml", "simrev", "sonic", "configs/*.json")
	scenarios, err := filepath.Glob(filepath.Join(simRevisionDir, "scenarios", "*.yaml"))
	if err != nil || len(scenarios) == 0 {
		t.Fatalf("scenarios: %v %v", scenarios, err)
	}
	var lines []string
	figures := func(dir, name string, extra ...string) {
		labName := "simrev"
		if dir == threeTier {
			labName = "simrev3"
		}
		code, r, stderr := runJSON(t, dir, name, labName, extra...)
		if r == nil || (code != 0 && code != 1) {
			t.Fatalf("labctl run %s %v: exit %d: %s", name, extra, code, stderr)
		}
		if r.SimRevision != sim.Revision {
			t.Errorf("%s: the record's sim_revision %d, the simulator's %d", name, r.SimRevision, sim.Revision)
		}
		label := strings.Join(append([]string{strings.TrimSuffix(filepath.Base(name), ".yaml")}, extra...), " ")
		switch dir {
		case eos:
			label += " (eos)"
		case threeTier:
			label += " (3 tiers, rails)"
		case shaped:
			label += " (eos, shaped)"
		case remarked:
			label += " (spine remarks RoCE)"
		case policed:
			label += " (eos, policy-map)"
		case pcieBound:
			label += " (PCIe-bound NICs)"
		}
		for _, v := range r.Variants {
			lines = append(lines, simFigures(t, label, &v))
		}
		// What the run's record holds beside its variants (the NCCL
		// closed forms, the AllReduce model, the lab's figures).
		lines = append(lines, fmt.Sprintf("%s extra: %s", label, digest(t, r.Extra)))
	}
	for _, s := range scenarios {
		figures(sonic, s)
	}
	// EOS runs on the buffer labctl assumes of its platform (EOS configs
	// carry none): a default of labctl's, so part of the revision.
	figures(eos, filepath.Join(simRevisionDir, "scenarios", "ecn-pfc.yaml"))
	figures(eos, filepath.Join(simRevisionDir, "scenarios", "transports.yaml"))
	figures(eos, filepath.Join(simRevisionDir, "scenarios-eos", "backlog.yaml"))
	// RoCE's queue shaped to 40 percent of every port, and the 400G ports
	// to 30 percent, below their queue's 160 Gb/s (configs-eos-shaped).
	figures(shaped, filepath.Join(simRevisionDir, "scenarios", "ecn-pfc.yaml"))
	// The spine rewrites RoCE's class to DSCP 10 as it sends it, which
	// the leaves queue as best effort (configs-remark).
	figures(remarked, filepath.Join(simRevisionDir, "scenarios", "ecn-pfc.yaml"))
	// Every EOS port's policy-map classifies RoCE (UDP 4791, DSCP 26)
	// into lossy TC1 (configs-eos-policy).
	figures(policed, filepath.Join(simRevisionDir, "scenarios", "ecn-pfc.yaml"))
	figures(sonic, filepath.Join(simRevisionDir, "scenarios", "allreduce.yaml"), "--model", "flow")
	figures(sonic, filepath.Join(simRevisionDir, "scenarios", "baseline-bw.yaml"), "--model", "flow")
	// NICs that PCIe 3.0 x16 feeds 115.2 Gb/s of payload, below their
	// 200G ports (lab-pcie3.yaml): the NIC cap on a lone flow, packet by
	// packet and in the flow-level model, and on a ring AllReduce.
	for _, name := range []string{"baseline-bw", "allreduce"} {
		figures(pcieBound, filepath.Join(simRevisionDir, "scenarios", name+".yaml"))
	}
	figures(pcieBound, filepath.Join(simRevisionDir, "scenarios", "baseline-bw.yaml"), "--model", "flow")
	// Three tiers and rails (lab-3tier.yaml): super-spines, routes across
	// pods and their convergence after a failure, rings over rail leaves.
	for _, name := range []string{"ecn-pfc", "link-failure", "nccl-allreduce", "allreduce"} {
		figures(threeTier, filepath.Join(simRevisionDir, "scenarios", name+".yaml"))
	}

	got := fmt.Sprintf("revision %d\n%s\n", sim.Revision, strings.Join(lines, "\n"))
	golden := filepath.Join(simRevisionDir, "figures.golden")
	b, err := os.ReadFile(golden)
	if err != nil && !updating() {
		t.Fatalf("%v (make it with -update)", err)
	}
	want := string(b)
	wantRev, _, _ := strings.Cut(want, "\n")
	sameRev := wantRev == fmt.Sprintf("revision %d", sim.Revision)
	if updating() {
		// -update does not take figures that moved under the revision
		// they were made with, unless told that the simulation did not
		// change (only the record's shape did, say a field added).
		if sameRev && got != want && os.Getenv("LABCTL_SAME_SIMULATION") == "" {
			t.Fatalf("the figures moved while sim.Revision stayed %d: raise it with a line in sim.Revisions saying what moved, then -update; if the simulation did not change (the record gained a field), rerun with LABCTL_SAME_SIMULATION=1\n%s", sim.Revision, firstDifference(want, got))
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got == want {
		return
	}
	if sameRev {
		t.Fatalf("the figures of the fixed inputs in %s moved while sim.Revision stayed %d: records of today's labctl and of the last revision would compare as the same simulation. If the change is meant, raise sim.Revision with a line in sim.Revisions saying what moved, then rewrite the golden: go test ./cmd/labctl -run TestSimulatorRevision -update\n%s",
			simRevisionDir, sim.Revision, firstDifference(want, got))
	}
	t.Fatalf("sim.Revision is %d and %s was made under %s: rewrite it with go test ./cmd/labctl -run TestSimulatorRevision -update\n%s", sim.Revision, golden, wantRev, firstDifference(want, got))
}

// simRevisionLab brings the fixed lab spec (a file under simRevisionDir
// naming lab name) up with NOS nos in a fresh directory and puts the
// configs as they were rendered when the golden was made (configs, a glob
// under simRevisionDir) in place of today's renderer's.
func simRevisionLab(t *testing.T, spec, name, nos, configs string) string {
	t.Helper()
	dir := t.TempDir()
	var out, errb strings.Builder
	if code := run(t.Context(), []string{"up", filepath.Join(simRevisionDir, spec), "--nos", nos, "--dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("labctl up --nos %s: exit %d: %s", nos, code, errb.String())
	}
	files, err := filepath.Glob(filepath.Join(simRevisionDir, configs))
	if err != nil || len(files) == 0 {
		t.Fatalf("configs %s: %v %v", configs, files, err)
	}
	for _, c := range files {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		// The frozen config takes the place of the one labctl rendered
		// for the same switch; one with no such place would sit beside
		// them unread, and today's renderer's would run instead.
		dst := filepath.Join(dir, "topologies", name, "configs", filepath.Base(c))
		if _, err := os.Stat(dst); err != nil {
			t.Fatalf("%s replaces no config labctl rendered for lab %s: %v", c, name, err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// simFigures is one line of the golden: a variant's summary as the
// record has it and the engine's events and packet-hops, to read what
// moved, then a digest of all the rest of the variant that regress and
// the reports read (flows, roles, ports, an NCCL table, the assertions'
// values), but what it cost to run and its time series, which regress
// never reads.
func simFigures(t *testing.T, scenario string, v *results.Variant) string {
	t.Helper()
	s, err := json.Marshal(v.Summary)
	if err != nil {
		t.Fatal(err)
	}
	cost := "events - hops -"
	if c := v.Cost; c != nil && c.Events != nil && c.PacketHops != nil {
		cost = fmt.Sprintf("events %d hops %d", *c.Events, *c.PacketHops)
	}
	rest := *v
	rest.Cost, rest.Series = nil, nil
	return fmt.Sprintf("%s %s: %s %s variant %s", scenario, v.Label(), cost, s, digest(t, rest))
}

// digest is a short sha256 of v's JSON.
func digest(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// firstDifference shows the first line where two texts differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n golden: %s\n now:    %s", i+1, a, b)
		}
	}
	return ""
}
