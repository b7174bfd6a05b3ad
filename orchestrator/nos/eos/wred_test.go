package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A random-detect line with a word that is none of its keywords is one
// EOS rejects whole (% Invalid input): the queue takes neither its
// thresholds nor its probability. labctl refuses it with the fix, as it
// refuses a misspelt keyword, rather than read ECN at Pmax 100%.
func TestParseWREDUnknownKeyword(t *testing.T) {
	q := func(line string) string {
		return "interface Ethernet1\n   tx-queue 3\n      " + line + "\n"
	}
	tests := []struct{ name, in, want string }{
		{"mark-probability", q("random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes mark-probability 20"),
			`x.cfg:3: "random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes mark-probability 20": "mark-probability" is no EOS keyword here (fix: did you mean "max-mark-probability"? EOS rejects the line with % Invalid input`},
		{"trailing word", q("random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20 ecn-count"),
			`"ecn-count" is no EOS keyword here`},
		{"drop-probability in an ecn line", q("random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes drop-probability 20"),
			`"drop-probability" is no EOS keyword here`},
		{"max-mark-probability in a drop line", q("random-detect drop minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20"),
			`"max-mark-probability" is no EOS keyword here`},
		{"ambiguous unit", q("random-detect ecn minimum-threshold 800 m maximum-threshold 3200 m"), `threshold units "m" and "m"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x", qos.Source{Name: "x.cfg", Data: []byte(tt.in)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// Prefixes of a random-detect line's optional keyword (max-mark-prob) and
// of its units (kb, mb) are read in full, with the note expanded lines
// get, where they start one keyword or unit only.
func TestParseWREDPrefixes(t *testing.T) {
	for _, line := range []string{
		"random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3 mbytes max-mark-prob 20",
		"random-detect ecn minimum-threshold 800 kb maximum-threshold 3 mb max-mark-probability 20",
		"random-detect ecn min 800 kb max 3 mb max-m 20",
		"random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3 mbytes max 20",
	} {
		dc := mustParseEOS(t, "interface Ethernet1\n   tx-queue 3\n      "+line+"\n")
		e := dc.Port("Ethernet1").Queue(3).ECN
		if e == nil || e.MinBytes != 800*1024 || e.MaxBytes != 3*1024*1024 || e.Pmax != 0.2 {
			t.Errorf("%q: ECN = %+v, want 800 kbytes, 3 mbytes, 20%%", line, e)
		}
		if !strings.Contains(strings.Join(dc.Notes, "\n"), "read as \"random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3 mbytes max-mark-probability 20\"") {
			t.Errorf("%q: no note that it was read expanded: %q", line, dc.Notes)
		}
	}
	dc := mustParseEOS(t, "interface Ethernet1\n   tx-queue 3\n      random-detect drop minimum-threshold 1 kb maximum-threshold 10 kb drop-prob 50\n")
	if e := dc.Port("Ethernet1").Queue(3).Drop; e == nil || e.MinBytes != 1024 || e.Pmax != 0.5 {
		t.Errorf("drop = %+v", e)
	}
}

// A line with two abbreviated keywords, one of them the weight
// (max-mark-prob 20 w 4, drop-prob 50 w 4), is one EOS accepts: labctl
// reads its thresholds and names its weight, where it left "w" unexpanded
// and refused the line (or, with a prefix of a literal too, passed over
// it as no statement, leaving the queue without ECN).
func TestParseWREDPrefixesWithWeight(t *testing.T) {
	for _, c := range []struct{ line, kind string }{
		{"random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3 mbytes max-mark-prob 20 w 4", "ecn"},
		{"random-detect ecn minimum-thr 800 kbytes maximum-thr 3 mbytes max-mark 20 w 4", "ecn"},
		{"random-detect drop minimum-threshold 800 kbytes maximum-threshold 3 mbytes drop-prob 20 w 4", "drop"},
		{"random-detect drop minimum-threshold 800 kbytes maximum-threshold 3 mbytes drop-probability 20 wei 4", "drop"},
	} {
		dc, err := Parse("x", qos.Source{Name: "x.cfg", Data: []byte("interface Ethernet1\n   tx-queue 3\n      " + c.line + "\n")})
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		q := dc.Port("Ethernet1").Queue(3)
		e := q.ECN
		if c.kind == "drop" {
			e = q.Drop
		}
		if e == nil || e.MinBytes != 800*1024 || e.MaxBytes != 3*1024*1024 || e.Pmax != 0.2 {
			t.Errorf("%q: %s = %+v, want 800 kbytes, 3 mbytes, 20%%", c.line, c.kind, e)
		}
		weight := false
		for _, f := range dc.Fields {
			weight = weight || strings.HasSuffix(f.Field, "weight <w>")
		}
		if !weight {
			t.Errorf("%q: the weight is not named as not simulated: %+v", c.line, dc.Fields)
		}
	}
}
