package scenario

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/specdoc"
	"github.com/labctl/labctl/orchestrator/specyaml"
	"github.com/labctl/labctl/orchestrator/transport"
)

// A matrix key other than ecn and pfc sweeps one parameter over a list of
// values; the variants are the cross product of every dimension:
//
//	matrix:
//	  ecn: [on]
//	  pfc: [on]
//	  qos.ecn.kmin_kb: [100, 200, 400]     # the lab's QoS, on top of its configs
//	  nic.dcqcn.rpg_ai_rate: [5, 20]       # the NICs (over the lab's and the scenario's nic)
//	  traffic[0].senders: [4, 8, 16]       # a field of one traffic (or faults) entry
//	  duration: [5ms, 20ms]                # a scenario field (or lb.mode)
//
// A path names a key the way lab specs and scenarios already write it
// (SweepPaths lists every one). Each value is checked by the validation of
// its key (lab.ValidateQoS, nic.Resolve, the scenario's own checks), alone
// and in every combination the matrix makes, before anything runs; a bad
// path or value is reported at its line and column.

// Sweep limits: a matrix is a product, so a few lists make many variants.
const (
	// MaxVariants bounds the variants a scenario runs: the product of its
	// dimensions' lengths times its repetitions. It is the most a matrix
	// made before sweeps (ECN x PFC x 100 repetitions), so no scenario
	// that ran before is refused.
	MaxVariants = 400
	// MaxSweeps bounds the swept dimensions besides ecn and pfc.
	MaxSweeps = 8
)

// prevValue in a variant reference names the previous value of a swept
// dimension ([qos.ecn.kmin_kb=prev]); no value may be called so.
const prevValue = "prev"

// Sweep is one swept parameter of the matrix.
type Sweep struct {
	// Path names the parameter as the matrix does: "qos.ecn.kmin_kb",
	// "nic.dcqcn.rpg_ai_rate", "traffic[0].senders", "duration".
	Path string
	// Values are the values in the file's order, as variant names show
	// them (numbers canonical: 2e2 is 200).
	Values []string

	family string          // "qos", "nic", "traffic", "faults" or "scenario"
	field  []string        // the key's path within the family's struct
	index  int             // the list entry, for "traffic" and "faults"
	typ    reflect.Type    // the key's Go type (a pointer for optional keys)
	typed  []reflect.Value // Values decoded to typ's element type
	keyAt  pos
	valAt  []pos
}

// Param is a swept parameter's value at one point of the matrix.
type Param struct {
	Path, Value string
}

// pos is a place in the scenario file.
type pos struct{ line, col int }

func posOf(n ast.Node) pos {
	if n == nil {
		return pos{}
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return pos{tk.Position.Line, tk.Position.Column}
	}
	return pos{}
}

// matrixEntry is one key of the matrix as written in the file.
type matrixEntry struct {
	key    string
	keyAt  pos
	values []ast.Node // the list's items; nil when the value is no list
	valAt  pos
	isList bool
}

// UnmarshalYAML keeps the matrix's keys and values with their places in
// the file: ecn and pfc fill ECN and PFC, any other key is a swept
// parameter that Parse resolves and checks, so that every problem is
// reported at its line and column.
func (m *Matrix) UnmarshalYAML(node ast.Node) error {
	*m = Matrix{}
	var entries []*ast.MappingValueNode
	switch n := specyaml.UnwrapNode(node).(type) {
	case nil, *ast.NullNode:
		return nil
	case *ast.MappingNode:
		entries = n.Values
	case *ast.MappingValueNode:
		entries = []*ast.MappingValueNode{n}
	default:
		m.problem = &specyaml.Error{Msg: "matrix is not a mapping of dimensions to lists of values", Fix: "write matrix: {ecn: [on, off], pfc: [on, off]} and any swept parameter as path: [values]"}
		m.problem.Line, m.problem.Column = posOf(node).line, posOf(node).col
		return nil
	}
	for _, e := range entries {
		me := matrixEntry{key: e.Key.String(), keyAt: posOf(e.Key), valAt: posOf(e.Value)}
		if k, ok := specyaml.UnwrapNode(e.Key).(ast.ScalarNode); ok {
			me.key = fmt.Sprint(k.GetValue())
		}
		if seq, ok := specyaml.UnwrapNode(e.Value).(*ast.SequenceNode); ok {
			me.isList, me.values = true, seq.Values
		}
		m.entries = append(m.entries, me)
	}
	return nil
}

// scalarText is a scalar item's text as variant names show it: numbers
// canonical (2e2 and 200.0 are 200), booleans true or false.
func scalarText(n ast.Node) (string, bool) {
	switch x := specyaml.UnwrapNode(n).(type) {
	case *ast.StringNode:
		return x.Value, true
	case *ast.IntegerNode:
		return fmt.Sprint(x.Value), true
	case *ast.FloatNode:
		return canonNumber(x.Value), true
	case *ast.BoolNode:
		return strconv.FormatBool(x.Value), true
	}
	return "", false
}

// canonNumber formats a number as variant names show it.
func canonNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// canonValue is the canonical text of a value written in a variant
// reference: a number as canonNumber writes it, anything else as is.
func canonValue(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return canonNumber(f)
	}
	return s
}

