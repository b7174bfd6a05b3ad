package eos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// CounterError reports where EOS counter JSON stopped making sense. Line is
// 1-based; 0 means the input as a whole.
type CounterError = textparse.Error

// ctrNode is a decoded JSON value that remembers its line, so that errors
// found after decoding (a wrong type, a bad key) can still say where.
type ctrNode struct {
	line  int
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	text  string
	keys  []string
	vals  []*ctrNode
	items []*ctrNode
}

func (n *ctrNode) kindName() string {
	switch n.kind {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}

// get returns the member key of an object, or nil.
func (n *ctrNode) get(key string) *ctrNode {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

const ctrMaxDepth = 64

// ctrDecode reads one JSON document. Duplicate keys are errors, since EOS
// never repeats one and a repeated key would otherwise hide a counter.
func ctrDecode(r io.Reader) (*ctrNode, error) {
	data, err := readlimit.ReadAll(r, "", readlimit.Output)
	if err != nil {
		return nil, fmt.Errorf("read counters: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, textparse.Errorf(0, "empty input: expected the JSON of an EOS show command (append `| json`)")
	}
	if t := bytes.TrimSpace(data); t[0] != '{' {
		first, _, _ := strings.Cut(string(t), "\n")
		return nil, textparse.Errorf(1, "%q is not JSON: run the show command with `| json`", ctrClip(first))
	}
	d := &ctrDecoder{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	d.dec.UseNumber()
	n, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return nil, textparse.Errorf(d.line(), "text after the JSON document")
	}
	return n, nil
}

type ctrDecoder struct {
	data []byte
	dec  *json.Decoder
}

func (d *ctrDecoder) line() int {
	off := int(d.dec.InputOffset())
	if off > len(d.data) {
		off = len(d.data)
	}
	return bytes.Count(d.data[:off], []byte("\n")) + 1
}

func (d *ctrDecoder) fail(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > len(d.data) {
			off = len(d.data)
		}
		return textparse.Errorf(bytes.Count(d.data[:off], []byte("\n"))+1, "invalid JSON: %v", se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return textparse.Errorf(bytes.Count(d.data, []byte("\n"))+1, "input ends inside the JSON document (truncated output?)")
	}
	return textparse.Errorf(d.line(), "invalid JSON: %v", err)
}

func (d *ctrDecoder) value(depth int) (*ctrNode, error) {
	if depth > ctrMaxDepth {
		return nil, textparse.Errorf(d.line(), "JSON nested deeper than %d levels", ctrMaxDepth)
	}
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.fail(err)
	}
	n := &ctrNode{line: d.line()}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = 'o'
			for d.dec.More() {
				kt, err := d.dec.Token()
				if err != nil {
					return nil, d.fail(err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, textparse.Errorf(d.line(), "expected an object key")
				}
				for _, k := range n.keys {
					if k == key {
						return nil, textparse.Errorf(d.line(), "key %q appears twice in one object", key)
					}
				}
				v, err := d.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
		case '[':
			n.kind = 'a'
			for d.dec.More() {
				v, err := d.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
		default:
			return nil, textparse.Errorf(n.line, "unexpected %q", string(t))
		}
		if _, err := d.dec.Token(); err != nil { // closing delimiter
			return nil, d.fail(err)
		}
	case string:
		n.kind, n.text = 's', t
	case json.Number:
		n.kind, n.text = 'n', t.String()
	case bool:
		n.kind, n.text = 'b', strconv.FormatBool(t)
	case nil:
		n.kind = 'z'
	}
	return n, nil
}

func ctrClip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// ctrPath walks nested objects from n along keys; the error names the
// first missing step and what the whole document was expected to be.
func ctrPath(n *ctrNode, what string, keys ...string) (*ctrNode, error) {
	cur := n
	for i, k := range keys {
		if cur.kind != 'o' {
			return nil, textparse.Errorf(cur.line, "%s is %s, expected an object (%s)", strings.Join(keys[:i], "."), cur.kindName(), what)
		}
		next := cur.get(k)
		if next == nil {
			where := "the document"
			if i > 0 {
				where = strings.Join(keys[:i], ".")
			}
			return nil, textparse.Errorf(cur.line, "%s has no %q: expected %s", where, k, what)
		}
		cur = next
	}
	if cur.kind != 'o' {
		return nil, textparse.Errorf(cur.line, "%s is %s, expected an object (%s)", strings.Join(keys, "."), cur.kindName(), what)
	}
	return cur, nil
}

// ctrCount reads a counter: a non-negative integer number, or a string of
// digits (EOS prints some counters as strings).
func ctrCount(n *ctrNode, path string) (uint64, error) {
	s := n.text
	if n.kind != 'n' && n.kind != 's' {
		return 0, textparse.Errorf(n.line, "%s is %s, expected a counter", path, n.kindName())
	}
	// EOS sometimes prints integral counters as floats (12.0).
	if n.kind == 'n' {
		s = strings.TrimSuffix(s, ".0")
	}
	if s == "" {
		return 0, textparse.Errorf(n.line, "%s is empty, expected a counter", path)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, textparse.Errorf(n.line, "%s = %q, expected a non-negative integer counter", path, n.text)
		}
	}
	// Counters are unsigned 64-bit (SAI's, which EOS's platforms count
	// in too): up to 18446744073709551615.
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, textparse.Errorf(n.line, "%s = %q does not fit a 64-bit counter (at most 18446744073709551615)", path, n.text)
	}
	return v, nil
}

// ctrIndex parses the number after prefix in keys such as "TC3" or "DP0".
func ctrIndex(key, prefix string, max int) (int, bool) {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok || rest == "" || len(rest) > 3 {
		return 0, false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(rest)
	if err != nil || v > max {
		return 0, false
	}
	return v, true
}
