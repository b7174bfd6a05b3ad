package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab/doctor"
)

func TestDoctorUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"doctor", "--runtime", "kvm"}, 2, "use clab, clabernetes or sim"},
		{[]string{"doctor", "-o", "yaml"}, 2, "text, json"},
		{[]string{"doctor", "--lab", "no-such-lab"}, 2, "no-such-lab"},
		{[]string{"image", "build", "--method", "magic"}, 2, "not one of auto"},
		{[]string{"image", "build", "--tag", "Bad Tag"}, 2, "not a valid image reference"},
		{[]string{"image", "build", "--mirror", "ftp.example"}, 2, "mirror"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

func TestDoctorSim(t *testing.T) {
	t.Parallel()
	// Without flags doctor checks the default runtime, which works here.
	for _, args := range [][]string{{"doctor", "--runtime", "sim"}, {"doctor"}} {
		code, out, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "PASS") || !strings.Contains(out, "sim") {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
}

// Without --runtime, doctor checks the lab's own runtime: a catalog lab's
// spec says sim, which needs nothing (exit 0, and the note says how to
// check containerlab for it), where the containerlab checks failed it with
// exit 3 over what the lab never uses.
func TestDoctorLabRuntime(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "doctor", "--lab", "16gpu", "-o", "json")
	var rep struct {
		Runtime string `json:"runtime"`
		Note    string `json:"note"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("doctor --lab 16gpu: exit %d, %v\n%s%s", code, err, out, stderr)
	}
	if rep.Runtime != "sim" || !strings.Contains(rep.Note, "lab 16gpu's spec says runtime sim") || !strings.Contains(rep.Note, "labctl doctor --runtime clab --lab 16gpu") {
		t.Errorf("doctor --lab 16gpu checked %s, note %q", rep.Runtime, rep.Note)
	}

	// The runtime a lab is recorded with wins while it holds anything:
	// brought up with --runtime clab, it runs on containerlab.
	dir := t.TempDir()
	app := &App{Dir: dir}
	spec, err := app.resolveSpec("16gpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		state, want string
	}{{"", "sim"}, {runtime.StateUp, "clab"}, {runtime.StateFailed, "clab"}, {runtime.StateDown, "sim"}} {
		if tc.state != "" {
			if err := runtime.WriteState(labDir(app, "16gpu"), &runtime.Status{Lab: "16gpu", Runtime: "clab", State: tc.state}); err != nil {
				t.Fatal(err)
			}
		}
		if got, note := labRuntime(app, spec); got != tc.want || note == "" {
			t.Errorf("lab %q: checks %s (%q), want %s", tc.state, got, note, tc.want)
		}
	}
	clab := *spec
	clab.Runtime = "clab"
	if got, _ := labRuntime(&App{Dir: t.TempDir()}, &clab); got != "clab" {
		t.Errorf("a spec with runtime clab: checks %s", got)
	}
}

// TestDoctorOnThisMachine runs the real checks. What they find depends on
// the machine, so the test checks that the report and the exit code agree,
// and that a kernel without rdma_rxe is reported as such.
func TestDoctorOnThisMachine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("probes Docker and the kernel")
	}
	code, out, stderr := runCLI(t, "doctor", "--runtime", "clab", "--lab", "16gpu", "-o", "json")
	var rep struct {
		Blocked bool `json:"blocked"`
		Checks  []struct {
			Name, Status, Detail string
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor -o json is not JSON: %v\n%s", err, out)
	}
	if rep.Blocked != (code == 3) || (code != 0 && code != 3) {
		t.Fatalf("exit %d with blocked=%v\n%s", code, rep.Blocked, stderr)
	}
	var rxe string
	for _, c := range rep.Checks {
		if c.Name == "rdma_rxe" {
			rxe = c.Status + " " + c.Detail
		}
	}
	release, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	where, _ := doctor.FindRXE(os.DirFS("/"), strings.TrimSpace(string(release)))
	if where == "" && !strings.Contains(rxe, "FAIL "+doctor.NoRXE) {
		t.Errorf("kernel without rdma_rxe, but the check says %q", rxe)
	}
	if where != "" && !strings.HasPrefix(rxe, "PASS") {
		t.Errorf("rdma_rxe is %s, but the check says %q", where, rxe)
	}
}
