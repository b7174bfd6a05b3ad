package results

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/jsonindent"
)

// seriesRun is a record with time series in every variant and what could
// fool a cut by bytes: brackets, braces, quotes, backslashes and "series"
// in strings, a "series" key in a variant's extra and at the top, a
// variant without series, and one with an empty list; its first series
// has n samples.
func seriesRun(n int) *Run {
	prio := 3
	ts := func(name string, n int) TimeSeries {
		s := TimeSeries{Name: name, Kind: "queue_bytes", Node: "leaf1", Port: "Ethernet0", Priority: &prio, Unit: "bytes", Source: "simulated",
			Thresholds: []Threshold{{Name: `kmin "]}"`, Value: 40_000}}}
		for i := range n {
			s.TimeUs = append(s.TimeUs, float64(i)*10)
			s.Values = append(s.Values, float64(i*i%977)+0.25)
		}
		return s
	}
	return &Run{
		SchemaVersion: SchemaVersion, RunID: "20261205T120000Z-x-64gpu", Lab: "64gpu", Scenario: `x "series": [1]`, Runtime: "sim",
		Extra: map[string]any{"series": []any{1.0, "a]"}, "variants": "not these"},
		Variants: []Variant{
			{Name: `ecn=on,pfc=on "}]\`, ECN: true, PFC: true, Params: map[string]string{"series": `[{"`},
				Flows:  []Flow{{ID: `f\"1`, Src: "h0", Dst: "h1", Pattern: "pairs"}},
				Series: []TimeSeries{ts(`queue_bytes leaf1:Ethernet0 "prio" 3`, n), ts("pg_bytes {[", 7)},
				Extra:  map[string]any{"series": map[string]any{"kept": true, "values": []any{1.0, 2.0}}},
			},
			{Name: "ecn=off,pfc=on"},
			{Name: "ecn=on,pfc=off", Series: []TimeSeries{}},
		},
	}
}

// TestWithoutSeriesSameAsDecoding: a record read without series is the record
// read whole with every variant's series dropped, and nothing else, written
// compact or indented as labctl writes records; a record without variants
// or series comes back as it is.
func TestWithoutSeriesSameAsDecoding(t *testing.T) {
	run := seriesRun(500)
	compact, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	indented, err := jsonindent.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	noVariants, _ := json.Marshal(&Run{RunID: "r", Extra: map[string]any{"series": 1.0}})
	for name, data := range map[string][]byte{"compact": compact, "indented": indented, "no variants": noVariants} {
		var whole, cut Run
		if err := json.Unmarshal(data, &whole); err != nil {
			t.Fatal(err)
		}
		for i := range whole.Variants {
			whole.Variants[i].Series = nil
		}
		if err := decodeWithoutSeries(data, &cut); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(cut, whole) {
			t.Errorf("%s: read without series\n%+v\nwant the whole record without series\n%+v", name, cut, whole)
		}
		if b, ok := withoutSeries(data); !ok || name != "no variants" && len(b) >= len(data)/2 {
			t.Errorf("%s: withoutSeries understood it: %v, %d of %d bytes left", name, ok, len(b), len(data))
		}
	}
}

// TestReadWithoutSeriesErrorsAsWhole: a damaged record gives the error reading
// it whole gives (its place in the file included), whether the damage is
// in a series the cut skips or elsewhere: every prefix of a record, and
// records with a bad number in a series and outside one, and a series that
// is not a list.
func TestReadWithoutSeriesErrorsAsWhole(t *testing.T) {
	data, err := json.Marshal(seriesRun(50))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	inSeries := strings.Replace(s, `"values":[0.25,`, `"values":[0.25x,`, 1)
	outside := strings.Replace(s, `"ecn":true`, `"ecn":tru`, 1)
	if inSeries == s || outside == s {
		t.Fatal("the record lacks what the test damages")
	}
	notList := strings.Replace(s, `"series":[{`, `"series":"x","y":[{`, 1)
	cases := []string{inSeries, outside, notList}
	for n := 0; n < len(s); n += 7 {
		cases = append(cases, s[:n])
	}
	dir := t.TempDir()
	for i, c := range cases {
		path := filepath.Join(dir, "run.json")
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errWhole := ReadRunFile(path)
		_, errCut := ReadRunFileWithoutSeries(path)
		if errWhole == nil || errCut == nil || errWhole.Error() != errCut.Error() {
			t.Fatalf("case %d (%d bytes): read whole: %v; read without series: %v", i, len(c), errWhole, errCut)
		}
	}
}

// FuzzWithoutSeries: for any bytes, reading without series fails when and as
// reading whole does, but for a series list holding values of the wrong
// type (which it does not decode), and otherwise gives the whole record
// without its variants' series.
func FuzzWithoutSeries(f *testing.F) {
	// A small seed: the fuzzer spends its time minimizing large ones.
	data, _ := json.Marshal(seriesRun(3))
	f.Add(data)
	f.Add([]byte(`{"variants":[{"series":[{"values":[1,2]}],"name":"a"}]}`))
	f.Add([]byte(`{"variants":[{"series":"x\"]"},{"series":null}],"series":[1]}`))
	f.Add([]byte(`{"variants":[{"series":[}]}`))
	f.Add([]byte(` {"variants" : [ { "series" : [ 1 ] , "name":"b" } ] } `))
	f.Add([]byte(`{"Variants":[{"seriEs":[{"values":[1]}],"name":"c"},{"s\u0065ries":[{"values":[2]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var whole, cut Run
		errWhole := json.Unmarshal(data, &whole)
		errCut := decodeWithoutSeries(data, &cut)
		var inSeries *json.UnmarshalTypeError
		if errors.As(errWhole, &inSeries) && (inSeries.Field == "variants.series" || strings.HasPrefix(inSeries.Field, "variants.series.")) && errCut == nil {
			return
		}
		if (errWhole == nil) != (errCut == nil) || errWhole != nil && errWhole.Error() != errCut.Error() {
			t.Fatalf("read whole: %v; read without series: %v", errWhole, errCut)
		}
		if errWhole != nil {
			return
		}
		// Series the cut missed (a key written with escapes) were decoded.
		for _, r := range []*Run{&whole, &cut} {
			for i := range r.Variants {
				r.Variants[i].Series = nil
			}
		}
		if !reflect.DeepEqual(cut, whole) {
			t.Fatalf("read without series %+v, want %+v", cut, whole)
		}
	})
}
