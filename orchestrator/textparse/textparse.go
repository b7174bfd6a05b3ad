// Package textparse holds what the parsers of device and tool output have in
// common: an error that says which line of the input it is about, and a line
// splitter that refuses absurdly long lines instead of buffering them.
//
// It is a leaf package so that any parser (NOS plugins included) can use it
// without an import cycle.
package textparse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Error reports where the input stopped making sense. Line is 1-based; 0
// means the input as a whole (for example, empty input).
type Error struct {
	Line int
	Msg  string
	// Fix, when set, is what to do about this error in particular. Most
	// parse errors have one fix, giving the whole output of the right
	// command, which the CLI says itself; an error whose fix is another
	// (a file that holds two runs must be split) carries it here.
	Fix string
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Fix != "" {
		msg += " (fix: " + e.Fix + ")"
	}
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, msg)
	}
	return msg
}

// Position returns the 1-based line the error refers to (0 = whole input).
// The CLI uses it to print file:line: in front of the message.
func (e *Error) Position() int { return e.Line }

// Errorf returns an *Error at line with a formatted message.
func Errorf(line int, format string, a ...any) error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, a...)}
}

// SecondRun is the error at line, where a second run's what (its header,
// its trailer) shows a file that holds two runs: outputs appended with >>
// or pasted together. first is the line of the first run's. A parser
// that read on would give the first run's figures, or mix the two, and
// say nothing of the second, so every parser of a tool's output refuses
// it alike. why, when not empty, adds another way the file comes about
// (", or ...").
func SecondRun(line, first int, what, why string) error {
	return &Error{Line: line, Msg: fmt.Sprintf("a second %s (the first is at line %d): the file holds two runs%s", what, first, why),
		Fix: "split the file, one run each, and parse each file on its own"}
}

// utf8BOM is the UTF-8 byte-order mark.
var utf8BOM = []byte("\xef\xbb\xbf")

// SkipBOM returns r without a leading UTF-8 byte-order mark, which
// Windows tools put in front of text they save (Notepad, PowerShell's
// Out-File) and no command prints: left in, it is glued to the first
// line, which then is not the header or the JSON the parser looks for.
// Nothing is read until the first Read, so wrapping a terminal or a pipe
// does not block; a read error while looking for the mark is returned by
// that Read.
func SkipBOM(r io.Reader) io.Reader { return &bomReader{br: bufio.NewReader(r)} }

type bomReader struct {
	br      *bufio.Reader
	checked bool
}

func (b *bomReader) Read(p []byte) (int, error) {
	if !b.checked {
		b.checked = true
		if head, _ := b.br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
			_, _ = b.br.Discard(len(utf8BOM))
		}
	}
	return b.br.Read(p)
}

// MaxLine bounds one line of input. Command output lines are at most a few
// hundred characters, so anything longer is not what a parser expects, and
// refusing it keeps memory bounded on garbage input.
const MaxLine = 1 << 20

// Lines splits data into lines without their line endings ("\n" or "\r\n").
// A line longer than MaxLine is an *Error at that line; when what is not
// empty the message adds "this is not <what>" to tell the user what input
// was expected.
func Lines(data []byte, what string) ([]string, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), MaxLine)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			if what == "" {
				return nil, Errorf(len(lines)+1, "line longer than %d bytes", MaxLine)
			}
			return nil, Errorf(len(lines)+1, "line longer than %d bytes: this is not %s", MaxLine, what)
		}
		return nil, err // a bytes.Reader does not fail; kept for completeness
	}
	return lines, nil
}