// readMatrix fills ECN and PFC from the file's matrix and resolves the
// other keys into sweeps, checking each path and each value's type.
// Ranges are checked later, once the rest of the scenario is known.
func (s *Spec) readMatrix(file string) error {
	m := &s.Matrix
	errAt := func(p pos, msg, fix string) error {
		return exitcode.Usage(&specyaml.Error{File: file, Line: p.line, Column: p.col, Msg: msg, Fix: fix})
	}
	if m.problem != nil {
		e := *m.problem
		e.File = file
		return exitcode.Usage(&e)
	}
	seen := map[string]bool{}
	for _, e := range m.entries {
		if seen[e.key] {
			return errAt(e.keyAt, fmt.Sprintf("matrix dimension %s is listed twice", e.key), "keep one list of values per dimension")
		}
		seen[e.key] = true
		if !e.isList {
			return errAt(e.valAt, fmt.Sprintf("matrix dimension %s is not a list of values", e.key), fmt.Sprintf("write %s: [value, value, ...]", e.key))
		}
		if e.key == "exclude" {
			ex := e
			m.exclude = &ex
			continue
		}
		if e.key == caseDim {
			if err := m.readCaseDim(e, errAt); err != nil {
				return err
			}
			continue
		}
		if e.key == "ecn" || e.key == "pfc" {
			// An empty list would read as the key left out, [on, off].
			if len(e.values) == 0 {
				return errAt(e.valAt, fmt.Sprintf("matrix dimension %s has no values", e.key), fmt.Sprintf("list on, off or both (%s: [on, off]), or remove the key to run both", e.key))
			}
			vals := []string{}
			for _, n := range e.values {
				t, ok := scalarText(n)
				if !ok {
					return errAt(posOf(n), fmt.Sprintf("%s value is not on or off", e.key), "use on or off")
				}
				vals = append(vals, t)
			}
			if e.key == "ecn" {
				m.ECN = vals
			} else {
				m.PFC = vals
			}
			continue
		}
		sw, err := s.resolveSweep(e.key)
		if err != nil {
			return errAt(e.keyAt, err.Error(), sweepFix)
		}
		sw.keyAt = e.keyAt
		if len(e.values) == 0 {
			return errAt(e.valAt, fmt.Sprintf("matrix dimension %s has no values", e.key), fmt.Sprintf("list the values to sweep, e.g. %s: [a, b], or remove the key", e.key))
		}
		for _, n := range e.values {
			text, val, err := decodeSweepValue(n, sw.typ)
			if err != nil {
				return errAt(posOf(n), fmt.Sprintf("%s value %s", sw.Path, err), fmt.Sprintf("give %s %s, as documented for the key (docs/scenario-spec.md)", sw.Path, specyaml.KindName(sw.typ)))
			}
			switch {
			case text == prevValue:
				return errAt(posOf(n), fmt.Sprintf("%s value %q is a reserved word (a variant reference's previous value)", sw.Path, text), "use another value")
			case strings.ContainsAny(text, ",=[] \t\n"):
				return errAt(posOf(n), fmt.Sprintf("%s value %q holds a space, comma, = or bracket, which variant names cannot carry", sw.Path, text), "write the value without them, e.g. 1MiB rather than 1 MiB")
			case slices.Contains(sw.Values, text):
				return errAt(posOf(n), fmt.Sprintf("%s value %s is listed twice", sw.Path, text), "list each value once")
			}
			for i, prev := range sw.typed {
				if sameSweepValue(prev, val) {
					return errAt(posOf(n), fmt.Sprintf("%s value %s is %s again, written another way", sw.Path, text, sw.Values[i]), "list each value once")
				}
			}
			if def, ok := zeroDefault(sw); ok && val.IsZero() {
				return errAt(posOf(n), fmt.Sprintf("%s: 0 is not allowed (leaving %s out means %s)", sw.Path, sw.field[len(sw.field)-1], def), "sweep values of 1 or more")
			}
			sw.Values = append(sw.Values, text)
			sw.typed = append(sw.typed, val)
			sw.valAt = append(sw.valAt, posOf(n))
		}
		m.Sweeps = append(m.Sweeps, sw)
	}
	if len(m.Sweeps) > MaxSweeps {
		return errAt(m.Sweeps[MaxSweeps].keyAt, fmt.Sprintf("the matrix sweeps %d parameters, more than the %d labctl crosses at once", len(m.Sweeps), MaxSweeps), "split the sweep into several scenarios")
	}
	return nil
}

// readExclude reads the matrix's exclude list once every dimension is
// known: each entry a mapping of dimensions to one of their values.
func (s *Spec) readExclude(file string) error {
	e := s.Matrix.exclude
	if e == nil {
		return nil
	}
	errAt := func(p pos, msg, fix string) error {
		return exitcode.Usage(&specyaml.Error{File: file, Line: p.line, Column: p.col, Msg: msg, Fix: fix})
	}
	const fix = "write exclude: [{dimension: value, ...}, ...], e.g. exclude: [{transport: infiniband, pfc: off}]"
	for _, n := range e.values {
		mp, ok := specyaml.UnwrapNode(n).(*ast.MappingNode)
		if !ok {
			if mv, one := specyaml.UnwrapNode(n).(*ast.MappingValueNode); one {
				mp = &ast.MappingNode{Values: []*ast.MappingValueNode{mv}}
			} else {
				return errAt(posOf(n), "matrix exclude entry is not a mapping of dimensions to values", fix)
			}
		}
		entry := map[string]string{}
		for _, kv := range mp.Values {
			key := kv.Key.String()
			if k, ok := specyaml.UnwrapNode(kv.Key).(ast.ScalarNode); ok {
				key = fmt.Sprint(k.GetValue())
			}
			text, ok := scalarText(kv.Value)
			if !ok {
				return errAt(posOf(kv.Value), fmt.Sprintf("matrix exclude: %s is not given one value", key), fix)
			}
			var vals []string
			switch key {
			case "ecn", "pfc":
				b, ok := parseOnOff(text)
				if !ok {
					return errAt(posOf(kv.Value), fmt.Sprintf("matrix exclude: %s value %q is not on or off", key, text), "use on or off")
				}
				text = onOff(b)
				for _, v := range map[string][]string{"ecn": s.Matrix.ECN, "pfc": s.Matrix.PFC}[key] {
					b, _ := parseOnOff(v)
					vals = append(vals, onOff(b))
				}
			default:
				sw := s.sweepByPath(key)
				if sw == nil {
					return errAt(posOf(kv.Key), fmt.Sprintf("matrix exclude names %s, which is not a dimension of the matrix (dimensions: %s)", key, strings.Join(s.dimensions(), ", ")), "name a dimension the matrix lists")
				}
				text, vals = canonValue(text), sw.Values
			}
			if !slices.Contains(vals, text) {
				return errAt(posOf(kv.Value), fmt.Sprintf("matrix exclude: %s=%s is not one of the matrix's values (%s)", key, text, strings.Join(vals, ", ")), "name a value the dimension lists")
			}
			if _, dup := entry[key]; dup {
				return errAt(posOf(kv.Key), fmt.Sprintf("matrix exclude entry gives %s twice", key), "give each dimension once per entry")
			}
			entry[key] = text
		}
		if len(entry) == 0 {
			return errAt(posOf(n), "matrix exclude entry is empty (it would exclude every variant)", fix)
		}
		s.Matrix.Exclude = append(s.Matrix.Exclude, entry)
	}
	if len(s.matrix()) == 0 {
		return errAt(e.keyAt, "matrix exclude leaves no variant to run", "exclude fewer combinations")
	}
	return nil
}

