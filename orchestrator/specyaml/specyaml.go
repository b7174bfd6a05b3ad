// Package specyaml decodes labctl's YAML spec files strictly (unknown keys and
// wrong types are errors) and reports every problem as file:line:col with a
// hint, so a user can jump straight to the line to fix.
package specyaml

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// Error is a problem at a place in a YAML file.
type Error struct {
	File   string
	Line   int // 1-based; 0 when unknown
	Column int
	Msg    string
	Fix    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(e.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// Decode unmarshals data (read from file) into v, rejecting unknown keys.
// The returned error is an exit-code-2 error wrapping *Error.
func Decode(file string, data []byte, v any) error {
	if strings.TrimSpace(string(data)) == "" {
		return exitcode.Usage(&Error{File: file, Msg: "file is empty", Fix: "write a YAML mapping"})
	}
	err := yaml.UnmarshalWithOptions(data, v, yaml.Strict())
	if err == nil {
		return nil
	}
	e := &Error{File: file, Msg: err.Error()}
	var ye yaml.Error
	if errors.As(err, &ye) {
		e.Msg = ye.GetMessage()
		if tok := ye.GetToken(); tok != nil && tok.Position != nil {
			e.Line, e.Column = tok.Position.Line, tok.Position.Column
		}
	}
	var unknown *yaml.UnknownFieldError
	var typeErr *yaml.TypeError
	var syntax *yaml.SyntaxError
	switch {
	case errors.As(err, &unknown):
		e.Fix = "remove or correct the key; check its spelling against the documented keys"
	case errors.As(err, &typeErr):
		e.Fix = "give the value the documented type"
	case errors.As(err, &syntax):
		e.Msg = "not valid YAML: " + e.Msg
		e.Fix = "check indentation and quoting at this place"
	default:
		if !strings.Contains(e.Msg, "YAML") {
			e.Msg = "cannot read YAML: " + e.Msg
		}
	}
	return exitcode.Usage(e)
}

// At returns an *Error positioned at the node found by path (a YAML path
// such as "$.sizing.gpus") in data, falling back to no position when the
// path is absent (the value came from a default).
func At(file string, data []byte, path, msg, fix string) error {
	e := &Error{File: file, Msg: msg, Fix: fix}
	if p, err := yaml.PathString(path); err == nil {
		if f, err := parser.ParseBytes(data, 0); err == nil {
			if n, err := p.FilterFile(f); err == nil && n != nil {
				if tok := n.GetToken(); tok != nil && tok.Position != nil {
					e.Line, e.Column = tok.Position.Line, tok.Position.Column
				}
			}
		}
	}
	return exitcode.Usage(e)
}
