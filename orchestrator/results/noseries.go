package results

import (
	"bytes"
	"encoding/json"
)

// withoutSeries returns a run record's JSON with the value of every
// variant's "series" (variants[i].series) replaced by null, cut from the
// bytes without decoding it, and whether it understood the record's
// structure: a time series is thousands of numbers, and a reader that
// does not want them (Compare) saves their parsing, most of the decoding
// of a packet-level record. Only that path is cut: a "series" key
// anywhere else (in a variant's extra, say) stays. Keys match as
// encoding/json matches them to fields, ignoring case (a key written with
// escapes is not recognized, and its series are decoded: slower, not
// wrong). data must be valid JSON (json.Valid): withoutSeries then only
// finds its way through it.
func withoutSeries(data []byte) ([]byte, bool) {
	var out []byte // nil until the first cut
	last := 0      // data[last:] is not yet in out
	i, ok := objectMembers(data, 0, func(key []byte, v int) (int, bool) {
		if !bytes.EqualFold(key, []byte("variants")) || v >= len(data) || data[v] != '[' {
			return skipValue(data, v)
		}
		return arrayElems(data, v, func(e int) (int, bool) {
			if data[e] != '{' {
				return skipValue(data, e)
			}
			return objectMembers(data, e, func(key []byte, v int) (int, bool) {
				end, ok := skipValue(data, v)
				// Only a list is cut: anything else there is a record
				// the whole decoding rejects.
				if ok && data[v] == '[' && bytes.EqualFold(key, []byte("series")) {
					out = append(append(out, data[last:v]...), "null"...)
					last = end
				}
				return end, ok
			})
		})
	})
	if !ok || skipSpace(data, i) != len(data) {
		return nil, false
	}
	if out == nil {
		return data, true
	}
	return append(out, data[last:]...), true
}

// objectMembers walks the object at data[i] ('{' after any space), calling
// member with each key's raw bytes (between its quotes, escapes as they
// are) and where its value starts; member returns where the value ends.
// It returns where the object ends.
func objectMembers(data []byte, i int, member func(key []byte, v int) (int, bool)) (int, bool) {
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != '{' {
		return i, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, false
		}
		end, ok := skipString(data, i)
		if !ok {
			return i, false
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return i, false
		}
		if i, ok = member(key, skipSpace(data, i+1)); !ok {
			return i, false
		}
		var more bool
		if i, more, ok = afterItem(data, i, '}'); !ok || !more {
			return i, ok
		}
	}
}

// arrayElems walks the array whose '[' is data[i] as objectMembers walks an
// object.
func arrayElems(data []byte, i int, elem func(e int) (int, bool)) (int, bool) {
	if i >= len(data) || data[i] != '[' {
		return i, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		if i >= len(data) {
			return i, false
		}
		var ok, more bool
		if i, ok = elem(i); !ok {
			return i, false
		}
		if i, more, ok = afterItem(data, i, ']'); !ok || !more {
			return i, ok
		}
	}
}

// afterItem reads what follows a member or element ending at data[i]: a comma,
// before another (more; i past it and any space), or the container's
// closer (i past it).
func afterItem(data []byte, i int, closer byte) (int, bool, bool) {
	i = skipSpace(data, i)
	switch {
	case i < len(data) && data[i] == ',':
		return skipSpace(data, i+1), true, true
	case i < len(data) && data[i] == closer:
		return i + 1, false, true
	}
	return i, false, false
}

// skipValue returns where the JSON value at data[i] ends: a string, a
// container (its brackets balanced outside strings), or a number or
// literal (up to the next delimiter).
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, ok := skipString(data, i)
				if !ok {
					return i, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	default:
		start := i
		for i < len(data) && !endsScalar(data[i]) {
			i++
		}
		return i, i > start
	}
}

// skipString returns where the string starting at data[i] (its opening
// quote) ends, past its closing quote.
func skipString(data []byte, i int) (int, bool) {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}

// endsScalar says whether c ends a number or literal: a delimiter or
// space.
func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// decodeWithoutSeries decodes a record without its variants' time series
// (withoutSeries), or whole where the record is not valid JSON, the cut
// does not apply or what it left does not decode, so that an error is the
// whole record's. What the series hold is not decoded, so values their Go
// types cannot hold (valid JSON: a string where a number goes, 1e400, a
// fraction where an integer goes) are not an error here: nothing reading
// records this way reads series, and reading the record whole (ReadRunFile:
// report, results show -o json) still rejects them.
func decodeWithoutSeries(data []byte, run *Run) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, run)
	}
	if cut, ok := withoutSeries(data); ok {
		if err := json.Unmarshal(cut, run); err == nil {
			return nil
		}
		*run = Run{}
	}
	return json.Unmarshal(data, run)
}
