//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConcurrentRunsFreshWorkDir starts two, then eight, 'labctl run' at
// once in a work dir whose results/ does not exist yet, as a user does
// with `labctl run ... & labctl run ... & wait` right after 'labctl up'.
// Every run must finish with its own record, and 'labctl results list'
// must show exactly those records, before and after a reindex from the
// run folders. With the schema version read outside the migration's
// transaction, some runs failed with "table runs already exists".
func TestConcurrentRunsFreshWorkDir(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 8} {
		t.Run(fmt.Sprintf("%d-runs", n), func(t *testing.T) {
			dir := t.TempDir()
			if r := runChild(t, dir, nil, "up", "16gpu"); r.code != 0 {
				t.Fatalf("labctl up 16gpu: exit %d\n%s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
				t.Fatal("results/ exists after up: the runs would not open a new index")
			}
			// Started one after another without waiting, then waited for:
			// they open the new results.db together. Each gets its own
			// seed, so each record can be told from the others.
			type proc struct {
				cmd         *exec.Cmd
				out, stderr bytes.Buffer
			}
			procs := make([]*proc, n)
			for i := range procs {
				p := &proc{cmd: exec.Command(labctlBinary(t), "run", "baseline-bw", "--lab", "16gpu", "--seed", fmt.Sprint(i+1), "-o", "json")}
				p.cmd.Dir = dir
				p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.stderr
				procs[i] = p
			}
			for _, p := range procs {
				if err := p.cmd.Start(); err != nil {
					t.Fatal(err)
				}
			}
			want := map[string]int64{} // run id -> seed
			for i, p := range procs {
				err := p.cmd.Wait()
				if err != nil {
					t.Errorf("run %d of %d: %v\n%s", i+1, n, err, p.stderr.String())
					continue
				}
				var rec struct {
					RunID  string `json:"run_id"`
					Seed   int64  `json:"seed"`
					Status string `json:"status"`
				}
				if err := json.Unmarshal(p.out.Bytes(), &rec); err != nil {
					t.Errorf("run %d of %d: its -o json is not a record: %v\n%s", i+1, n, err, p.out.String())
					continue
				}
				if _, dup := want[rec.RunID]; dup {
					t.Errorf("two runs got run id %s", rec.RunID)
				}
				if rec.Seed != int64(i+1) || rec.Status != "passed" {
					t.Errorf("run %d of %d: record %s has seed %d, status %s", i+1, n, rec.RunID, rec.Seed, rec.Status)
				}
				want[rec.RunID] = rec.Seed
			}
			if t.Failed() {
				t.FailNow()
			}
			check := func(when string) {
				t.Helper()
				r := runChild(t, dir, nil, "results", "list", "-o", "json")
				if r.code != 0 {
					t.Fatalf("results list %s: exit %d\n%s", when, r.code, r.stderr)
				}
				var list struct {
					Runs []struct {
						RunID  string `json:"run_id"`
						Seed   int64  `json:"seed"`
						Status string `json:"status"`
					} `json:"runs"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
					t.Fatalf("results list %s: %v\n%s", when, err, r.stdout)
				}
				got := map[string]int64{}
				for _, run := range list.Runs {
					got[run.RunID] = run.Seed
					if run.Status != "passed" {
						t.Errorf("results list %s: %s is %s", when, run.RunID, run.Status)
					}
				}
				if len(list.Runs) != n || len(got) != n {
					t.Errorf("results list %s: %d rows (%d distinct), want %d", when, len(list.Runs), len(got), n)
				}
				for id, seed := range want {
					if s, ok := got[id]; !ok || s != seed {
						t.Errorf("results list %s: run %s (seed %d) listed %v with seed %d", when, id, seed, ok, s)
					}
				}
				// Every run folder is one of them: no run left a folder
				// without a record.
				entries, _ := os.ReadDir(filepath.Join(dir, "results"))
				var folders []string
				for _, e := range entries {
					if e.IsDir() {
						folders = append(folders, e.Name())
					}
				}
				ids := make([]string, 0, n)
				for id := range want {
					ids = append(ids, id)
				}
				slices.Sort(ids)
				if !slices.Equal(folders, ids) {
					t.Errorf("results/ %s holds run folders %v, want %v", when, folders, ids)
				}
			}
			check("after the runs")
			if r := runChild(t, dir, nil, "results", "reindex"); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("indexed %d runs", n)) {
				t.Fatalf("results reindex: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			check("after a reindex")
		})
	}
}
