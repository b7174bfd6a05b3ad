package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/qos"
)

// cfgQoSTables are the CONFIG_DB tables the parser reads (those of
// ConfigDB); others (VLAN, BGP, …) in a full config_db.json are ignored.
var cfgQoSTables = func() []string {
	var out []string
	t := reflect.TypeFor[ConfigDB]()
	for i := range t.NumField() {
		out = append(out, t.Field(i).Tag.Get("table"))
	}
	return out
}()

// ParseDoc decodes one CONFIG_DB JSON file. name is used in errors.
func ParseDoc(name string, data []byte) (Doc, error) {
	// sonic-cfggen (Python's json) refuses a byte-order mark; say so
	// rather than "invalid character 'ï'".
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, fmt.Errorf("%s:1:1: the file starts with a UTF-8 byte-order mark, which sonic-cfggen refuses (fix: save the file as UTF-8 without a byte-order mark)", name)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: %w (fix: correct the JSON there: the file must be a CONFIG_DB JSON object {\"TABLE\": {\"key\": {\"field\": \"value\"}}}, without trailing commas or comments; 'python3 -m json.tool %s' shows the same place)", cfgWhere(name, data, err), err, name)
	}
	if top == nil {
		return nil, fmt.Errorf("%s: the file is JSON null, not a CONFIG_DB object (fix: give a config_db JSON object {\"TABLE\": {\"key\": {\"field\": \"value\"}}})", name)
	}
	if err := cfgDuplicates(name, data); err != nil {
		return nil, err
	}
	doc := Doc{}
	for _, table := range cfgQoSTables {
		raw, ok := top[table]
		if !ok {
			continue
		}
		var entries map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, fmt.Errorf("%s: table %s: %w; each entry must be an object of string fields", name, table, err)
		}
		for key, fields := range entries {
			for field, v := range fields {
				s, err := cfgScalar(v)
				if err != nil {
					return nil, fmt.Errorf("%s: %s|%s field %s: %w", name, table, key, field, err)
				}
				doc.set(table, key, field, s)
			}
			if len(fields) == 0 {
				if doc[table] == nil {
					doc[table] = map[string]map[string]string{}
				}
				doc[table][key] = map[string]string{}
			}
		}
	}
	return doc, nil
}

// cfgScalar reads a CONFIG_DB value. Values are strings; numbers and
// booleans (hand-written files) are taken as their text.
func cfgScalar(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s, nil
	}
	t := string(bytes.TrimSpace(v))
	if t == "true" || t == "false" {
		return t, nil
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return t, nil
	}
	return "", fmt.Errorf("value %.40s is not a string; CONFIG_DB values are strings", t)
}

// cfgWhere returns "name:line:col" for a JSON decoding error.
func cfgWhere(name string, data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return name
	}
	line, col := lineCol(data, off)
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

// Merge merges documents field by field; later ones win. SONiC keeps QoS
// tables and buffer tables in separate templates, so one device's config
// is often two files.
func Merge(docs ...Doc) Doc {
	out := Doc{}
	for _, d := range docs {
		for t, entries := range d {
			for k, fields := range entries {
				if len(fields) == 0 {
					if out[t] == nil {
						out[t] = map[string]map[string]string{}
					}
					if out[t][k] == nil {
						out[t][k] = map[string]string{}
					}
				}
				for f, v := range fields {
					out.set(t, k, f, v)
				}
			}
		}
	}
	return out
}

// Parse reads one device's CONFIG_DB files (merged in order) into the QoS
// model. Ports are those named in PORT_QOS_MAP, QUEUE, BUFFER_PG,
// BUFFER_QUEUE or PFC_WD; all are taken as data ports, and peers are not
// known (qos.AttachTopology adds them for a lab).
func Parse(device string, srcs ...qos.Source) (qos.DeviceConfig, error) {
	var docs []Doc
	for _, s := range srcs {
		d, err := ParseDoc(s.Name, s.Data)
		if err != nil {
			return qos.DeviceConfig{}, err
		}
		docs = append(docs, d)
	}
	return FromDoc(device, Merge(docs...))
}

// cfgSplitKey splits "Ethernet0|3-4" into the port and the indexes 3, 4.
func cfgSplitKey(key string) (string, []int, error) {
	name, r, ok := strings.Cut(key, "|")
	if !ok || name == "" {
		return "", nil, fmt.Errorf("key must be <port>|<index or range>, like Ethernet0|3-4")
	}
	var out []int
	for part := range strings.SplitSeq(r, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b > 7 || a > b {
			return "", nil, fmt.Errorf("index %q must be 0-7 or a range like 3-4", part)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return name, out, nil
}

func cfgInts(s string) []int {
	out := []int{}
	if s == "" {
		return out
	}
	for f := range strings.SplitSeq(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
