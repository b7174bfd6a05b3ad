package scenario

import "strings"

// kind is what an expression gives, as far as it is known before the run:
// a number, true or false, or a text (a swept parameter's value).
type kind int

const (
	kindUnknown kind = iota // known only at run time (extra.*, a sweep of mixed values)
	kindNum
	kindBool
	kindStr
)

func (k kind) String() string {
	switch k {
	case kindNum:
		return "a number"
	case kindBool:
		return "true or false"
	case kindStr:
		return "a text"
	}
	return "a value"
}

func kindOf(v Value) kind {
	switch {
	case v.IsBool:
		return kindBool
	case v.IsStr:
		return kindStr
	}
	return kindNum
}

// identKind is the kind an identifier gives (checkIdent has accepted it):
// ecn and pfc true or false, model a text, a swept parameter the kind of
// its values, extra's figures unknown (scenario-specific), every other
// figure a number.
func (s *Spec) identKind(id Ident) kind {
	switch id.Path[0] {
	case "ecn", "pfc":
		return kindBool
	case "model":
		return kindStr
	case "extra":
		return kindUnknown
	case "params":
		sw := s.sweepByPath(strings.Join(id.Path[1:], "."))
		if sw == nil || len(sw.Values) == 0 {
			return kindUnknown
		}
		k := kindUnknown
		for i, text := range sw.Values {
			v, _ := paramValue(text)
			if i == 0 {
				k = kindOf(v)
			} else if kindOf(v) != k {
				return kindUnknown
			}
		}
		return k
	}
	return kindNum
}

// checkKinds finds, before anything runs, what the evaluation would refuse
// for every variant: an assertion or guard that is not true or false
// (expr: 1), operands of the wrong kind (summary.drops < "x", ecn == 1,
// !summary.drops), as Eval would say at run time after the whole run; the
// rules are operands.go's, the evaluation's own. What depends on run-time
// values (extra.*, a sweep of mixed values) is left to the run.
func (s *Spec) checkKinds(e *Expr) error {
	k, err := s.nodeKind(e.body)
	if err != nil {
		return err
	}
	if err := condition(false, kindOperand(k)); err != nil {
		return &ExprError{Col: e.body.pos(), Msg: err.Error()}
	}
	if e.guard != nil {
		k, err := s.nodeKind(e.guard)
		if err != nil {
			return err
		}
		if err := condition(true, kindOperand(k)); err != nil {
			return &ExprError{Col: e.guard.pos(), Msg: err.Error()}
		}
	}
	return nil
}

func (s *Spec) nodeKind(n node) (kind, error) {
	switch n := n.(type) {
	case *litNode:
		return kindOf(n.v), nil
	case *identNode:
		return s.identKind(n.id), nil
	case *unaryNode:
		x, err := s.nodeKind(n.x)
		if err != nil {
			return kindUnknown, err
		}
		k, err := unaryOperand(n.op, kindOperand(x))
		if err != nil {
			return kindUnknown, &ExprError{Col: n.col, Msg: err.Error()}
		}
		return k, nil
	case *binaryNode:
		l, err := s.nodeKind(n.l)
		if err != nil {
			return kindUnknown, err
		}
		r, err := s.nodeKind(n.r)
		if err != nil {
			return kindUnknown, err
		}
		k, err := binaryOperands(n.op, kindOperand(l), kindOperand(r))
		if err != nil {
			return kindUnknown, &ExprError{Col: n.col, Msg: err.Error()}
		}
		return k, nil
	}
	return kindUnknown, nil
}
