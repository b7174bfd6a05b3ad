package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// parseErr parses y and returns the error, which must be a bad-input one.
func parseErr(t *testing.T, y string) error {
	t.Helper()
	_, err := Parse("t.yaml", []byte(y))
	if err != nil && exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("exit code %d, want 2: %v", exitcode.Code(err), err)
	}
	return err
}

// TestPerftestKeys mutates every perftest key a traffic entry takes: the
// harmful values are refused at the key's line and column with the fix,
// the benign ones reach the flows unchanged, and the defaults are
// perftest's.
func TestPerftestKeys(t *testing.T) {
	for _, tc := range []struct {
		name, traffic, want string // want "": accepted
	}{
		{"tx_depth in range", "pattern: pairs\n    tx_depth: 1", ""},
		{"tx_depth at perftest's most", "pattern: incast\n    tx_depth: 15000", ""},
		{"tx_depth zero", "pattern: pairs\n    tx_depth: 0", "t.yaml:4:15: tx_depth: 0 is not allowed (leaving tx_depth out means perftest's 128 messages)"},
		{"tx_depth negative", "pattern: pairs\n    tx_depth: -3", "t.yaml:4:15: tx_depth -3 is out of perftest's range"},
		{"tx_depth beyond perftest", "pattern: pairs\n    tx_depth: 15001", "t.yaml:4:15: tx_depth 15001 is out of perftest's range (fix: use 1 to 15000 (perftest --tx-depth))"},
		{"tx_depth not a number", "pattern: pairs\n    tx_depth: deep", "t.yaml:4:15"},
		{"tx_depth on a ring", "pattern: ring-allreduce\n    tx_depth: 8", "t.yaml:4:15: tx_depth does not apply to pattern ring-allreduce"},
		{"tx_depth on latency", "pattern: latency\n    tx_depth: 8", "tx_depth does not apply to pattern latency"},
		{"bidirectional pairs", "pattern: pairs\n    bidirectional: true", ""},
		{"bidirectional incast", "pattern: incast\n    bidirectional: true", ""},
		{"bidirectional false anywhere", "pattern: all-to-all\n    bidirectional: false", ""},
		{"bidirectional all-to-all", "pattern: all-to-all\n    bidirectional: true", "t.yaml:4:20: bidirectional does not apply to pattern all-to-all (fix: remove it; it applies to pairs, permutation, incast)"},
		{"bidirectional ring", "pattern: ring-allreduce\n    bidirectional: true", "bidirectional does not apply to pattern ring-allreduce"},
		{"bidirectional latency", "pattern: latency\n    bidirectional: true", "bidirectional does not apply to pattern latency"},
		{"bidirectional not a bool", "pattern: pairs\n    bidirectional: both", "t.yaml:4:20"},
		{"iterations", "pattern: latency\n    iterations: 5", ""},
		{"iterations zero", "pattern: latency\n    iterations: 0", "t.yaml:4:17: iterations: 0 is not allowed (leaving iterations out means perftest's 1000 iterations)"},
		{"iterations too few", "pattern: latency\n    iterations: 4", "t.yaml:4:17: iterations 4 is out of perftest's range (fix: use 5 to 100000000 (ib_write_lat -n))"},
		{"iterations too many", "pattern: latency\n    iterations: 100000001", "iterations 100000001 is out of perftest's range"},
		{"iterations on pairs", "pattern: pairs\n    iterations: 10", "iterations does not apply to pattern pairs"},
		{"latency pairs", "pattern: latency\n    pairs: 3\n    message_size: 4KiB", ""},
		{"latency qps", "pattern: latency\n    qps: 2", "qps does not apply to pattern latency"},
		{"latency bytes", "pattern: latency\n    bytes: 1MiB", "bytes does not apply to pattern latency"},
		{"latency pairs zero", "pattern: latency\n    pairs: 0", "pairs: 0 is not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := parseErr(t, "name: x\ntraffic:\n  - "+tc.traffic+"\n")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v\nwant %q", err, tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), "fix:"):
				t.Errorf("error %v names no fix", err)
			}
		})
	}

	s := mustParse(t, "name: x\ntraffic:\n  - pattern: pairs\n  - pattern: latency\n  - pattern: incast\n    tx_depth: 16\n    bidirectional: true\n    message_size: 4096\n")
	bw, lat, inc := s.Traffic[0], s.Traffic[1], s.Traffic[2]
	if bw.TxDepth != perftest.DefaultTxDepthBW || bw.MessageBytes != perftest.DefaultSizeBW || bw.Bidirectional || bw.Iterations != 0 {
		t.Errorf("pairs defaults: tx_depth %d message %d bidirectional %v iterations %d", bw.TxDepth, bw.MessageBytes, bw.Bidirectional, bw.Iterations)
	}
	if lat.Iterations != perftest.DefaultIterations || lat.MessageBytes != perftest.DefaultSizeLat || lat.Pairs != 1 || lat.TxDepth != 0 {
		t.Errorf("latency defaults: iterations %d message %d pairs %d tx_depth %d", lat.Iterations, lat.MessageBytes, lat.Pairs, lat.TxDepth)
	}
	vs, err := s.Expand(labNICs(2, 4, 8), s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range vs.Flows {
		switch f.Pattern {
		case "pairs":
			if f.TxDepth != 128 || f.Bidirectional {
				t.Errorf("pairs flow %s: tx depth %d bidirectional %v", f.ID, f.TxDepth, f.Bidirectional)
			}
		case runtime.PatternLatency:
			if !f.IsLatency() || f.Iterations != 1000 || f.MessageBytes != 2 || f.Role != "latency" || f.Src.Host == f.Dst.Host {
				t.Errorf("latency flow %+v", f)
			}
		case "incast":
			if f.TxDepth != inc.TxDepth || !f.Bidirectional || f.MessageBytes != 4096 {
				t.Errorf("incast flow %s: tx depth %d bidirectional %v message %d", f.ID, f.TxDepth, f.Bidirectional, f.MessageBytes)
			}
		}
	}
}

