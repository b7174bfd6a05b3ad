// Package jsonindent writes JSON indented by two spaces as encoding/json's
// MarshalIndent(v, "", "  ") does, except that an array holding no object
// or array (numbers, strings, literals: a time series, a path) stays on
// one line as json.Marshal wrote it, "t_us": [0,10,20]. One number per
// line made a run record three and a half times its compact size (64gpu's
// ECN x PFC matrix 9.0 MB, now 2.8 MB), for every command that writes or
// reads it. It does so in a fraction of MarshalIndent's time: json.Indent
// runs every byte through the JSON scanner's state machine to validate
// what it indents, which for a run record took as long as encoding it
// (7.9% of the instructions of `labctl run allreduce --lab 64gpu`, whose
// record was 20 MB). What json.Marshal produces is valid and compact
// already, so here the bytes are only copied, strings and one-line arrays
// in runs.
package jsonindent

import (
	"encoding/json"

	"github.com/labctl/labctl/orchestrator/hugepage"
)

// Marshal is json.Marshal(v) laid out as the package says, in an array of
// exactly its size plus one byte, for the newline a caller writing a file
// appends. Sized by a guess (half as large again as the compact form) the
// array was copied four times as it grew, for a record with each series
// value on a line of its own (three and a half times the compact size):
// writing the 9 MB record of 64gpu's ECN x PFC matrix took 5,700 page
// faults, two thirds of that run's. It is also advised for huge pages
// (hugepage.AdviseSlice: from 2 MiB), which helps where its memory is fresh:
// memory the runtime reuses it clears first, faulting it page by page.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	n := Len(b)
	dst := make([]byte, 0, n+1)
	hugepage.AdviseSlice(dst) // (only a large one: hugepage.Advise)
	return Append(dst, b), nil
}

// Len is len(Append(nil, src)): the size of src indented, counted with
// Append's walk over it (a test holds the two together).
func Len(src []byte) int {
	n := len(src)
	depth := 0
	open := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			n += 1 + 2*depth
		}
		switch c {
		case '"':
			i = stringEnd(src, i) - 1
		case '[':
			if j := scalarArrayEnd(src, i); j > 0 {
				i = j - 1
				continue
			}
			open = true
		case '{':
			open = true
		case ',':
			n += 1 + 2*depth
		case ':':
			n++
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				n += 1 + 2*depth
			}
		}
	}
	return n
}

// Append appends to dst the compact JSON src (json.Marshal's output, or
// any JSON without whitespace outside strings) indented as
// json.Indent(dst, src, "", "  ") would, but for the arrays of scalars it
// copies as they are (scalarArrayEnd), and returns it. src must be valid:
// Append does not check it.
func Append(dst, src []byte) []byte {
	depth := 0
	// open: the last byte was '{' or '[', whose newline waits for the
	// next byte, so that an empty object or array stays {} or [].
	open := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = newline(dst, depth)
		}
		switch c {
		case '"':
			// Copy the string whole.
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '[':
			if j := scalarArrayEnd(src, i); j > 0 {
				dst = append(dst, src[i:j]...)
				i = j - 1
				continue
			}
			open = true
			dst = append(dst, c)
		case '{':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = newline(dst, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				dst = newline(dst, depth)
			}
			dst = append(dst, c)
		default:
			// A number or a literal: copy it whole.
			j := i + 1
			for j < len(src) && !structural[src[j]] {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		}
	}
	return dst
}

// scalarArrayEnd is, for the array that opens at src[i], the index just
// past its closing bracket when it holds no object or array (numbers,
// strings, literals, or nothing), which Append then writes on one line as
// it is; otherwise -1.
func scalarArrayEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j) - 1
		case '{', '[':
			return -1
		case ']':
			return j + 1
		}
	}
	return -1
}

// stringEnd is the index just past the string that opens at src[i]: after
// the quote that no backslash escapes (or len(src) for a string cut off).
func stringEnd(src []byte, i int) int {
	j := i + 1
	for j < len(src) && src[j] != '"' {
		if src[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(src))
}

// structural marks the bytes that end a number or a literal.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true, ',': true, ':': true}

// spaces is the indentation of newline, sliced; deeper levels append more.
const spaces = "                                                                "

func newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	n := 2 * depth
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	return append(dst, spaces[:n]...)
}
