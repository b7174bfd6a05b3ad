package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// An assertion is a small expression over a variant's record:
//
//	summary.drops == 0 when pfc
//	summary.jain_fairness >= 0.9 && summary.ecn_marked > 0
//	summary.pfc_pause_frames < 0.5 * [ecn=off,pfc=on].summary.pfc_pause_frames when ecn && pfc
//	summary.latency_us_p99 > [qos.ecn.kmin_kb=prev].summary.latency_us_p99
//
// Values are numbers or booleans. Identifiers are dotted paths resolved by
// an Env; a path may start with a variant reference in brackets to read
// another variant of the same run. Operators, loosest first: ||, &&,
// comparisons (== != < <= > >=), + -, * /, unary ! and -. A trailing
// "when <cond>" guard makes the assertion apply only where cond holds.

// Expr is a parsed assertion.
type Expr struct {
	Src   string
	body  node
	guard node // nil: always applies
}

// ExprError is a problem in an expression at a 1-based column.
type ExprError struct {
	Col int
	Msg string
}

func (e *ExprError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// Value is a number, a boolean or a text (a swept parameter's value, such
// as params.lb.mode, compared with a quoted string).
type Value struct {
	Num    float64
	Bool   bool
	IsBool bool
	Str    string
	IsStr  bool
}

// Num returns a numeric value; Bool a boolean one; Str a text.
func Num(f float64) Value { return Value{Num: f} }
func Bool(b bool) Value   { return Value{Bool: b, IsBool: true} }
func Str(s string) Value  { return Value{Str: s, IsStr: true} }

func (v Value) String() string {
	if v.IsStr {
		return strconv.Quote(v.Str)
	}
	if v.IsBool {
		return strconv.FormatBool(v.Bool)
	}
	if v.Num == math.Trunc(v.Num) && math.Abs(v.Num) < 1e15 {
		return strconv.FormatFloat(v.Num, 'f', -1, 64) // counts stay whole
	}
	return strconv.FormatFloat(v.Num, 'g', 6, 64)
}

// Env resolves identifiers. variant is "" for the variant being checked,
// or the text inside brackets (e.g. "ecn=off,pfc=on").
type Env interface {
	Lookup(variant string, path []string) (Value, error)
}

// Ident is one identifier an expression reads.
type Ident struct {
	Variant string
	Path    []string
	Col     int
}

func (id Ident) String() string {
	s := strings.Join(id.Path, ".")
	if id.Variant != "" {
		s = "[" + id.Variant + "]." + s
	}
	return s
}

// ParseExpr parses an assertion expression.
func ParseExpr(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	body, err := p.or()
	if err != nil {
		return nil, err
	}
	e := &Expr{Src: src, body: body}
	if p.peek().kind == tWhen {
		p.next()
		if e.guard, err = p.or(); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, &ExprError{Col: t.col, Msg: fmt.Sprintf("unexpected %s; join conditions with && or ||, or put the guard last as 'when <cond>'", t)}
	}
	return e, nil
}

// Idents lists the identifiers the expression reads, guard included.
func (e *Expr) Idents() []Ident {
	var out []Ident
	var walk func(n node)
	walk = func(n node) {
		switch n := n.(type) {
		case *identNode:
			out = append(out, n.id)
		case *unaryNode:
			walk(n.x)
		case *binaryNode:
			walk(n.l)
			walk(n.r)
		}
	}
	walk(e.body)
	if e.guard != nil {
		walk(e.guard)
	}
	return out
}

// Applies evaluates the guard: false means the assertion does not apply.
func (e *Expr) Applies(env Env) (bool, error) {
	if e.guard == nil {
		return true, nil
	}
	v, err := e.guard.eval(env)
	if err != nil {
		return false, err
	}
	if err := condition(true, valueOperand(v)); err != nil {
		return false, &ExprError{Col: e.guard.pos(), Msg: err.Error()}
	}
	return v.Bool, nil
}

// Eval evaluates the body, which must be boolean.
func (e *Expr) Eval(env Env) (bool, error) {
	v, err := e.body.eval(env)
	if err != nil {
		return false, err
	}
	if err := condition(false, valueOperand(v)); err != nil {
		return false, &ExprError{Col: e.body.pos(), Msg: err.Error()}
	}
	return v.Bool, nil
}

// ---- lexer

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tIdent
	tVariant // [ ... ]
	tOp
	tLParen
	tRParen
	tDot
	tWhen
	tTrue
	tFalse
	tStr
)

