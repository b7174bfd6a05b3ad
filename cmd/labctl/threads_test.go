package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
)

// recordWithoutCost is a run record as JSON without what differs between
// two runs of the same input: its id and times, and each variant's cost
// (wall time and events per second, measured on this machine).
func recordWithoutCost(t *testing.T, r *results.Run) string {
	t.Helper()
	r.RunID, r.Started, r.Finished = "", time.Time{}, nil
	b, err := json.Marshal(results.WithoutCost(r))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunThreadsSameRecord: the parallel engine's record is the same, byte
// for byte, on 1, 2 and 4 threads, for catalog scenarios with a QoS
// sweep, a PFC storm under a watchdog, link failures and the ECN x PFC
// matrix, nccl-tests' sizes one after the other, on a fabric split in
// three; and with the default threads, where a variant that outlasts the
// others takes over their threads. (Load balancing by spraying is
// orchestrator/sim's TestParallelSameForAnyThreads: lb-compare takes
// half a minute a run.)
func TestRunThreadsSameRecord(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{"incast", "kmin-sweep", "pfc-storm", "link-failure", "nccl-allreduce"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel() // a lab of its own: the scenarios run side by side
			dir := upLab(t, "64gpu")
			var first string
			for _, threads := range [][]string{{"--threads", "1", "-j", "1"}, {"--threads", "2", "-j", "1"}, {"--threads", "4", "-j", "1"}, {"-j", "2"}} {
				code, r, stderr := runJSON(t, dir, sc, "64gpu", append([]string{"--partitions", "3"}, threads...)...)
				if r == nil || code == exitcode.BadInput {
					t.Fatalf("%v: exit %d: %s", threads, code, stderr)
				}
				if r.Variants[0].Params["partitions"] != "3" {
					t.Fatalf("%v: params %v: the fabric was not split in three", threads, r.Variants[0].Params)
				}
				got := recordWithoutCost(t, r)
				if first == "" {
					first = got
				} else if got != first {
					t.Errorf("%v: the record differs from --threads 1's", threads)
				}
			}
		})
	}
}

func TestRunThreadsBadValues(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	for _, args := range [][]string{{"--threads", "-1"}, {"--partitions", "-2"}} {
		code, _, stderr := runCLI(t, append([]string{"run", "incast", "--lab", "16gpu", "--dir", dir}, args...)...)
		if code != exitcode.BadInput || !strings.Contains(stderr, args[0]) || !strings.Contains(stderr, "leave it out") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
