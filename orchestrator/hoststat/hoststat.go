// Package hoststat parses host-side counters of a live lab: the soft-RoCE
// (rxe) counters from `rdma statistic show link <dev>/<port>` and NIC
// counters from `ethtool -S <iface>`.
package hoststat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// ParseError reports where the output stopped making sense. Line is
// 1-based; 0 means the input as a whole.
type ParseError = textparse.Error

var counterNameRe = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

// parseCounter reads an unsigned 64-bit counter, as the kernel keeps
// them: 2^64-1 is a counter too (what a driver shows for one it does not
// keep), where an int64 refused it; what records carry is the delta of
// two readings (clab.HostDeltas, as switches' CounterDeltas).
func parseCounter(line int, name, s string) (uint64, error) {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, textparse.Errorf(line, "%s = %q: expected a non-negative integer", name, s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		// No kernel or driver prints one: the output was edited, or
		// two numbers ran together.
		return 0, &textparse.Error{Line: line, Msg: fmt.Sprintf("%s = %s does not fit a 64-bit counter (at most %d)", name, s, uint64(math.MaxUint64)),
			Fix: "give the command's output as it printed it: a NIC keeps no counter past 2^64-1, so this value was edited or joined with another"}
	}
	if err != nil {
		return 0, textparse.Errorf(line, "%s = %q: expected a non-negative integer counter", name, s)
	}
	return v, nil
}

// addCounters is a + b, or 2^64-1 where the sum would wrap past it.
func addCounters(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// RDMAStats is `rdma statistic show link ...`: counters per RDMA link.
type RDMAStats struct {
	Links []RDMALinkStats `json:"links"`
}

// RDMALinkStats is one device port's counters (rxe: sent_pkts, rcvd_pkts,
// duplicate_request, out_of_seq_request, rcvd_rnr_err, send_rnr_err,
// rcvd_seq_err, ack_deferred, retry_exceeded_err, ...).
type RDMALinkStats struct {
	Device   string            `json:"device"`
	Port     int               `json:"port"`
	Counters map[string]uint64 `json:"counters"`
}

// Link returns the counters of dev/port, or nil.
func (s *RDMAStats) Link(dev string, port int) *RDMALinkStats {
	for i := range s.Links {
		if s.Links[i].Device == dev && s.Links[i].Port == port {
			return &s.Links[i]
		}
	}
	return nil
}

// Get returns a counter; ok is false when the link does not report it.
func (l *RDMALinkStats) Get(name string) (v uint64, ok bool) {
	v, ok = l.Counters[name]
	return v, ok
}

// Total sums counter name over every link that reports it (2^64-1 where
// the sum would wrap).
func (s *RDMAStats) Total(name string) uint64 {
	var sum uint64
	for _, l := range s.Links {
		sum = addCounters(sum, l.Counters[name])
	}
	return sum
}

var linkRe = lazyregexp.New(`^([A-Za-z0-9_.\-]+)/([0-9]{1,3})$`)

// ParseRDMAStatistic parses `rdma statistic show link [dev/port]`, plain
// ("link rxe0/1 sent_pkts 100 rcvd_pkts 90 ..."; one line per link, or
// several with -p) or JSON (-j: [{"ifname": "rxe0", "port": 1, ...}]).
func ParseRDMAStatistic(r io.Reader) (*RDMAStats, error) {
	data, err := readlimit.ReadAll(r, "", readlimit.Output)
	if err != nil {
		return nil, fmt.Errorf("read rdma statistic output: %w", err)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		return parseRDMAJSON(data)
	}
	lines, err := textparse.Lines(data, "")
	if err != nil {
		return nil, err
	}
	out := &RDMAStats{Links: []RDMALinkStats{}}
	var cur *RDMALinkStats
	pending := "" // counter name waiting for its value
	pendingLine := 0
	for i, l := range lines {
		n := i + 1
		f := strings.Fields(l)
		for j := 0; j < len(f); j++ {
			tok := f[j]
			switch {
			case pending != "":
				v, err := parseCounter(n, pending, tok)
				if err != nil {
					return nil, err
				}
				if _, dup := cur.Counters[pending]; dup {
					return nil, textparse.Errorf(n, "counter %s appears twice for link %s/%d", pending, cur.Device, cur.Port)
				}
				cur.Counters[pending] = v
				pending = ""
			case tok == "link":
				if j+1 >= len(f) {
					return nil, textparse.Errorf(n, "\"link\" without a device/port after it")
				}
				m := linkRe().FindStringSubmatch(f[j+1])
				if m == nil {
					return nil, textparse.Errorf(n, "link %q: expected <device>/<port> such as rxe0/1", f[j+1])
				}
				port, _ := strconv.Atoi(m[2])
				if out.Link(m[1], port) != nil {
					return nil, textparse.Errorf(n, "link %s appears twice", f[j+1])
				}
				out.Links = append(out.Links, RDMALinkStats{Device: m[1], Port: port, Counters: map[string]uint64{}})
				cur = &out.Links[len(out.Links)-1]
				j++
			case cur == nil:
				return nil, textparse.Errorf(n, "%q before any \"link <dev>/<port>\": expected the output of `rdma statistic show link`", clip(l))
			case counterNameRe().MatchString(tok):
				pending, pendingLine = tok, n
			default:
				return nil, textparse.Errorf(n, "%q: expected a counter name", tok)
			}
		}
	}
	if pending != "" {
		return nil, textparse.Errorf(pendingLine, "counter %s has no value (truncated output?)", pending)
	}
	if len(out.Links) == 0 {
		return nil, textparse.Errorf(len(lines), "no \"link <dev>/<port>\" found: expected the output of `rdma statistic show link` (is the rxe link set up?)")
	}
	for _, l := range out.Links {
		if len(l.Counters) == 0 {
			return nil, textparse.Errorf(len(lines), "link %s/%d has no counters", l.Device, l.Port)
		}
	}
	return out, nil
}

func parseRDMAJSON(data []byte) (*RDMAStats, error) {
	var raw []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonError(data, err)
	}
	out := &RDMAStats{Links: []RDMALinkStats{}}
	for i, obj := range raw {
		var l RDMALinkStats
		if err := json.Unmarshal(obj["ifname"], &l.Device); err != nil || l.Device == "" {
			return nil, textparse.Errorf(0, "entry %d: no \"ifname\" string", i)
		}
		if err := json.Unmarshal(obj["port"], &l.Port); err != nil || l.Port < 0 {
			return nil, textparse.Errorf(0, "entry %d (%s): no \"port\" number", i, l.Device)
		}
		if out.Link(l.Device, l.Port) != nil {
			return nil, textparse.Errorf(0, "link %s/%d appears twice", l.Device, l.Port)
		}
		l.Counters = map[string]uint64{}
		for k, v := range obj {
			if k == "ifname" || k == "port" || k == "ifindex" {
				continue
			}
			var n json.Number
			d := json.NewDecoder(bytes.NewReader(v))
			d.UseNumber()
			if err := d.Decode(&n); err != nil {
				return nil, textparse.Errorf(0, "%s/%d: %s is not a number", l.Device, l.Port, k)
			}
			c, err := parseCounter(0, k, n.String())
			if err != nil {
				return nil, textparse.Errorf(0, "%s/%d: %v", l.Device, l.Port, err)
			}
			l.Counters[k] = c
		}
		if len(l.Counters) == 0 {
			return nil, textparse.Errorf(0, "link %s/%d has no counters", l.Device, l.Port)
		}
		out.Links = append(out.Links, l)
	}
	if len(out.Links) == 0 {
		return nil, textparse.Errorf(0, "no links in the JSON array")
	}
	return out, nil
}

