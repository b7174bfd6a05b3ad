package scenario

import (
	"errors"
	"fmt"
	"testing"
)

var (
	binaryOps = []string{"&&", "||", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"}
	unaryOps  = []string{"!", "-"}
	allKinds  = []kind{kindNum, kindBool, kindStr}
)

// literalOf writes a literal of kind k for operator op. The true or false
// one does not short-circuit op (true for &&, false for ||), so evaluation
// reads both sides, as the check before the run does; the number is not 0,
// which the parser refuses as a divisor.
func literalOf(k kind, op string) string {
	switch k {
	case kindNum:
		return "2"
	case kindBool:
		if op == "||" {
			return "false"
		}
		return "true"
	}
	return `"x"`
}

// prerunAndEval gives what the check before the run (nodeKind) and the
// evaluation say of src's body.
func prerunAndEval(t *testing.T, src string, env Env) (kind, error, Value, error) {
	t.Helper()
	e, err := ParseExpr(src)
	if err != nil {
		t.Fatalf("%s: parse: %v", src, err)
	}
	k, preErr := (&Spec{}).nodeKind(e.body)
	v, evalErr := e.body.eval(env)
	return k, preErr, v, evalErr
}

// sameVerdict fails unless both refuse at one column or both accept with
// one kind of result.
func sameVerdict(t *testing.T, src string, k kind, preErr error, v Value, evalErr error) {
	t.Helper()
	switch {
	case (preErr == nil) != (evalErr == nil):
		t.Errorf("%s: before the run %v, at run time %v", src, preErr, evalErr)
	case preErr != nil:
		var pe, ee *ExprError
		if !errors.As(preErr, &pe) || !errors.As(evalErr, &ee) || pe.Col != ee.Col {
			t.Errorf("%s: before the run %v, at run time %v: want one column", src, preErr, evalErr)
		}
	case kindOf(v) != k:
		t.Errorf("%s: before the run gives %s, at run time %s (%s)", src, k, kindOf(v), v)
	}
}

// The check before the run refuses an operator's operands exactly when the
// evaluation does, for every operator and every pair of kinds, at the same
// column, and what it accepts gives the kind the evaluation gives: the two
// cannot drift apart.
func TestOperandRulesSameBeforeAndAtRunTime(t *testing.T) {
	for _, op := range binaryOps {
		for _, l := range allKinds {
			for _, r := range allKinds {
				src := fmt.Sprintf("%s %s %s", literalOf(l, op), op, literalOf(r, op))
				k, preErr, v, evalErr := prerunAndEval(t, src, mapEnv{})
				sameVerdict(t, src, k, preErr, v, evalErr)
			}
		}
	}
	for _, op := range unaryOps {
		for _, x := range allKinds {
			src := op + literalOf(x, op)
			k, preErr, v, evalErr := prerunAndEval(t, src, mapEnv{})
			sameVerdict(t, src, k, preErr, v, evalErr)
		}
	}
	// What an assertion and its guard give must be true or false.
	for _, x := range allKinds {
		for _, src := range []string{literalOf(x, ""), "true when " + literalOf(x, "")} {
			e, err := ParseExpr(src)
			if err != nil {
				t.Fatalf("%s: parse: %v", src, err)
			}
			preErr := (&Spec{}).checkKinds(e)
			applies, evalErr := e.Applies(mapEnv{})
			if evalErr == nil && applies {
				_, evalErr = e.Eval(mapEnv{})
			}
			sameVerdict(t, src, kindBool, preErr, Bool(true), evalErr)
		}
	}
}

// An operand known only at run time (extra's figures) is refused before the
// run only when every kind it could have would be refused at run time: an
// assertion some variant could evaluate is left to the run.
func TestOperandRulesUnknownKindRefusedOnlyWhenNoKindWorks(t *testing.T) {
	for _, op := range binaryOps {
		for _, l := range append([]kind{kindUnknown}, allKinds...) {
			for _, r := range append([]kind{kindUnknown}, allKinds...) {
				if l != kindUnknown && r != kindUnknown {
					continue
				}
				side := func(k kind, name string) string {
					if k == kindUnknown {
						return name
					}
					return literalOf(k, op)
				}
				src := fmt.Sprintf("%s %s %s", side(l, "extra.a"), op, side(r, "extra.b"))
				_, preErr, _, _ := prerunAndEval(t, src, mapEnv{"extra.a": Num(2), "extra.b": Num(2)})
				everyKindFails := true
				for _, a := range allKinds {
					for _, b := range allKinds {
						env := mapEnv{"extra.a": valueOf(a, op), "extra.b": valueOf(b, op)}
						if _, _, _, evalErr := prerunAndEval(t, src, env); evalErr == nil {
							everyKindFails = false
						}
					}
				}
				if (preErr != nil) != everyKindFails {
					t.Errorf("%s: before the run %v; every run-time kind refused: %v", src, preErr, everyKindFails)
				}
			}
		}
	}
}

// valueOf is literalOf's value.
func valueOf(k kind, op string) Value {
	switch k {
	case kindNum:
		return Num(2)
	case kindBool:
		return Bool(op != "||")
	}
	return Str("x")
}

// The one difference on purpose: && and || short-circuit at run time, so a
// right side of the wrong kind is not read where the left decides, yet the
// check before the run refuses it, as it is a mistake wherever it is read:
// ecn && summary.drops is false or an error, never true, and pfc ||
// summary.drops cannot be evaluated wherever pfc is off.
func TestOperandRulesShortCircuitRefusedBeforeRun(t *testing.T) {
	for _, c := range []struct{ left, op string }{{"false", "&&"}, {"true", "||"}} {
		for _, r := range allKinds {
			src := fmt.Sprintf("%s %s %s", c.left, c.op, literalOf(r, c.op))
			_, preErr, _, evalErr := prerunAndEval(t, src, mapEnv{})
			if evalErr != nil {
				t.Errorf("%s: at run time %v, want the right side unread", src, evalErr)
			}
			if (preErr != nil) != (r != kindBool) {
				t.Errorf("%s: before the run %v, want a refusal only of a right side not true or false", src, preErr)
			}
		}
	}
}