type token struct {
	kind tokKind
	text string
	num  float64
	col  int
}

func (t token) String() string {
	if t.kind == tEOF {
		return "end of expression"
	}
	return fmt.Sprintf("%q", t.text)
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// roleNameNext says whether the next name is a role's: the tokens so far
// end in "roles ." with roles the first part of its path.
func roleNameNext(toks []token) bool {
	n := len(toks)
	// (A variant reference, [ecn=off].roles.x, comes before a dot.)
	return n >= 2 && toks[n-1].kind == tDot && toks[n-2].kind == tIdent && toks[n-2].text == "roles" &&
		(n == 2 || toks[n-3].kind != tDot || n >= 4 && toks[n-4].kind == tVariant)
}

func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		col := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9'):
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
				((src[j] == '+' || src[j] == '-') && j > i && (src[j-1] == 'e' || src[j-1] == 'E'))) {
				j++
			}
			f, err := strconv.ParseFloat(src[i:j], 64)
			if err != nil {
				return nil, &ExprError{Col: col, Msg: fmt.Sprintf("bad number %q", src[i:j])}
			}
			toks = append(toks, token{kind: tNum, text: src[i:j], num: f, col: col})
			i = j
		case isIdentStart(c):
			// A role's name may hold dashes (all-to-all, best-effort):
			// in roles.<role> the dash between two name characters is the
			// name's, not a minus. Everywhere else a dash is the operator.
			inRole := roleNameNext(toks)
			j := i
			for j < len(src) && (isIdentChar(src[j]) || inRole && src[j] == '-' && j+1 < len(src) && isIdentChar(src[j+1])) {
				j++
			}
			// An index right after a name belongs to it: the swept
			// parameter params.traffic[0].senders.
			if k := j; k < len(src) && src[k] == '[' {
				k++
				for k < len(src) && src[k] >= '0' && src[k] <= '9' {
					k++
				}
				if k > j+1 && k < len(src) && src[k] == ']' {
					j = k + 1
				}
			}
			w := src[i:j]
			k := tIdent
			switch w {
			case "when":
				k = tWhen
			case "true":
				k = tTrue
			case "false":
				k = tFalse
			case "and", "or", "not":
				return nil, &ExprError{Col: col, Msg: fmt.Sprintf("%q is not an operator here; use && for and, || for or, ! for not", w)}
			}
			toks = append(toks, token{kind: k, text: w, col: col})
			i = j
		case c == '[':
			// The matching bracket: a reference may hold an index, as in
			// [traffic[0].senders=4].
			j, depth := -1, 0
			for k := i; k < len(src) && j < 0; k++ {
				switch src[k] {
				case '[':
					depth++
				case ']':
					if depth--; depth == 0 {
						j = k - i
					}
				}
			}
			if j < 0 {
				return nil, &ExprError{Col: col, Msg: "'[' without ']'; a variant reference reads like [ecn=off,pfc=on]"}
			}
			inner := strings.ReplaceAll(src[i+1:i+j], " ", "")
			if inner == "" {
				return nil, &ExprError{Col: col, Msg: "empty variant reference []; name a variant like [ecn=off,pfc=on]"}
			}
			toks = append(toks, token{kind: tVariant, text: inner, col: col})
			i += j + 1
		case c == '"' || c == '\'':
			j := strings.IndexByte(src[i+1:], c)
			if j < 0 {
				return nil, &ExprError{Col: col, Msg: fmt.Sprintf("text opened with %c is not closed", c)}
			}
			toks = append(toks, token{kind: tStr, text: src[i+1 : i+1+j], col: col})
			i += j + 2
		case c == '(':
			toks = append(toks, token{kind: tLParen, text: "(", col: col})
			i++
		case c == ')':
			toks = append(toks, token{kind: tRParen, text: ")", col: col})
			i++
		case c == '.':
			toks = append(toks, token{kind: tDot, text: ".", col: col})
			i++
		default:
			op := ""
			for _, cand := range []string{"&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "+", "-", "*", "/"} {
				if strings.HasPrefix(src[i:], cand) {
					op = cand
					break
				}
			}
			if op == "" {
				hint := ""
				switch c {
				case '=':
					hint = "; compare with =="
				case '&':
					hint = "; use &&"
				case '|':
					hint = "; use ||"
				}
				return nil, &ExprError{Col: col, Msg: fmt.Sprintf("unexpected character %q%s", c, hint)}
			}
			toks = append(toks, token{kind: tOp, text: op, col: col})
			i += len(op)
		}
	}
	return append(toks, token{kind: tEOF, col: len(src) + 1}), nil
}

