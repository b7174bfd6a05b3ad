package results_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/nccltests"
	"github.com/labctl/labctl/orchestrator/results"
)

// TestWriteNCCLTableAsNCCLTests prints a parsed real nccl-tests 2.18
// output and compares the column header, every row and the trailer with
// the lines nccl-tests printed: same columns, same widths, same figures.
func TestWriteNCCLTableAsNCCLTests(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "nccltests", "testdata", "alltoall_2.18_rtx6000dx16_na.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := nccltests.Parse(bytes.NewReader(src), nccltests.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := results.WriteNCCLTable(&b, tb); err != nil {
		t.Fatal(err)
	}
	// nccl-tests' lines from the column header to the average, without
	// what MPI printed inside the table.
	var want []string
	in := false
	for _, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "out-of-place") {
			in = true
		}
		if in && !strings.HasPrefix(l, "[") {
			want = append(want, strings.TrimRight(l, " "))
		}
		if strings.HasPrefix(l, "# Avg bus bandwidth") {
			break
		}
	}
	got := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if !strings.HasPrefix(got[0], "# alltoall over 16 ranks, point-to-point: measured (nccl-tests 2.18.3, alltoall_perf, NCCL 2.30.3+cuda13.0)") || got[1] != "#" {
		t.Fatalf("first lines:\n%s\n%s", got[0], got[1])
	}
	got = got[2:]
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, nccl-tests printed %d:\n%s", len(got), len(want), b.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
}
