package perftest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

func seeds(f *testing.F, prefix string) {
	for _, name := range textparsetest.Fixtures(f, filepath.Join("testdata", prefix+"*")) {
		f.Add(textparsetest.Read(f, name))
	}
	f.Add("")
	f.Add("{")
	f.Add(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 1 1 1 1 1\n")
}

func FuzzParseBW(f *testing.F) {
	seeds(f, "bw")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseBW(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		if len(r.Rows) == 0 {
			t.Fatal("success without rows")
		}
		textparsetest.RoundTrip(t, r)
		for _, row := range r.Rows {
			if row.BWPeak != nil && *row.BWPeak == 0 && row.BWAverage > 0 {
				t.Fatal("a zero peak under a non-zero average was reported as measured")
			}
		}
	})
}

func FuzzParseLat(f *testing.F) {
	seeds(f, "lat")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseLat(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		for _, row := range r.Rows {
			if row.MinUs != nil && row.MaxUs != nil && *row.MinUs > *row.MaxUs {
				t.Fatalf("min above max accepted: %+v", row)
			}
		}
	})
}
