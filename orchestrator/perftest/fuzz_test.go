package perftest

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func seeds(f *testing.F, prefix string) {
	files, _ := filepath.Glob(filepath.Join("testdata", prefix+"*"))
	for _, name := range files {
		if strings.HasSuffix(name, ".golden.json") {
			continue
		}
		f.Add(fixture(f, filepath.Base(name)))
	}
	f.Add("")
	f.Add("{")
	f.Add(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 1 1 1 1 1\n")
}

func checkErr(t *testing.T, err error) {
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
}

func FuzzParseBW(f *testing.F) {
	seeds(f, "bw")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseBW(strings.NewReader(in))
		if err != nil {
			checkErr(t, err)
			return
		}
		if len(r.Rows) == 0 {
			t.Fatal("success without rows")
		}
		// Round trip: the report survives JSON encoding unchanged.
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back BWReport
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		b2, _ := json.Marshal(&back)
		if string(b) != string(b2) {
			t.Fatalf("round trip changed the report:\n%s\n%s", b, b2)
		}
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
			checkErr(t, err)
			return
		}
		for _, row := range r.Rows {
			if row.MinUs != nil && row.MaxUs != nil && *row.MinUs > *row.MaxUs {
				t.Fatalf("min above max accepted: %+v", row)
			}
		}
	})
}
