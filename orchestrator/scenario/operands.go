package scenario

import "fmt"

// The operand rules of assertions, in one place: which kinds each operator
// takes, what it gives and what a refusal says. Both the check before the
// run (nodeKind, checkKinds) and the evaluation (eval, Applies, Eval) ask
// these functions, so an assertion refused at its YAML line is one the run
// would refuse, and the other way round.

// operand is one side of an operator: its kind, and its value once the run
// has given one. Before the run only the kind is known, and kindUnknown
// (extra's figures, a sweep of mixed values) meets any rule: the run
// decides. The evaluation also checks the left of && and || with the right
// still unknown, as it reads the right only when it needs it.
type operand struct {
	kind  kind
	value *Value // nil before the run
}

func kindOperand(k kind) operand { return operand{kind: k} }

func valueOperand(v Value) operand { return operand{kind: kindOf(v), value: &v} }

// String names the operand in an error: its value at run time (2, "spray"),
// its kind before (a number, a text).
func (o operand) String() string {
	if o.value != nil {
		return o.value.String()
	}
	return o.kind.String()
}

// can says whether the operand may be of kind k: it is, or it is not known yet.
func (o operand) can(k kind) bool { return o.kind == k || o.kind == kindUnknown }

// unaryOperand checks the operand of ! or unary - and gives the result's kind.
func unaryOperand(op string, x operand) (kind, error) {
	switch op {
	case "!":
		if !x.can(kindBool) {
			return kindUnknown, fmt.Errorf("'!' needs true or false, got %s", x)
		}
		return kindBool, nil
	case "-":
		if !x.can(kindNum) {
			return kindUnknown, fmt.Errorf("'-' needs a number, got %s", x)
		}
		return kindNum, nil
	}
	return kindUnknown, fmt.Errorf("unknown operator %s", op)
}

// binaryOperands checks the operands of a binary operator and gives the
// result's kind. At run time both values are known and the refusal shows
// them ("(1 == true)"); before the run it shows their kinds.
func binaryOperands(op string, l, r operand) (kind, error) {
	atRunTime := l.value != nil && r.value != nil
	switch op {
	case "&&", "||":
		if !l.can(kindBool) {
			return kindUnknown, fmt.Errorf("left of %s is %s, not true or false", op, l)
		}
		if !r.can(kindBool) {
			return kindUnknown, fmt.Errorf("right of %s is %s, not true or false", op, r)
		}
		return kindBool, nil
	case "==", "!=":
		if l.kind != kindUnknown && r.kind != kindUnknown && l.kind != r.kind {
			if atRunTime {
				return kindUnknown, fmt.Errorf("%s compares values of different kinds (%s %s %s)", op, l, op, r)
			}
			return kindUnknown, fmt.Errorf("%s compares values of different kinds (%s and %s)", op, l, r)
		}
		return kindBool, nil
	case "<", "<=", ">", ">=", "+", "-", "*", "/":
		for _, o := range []operand{l, r} {
			if o.can(kindNum) {
				continue
			}
			if atRunTime {
				return kindUnknown, fmt.Errorf("%s needs numbers on both sides (%s %s %s)", op, l, op, r)
			}
			return kindUnknown, fmt.Errorf("%s needs numbers on both sides, got %s", op, o)
		}
		switch op {
		case "+", "-", "*", "/":
			return kindNum, nil
		}
		return kindBool, nil
	}
	return kindUnknown, fmt.Errorf("unknown operator %s", op)
}

// condition checks what an assertion or its 'when' guard gives: it must be
// true or false.
func condition(guard bool, x operand) error {
	if x.can(kindBool) {
		return nil
	}
	if guard {
		return fmt.Errorf("the 'when' condition is %s, not true or false; compare it (e.g. '> 0')", x)
	}
	return fmt.Errorf("the assertion is %s, not true or false; compare it (e.g. '== 0')", x)
}
