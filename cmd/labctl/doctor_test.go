package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

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

// TestDoctorOnThisMachine runs the real checks. What they find depends on
// the machine, so the test checks that the report and the exit code agree,
// and that a kernel without rdma_rxe is reported as such.
func TestDoctorOnThisMachine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("probes Docker and the kernel")
	}
	code, out, stderr := runCLI(t, "doctor", "--lab", "16gpu", "-o", "json")
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