// pfcOffOnInfiniBand refuses a variant that would run InfiniBand with
// pfc=off, at the matrix's pfc key when the file has one: an IB link's
// credit-based flow control cannot be turned off, so the variant would be
// its pfc=on twin under another name.
func (s *Spec) pfcOffOnInfiniBand(pt Point) error {
	msg := fmt.Sprintf("variant %s runs InfiniBand with pfc=off, but InfiniBand links always run credit-based flow control (there is no PFC to remove)", pt.Name)
	fix := "give pfc: [on], or leave the pair out with matrix exclude: [{transport: infiniband, pfc: off}]"
	if err := s.atMatrixKey(msg, fix, "pfc"); err != nil {
		return err
	}
	return exitcode.Usage(&specyaml.Error{File: s.file, Msg: msg + " (a matrix without pfc runs pfc=on and pfc=off)", Fix: fix})
}

// mtuForTransport places a point's MTU its transport cannot use (a
// swept qos.mtu, or the lab's under a swept or scenario transport) at the
// matrix key that brings the two together.
func (s *Spec) mtuForTransport(pt Point, err error) error {
	msg := fmt.Sprintf("variant %s: %v", pt.Name, err)
	fix := "sweep qos.mtu over 1024, 2048 and 4096, or leave the pair out with matrix exclude"
	if err := s.atMatrixKey(msg, fix, "qos.mtu", "transport"); err != nil {
		return err
	}
	return exitcode.Usage(&specyaml.Error{File: s.file, Msg: msg, Fix: "give the lab's qos.mtu a path MTU (4096, 2048 or 1024)"})
}