func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := min(int(se.Offset), len(data))
		return textparse.Errorf(bytes.Count(data[:off], []byte("\n"))+1, "invalid JSON: %v", se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off := min(int(te.Offset), len(data))
		return textparse.Errorf(bytes.Count(data[:off], []byte("\n"))+1, "expected an array of objects: %v", te)
	}
	return textparse.Errorf(bytes.Count(data, []byte("\n"))+1, "invalid JSON: %v (truncated output?)", err)
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// EthtoolStats is `ethtool -S <iface>`: the driver's named counters.
type EthtoolStats struct {
	Counters map[string]uint64 `json:"counters"`
	// Order lists the counter names as the driver printed them.
	Order []string `json:"order"`
}

// Get returns a counter; ok is false when the driver does not report it.
func (s *EthtoolStats) Get(name string) (v uint64, ok bool) {
	v, ok = s.Counters[name]
	return v, ok
}

// Sum adds the counters whose names start with prefix and end with suffix,
// e.g. Sum("rx_queue_", "_packets") over all receive queues (2^64-1
// where the sum would wrap).
func (s *EthtoolStats) Sum(prefix, suffix string) uint64 {
	var sum uint64
	for k, v := range s.Counters {
		if strings.HasPrefix(k, prefix) && strings.HasSuffix(k, suffix) && len(k) >= len(prefix)+len(suffix) {
			sum = addCounters(sum, v)
		}
	}
	return sum
}

// ParseEthtoolStats parses `ethtool -S <iface>`: a "NIC statistics:" line,
// then "     name: value" lines.
func ParseEthtoolStats(r io.Reader) (*EthtoolStats, error) {
	data, err := readlimit.ReadAll(r, "", readlimit.Output)
	if err != nil {
		return nil, fmt.Errorf("read ethtool output: %w", err)
	}
	lines, err := textparse.Lines(data, "")
	if err != nil {
		return nil, err
	}
	out := &EthtoolStats{Counters: map[string]uint64{}, Order: []string{}}
	header := false
	for i, l := range lines {
		n := i + 1
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if !header {
			if t != "NIC statistics:" {
				return nil, textparse.Errorf(n, "%q: expected \"NIC statistics:\" (the output of `ethtool -S <iface>`)", clip(t))
			}
			header = true
			continue
		}
		// Names may hold ':' (a few drivers print "[0]: ..."), values never.
		k := strings.LastIndex(t, ":")
		if k <= 0 {
			return nil, textparse.Errorf(n, "%q: expected \"name: value\"", clip(t))
		}
		name, val := strings.ToValidUTF8(strings.TrimSpace(t[:k]), "\uFFFD"), strings.TrimSpace(t[k+1:])
		if name == "" {
			return nil, textparse.Errorf(n, "%q: empty counter name", clip(t))
		}
		v, err := parseCounter(n, name, val)
		if err != nil {
			return nil, err
		}
		if _, dup := out.Counters[name]; dup {
			return nil, textparse.Errorf(n, "counter %q appears twice", name)
		}
		out.Counters[name] = v
		out.Order = append(out.Order, name)
	}
	if !header {
		return nil, textparse.Errorf(len(lines), "no \"NIC statistics:\" line: expected the output of `ethtool -S <iface>`")
	}
	return out, nil
}
