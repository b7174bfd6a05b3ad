package sonic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// cfgDuplicates refuses a key given twice in one object of a CONFIG_DB
// file: a table, an entry of a table or a field of an entry. JSON decoders
// keep the last (encoding/json here, sonic-cfggen on the switch), so the
// first is silently ignored, and one of the two is surely a mistake. The
// error names the second's place and the first's line. Malformed JSON is
// left to json.Unmarshal, which says where.
func cfgDuplicates(name string, data []byte) error {
	type object struct {
		keys    map[string]int64 // key -> offset of its first occurrence
		path    []string         // the keys leading to this object
		wantKey bool             // the next token is a key
		key     string           // the last key read
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*object
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return nil
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				var path []string
				if top != nil {
					path = append(append(path, top.path...), top.key)
					top.wantKey = true // this object or list is top's value
				}
				o := &object{path: path, wantKey: d == '{'}
				if d == '{' {
					o.keys = map[string]int64{}
				}
				stack = append(stack, o)
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top == nil || top.keys == nil {
			continue // a value at the top or in a list
		}
		if !top.wantKey {
			top.wantKey = true // a scalar value: a key comes next
			continue
		}
		key, _ := tok.(string)
		// The decoder's offset is after the previous token: the key starts
		// past the comma and blanks.
		at := off + int64(len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n,")))
		top.wantKey, top.key = false, key
		first, dup := top.keys[key]
		if !dup {
			top.keys[key] = at
			continue
		}
		line, col := lineCol(data, at)
		firstLine, _ := lineCol(data, first)
		return fmt.Errorf("%s:%d:%d: %s given twice (first at line %d); a JSON reader (sonic-cfggen's too) keeps only the last, so the first would be silently ignored (fix: merge the two into one, or delete the one you did not mean)",
			name, line, col, dupWhat(top.path, key), firstLine)
	}
}

// dupWhat names a key by its depth in CONFIG_DB: a table, an entry of a
// table, a field of an entry.
func dupWhat(path []string, key string) string {
	switch len(path) {
	case 0:
		return "table " + key + " is"
	case 1:
		return fmt.Sprintf("%s entry %q is", path[0], key)
	case 2:
		return fmt.Sprintf("field %s of %s|%s is", key, path[0], path[1])
	}
	return fmt.Sprintf("key %q under %s is", key, strings.Join(path, " > "))
}

// lineCol is the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int64) (int, int) {
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return line, int(off) - bytes.LastIndexByte(data[:off], '\n')
}