// excluded reports whether a point has every value of one exclude entry.
func (m *Matrix) excluded(pt Point) bool {
	for _, ex := range m.Exclude {
		all := true
		for k, v := range ex {
			got := ""
			switch k {
			case "ecn":
				got = onOff(pt.ECN)
			case "pfc":
				got = onOff(pt.PFC)
			default:
				for _, p := range pt.Params {
					if p.Path == k {
						got = p.Value
					}
				}
			}
			if got != v {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// sweepFix says where the sweepable paths are listed.
const sweepFix = "sweep one of the paths listed under 'Sweep paths' in docs/scenario-spec.md (labctl explain scenario.matrix): qos.<key>, nic.<key>, traffic[<i>].<field>, faults[<i>].<field>, duration, warmup, sample_every, lb.<key>, transport, infiniband.<key>, uet.<key> or case"

// decodeSweepValue reads one value of a swept key of type typ: its text
// for variant names and its Go value (typ's element type).
// sameSweepValue reports whether two values of a sweep are one setting
// written two ways: numbers equal as numbers (200 and 200.0), texts that
// are the same duration (1ms and 1000us) or the same size (64KiB and
// 65536); the sweep would run the same variant twice under two names.
func sameSweepValue(a, b reflect.Value) bool {
	if a.Kind() == reflect.Pointer {
		a, b = a.Elem(), b.Elem()
	}
	switch a.Kind() {
	case reflect.String:
		x, y := a.String(), b.String()
		if dx, err := parseDurationUs(x); err == nil {
			dy, err := parseDurationUs(y)
			return err == nil && dx == dy
		}
		if bx, err := ParseBytes(x); err == nil {
			by, err := ParseBytes(y)
			return err == nil && bx == by
		}
		return false
	case reflect.Int, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	}
	return false
}

func decodeSweepValue(n ast.Node, typ reflect.Type) (string, reflect.Value, error) {
	text, ok := scalarText(n)
	if !ok {
		return "", reflect.Value{}, fmt.Errorf("is not a single value")
	}
	t := typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	v := reflect.New(t).Elem()
	node := specyaml.UnwrapNode(n)
	switch t.Kind() {
	case reflect.String:
		// Sizes and durations are text: 64KiB, 5ms (a bare number of bytes
		// is text too).
		switch node.(type) {
		case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode:
			v.SetString(text)
			return text, v, nil
		}
	case reflect.Bool:
		if b, ok := node.(*ast.BoolNode); ok {
			v.SetBool(b.Value)
			return text, v, nil
		}
	case reflect.Int, reflect.Int64, reflect.Float64:
		// A number, whatever YAML made of it: 200, 2e2 (which YAML may
		// read as text) and 200.0 are the same whole number.
		if _, isBool := node.(*ast.BoolNode); isBool {
			break
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			break
		}
		written := text // as the user wrote it: 99999999999999999999, not 1e+20
		text = canonNumber(f)
		if t.Kind() == reflect.Float64 {
			v.SetFloat(f)
			return text, v, nil
		}
		x, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			if f == math.Trunc(f) {
				return "", v, fmt.Errorf("%s is too large", written)
			}
			break // not whole
		}
		if v.OverflowInt(x) {
			return "", v, fmt.Errorf("%s is too large", written)
		}
		v.SetInt(x)
		return text, v, nil
	}
	return "", v, fmt.Errorf("%q is not %s", text, specyaml.KindName(typ))
}

// Sweep families: where a swept path's key lives.
const (
	famQoS      = "qos"
	famNIC      = "nic"
	famTraffic  = "traffic"
	famFaults   = "faults"
	famScenario = "scenario"
	famIB       = "infiniband"
	famUET      = "uet"
	famCase     = "case"
)

// sweepableQoS are the qos keys a sweep applies on top of the lab's
// configs (qos.DeviceConfig.WithOverrides) or to its traffic (mtu).
var sweepableQoS = []string{"ecn.kmin_kb", "ecn.kmax_kb", "ecn.pmax", "mtu", "buffer_pool_bytes", "pfc_watchdog.enabled", "pfc_watchdog.detection_ms", "pfc_watchdog.restoration_ms", "pfc_watchdog.action"}

// sweepableScenario are the scenario's own keys a sweep can vary.
var sweepableScenario = []string{"duration", "warmup", "sample_every", "lb.mode", "lb.flowlet_gap", "transport"}

// notSweepable says why a key that exists cannot be swept, and what to do
// instead.
var notSweepable = map[string]string{
	"name":                    "name and description are labels, not parameters",
	"description":             "name and description are labels, not parameters",
	"dcqcn":                   "dcqcn is shorthand for nic.dcqcn.preset: sweep nic.dcqcn.preset",
	"model":                   "a run has one model: run the scenario twice, with --model packet and --model flow",
	"repetitions":             "repetitions repeat every point of the matrix: set repetitions instead",
	"traffic[].pattern":       "a pattern decides the flows and their roles, which the assertions read: write one traffic entry, or one scenario, per pattern",
	"traffic[].role":          "a role names flows, which the assertions and regress read by that name: write one traffic entry per role",
	"faults[].kind":           "a fault's kind decides which of its keys apply: write one fault entry, or one scenario, per kind",
	"faults":                  "sweep one field of one entry: faults[<i>].<field>, e.g. faults[0].at",
	"lb":                      "sweep one key: lb.mode or lb.flowlet_gap",
	"qos.profile":             "a profile is a whole QoS intent: make one lab spec per profile",
	"qos.lossless_priorities": "the lossless priorities shape the DSCP, queue and buffer maps of every switch, which cannot be carried over onto the lab's configs: make one lab spec per value",
	"qos.roce_dscp":           "the RoCE DSCP shapes every switch's DSCP map: sweep traffic[<i>].traffic_class to send with another DSCP, or make one lab spec per value",
	"qos.cnp_dscp":            "the CNP DSCP shapes every switch's DSCP map: sweep nic.dcqcn.cnp_dscp to mark the NICs' CNPs otherwise, or make one lab spec per value",
	"qos.cable_length_m":      "cable length sizes the PFC headroom of every lossless buffer profile, which edits of the lab's configs would keep: make one lab spec per value",
	"qos.ecn.enabled":         "ECN on and off is the matrix's ecn dimension: use ecn: [on, off]",
	"qos.pfc.enabled":         "PFC on and off is the matrix's pfc dimension: use pfc: [on, off]",
	"qos.ets_weights":         "ETS weights are a map that must sum to at most 100: make one lab spec per set of weights",
	"matrix":                  "the matrix is not a parameter",
	"traffic":                 "sweep one field of one entry: traffic[<i>].<field>",
	"assertions":              "assertions are not parameters",
	"nic":                     "sweep one key: nic.<key>, e.g. nic.dcqcn.rpg_ai_rate",
	"qos":                     "sweep one key: qos.<key>, e.g. qos.ecn.kmin_kb",
	"qos.ecn":                 "sweep one key: qos.ecn.kmin_kb, qos.ecn.kmax_kb or qos.ecn.pmax",
	"qos.pfc":                 "PFC on and off is the matrix's pfc dimension: use pfc: [on, off]",
	"qos.pfc_watchdog":        "sweep one key: qos.pfc_watchdog.detection_ms, restoration_ms or action",
	"nic.dcqcn":               "sweep one parameter: nic.dcqcn.<name>, e.g. nic.dcqcn.rpg_ai_rate",
	"infiniband":              "sweep one key: infiniband.<key>, e.g. infiniband.routing",
	"traffic[].case":          "a case is a dimension of its own: tag traffic and faults entries with case: <name> and list the names under matrix case",
	"faults[].case":           "a case is a dimension of its own: tag traffic and faults entries with case: <name> and list the names under matrix case",
	"uet":                     "sweep one key: uet.<key>, e.g. uet.lb",
	"images":                  "images are a lab's, not a scenario's",
	"sizing":                  "sizing is a lab's: make one lab spec per size",
}

// resolveSweep turns a matrix key into a sweep: its family, the key's
// path and Go type. The error says why a path cannot be swept.
func (s *Spec) resolveSweep(path string) (Sweep, error) {
	sw := Sweep{Path: path}
	if reason, ok := notSweepable[path]; ok {
		return sw, fmt.Errorf("%s cannot be swept: %s", path, reason)
	}
	var root reflect.Type
	var field string
	switch {
	case strings.HasPrefix(path, "qos."):
		sw.family, root, field = famQoS, reflect.TypeOf(lab.QoSSpec{}), strings.TrimPrefix(path, "qos.")
		if !slices.Contains(sweepableQoS, field) {
			return sw, unknownPath(path, "qos.", sweepableQoS)
		}
	case strings.HasPrefix(path, "nic."):
		sw.family, root, field = famNIC, reflect.TypeOf(nic.Spec{}), strings.TrimPrefix(path, "nic.")
		if !slices.Contains(leafPaths(root), field) {
			return sw, unknownPath(path, "nic.", leafPaths(root))
		}
	case strings.HasPrefix(path, famIB+".") || strings.HasPrefix(path, famUET+"."):
		section, rest, _ := strings.Cut(path, ".")
		sw.family, root, field = section, reflect.TypeOf(transport.IBSpec{}), rest
		if section == famUET {
			root = reflect.TypeOf(transport.UETSpec{})
		}
		if reason, ok := notSweepable[path]; ok {
			return sw, fmt.Errorf("%s cannot be swept: %s", path, reason)
		}
		if !slices.Contains(leafPaths(root), field) {
			return sw, unknownPath(path, section+".", leafPaths(root))
		}
	case strings.HasPrefix(path, "traffic[") || strings.HasPrefix(path, "faults["):
		list, rest, _ := strings.Cut(path, "[")
		idx, rest, ok := strings.Cut(rest, "].")
		i, err := strconv.Atoi(idx)
		if !ok || err != nil || i < 0 || strconv.Itoa(i) != idx {
			return sw, fmt.Errorf("%s is not a path like %s[0].%s", path, list, map[string]string{"traffic": "senders", "faults": "at"}[list])
		}
		n, root := len(s.Traffic), reflect.TypeOf(Traffic{})
		if list == famFaults {
			n, root = len(s.Faults), reflect.TypeOf(Fault{})
		}
		if i >= n {
			return sw, fmt.Errorf("%s names %s entry %d, but the scenario has %d (%s[0] is the first)", path, list, i, n, list)
		}
		if reason, ok := notSweepable[list+"[]."+rest]; ok {
			return sw, fmt.Errorf("%s cannot be swept: %s", path, reason)
		}
		sw.family, sw.index, field = list, i, rest
		fields := slices.DeleteFunc(leafPaths(root), func(p string) bool { return p == "pattern" || p == "kind" })
		if !slices.Contains(fields, field) {
			return sw, unknownPath(path, fmt.Sprintf("%s[%d].", list, i), fields)
		}
		sw.field = []string{field}
		sw.typ, _ = leafType(root, sw.field)
		return sw, nil
	default:
		sw.family, root, field = famScenario, reflect.TypeOf(Spec{}), path
		if !slices.Contains(sweepableScenario, field) {
			return sw, fmt.Errorf("%s is not a parameter labctl can sweep", path)
		}
	}
	sw.field = strings.Split(field, ".")
	sw.typ, _ = leafType(root, sw.field)
	return sw, nil
}

func unknownPath(path, prefix string, known []string) error {
	var near []string
	for _, k := range known {
		near = append(near, prefix+k)
	}
	return fmt.Errorf("%s is not a parameter labctl can sweep (under %s: %s)", path, strings.TrimSuffix(prefix, "."), strings.Join(near, ", "))
}

// leafPaths lists the scalar keys of a spec struct by their YAML paths
// ("dcqcn.rpg_ai_rate"), in declaration order.
func leafPaths(t reflect.Type) []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Struct:
				walk(ft, prefix+name+".")
			case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
				out = append(out, prefix+name)
			}
		}
	}
	walk(t, "")
	return out
}

