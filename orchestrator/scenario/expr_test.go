package scenario

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type mapEnv map[string]Value

func (m mapEnv) Lookup(variant string, path []string) (Value, error) {
	k := strings.Join(path, ".")
	if variant != "" {
		k = "[" + variant + "]." + k
	}
	v, ok := m[k]
	if !ok {
		return Value{}, fmt.Errorf("unknown")
	}
	return v, nil
}

func TestExprEval(t *testing.T) {
	env := mapEnv{
		"summary.drops":                             Num(0),
		"summary.jain_fairness":                     Num(0.95),
		"summary.pfc_pause_frames":                  Num(10),
		"[ecn=off,pfc=on].summary.pfc_pause_frames": Num(100),
		"pfc":            Bool(true),
		"ecn":            Bool(false),
		"params.lb.mode": Str("spray"),
	}
	tests := []struct {
		src     string
		applies bool
		want    bool
	}{
		{"summary.drops == 0", true, true},
		{"summary.drops == 0 when pfc", true, true},
		{"summary.drops > 0 when !pfc", false, false},
		{"summary.jain_fairness >= 0.9 && summary.drops <= 0", true, true},
		{"summary.jain_fairness > 0.99 || !ecn", true, true},
		{"!(summary.drops == 0)", true, false},
		{"summary.pfc_pause_frames < 0.5 * [ecn=off,pfc=on].summary.pfc_pause_frames", true, true},
		{"summary.pfc_pause_frames < 0.5 * [ ecn=off, pfc=on ].summary.pfc_pause_frames when pfc && !ecn", true, true},
		{"1 + 2 * 3 == 7", true, true},
		{"(1 + 2) * 3 == 9", true, true},
		{"-summary.pfc_pause_frames < -5", true, true},
		{"10 / 4 == 2.5", true, true},
		{"summary.drops-1 == -1", true, true},
		{"1e3 == 1000", true, true},
		{"pfc == true", true, true},
		{"false || ecn", true, false},
		{`params.lb.mode == "spray"`, true, true},
		{`summary.drops == 0 when params.lb.mode != 'ecmp'`, true, true},
		// && short-circuits: the unknown name on the right is never read.
		{"ecn && nosuch > 1", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			e, err := ParseExpr(tt.src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			ok, err := e.Applies(env)
			if err != nil {
				t.Fatalf("guard: %v", err)
			}
			if ok != tt.applies {
				t.Fatalf("applies = %v, want %v", ok, tt.applies)
			}
			if !ok {
				return
			}
			got, err := e.Eval(env)
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if got != tt.want {
				t.Errorf("= %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExprErrors(t *testing.T) {
	tests := []struct {
		src, msg string
		col      int
	}{
		{"summary.drops = 0", "==", 15},
		{"summary.drops / 0 == 0", "division by zero: the divisor is the number 0", 15},
		{"summary.drops == ", "ends too early", 18},
		{"(summary.drops == 0", "expected ')'", 20},
		{"summary.drops == 0 and pfc", "use &&", 20},
		{"a < b < c", "do not chain", 7},
		{"[ecn=off.drops", "without ']'", 1},
		{"[x]drops", "expected '.'", 4},
		{"summary. == 1", "expected a name", 10},
		{"1 2", "unexpected", 3},
		{`params.lb.mode == "spray`, "not closed", 19},
		{"summary.drops == 0 when", "ends too early", 24},
		{"x $ 1", "unexpected character", 3},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := ParseExpr(tt.src)
			var ee *ExprError
			if !errors.As(err, &ee) {
				t.Fatalf("error = %v, want *ExprError", err)
			}
			if !strings.Contains(ee.Msg, tt.msg) || ee.Col != tt.col {
				t.Errorf("error = %v (col %d), want %q at col %d", ee, ee.Col, tt.msg, tt.col)
			}
		})
	}
}

func TestExprEvalErrors(t *testing.T) {
	env := mapEnv{"n": Num(1), "b": Bool(true), "s": Str("spray")}
	for _, src := range []string{"n", "n && b", "b + 1", "b < 1", "n / (n - n) == 1", "missing == 1", "!n", "-b == 1", "b == 1", "b when n",
		`s > 1`, `s == 1`, `s + "x" == "y"`, `-s == "x"`, `s && b`, `s`} {
		e, err := ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: parse: %v", src, err)
		}
		applies, err := e.Applies(env)
		if err == nil && applies {
			_, err = e.Eval(env)
		}
		if err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

func TestExprIdents(t *testing.T) {
	e, err := ParseExpr("summary.drops < [ecn=on,pfc=on].summary.drops when pfc")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range e.Idents() {
		got = append(got, id.String())
	}
	if strings.Join(got, " ") != "summary.drops [ecn=on,pfc=on].summary.drops pfc" {
		t.Errorf("Idents = %v", got)
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{
		"summary.drops == 0 when pfc",
		"summary.jain_fairness >= 0.9",
		"summary.ecn_marked > 0 when ecn && pfc",
		"summary.pfc_pause_frames < 0.5 * [ecn=off,pfc=on].summary.pfc_pause_frames",
		"!(a || b) && -c <= 1e-3",
		"[",
		"((",
	} {
		f.Add(s)
	}
	env := mapEnv{"summary.drops": Num(0), "pfc": Bool(true)}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			var ee *ExprError
			if !errors.As(err, &ee) || ee.Col < 1 || ee.Col > len(src)+1 {
				t.Fatalf("bad error %v for %q", err, src)
			}
			return
		}
		// Evaluation may fail, but must not panic.
		if ok, err := e.Applies(env); err == nil && ok {
			_, _ = e.Eval(env)
		}
	})
}
