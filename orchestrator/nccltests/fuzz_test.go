package nccltests

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

func FuzzParse(f *testing.F) {
	for _, name := range textparsetest.Fixtures(f, filepath.Join("testdata", "*.txt")) {
		f.Add(textparsetest.Read(f, name), "")
	}
	f.Add("", "")
	f.Add("{", "")
	f.Add("#       size         count      type   redop    root     time   algbw   busbw #wrong\n           8             2     float     sum      -1    20.26    0.00    0.00      0\n# Out of bounds values : 0 OK\n", "all_reduce")
	f.Fuzz(checkParse)
}

// checkParse is the fuzz target: every refusal names a line of the input
// (or the option it refused), and every accepted table keeps the
// invariants the parser checks.
func checkParse(t *testing.T, in, coll string) {
	tb, err := Parse(strings.NewReader(in), Options{Collective: coll})
	if err != nil {
		if _, bad := CollectiveName(coll); coll != "" && bad != nil {
			return // the option was refused, not the input
		}
		textparsetest.CheckError(t, in, err)
		return
	}
	if len(tb.Rows) == 0 || tb.Ranks < 1 || tb.Source != results.Measured || tb.OutOfBounds == nil {
		t.Fatalf("accepted a table without rows, ranks or trailer: %+v", tb)
	}
	f, ok := results.BusBWFactor(tb.Collective, tb.Ranks)
	if !ok {
		t.Fatalf("unknown collective %q accepted", tb.Collective)
	}
	for i, r := range tb.Rows {
		if i > 0 && r.SizeBytes == tb.Rows[i-1].SizeBytes {
			t.Fatalf("size %d twice", r.SizeBytes)
		}
		for _, x := range []float64{r.OutOfPlace.TimeUs, r.OutOfPlace.AlgBWGBps, r.OutOfPlace.BusBWGBps} {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("figure %v accepted", x)
			}
		}
		// busbw/algbw is the collective's factor, within the printed
		// rounding the parser allows.
		if a := r.OutOfPlace.AlgBWGBps; math.Abs(r.OutOfPlace.BusBWGBps-a*f) > 0.5*math.Max(1, a) {
			t.Fatalf("busbw %v for algbw %v and factor %v accepted", r.OutOfPlace.BusBWGBps, a, f)
		}
	}
	textparsetest.RoundTrip(t, tb)
}

// TestMutations runs the fuzz target's checks on random edits of the real
// outputs (a few bytes replaced by digits, separators, signs and letters
// nccl-tests prints), with a fixed seed: what a fuzzing run explores
// first, kept as a test that runs everywhere. NCCLTESTS_MUTATIONS and
// NCCLTESTS_SEED run more of them, or others.
func TestMutations(t *testing.T) {
	mutations := 3000
	if s := os.Getenv("NCCLTESTS_MUTATIONS"); s != "" {
		mutations, _ = strconv.Atoi(s)
	}
	files := textparsetest.Fixtures(t, filepath.Join("testdata", "*.txt"))
	seed := uint64(1)
	if s := os.Getenv("NCCLTESTS_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	const alphabet = "0123456789 .#-e\n\tN/Aabcnoesum()"
	for i := range mutations {
		src := []byte(textparsetest.Read(t, files[i%len(files)]))
		for range 1 + rng.IntN(4) {
			src[rng.IntN(len(src))] = alphabet[rng.IntN(len(alphabet))]
		}
		checkParse(t, string(src), "")
	}
}
