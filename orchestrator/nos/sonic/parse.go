package sonic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/suggest"
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
	doc, ok := plainDoc(data)
	if !ok {
		var err error
		if doc, err = decodeDoc(name, data); err != nil {
			return nil, err
		}
	}
	if err := misspeltFields(name, data, doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// misspeltFields refuses a field one edit from a field its table has
// (PFC_WD "actoin"): sonic-cfggen would store it, and orchagent, which
// reads only the fields it knows, would run the table's default (the
// action drop) unseen; labctl would note it only as a field it does not
// know. A field further from every known one stays such a note.
func misspeltFields(name string, data []byte, doc Doc) error {
	// Unsorted, as most configs have no typo: the first in (table, key,
	// field) order is reported, so the error does not depend on map order.
	var found []string // table, key, field, meant
	for table, entries := range doc {
		known := fieldUses[table]
		if len(known) == 0 {
			continue
		}
		if _, free := known["(entries)"]; free {
			continue
		}
		for key, fields := range entries {
			for f := range fields {
				if _, ok := known[f]; ok || len(f) < 5 {
					continue
				}
				for k := range known {
					if suggest.EditDistance(f, k) == 1 && (found == nil || slices.Compare([]string{table, key, f, k}, found) < 0) {
						found = []string{table, key, f, k}
					}
				}
			}
		}
	}
	if found == nil {
		return nil
	}
	table, key, f, k := found[0], found[1], found[2], found[3]
	line := entryFieldLine(data, table, key, f)
	return fmt.Errorf("%s:%d: %s|%s: %q is no field of %s (fix: did you mean %q? orchagent ignores a field it does not know and runs the default)", name, line, table, key, f, table, k)
}

// decodeDoc is ParseDoc by encoding/json, for any file: it says what is
// wrong with one that is not a CONFIG_DB object, and reads the values a
// plain one cannot have (escapes, numbers, booleans).
func decodeDoc(name string, data []byte) (Doc, error) {
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
		acl := slices.Contains(cfgListTables, table)
		for key, fields := range entries {
			for field, v := range fields {
				s, err := cfgScalar(v)
				if list := []string(nil); err != nil && acl && json.Unmarshal(v, &list) == nil {
					// A list (ACL_TABLE ports, SWITCH_HASH ecmp_hash), as
					// CONFIG_DB keeps it.
					s, err = strings.Join(list, ","), nil
				}
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

// plainDoc reads, in one pass and without encoding/json, the files labctl
// renders: an object of tables, each an object of entries, each an object
// of fields whose keys and values are plain strings (printable ASCII, no
// escapes), no key twice in one object. For such a file it gives what
// decodeDoc gives; anything else (ok false) is left to decodeDoc, which
// reads it or says what is wrong. A large lab's hundreds of files parse at
// every run.
func plainDoc(data []byte) (doc Doc, ok bool) {
	s := plainScanner{data: data}
	doc = Doc{}
	tables := map[string]bool{}
	if !s.open() {
		return nil, false
	}
	for more := s.first(); more; more = s.next() {
		table, ok := s.key()
		if !ok || tables[table] {
			return nil, false
		}
		tables[table] = true
		if slices.Contains(cfgListTables, table) {
			// Their lists (ACL_TABLE ports, SWITCH_HASH ecmp_hash) are
			// decodeDoc's.
			return nil, false
		}
		qosTable := slices.Contains(cfgQoSTables, table)
		if !s.open() {
			return nil, false
		}
		// A QoS table's entries are kept, and the table they go into
		// finds a key twice; another table's keys are only checked.
		var t map[string]map[string]string
		var keys map[string]bool
		if qosTable {
			t = map[string]map[string]string{}
		} else {
			keys = map[string]bool{}
		}
		for more := s.first(); more; more = s.next() {
			key, ok := s.key()
			if !ok || !s.open() {
				return nil, false
			}
			if _, dup := t[key]; dup || keys[key] {
				return nil, false
			}
			if keys != nil {
				keys[key] = true
			}
			fields := map[string]string{}
			for more := s.first(); more; more = s.next() {
				field, ok := s.shared()
				if !ok || !s.byte(':') {
					return nil, false
				}
				if _, dup := fields[field]; dup {
					return nil, false
				}
				v, ok := s.shared()
				if !ok {
					return nil, false
				}
				fields[field] = v
			}
			if s.failed {
				return nil, false
			}
			if qosTable {
				t[key] = fields
			}
		}
		if s.failed {
			return nil, false
		}
		if len(t) > 0 {
			doc[table] = t // an empty table left out, as decodeDoc leaves it
		}
	}
	if s.failed {
		return nil, false
	}
	s.space()
	return doc, s.pos == len(data)
}

// plainScanner reads the tokens plainDoc accepts; failed says it met
// something else.
type plainScanner struct {
	data   []byte
	pos    int
	failed bool
	// seen holds the field names and values read so far (shared): a
	// file repeats a few of them (a scheduler's name, "profile") on
	// every port, and each is then one string rather than hundreds.
	seen map[string]string
}

func (s *plainScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// byte consumes c after blanks.
func (s *plainScanner) byte(c byte) bool {
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

func (s *plainScanner) open() bool { return s.byte('{') }

// first says whether the object just opened has a member (false: it is
// closed, or malformed and failed is set).
func (s *plainScanner) first() bool {
	if s.byte('}') {
		return false
	}
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '"' {
		return true
	}
	s.failed = true
	return false
}

// next says whether another member follows the one just read.
func (s *plainScanner) next() bool {
	switch {
	case s.failed:
		return false
	case s.byte(','):
		return true
	case s.byte('}'):
		return false
	}
	s.failed = true
	return false
}

// str reads a plain string.
func (s *plainScanner) str() (string, bool) {
	b, ok := s.raw()
	return string(b), ok
}

// shared reads a plain string as str does, but returns the same string
// for the same text.
func (s *plainScanner) shared() (string, bool) {
	b, ok := s.raw()
	if !ok {
		return "", false
	}
	if v, ok := s.seen[string(b)]; ok {
		return v, true
	}
	v := string(b)
	if s.seen == nil {
		s.seen = map[string]string{}
	}
	s.seen[v] = v
	return v, true
}

// raw reads a plain string: its text, inside the data.
func (s *plainScanner) raw() ([]byte, bool) {
	if !s.byte('"') {
		s.failed = true
		return nil, false
	}
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return s.data[start : s.pos-1], true
		case c < 0x20 || c > 0x7e || c == '\\':
			s.failed = true
			return nil, false
		}
		s.pos++
	}
	s.failed = true
	return nil, false
}

// key reads a member's name and its colon.
func (s *plainScanner) key() (string, bool) {
	k, ok := s.str()
	if !ok || !s.byte(':') {
		s.failed = true
		return "", false
	}
	return k, true
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
	return parse(device, nil, srcs)
}

// ParseFor is Parse for a switch of a lab (dev), whose ports the lab
// knows: an entry naming a port the switch lacks (dev.NoSuchPort) is read
// as the switch reads it (lacks), where bare files tell the switch's
// ports only from a whole CONFIG_DB.
func ParseFor(dev *qos.Device, srcs ...qos.Source) (qos.DeviceConfig, error) {
	return parse(dev.Name, dev, srcs)
}

func parse(device string, lab *qos.Device, srcs []qos.Source) (qos.DeviceConfig, error) {
	var docs []Doc
	for _, s := range srcs {
		d, err := ParseDoc(s.Name, s.Data)
		if err != nil {
			return qos.DeviceConfig{}, err
		}
		docs = append(docs, d)
	}
	var dc qos.DeviceConfig
	var err error
	if len(docs) == 1 {
		// Merge of one document is a copy of it, and nothing else holds
		// this one.
		dc, err = fromDoc(device, docs[0], lab)
	} else {
		dc, err = fromDoc(device, Merge(docs...), lab)
	}
	if fe := (*FieldValueError)(nil); errors.As(err, &fe) {
		for _, s := range srcs {
			if line := entryFieldLine(s.Data, fe.Table, fe.Key, fe.Field); line > 0 {
				return dc, fmt.Errorf("%s:%d: %w", s.Name, line, err)
			}
		}
	}
	placeOverruled(&dc, srcs)
	placeMinLinks(&dc, srcs)
	for i := range dc.Filters {
		f := &dc.Filters[i]
		table, key, _ := strings.Cut(f.Where, "|")
		for k := len(srcs) - 1; k >= 0; k-- {
			if line := entryFieldLine(srcs[k].Data, table, key, ""); line > 0 {
				f.Source, f.Line = k, line
				break
			}
		}
	}
	// A setting not simulated named as "TABLE|key field" is placed at
	// the field's line.
	for i := range dc.Unsimulated {
		u := &dc.Unsimulated[i]
		entry, field, ok := strings.Cut(u.Where, " ")
		table, key, _ := strings.Cut(entry, "|")
		if !ok || strings.Contains(field, " ") {
			continue
		}
		for k := len(srcs) - 1; k >= 0; k-- {
			if line := entryFieldLine(srcs[k].Data, table, key, field); line > 0 {
				u.Source, u.Line = k, line
				break
			}
		}
	}
	return dc, err
}

// placeMinLinks gives each port channel member's min_links entry
// (PortConfig.Origins["channel_min_links"], which lint's QOS026 quotes)
// the file and line of its PORTCHANNEL entry's min_links: the last of
// srcs that holds it, as a later file's fields win.
func placeMinLinks(dc *qos.DeviceConfig, srcs []qos.Source) {
	for i := range dc.Ports {
		p := &dc.Ports[i]
		if p.ChannelMinLinks == 0 {
			continue
		}
		for k := len(srcs) - 1; k >= 0; k-- {
			if line := entryFieldLine(srcs[k].Data, "PORTCHANNEL", p.Channel, "min_links"); line > 0 {
				p.Origins["channel_min_links"] += fmt.Sprintf(" (%s:%d)", srcs[k].Name, line)
				break
			}
		}
	}
}

// placeOverruled gives each overruled entry of dc the file and line it is
// at: the last of srcs that holds it, as a later file's fields win. The
// file is its index in srcs (qos.Overruled.Source), which the loader
// names: the parse itself names no file.
func placeOverruled(dc *qos.DeviceConfig, srcs []qos.Source) {
	for i := range dc.Overruled {
		o := &dc.Overruled[i]
		table, key, _ := strings.Cut(cmp.Or(o.At, o.Where), "|")
		for k := len(srcs) - 1; k >= 0; k-- {
			line := entryFieldLine(srcs[k].Data, table, key, o.Field)
			if line == 0 && o.Field != "" {
				line = entryFieldLine(srcs[k].Data, table, key, "")
			}
			if line > 0 {
				o.Source, o.Line = k, line
				break
			}
		}
	}
}

// entryFieldLine is the line of field in entry key of table in a
// CONFIG_DB file (the first "field" written as a name, before a colon,
// after the first "key" after "table"), or of the entry's key when field
// is "", 0 when the file does not hold it.
func entryFieldLine(data []byte, table, key, field string) int {
	at := 0
	for n, s := range []string{table, key, field} {
		if s == "" {
			break
		}
		q := []byte(strconv.Quote(s))
		for {
			i := bytes.Index(data[at:], q)
			if i < 0 {
				return 0
			}
			at += i
			// A field's name is followed by a colon; the same text as
			// a value (a map's "0": "3" before its "3": …) is not it.
			if n < 2 || bytes.HasPrefix(bytes.TrimLeft(data[at+len(q):], " \t\r\n"), []byte(":")) {
				break
			}
			at += len(q)
		}
	}
	return 1 + bytes.Count(data[:at], []byte("\n"))
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