// leafType is the Go type of the key at path in struct type t.
func leafType(t reflect.Type, path []string) (reflect.Type, bool) {
	for i, name := range path {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f, ok := fieldByYAML(t, name)
		if !ok {
			return nil, false
		}
		if i == len(path)-1 {
			return f.Type, true
		}
		t = f.Type
	}
	return nil, false
}

func fieldByYAML(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); n == name && f.IsExported() {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// setPath sets the key at path of the struct v points to, allocating the
// optional sections on the way (a nil *ECNSpec) and the optional key
// itself (*int) when it is a pointer.
func setPath(v reflect.Value, path []string, val reflect.Value) {
	for i, name := range path {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		f, _ := fieldByYAML(v.Type(), name)
		v = v.FieldByIndex(f.Index)
		if i == len(path)-1 {
			if v.Kind() == reflect.Pointer {
				p := reflect.New(v.Type().Elem())
				p.Elem().Set(val)
				v.Set(p)
			} else {
				v.Set(val)
			}
		}
	}
}

// zeroDefault says, for a swept key where 0 stands for a default (an
// incast's senders, a flap's count), what the default is.
func zeroDefault(sw Sweep) (string, bool) {
	switch {
	case sw.family == famTraffic:
		z, ok := trafficZeros[sw.field[0]]
		return z.def, ok
	case sw.family == famFaults && sw.field[0] == "count":
		return "1 flap", true
	}
	return "", false
}

// matrixSize is the product of the matrix's dimensions' lengths, which
// times the repetitions MaxVariants bounds (its exclude list does not
// count).
func (s *Spec) matrixSize() int {
	n := len(s.Matrix.ECN) * len(s.Matrix.PFC)
	for _, sw := range s.Matrix.Sweeps {
		n *= len(sw.Values)
	}
	return n
}

// checkSweeps checks every swept value with the validation of its key,
// alone and at every point of the matrix, and the matrix's size. at
// positions an error by a YAML path of the file.
func (s *Spec) checkSweeps(file string, at func(path, msg, fix string) error) error {
	sweeps := s.Matrix.Sweeps
	// The error goes to the dimension that takes the product over the
	// cap (or to repetitions).
	n := len(s.Matrix.ECN) * len(s.Matrix.PFC)
	dims := []string{fmt.Sprintf("ecn %d", len(s.Matrix.ECN)), fmt.Sprintf("pfc %d", len(s.Matrix.PFC))}
	over := -1
	for k, sw := range sweeps {
		n *= len(sw.Values)
		dims = append(dims, fmt.Sprintf("%s %d", sw.Path, len(sw.Values)))
		if n*s.Repetitions > MaxVariants && over < 0 {
			over = k
		}
	}
	if s.Repetitions > 1 {
		dims = append(dims, fmt.Sprintf("repetitions %d", s.Repetitions))
	}
	if n = s.matrixSize(); n*s.Repetitions > MaxVariants {
		msg := fmt.Sprintf("the matrix makes %d variants (%s), more than the %d labctl runs at once", n*s.Repetitions, strings.Join(dims, " x "), MaxVariants)
		fix := "sweep fewer values, or split the sweep into several scenarios"
		if over < 0 {
			return at("$.repetitions", msg, fix)
		}
		p := sweeps[over].keyAt
		return exitcode.Usage(&specyaml.Error{File: file, Line: p.line, Column: p.col, Msg: msg, Fix: fix})
	}
	if len(sweeps) == 0 {
		return nil
	}
	// Each value alone, so that a bad value is named as such rather than
	// as one of the combinations it is in.
	for k, sw := range sweeps {
		for i := range sw.Values {
			idx := make([]int, len(sweeps))
			for j := range idx {
				idx[j] = -1
			}
			idx[k] = i
			if err := s.checkPoint(file, idx); err != nil {
				return err
			}
		}
	}
	for _, idx := range s.sweepPoints() {
		if err := s.checkPoint(file, idx); err != nil {
			return err
		}
	}
	return nil
}

// checkPoint validates the swept values idx picks (-1: not swept here)
// with the checks of their keys. An error is placed at the value of the
// sweep whose key it names, or else at the last value that took part.
func (s *Spec) checkPoint(file string, idx []int) error {
	sweeps := s.Matrix.Sweeps
	var params []string
	last := -1
	for k, i := range idx {
		if i >= 0 {
			params = append(params, sweeps[k].Path+"="+sweeps[k].Values[i])
			last = k
		}
	}
	place := func(famPath string, msg, fix string) error {
		k := last
		for j, i := range idx {
			if i >= 0 && famPath != "" && sweeps[j].Path == famPath {
				k = j
			}
		}
		p := sweeps[k].valAt[idx[k]]
		if len(params) > 1 || famPath != sweeps[k].Path {
			msg = "at " + strings.Join(params, ",") + ": " + msg
		}
		return exitcode.Usage(&specyaml.Error{File: file, Line: p.line, Column: p.col, Msg: msg, Fix: fix})
	}
	if o := s.overlay(famQoS, idx); !reflect.ValueOf(o).IsZero() {
		q := o.(lab.QoSSpec)
		q.Profile = lab.DefaultQoSProfile
		if err := lab.ValidateQoS(&q, func(path, msg, fix string) error {
			return place(strings.TrimPrefix(path, "$."), "qos."+strings.TrimPrefix(path, "$.qos.")+": "+msg, fix)
		}); err != nil {
			return err
		}
	}
	if o := s.overlay(famNIC, idx); !reflect.ValueOf(o).IsZero() {
		ns := o.(nic.Spec)
		if _, err := nic.Resolve(100, 48, &s.NIC, &ns); err != nil {
			if fe, ok := err.(*nic.FieldError); ok {
				return place("nic."+fe.Field, "nic."+fe.Field+": "+fe.Msg, fe.Fix)
			}
			return place("", err.Error(), "see the nic keys in docs/scenario-spec.md")
		}
	}
	ps, err := s.pointSpec(idx, func(path, msg, fix string) error {
		return place(path, msg, fix)
	})
	if err != nil {
		return err
	}
	ib, uet := s.overlay(famIB, idx).(transport.IBSpec), s.overlay(famUET, idx).(transport.UETSpec)
	if _, err := transport.Resolve(ps.Transport, []*transport.IBSpec{&s.InfiniBand, &ib}, []*transport.UETSpec{&s.UET, &uet}); err != nil {
		if fe, ok := err.(*transport.FieldError); ok {
			return place(fe.Field, fe.Field+": "+fe.Msg, fe.Fix)
		}
		return place("", err.Error(), "see the transport keys in docs/scenario-spec.md")
	}
	return nil
}

// sweepPoints lists the combinations of swept values, as value indexes
// per sweep, the last sweep varying fastest.
func (s *Spec) sweepPoints() [][]int {
	out := [][]int{{}}
	for _, sw := range s.Matrix.Sweeps {
		var next [][]int
		for _, p := range out {
			for i := range sw.Values {
				next = append(next, append(slices.Clone(p), i))
			}
		}
		out = next
	}
	return out
}

// overlay is the family's section (lab.QoSSpec or nic.Spec) holding the
// swept values idx picks, and nothing else.
func (s *Spec) overlay(family string, idx []int) any {
	var v reflect.Value
	switch family {
	case famQoS:
		v = reflect.New(reflect.TypeOf(lab.QoSSpec{}))
	case famNIC:
		v = reflect.New(reflect.TypeOf(nic.Spec{}))
	case famIB:
		v = reflect.New(reflect.TypeOf(transport.IBSpec{}))
	case famUET:
		v = reflect.New(reflect.TypeOf(transport.UETSpec{}))
	default:
		return nil
	}
	for k, i := range idx {
		if sw := s.Matrix.Sweeps[k]; i >= 0 && sw.family == family {
			setPath(v, sw.field, sw.typed[i])
		}
	}
	return v.Elem().Interface()
}

// pointSpec is the scenario at the swept values idx picks (-1: the
// file's value): its traffic and timing with those values, checked again
// as Parse checks the file's. at places an error by the key's path in the
// sweep's terms ("duration", "traffic[0].senders").
func (s *Spec) pointSpec(idx []int, at func(path, msg, fix string) error) (*Spec, error) {
	touched := false
	for k, i := range idx {
		if f := s.Matrix.Sweeps[k].family; i >= 0 && (f == famTraffic || f == famFaults || f == famScenario) {
			touched = true
		}
	}
	if !touched {
		return s, nil
	}
	c := *s
	c.Traffic = slices.Clone(s.rawTraffic)
	c.Faults = slices.Clone(s.Faults)
	if s.LB != nil {
		lb := *s.LB
		c.LB = &lb
	}
	rv := reflect.ValueOf(&c)
	for k, i := range idx {
		sw := s.Matrix.Sweeps[k]
		if i < 0 {
			continue
		}
		switch sw.family {
		case famScenario:
			setPath(rv, sw.field, sw.typed[i])
			if sw.Path == "sample_every" {
				c.sampleEveryDefault = false
			}
		case famTraffic:
			setPath(reflect.ValueOf(&c.Traffic[sw.index]), sw.field, sw.typed[i])
		case famFaults:
			setPath(reflect.ValueOf(&c.Faults[sw.index]), sw.field, sw.typed[i])
		}
	}
	if err := checkTiming(&c, func(path, msg, fix string) error {
		return at(strings.TrimPrefix(path, "$."), msg, fix)
	}); err != nil {
		return nil, err
	}
	for i := range c.Traffic {
		if err := validateTraffic(&c.Traffic[i], c.DurationUs, func(field, msg, fix string) error {
			p := fmt.Sprintf("traffic[%d]", i)
			if field != "" {
				p += "." + field
			}
			return at(p, p+": "+msg, fix)
		}); err != nil {
			return nil, err
		}
	}
	// Faults and load balancing again: their times are checked against the
	// point's duration.
	if err := c.parseFaults(func(path, msg, fix string) error {
		p := strings.TrimPrefix(path, "$.")
		return at(p, p+": "+msg, fix)
	}); err != nil {
		return nil, err
	}
	return &c, nil
}

// CheckLabPoints checks, for a matrix that sweeps a fault's link or NIC,
// what each point names in the lab (CheckLab for the file's own faults).
func (s *Spec) CheckLabPoints(g *fabric.Graph) error {
	if !slices.ContainsFunc(s.Matrix.Sweeps, func(sw Sweep) bool { return sw.family == famFaults }) {
		return nil
	}
	for _, idx := range s.sweepPoints() {
		ps, err := s.pointSpec(idx, func(path, msg, fix string) error { return fmt.Errorf("%s (fix: %s)", msg, fix) })
		if err != nil {
			return err
		}
		if err := ps.CheckLab(g); err != nil {
			var params []string
			for k, i := range idx {
				params = append(params, s.Matrix.Sweeps[k].Path+"="+s.Matrix.Sweeps[k].Values[i])
			}
			return exitcode.Usagef("at %s: %v", strings.Join(params, ","), err)
		}
	}
	return nil
}

// pointIndex maps a point's params to value indexes per sweep.
func (s *Spec) pointIndex(pt Point) ([]int, error) {
	idx := make([]int, len(s.Matrix.Sweeps))
	for k, sw := range s.Matrix.Sweeps {
		idx[k] = -1
		for _, p := range pt.Params {
			if p.Path == sw.Path {
				idx[k] = slices.Index(sw.Values, p.Value)
			}
		}
		if idx[k] < 0 {
			return nil, fmt.Errorf("point %s has no value of the swept %s", pt.Name, sw.Path)
		}
	}
	return idx, nil
}

// PointQoS is the lab QoS values a point sweeps (zero without any).
func (s *Spec) PointQoS(pt Point) lab.QoSSpec {
	idx, err := s.pointIndex(pt)
	if err != nil || len(idx) == 0 {
		return lab.QoSSpec{}
	}
	return s.overlay(famQoS, idx).(lab.QoSSpec)
}

// PointNIC is the NIC values a point sweeps, over the lab's and the
// scenario's nic sections (zero without any).
func (s *Spec) PointNIC(pt Point) nic.Spec {
	idx, err := s.pointIndex(pt)
	if err != nil || len(idx) == 0 {
		return nic.Spec{}
	}
	return s.overlay(famNIC, idx).(nic.Spec)
}

// PointTransport is a point's transport: its name ("" keeps the lab's:
// the scenario's transport or a swept one) and the infiniband and uet
// values it sweeps, to apply over the lab's and the scenario's sections.
func (s *Spec) PointTransport(pt Point) (name string, ib transport.IBSpec, uet transport.UETSpec) {
	name = s.Transport
	for _, p := range pt.Params {
		if p.Path == "transport" {
			name = p.Value
		}
	}
	idx, err := s.pointIndex(pt)
	if err != nil || len(idx) == 0 {
		return name, ib, uet
	}
	return name, s.overlay(famIB, idx).(transport.IBSpec), s.overlay(famUET, idx).(transport.UETSpec)
}

// SweepsQoS reports whether the matrix sweeps a qos key, so every
// variant's switch configs differ by more than ECN and PFC.
func (s *Spec) SweepsQoS() bool {
	return slices.ContainsFunc(s.Matrix.Sweeps, func(sw Sweep) bool { return sw.family == famQoS })
}

// sweepByPath finds a sweep by its path.
func (s *Spec) sweepByPath(path string) *Sweep {
	for i := range s.Matrix.Sweeps {
		if s.Matrix.Sweeps[i].Path == path {
			return &s.Matrix.Sweeps[i]
		}
	}
	return nil
}

// SweepError is a bad-input error placed at the value of a point's swept
// key, for problems found once the lab is known (a Kmin above a port's
// Kmax in the lab's configs).
func (s *Spec) SweepError(path, value, msg, fix string) error {
	e := &specyaml.Error{File: s.file, Msg: msg, Fix: fix}
	if sw := s.sweepByPath(path); sw != nil {
		at := sw.keyAt
		if i := slices.Index(sw.Values, value); i >= 0 {
			at = sw.valAt[i]
		}
		e.Line, e.Column = at.line, at.col
	}
	return exitcode.Usage(e)
}

// paramValue turns a swept value into an assertion's value: a number, a
// duration in µs, a size in bytes, or a boolean. Text values (a DCQCN
// preset's name) have none.
func paramValue(text string) (Value, bool) {
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return Num(f), true
	}
	switch text {
	case "true":
		return Bool(true), true
	case "false":
		return Bool(false), true
	}
	if d, err := time.ParseDuration(text); err == nil {
		return Num(float64(d) / float64(time.Microsecond)), true
	}
	if b, err := ParseBytes(text); err == nil && strings.ContainsAny(text, "KMGB") {
		return Num(float64(b)), true
	}
	// Anything else is text (lb.mode, nic.dcqcn.preset): compared with a
	// quoted string, params.lb.mode == "spray".
	return Str(text), true
}