// TestPerftestKeysSweep: tx_depth and iterations sweep like any traffic
// field, each value checked with the key's own validation at the value.
func TestPerftestKeysSweep(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  traffic[0].tx_depth: [1, 128, 4096]\ntraffic: [{pattern: pairs}]\n")
	if n := len(s.Points()); n != 3 {
		t.Fatalf("%d points, want 3", n)
	}
	for i, want := range []int{1, 128, 4096} {
		vs, err := s.Expand(labNICs(2, 4, 8), s.Points()[i], 1)
		if err != nil {
			t.Fatal(err)
		}
		if vs.Flows[0].TxDepth != want {
			t.Errorf("point %s: tx depth %d, want %d", s.Points()[i].Name, vs.Flows[0].TxDepth, want)
		}
	}
	for _, tc := range []struct{ y, want string }{
		{"  traffic[0].tx_depth: [128, 0]\ntraffic: [{pattern: pairs}]\n", "t.yaml:3:30"},
		{"  traffic[0].tx_depth: [128, 20000]\ntraffic: [{pattern: pairs}]\n", "t.yaml:3:30"},
		{"  traffic[0].iterations: [10, 3]\ntraffic: [{pattern: latency}]\n", "t.yaml:3:31"},
		{"  traffic[0].bidirectional: [false, true]\ntraffic: [{pattern: all-to-all}]\n", "bidirectional does not apply to pattern all-to-all"},
	} {
		err := parseErr(t, "name: x\nmatrix:\n"+tc.y)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.y, err, tc.want)
		}
	}
}

// TestStartOnEveryPattern: start reaches every pattern's flows, and the
// collectives' too.
func TestStartOnEveryPattern(t *testing.T) {
	for _, p := range Patterns {
		extra := ""
		if p == "all-to-all" {
			extra = "\n    ranks: 4"
		}
		s := mustParse(t, fmt.Sprintf("name: x\nduration: 1ms\ntraffic:\n  - pattern: %s\n    start: 250us%s\n", p, extra))
		vs, err := s.Expand(labNICs(2, 4, 8), s.Points()[0], 1)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if c := vs.Collective; c != nil {
			if c.StartUs != 250 {
				t.Errorf("%s: the collective starts at %v µs, want 250", p, c.StartUs)
			}
			continue
		}
		if len(vs.Flows) == 0 {
			t.Fatalf("%s: no flows", p)
		}
		for _, f := range vs.Flows {
			if f.StartUs != 250 {
				t.Errorf("%s: flow %s starts at %v µs, want 250", p, f.ID, f.StartUs)
			}
		}
	}
	// An all-to-all of more ranks than flows are listed for is a
	// collective, which starts late too.
	s := mustParse(t, "name: x\nduration: 1ms\ntraffic:\n  - pattern: all-to-all\n    ranks: 100\n    bytes: 4KiB\n    start: 100us\n")
	vs, err := s.Expand(labNICs(4, 8, 8), s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := vs.Collective; c == nil || c.Kind != "all-to-all" || c.StartUs != 100 {
		t.Errorf("all-to-all collective %+v, want one starting at 100 µs", vs.Collective)
	}
}

// TestLatencyAssertions: a latency role has latency fields and no
// throughput, refused when the file is read.
func TestLatencyAssertions(t *testing.T) {
	ok := mustParse(t, "name: x\ntraffic: [{pattern: latency}]\nassertions:\n  - expr: roles.latency.latency_us_p99 < 5 && roles.latency.latency_us_avg < 3 && roles.latency.count == 1\n")
	if len(ok.Assertions) != 1 {
		t.Fatal("assertion lost")
	}
	err := parseErr(t, "name: x\ntraffic: [{pattern: latency}]\nassertions:\n  - expr: roles.latency.throughput_gbps > 0\n")
	if err == nil || !strings.Contains(err.Error(), "t.yaml:4:") || !strings.Contains(err.Error(), "role latency has no throughput_gbps") {
		t.Errorf("latency throughput assertion: %v", err)
	}
	if err := mustParse(t, "name: x\nmatrix: {ecn: [on], pfc: [on]}\ntraffic: [{pattern: latency}]\n").CheckModel(runtime.ModelFlow); err == nil || !strings.Contains(err.Error(), "t.yaml:3:") || !strings.Contains(err.Error(), "latency ping-pong") {
		t.Errorf("the flow-level model accepted a latency pattern: %v", err)
	}
}