// ---- parser

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) isOp(ops ...string) bool {
	t := p.peek()
	if t.kind != tOp {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}

func (p *parser) or() (node, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.isOp("||") {
		t := p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: t.text, l: l, r: r, col: t.col}
	}
	return l, nil
}

func (p *parser) and() (node, error) {
	l, err := p.cmp()
	if err != nil {
		return nil, err
	}
	for p.isOp("&&") {
		t := p.next()
		r, err := p.cmp()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: t.text, l: l, r: r, col: t.col}
	}
	return l, nil
}

func (p *parser) cmp() (node, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	if p.isOp("==", "!=", "<", "<=", ">", ">=") {
		t := p.next()
		r, err := p.add()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: t.text, l: l, r: r, col: t.col}
		if p.isOp("==", "!=", "<", "<=", ">", ">=") {
			return nil, &ExprError{Col: p.peek().col, Msg: "comparisons do not chain; write a < b && b < c"}
		}
	}
	return l, nil
}

func (p *parser) add() (node, error) {
	l, err := p.mul()
	if err != nil {
		return nil, err
	}
	for p.isOp("+", "-") {
		t := p.next()
		r, err := p.mul()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{op: t.text, l: l, r: r, col: t.col}
	}
	return l, nil
}

func (p *parser) mul() (node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*", "/") {
		t := p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		// A literal 0 divisor fails on every variant: say so before the run.
		if lit, ok := r.(*litNode); ok && t.text == "/" && !lit.v.IsBool && !lit.v.IsStr && lit.v.Num == 0 {
			return nil, &ExprError{Col: t.col, Msg: "division by zero: the divisor is the number 0"}
		}
		l = &binaryNode{op: t.text, l: l, r: r, col: t.col}
	}
	return l, nil
}

func (p *parser) unary() (node, error) {
	if p.isOp("!", "-") {
		t := p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &unaryNode{op: t.text, x: x, col: t.col}, nil
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return &litNode{v: Num(t.num), col: t.col}, nil
	case tTrue, tFalse:
		return &litNode{v: Bool(t.kind == tTrue), col: t.col}, nil
	case tStr:
		return &litNode{v: Str(t.text), col: t.col}, nil
	case tLParen:
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, &ExprError{Col: c.col, Msg: fmt.Sprintf("expected ')' to close '(' at column %d, found %s", t.col, c)}
		}
		return x, nil
	case tVariant:
		if d := p.next(); d.kind != tDot {
			return nil, &ExprError{Col: d.col, Msg: fmt.Sprintf("expected '.' after [%s], as in [%s].summary.drops", t.text, t.text)}
		}
		id, err := p.path(t.col)
		if err != nil {
			return nil, err
		}
		id.Variant = t.text
		return &identNode{id: id}, nil
	case tIdent:
		p.i-- // let path read the first name
		return p.pathNode(t.col)
	case tEOF:
		return nil, &ExprError{Col: t.col, Msg: "expression ends too early; expected a number, a name or '('"}
	default:
		return nil, &ExprError{Col: t.col, Msg: fmt.Sprintf("unexpected %s; expected a number, a name or '('", t)}
	}
}