// SweepPath is a key a matrix can sweep: its path, YAML type and what a
// point of the sweep changes.
type SweepPath struct {
	Path, Type, Doc string
}

// qosSweepDocs says what a swept qos key does to a point: applied on top
// of the lab's configs, or to its traffic.
var qosSweepDocs = map[string]string{
	"ecn.kmin_kb":                 "Every queue that marks ECN in the lab's configs marks from this depth, in KiB, above 0; its Kmax and pmax stay as the configs have them, and a Kmin at or above a port's Kmax is refused.",
	"ecn.kmax_kb":                 "Every queue that marks ECN in the lab's configs reaches pmax at this depth, in KiB, above 0; its Kmin stays as the configs have it, and must stay below.",
	"ecn.pmax":                    "Every queue that marks ECN in the lab's configs marks with this probability at Kmax, a whole percent from 0.01 to 1 (switches set it in whole percents).",
	"mtu":                         "The payload MTU the NICs send (the simulator's packet size): 256, 512, 1024, 2048 or 4096 bytes for RoCE and InfiniBand (an IBA path MTU), 256 to 9216 for UET. The switch configs keep the MTU and PFC headroom the lab's configs give (a swept MTU is the NICs' alone); simulator only (a live lab's MTU is soft-RoCE's).",
	"buffer_pool_bytes":           "Every switch's shared buffer pool (ingress and lossy egress pools; the egress lossless pool, the whole buffer, changes by as much), 65536 to 1073741824 bytes. The lab's other buffer settings stay as its configs have them. A lab on a live runtime with EOS switches refuses it: EOS configures no buffer pools, so only the simulator can run it.",
	"pfc_watchdog.enabled":        "false takes the PFC watchdog off every port; true keeps it where the lab's configs have it (a lab whose configs have none cannot sweep it).",
	"pfc_watchdog.detection_ms":   "Every port whose PFC watchdog is on in the lab's configs detects a pause storm after this many ms, 100 to 5000.",
	"pfc_watchdog.restoration_ms": "Every port whose PFC watchdog is on in the lab's configs restores a stormed queue after this many ms, 100 to 60000.",
	"pfc_watchdog.action":         "Every port whose PFC watchdog is on in the lab's configs takes this action on a storm: drop, forward or alert (EOS configs write them drop, no-drop and notify-only).",
}

