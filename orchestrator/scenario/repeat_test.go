package scenario

import (
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// TestWithRepetitions: labctl run --repetitions runs every variant n times
// as the scenario's repetitions key does, replacing the key where the file
// has one and adding it where it has none, so that the record's scenario
// says what ran; out-of-range counts, matrices that would pass the variant
// cap and texts that take no added line are refused (exit 2) naming the
// flag and the fix.
func TestWithRepetitions(t *testing.T) {
	const base = "name: reps\nduration: 1ms\ntraffic:\n  - pattern: incast\n    senders: 4\n"
	for _, tc := range []struct {
		name, text string
		n          int
		points     int    // variants before repetitions
		wantErr    string // "" when it must take the flag
	}{
		{"no key", base, 3, 4, ""},
		{"a key to replace", base + "repetitions: 2 # two\n", 5, 4, ""},
		{"a key first", "repetitions: 7\n" + base, 1, 4, ""},
		{"an indented repetitions is not the key", strings.Replace(base, "senders: 4", "senders: 4\n    # repetitions: 9", 1), 2, 4, ""},
		{"the most", base, MaxRepetitions, 4, ""},
		{"zero", base, 0, 4, "--repetitions 0 is out of range: use 1 to 100"},
		{"too many", base, MaxRepetitions + 1, 4, "--repetitions 101 is out of range"},
		{"over the variant cap", base + "matrix:\n  ecn: [on, off]\n  pfc: [on, off]\n  qos.ecn.kmin_kb: [100, 200, 400, 800, 1600]\n", 21, 20,
			"--repetitions 21: scenario reps's matrix makes 20 variants (its exclude list aside), so 21 runs of each make 420, more than the 400 labctl runs at once: use --repetitions 20 or fewer"},
		// The cap counts the matrix before its exclude list, as a file's
		// repetitions key is counted: 4 x 5 = 20 variants, 19 run.
		{"over the cap with an exclude list", base + "matrix:\n  ecn: [on, off]\n  pfc: [on, off]\n  qos.ecn.kmin_kb: [100, 200, 400, 800, 1600]\n  exclude: [{ecn: off, pfc: off, qos.ecn.kmin_kb: 100}]\n", 21, 19,
			"--repetitions 21: scenario reps's matrix makes 20 variants"},
		{"at the cap with an exclude list", base + "matrix:\n  ecn: [on, off]\n  pfc: [on, off]\n  qos.ecn.kmin_kb: [100, 200, 400, 800, 1600]\n  exclude: [{ecn: off, pfc: off, qos.ecn.kmin_kb: 100}]\n", 20, 19, ""},
		{"a flow mapping", "{name: reps, duration: 1ms, traffic: [{pattern: incast, senders: 4}]}\n", 2, 4, "--repetitions 2: scenario reps is not written as a block mapping"},
	} {
		s, err := Parse("reps.yaml", []byte(tc.text))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := len(s.Points()) / s.Repetitions; got != tc.points {
			t.Fatalf("%s: %d variants, want %d", tc.name, got, tc.points)
		}
		out, err := s.WithRepetitions(tc.n)
		if tc.wantErr != "" {
			if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v (exit %d), want exit 2 with %q", tc.name, err, exitcode.Code(err), tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out.Repetitions != tc.n || len(out.Points()) != tc.n*tc.points {
			t.Errorf("%s: %d repetitions, %d points; want %d and %d", tc.name, out.Repetitions, len(out.Points()), tc.n, tc.n*tc.points)
		}
		line := "repetitions: " + strconv.Itoa(tc.n) + " # labctl run --repetitions " + strconv.Itoa(tc.n)
		if strings.Count("\n"+out.Text(), "\nrepetitions:") != 1 || !strings.Contains(out.Text(), line) {
			t.Errorf("%s: the text does not say it:\n%s", tc.name, out.Text())
		}
		if strings.Contains(out.Text(), "# two") || strings.Contains(out.Text(), "repetitions: 7") {
			t.Errorf("%s: the old key stayed:\n%s", tc.name, out.Text())
		}
	}
}