func (p *parser) pathNode(col int) (node, error) {
	id, err := p.path(col)
	if err != nil {
		return nil, err
	}
	return &identNode{id: id}, nil
}

func (p *parser) path(col int) (Ident, error) {
	id := Ident{Col: col}
	for {
		t := p.next()
		if t.kind != tIdent {
			return id, &ExprError{Col: t.col, Msg: fmt.Sprintf("expected a name, found %s", t)}
		}
		id.Path = append(id.Path, t.text)
		if p.peek().kind != tDot {
			return id, nil
		}
		p.next()
	}
}

// ---- evaluation

type node interface {
	eval(Env) (Value, error)
	pos() int
}

type litNode struct {
	v   Value
	col int
}

func (n *litNode) eval(Env) (Value, error) { return n.v, nil }
func (n *litNode) pos() int                { return n.col }

type identNode struct{ id Ident }

func (n *identNode) pos() int { return n.id.Col }
func (n *identNode) eval(env Env) (Value, error) {
	v, err := env.Lookup(n.id.Variant, n.id.Path)
	if err != nil {
		return Value{}, &ExprError{Col: n.id.Col, Msg: fmt.Sprintf("%s: %v", n.id, err)}
	}
	return v, nil
}

type unaryNode struct {
	op  string
	x   node
	col int
}

func (n *unaryNode) pos() int { return n.col }
func (n *unaryNode) eval(env Env) (Value, error) {
	v, err := n.x.eval(env)
	if err != nil {
		return Value{}, err
	}
	if _, err := unaryOperand(n.op, valueOperand(v)); err != nil {
		return Value{}, &ExprError{Col: n.col, Msg: err.Error()}
	}
	if n.op == "!" {
		return Bool(!v.Bool), nil
	}
	return Num(-v.Num), nil
}

type binaryNode struct {
	op   string
	l, r node
	col  int
}

func (n *binaryNode) pos() int { return n.col }
func (n *binaryNode) eval(env Env) (Value, error) {
	l, err := n.l.eval(env)
	if err != nil {
		return Value{}, err
	}
	// && and || short-circuit, so a guard like 'flows > 0 && x / flows > 1'
	// never evaluates the right side needlessly: the left is checked alone,
	// the right still unknown.
	if n.op == "&&" || n.op == "||" {
		if _, err := binaryOperands(n.op, valueOperand(l), operand{}); err != nil {
			return Value{}, &ExprError{Col: n.col, Msg: err.Error()}
		}
		if (n.op == "&&" && !l.Bool) || (n.op == "||" && l.Bool) {
			return l, nil
		}
	}
	r, err := n.r.eval(env)
	if err != nil {
		return Value{}, err
	}
	if _, err := binaryOperands(n.op, valueOperand(l), valueOperand(r)); err != nil {
		return Value{}, &ExprError{Col: n.col, Msg: err.Error()}
	}
	// binaryOperands has accepted the kinds: what is left is the result.
	switch n.op {
	case "&&", "||":
		return r, nil
	case "==":
		return Bool(l == r), nil
	case "!=":
		return Bool(l != r), nil
	case "<":
		return Bool(l.Num < r.Num), nil
	case "<=":
		return Bool(l.Num <= r.Num), nil
	case ">":
		return Bool(l.Num > r.Num), nil
	case ">=":
		return Bool(l.Num >= r.Num), nil
	case "+":
		return Num(l.Num + r.Num), nil
	case "-":
		return Num(l.Num - r.Num), nil
	case "*":
		return Num(l.Num * r.Num), nil
	case "/":
		if r.Num == 0 {
			return Value{}, &ExprError{Col: n.col, Msg: fmt.Sprintf("division by zero (%s / 0)", l)}
		}
		return Num(l.Num / r.Num), nil
	}
	return Value{}, &ExprError{Col: n.col, Msg: "unknown operator " + n.op} // binaryOperands refuses it first
}