// SweepPaths lists every key a matrix can sweep, in the order the
// reference documents them: the scenario's own keys, a traffic entry's
// fields, the NIC's, then the lab's QoS.
func SweepPaths() []SweepPath {
	var out []SweepPath
	for _, k := range sweepableScenario {
		t, _ := leafType(reflect.TypeOf(Spec{}), strings.Split(k, "."))
		out = append(out, SweepPath{k, specdoc.TypeName(t), KeyDocs[k].Doc})
	}
	for _, k := range leafPaths(reflect.TypeOf(Traffic{})) {
		if k == "pattern" || k == "case" || k == "role" {
			continue
		}
		t, _ := leafType(reflect.TypeOf(Traffic{}), []string{k})
		out = append(out, SweepPath{"traffic[<i>]." + k, specdoc.TypeName(t), "Traffic entry i (from 0): " + KeyDocs["traffic[]."+k].Doc})
	}
	for _, k := range leafPaths(reflect.TypeOf(Fault{})) {
		if k == "kind" || k == "case" {
			continue
		}
		t, _ := leafType(reflect.TypeOf(Fault{}), []string{k})
		out = append(out, SweepPath{"faults[<i>]." + k, specdoc.TypeName(t), "Fault entry i (from 0): " + KeyDocs["faults[]."+k].Doc})
	}
	for _, k := range leafPaths(reflect.TypeOf(nic.Spec{})) {
		t, _ := leafType(reflect.TypeOf(nic.Spec{}), strings.Split(k, "."))
		out = append(out, SweepPath{"nic." + k, specdoc.TypeName(t), "Over the lab's and the scenario's nic sections: " + KeyDocs["nic."+k].Doc})
	}
	for _, k := range sweepableQoS {
		t, _ := leafType(reflect.TypeOf(lab.QoSSpec{}), strings.Split(k, "."))
		out = append(out, SweepPath{"qos." + k, specdoc.TypeName(t), qosSweepDocs[k]})
	}
	for _, sec := range []struct {
		name string
		typ  reflect.Type
	}{{famIB, reflect.TypeOf(transport.IBSpec{})}, {famUET, reflect.TypeOf(transport.UETSpec{})}} {
		for _, k := range leafPaths(sec.typ) {
			t, _ := leafType(sec.typ, strings.Split(k, "."))
			out = append(out, SweepPath{sec.name + "." + k, specdoc.TypeName(t), "Over the lab's and the scenario's " + sec.name + " sections: " + KeyDocs[sec.name+"."+k].Doc})
		}
	}
	return out
}

// SweepPathsMarkdown is the reference's section on sweeps: the path
// syntax and every sweepable key, generated from the code.
func SweepPathsMarkdown() string {
	var b strings.Builder
	b.WriteString(`## Sweep paths

A matrix key other than ` + "`ecn`" + ` and ` + "`pfc`" + ` sweeps one parameter over a list of
values, named by its path: ` + "`qos.<key>`" + ` (the lab's QoS, applied on top of its
configs as they are, edits included), ` + "`nic.<key>`" + ` (the NICs, over the lab's
and the scenario's ` + "`nic`" + ` sections), ` + "`traffic[<i>].<field>`" + ` and
` + "`faults[<i>].<field>`" + ` (one entry of the list, counted from 0) and the scenario's
own ` + "`duration`" + `, ` + "`warmup`" + `, ` + "`sample_every`" + `, ` + "`lb.<key>`" + ` and ` + "`transport`" + `,
with ` + "`infiniband.<key>`" + ` and ` + "`uet.<key>`" + ` over the lab's and the scenario's sections of those
transports. The dimension ` + "`case`" + ` lists the scenario's cases (traffic and faults entries
tagged ` + "`case: <name>`" + `; without it the tags in file order make it).
The variants are the cross product of every dimension, at most ` + strconv.Itoa(MaxVariants) + ` with
repetitions, named like ` + "`ecn=on,pfc=on,qos.ecn.kmin_kb=200`" + `; ` + "`exclude`" + ` lists combinations
to leave out (` + "`exclude: [{transport: infiniband, pfc: off}]`" + `). Every value is
checked by its key's own validation, alone and in each combination, before
anything runs. Keys that reshape a lab (its profile, lossless priorities,
DSCPs, cable length, ETS weights) are refused with the reason: make one lab
spec per value.
`)
	// The refusals under --model flow come from the list CheckModel uses.
	var blind, reads []string
	for _, k := range flowModelBlind {
		name := "`" + strings.Replace(k.key, "[]", "[<i>]", 1) + "`"
		if k.what == "" {
			reads = append(reads, name)
		} else {
			blind = append(blind, name)
		}
	}
	fmt.Fprintf(&b, `With `+"`--model flow`"+` (or `+"`model: flow`"+`), a sweep of a key the flow-level
model does not read is refused, as every point would be the same estimate:
%s (a key ending in a dot stands for every key under it, except %s, which it reads).

| path | type | what a point changes |
|---|---|---|
`, strings.Join(blind, ", "), strings.Join(reads, " and "))
	for _, p := range SweepPaths() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Path, p.Type, strings.ReplaceAll(p.Doc, "|", `\|`))
	}
	return b.String()
}
