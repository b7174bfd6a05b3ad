package sonic

// Parsers for the counter tables SONiC's show commands print (pfcstat,
// queuestat, portstat from sonic-utilities). Each returns typed values with
// JSON tags; a counter SONiC prints as N/A is a nil pointer, never 0, so a
// missing counter cannot pass for a measured zero. Counters are uint64, as
// SAI counts them; the Total methods sum them modulo 2^64, as the counters
// themselves wrap, so that the difference of two totals is the sum of the
// counters' differences.

import (
	"io"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/textparse"
)

// PFCCounters is the output of `show pfc counters`: PFC frames received and
// sent per port and priority.
type PFCCounters struct {
	Ports []PFCPortCounters `json:"ports"`
}

// PFCPortCounters holds one port's PFC frame counts; index = priority.
type PFCPortCounters struct {
	Port string     `json:"port"`
	Rx   [8]*uint64 `json:"rx"`
	Tx   [8]*uint64 `json:"tx"`
}

// Port returns the counters of port, or nil.
func (c *PFCCounters) Port(port string) *PFCPortCounters {
	for i := range c.Ports {
		if c.Ports[i].Port == port {
			return &c.Ports[i]
		}
	}
	return nil
}

// Total sums PFC frames received and sent. port "" means every port; prio
// -1 means every priority. Counters SONiC printed as N/A add nothing; use
// Port to tell them from zeros.
func (c *PFCCounters) Total(port string, prio int) (rx, tx uint64) {
	for _, p := range c.Ports {
		if port != "" && p.Port != port {
			continue
		}
		for i := 0; i < 8; i++ {
			if prio >= 0 && i != prio {
				continue
			}
			if p.Rx[i] != nil {
				rx += *p.Rx[i]
			}
			if p.Tx[i] != nil {
				tx += *p.Tx[i]
			}
		}
	}
	return rx, tx
}

var ctrPFCColumns = []string{"PFC0", "PFC1", "PFC2", "PFC3", "PFC4", "PFC5", "PFC6", "PFC7"}

// ParsePFCCounters parses `show pfc counters` (pfcstat): a "Port Rx" table
// followed by a "Port Tx" table with columns PFC0..PFC7 and the same ports.
func ParsePFCCounters(r io.Reader) (*PFCCounters, error) {
	const what = "`show pfc counters`"
	lines, err := ctrReadLines(r)
	if err != nil {
		return nil, err
	}
	tables, err := ctrReadTables(lines)
	if err != nil {
		return nil, err
	}
	if len(tables) == 0 {
		return nil, textparse.Errorf(ctrLastLine(lines), "no table found: expected the \"Port Rx\" and \"Port Tx\" tables of %s", what)
	}
	if len(tables) > 2 {
		return nil, textparse.Errorf(tables[2].HeaderLine, "a third table: %s prints exactly two (Port Rx, Port Tx)", what)
	}
	for i, dir := range []string{"Port Rx", "Port Tx"} {
		if i >= len(tables) {
			return nil, textparse.Errorf(ctrLastLine(lines), "input ends after the \"Port Rx\" table: expected the \"Port Tx\" table too (truncated output?)")
		}
		t := &tables[i]
		want := append([]string{dir}, ctrPFCColumns...)
		if got := t.names(); strings.Join(got, "|") != strings.Join(want, "|") {
			return nil, textparse.Errorf(t.HeaderLine, "table header %q: expected %q (%s)", strings.Join(got, " "), strings.Join(want, " "), what)
		}
	}
	out := &PFCCounters{Ports: []PFCPortCounters{}}
	index := map[string]int{}
	for ti, t := range tables {
		seen := map[string]bool{}
		for _, row := range t.Rows {
			port := row.Cells[0]
			if seen[port] {
				return nil, textparse.Errorf(row.Line, "port %s appears twice in the %q table", port, t.Columns[0].Name)
			}
			seen[port] = true
			var vals [8]*uint64
			for p := 0; p < 8; p++ {
				v, err := ctrParseCount(row.Line, ctrPFCColumns[p], row.Cells[p+1])
				if err != nil {
					return nil, err
				}
				vals[p] = v
			}
			if ti == 0 {
				index[port] = len(out.Ports)
				out.Ports = append(out.Ports, PFCPortCounters{Port: port, Rx: vals})
				continue
			}
			i, ok := index[port]
			if !ok {
				return nil, textparse.Errorf(row.Line, "port %s is in the \"Port Tx\" table but not in the \"Port Rx\" table", port)
			}
			out.Ports[i].Tx = vals
		}
		if ti == 1 {
			for _, p := range out.Ports {
				if !seen[p.Port] {
					return nil, textparse.Errorf(t.HeaderLine, "port %s is in the \"Port Rx\" table but missing from the \"Port Tx\" table (truncated output?)", p.Port)
				}
			}
		}
	}
	return out, nil
}

// Queue identifies one egress queue as queuestat prints it: "UC3" is
// unicast queue 3, "MC10" multicast, "ALL20" a combined queue, "VOQ3" a
// virtual output queue.
type Queue struct {
	Name  string `json:"queue"`
	Type  string `json:"type"` // UC, MC, ALL or VOQ
	Index int    `json:"index"`
}

func ctrParseQueue(lineNo int, s string) (Queue, error) {
	for _, typ := range []string{"ALL", "VOQ", "UC", "MC"} {
		rest, ok := strings.CutPrefix(s, typ)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || rest == "" || rest[0] == '+' || rest[0] == '-' {
			break
		}
		return Queue{Name: s, Type: typ, Index: n}, nil
	}
	return Queue{}, textparse.Errorf(lineNo, "queue %q: expected UC<n>, MC<n>, ALL<n> or VOQ<n>", s)
}

// QueueCounters is the output of `show queue counters` (queuestat).
type QueueCounters struct {
	Queues []QueueCounter `json:"queues"`
}

// QueueCounter is one port's queue. Extra holds further numeric columns
// some releases add (Trim/pkts, Credit-WD-Del/pkts, ...).
type QueueCounter struct {
	Namespace   string             `json:"namespace,omitempty"`
	Port        string             `json:"port"`
	Queue       Queue              `json:"queue"`
	Packets     *uint64            `json:"packets"`
	Bytes       *uint64            `json:"bytes"`
	DropPackets *uint64            `json:"drop_packets"`
	DropBytes   *uint64            `json:"drop_bytes"`
	Extra       map[string]*uint64 `json:"extra,omitempty"`
}

// Total sums packets and dropped packets of unicast queue `queue` (-1 = all
// unicast queues) on port ("" = all ports). N/A adds nothing.
func (c *QueueCounters) Total(port string, queue int) (packets, drops uint64) {
	for _, q := range c.Queues {
		if !ctrSelectUnicast(q.Port, q.Queue, port, queue) {
			continue
		}
		packets += ctrVal(q.Packets)
		drops += ctrVal(q.DropPackets)
	}
	return packets, drops
}

// TotalBytes sums transmitted and dropped bytes of unicast queue `queue`
// (-1 = all unicast queues) on port ("" = all ports). N/A adds nothing.
func (c *QueueCounters) TotalBytes(port string, queue int) (bytes, dropBytes uint64) {
	for _, q := range c.Queues {
		if !ctrSelectUnicast(q.Port, q.Queue, port, queue) {
			continue
		}
		bytes += ctrVal(q.Bytes)
		dropBytes += ctrVal(q.DropBytes)
	}
	return bytes, dropBytes
}

// WREDCounters is the output of `show queue wredcounters`.
type WREDCounters struct {
	Queues []WREDCounter `json:"queues"`
}

// WREDCounter is one port's queue: packets and bytes WRED dropped and ECN
// marked.
type WREDCounter struct {
	Namespace        string             `json:"namespace,omitempty"`
	Port             string             `json:"port"`
	Queue            Queue              `json:"queue"`
	WREDDropPackets  *uint64            `json:"wred_drop_packets"`
	WREDDropBytes    *uint64            `json:"wred_drop_bytes"`
	ECNMarkedPackets *uint64            `json:"ecn_marked_packets"`
	ECNMarkedBytes   *uint64            `json:"ecn_marked_bytes"`
	Extra            map[string]*uint64 `json:"extra,omitempty"`
}

// Total sums WRED-dropped and ECN-marked packets of unicast queue `queue`
// (-1 = all unicast queues) on port ("" = all ports). N/A adds nothing.
func (c *WREDCounters) Total(port string, queue int) (wredDrops, ecnMarked uint64) {
	for _, q := range c.Queues {
		if !ctrSelectUnicast(q.Port, q.Queue, port, queue) {
			continue
		}
		wredDrops += ctrVal(q.WREDDropPackets)
		ecnMarked += ctrVal(q.ECNMarkedPackets)
	}
	return wredDrops, ecnMarked
}

// ctrSelectUnicast reports whether the row of queue q on port p is unicast
// queue `queue` (-1 = any) on port ("" = any): the selection the Total
// methods of queue counters share.
func ctrSelectUnicast(p string, q Queue, port string, queue int) bool {
	return (port == "" || p == port) && q.Type == "UC" && (queue < 0 || q.Index == queue)
}

func ctrVal(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// ctrQueueRow is a parsed row of a queuestat table.
type ctrQueueRow struct {
	namespace, port string
	queue           Queue
	vals            []*uint64 // in the order of the wanted columns
	extra           map[string]*uint64
}

// ctrParseQueueTables reads queuestat tables: Port, TxQ (or Voq), then the
// wanted counter columns and possibly more numeric ones.
func ctrParseQueueTables(r io.Reader, want []string, what string) ([]ctrQueueRow, error) {
	lines, err := ctrReadLines(r)
	if err != nil {
		return nil, err
	}
	tables, err := ctrReadTables(lines)
	if err != nil {
		return nil, err
	}
	if len(tables) == 0 {
		return nil, textparse.Errorf(ctrLastLine(lines), "no table found: expected the output of %s (header Port TxQ %s)", what, strings.Join(want, " "))
	}
	rows := []ctrQueueRow{}
	type key struct{ ns, port, queue string }
	seen := map[key]int{}
	for ti := range tables {
		t := &tables[ti]
		if len(t.Columns) < 2 || t.Columns[0].Name != "Port" || (t.Columns[1].Name != "TxQ" && t.Columns[1].Name != "Voq") {
			return nil, textparse.Errorf(t.HeaderLine, "table header %q: expected it to start with Port and TxQ (%s)", strings.Join(t.names(), " "), what)
		}
		if err := ctrRequireColumns(t, want, what); err != nil {
			return nil, err
		}
		idx := make([]int, len(want))
		for i, w := range want {
			idx[i] = t.col(w)
		}
		for _, row := range t.Rows {
			q, err := ctrParseQueue(row.Line, row.Cells[1])
			if err != nil {
				return nil, err
			}
			k := key{t.Namespace, row.Cells[0], q.Name}
			if prev, dup := seen[k]; dup {
				return nil, textparse.Errorf(row.Line, "port %s queue %s already appeared at line %d", k.port, k.queue, prev)
			}
			seen[k] = row.Line
			qr := ctrQueueRow{namespace: t.Namespace, port: row.Cells[0], queue: q, vals: make([]*uint64, len(want))}
			for i, ci := range idx {
				if qr.vals[i], err = ctrParseCount(row.Line, want[i], row.Cells[ci]); err != nil {
					return nil, err
				}
			}
			for ci := 2; ci < len(t.Columns); ci++ {
				name := t.Columns[ci].Name
				if ctrContains(want, name) {
					continue
				}
				v, err := ctrParseCount(row.Line, name, row.Cells[ci])
				if err != nil {
					return nil, err
				}
				if qr.extra == nil {
					qr.extra = map[string]*uint64{}
				}
				qr.extra[name] = v
			}
			rows = append(rows, qr)
		}
	}
	return rows, nil
}

func ctrContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ParseQueueCounters parses `show queue counters`, with or without the
// "For namespace X:" lines newer releases print before each table.
func ParseQueueCounters(r io.Reader) (*QueueCounters, error) {
	rows, err := ctrParseQueueTables(r, []string{"Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"}, "`show queue counters`")
	if err != nil {
		return nil, err
	}
	out := &QueueCounters{Queues: make([]QueueCounter, 0, len(rows))}
	for _, r := range rows {
		out.Queues = append(out.Queues, QueueCounter{
			Namespace: r.namespace, Port: r.port, Queue: r.queue,
			Packets: r.vals[0], Bytes: r.vals[1], DropPackets: r.vals[2], DropBytes: r.vals[3],
			Extra: r.extra,
		})
	}
	return out, nil
}

// ParseWREDCounters parses `show queue wredcounters`.
func ParseWREDCounters(r io.Reader) (*WREDCounters, error) {
	rows, err := ctrParseQueueTables(r, []string{"WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"}, "`show queue wredcounters`")
	if err != nil {
		return nil, err
	}
	out := &WREDCounters{Queues: make([]WREDCounter, 0, len(rows))}
	for _, r := range rows {
		out.Queues = append(out.Queues, WREDCounter{
			Namespace: r.namespace, Port: r.port, Queue: r.queue,
			WREDDropPackets: r.vals[0], WREDDropBytes: r.vals[1], ECNMarkedPackets: r.vals[2], ECNMarkedBytes: r.vals[3],
			Extra: r.extra,
		})
	}
	return out, nil
}

// PortCounters is the output of `show interfaces counters` (portstat).
type PortCounters struct {
	Ports []PortCounter `json:"ports"`
}

// PortCounter is one interface. Rates are bytes (or packets) per second,
// utilisation in percent of the port speed.
type PortCounter struct {
	Port  string `json:"port"`
	State string `json:"state,omitempty"` // U up, D down, X disabled; empty when N/A

	RxOK      *uint64            `json:"rx_ok"`
	RxBps     *float64           `json:"rx_bytes_per_s"`
	RxPps     *float64           `json:"rx_packets_per_s,omitempty"`
	RxUtilPct *float64           `json:"rx_util_pct"`
	RxErr     *uint64            `json:"rx_err"`
	RxDrp     *uint64            `json:"rx_drp"`
	RxOvr     *uint64            `json:"rx_ovr"`
	TxOK      *uint64            `json:"tx_ok"`
	TxBps     *float64           `json:"tx_bytes_per_s"`
	TxPps     *float64           `json:"tx_packets_per_s,omitempty"`
	TxUtilPct *float64           `json:"tx_util_pct"`
	TxErr     *uint64            `json:"tx_err"`
	TxDrp     *uint64            `json:"tx_drp"`
	TxOvr     *uint64            `json:"tx_ovr"`
	Extra     map[string]*uint64 `json:"extra,omitempty"`
}

// Port returns the counters of port, or nil.
func (c *PortCounters) Port(port string) *PortCounter {
	for i := range c.Ports {
		if c.Ports[i].Port == port {
			return &c.Ports[i]
		}
	}
	return nil
}

// Total sums packets received and sent and packets dropped (RX_DRP+TX_DRP)
// on port ("" = all ports). N/A adds nothing.
func (c *PortCounters) Total(port string) (rx, tx, drops uint64) {
	for _, p := range c.Ports {
		if port != "" && p.Port != port {
			continue
		}
		rx += ctrVal(p.RxOK)
		tx += ctrVal(p.TxOK)
		drops += ctrVal(p.RxDrp) + ctrVal(p.TxDrp)
	}
	return rx, tx, drops
}

var ctrPortColumns = []string{"IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR", "TX_OK", "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR"}

// ParsePortCounters parses `show interfaces counters`, including the wider
// form with RX_PPS/TX_PPS and further numeric columns.
func ParsePortCounters(r io.Reader) (*PortCounters, error) {
	const what = "`show interfaces counters`"
	lines, err := ctrReadLines(r)
	if err != nil {
		return nil, err
	}
	tables, err := ctrReadTables(lines)
	if err != nil {
		return nil, err
	}
	if len(tables) == 0 {
		return nil, textparse.Errorf(ctrLastLine(lines), "no table found: expected the output of %s (header %s)", what, strings.Join(ctrPortColumns, " "))
	}
	t := &tables[0]
	if t.Columns[0].Name != "IFACE" {
		return nil, textparse.Errorf(t.HeaderLine, "table header %q: expected it to start with IFACE (%s)", strings.Join(t.names(), " "), what)
	}
	if len(tables) > 1 {
		return nil, textparse.Errorf(tables[1].HeaderLine, "a second table: %s prints one", what)
	}
	if err := ctrRequireColumns(t, ctrPortColumns, what); err != nil {
		return nil, err
	}
	out := &PortCounters{Ports: []PortCounter{}}
	seen := map[string]int{}
	for _, row := range t.Rows {
		pc := PortCounter{Port: row.Cells[0]}
		if prev, dup := seen[pc.Port]; dup {
			return nil, textparse.Errorf(row.Line, "port %s already appeared at line %d", pc.Port, prev)
		}
		seen[pc.Port] = row.Line
		for ci := 1; ci < len(t.Columns); ci++ {
			name, cell := t.Columns[ci].Name, row.Cells[ci]
			var err error
			switch name {
			case "STATE":
				if cell != "N/A" {
					pc.State = cell
				}
			case "RX_OK":
				pc.RxOK, err = ctrParseCount(row.Line, name, cell)
			case "RX_BPS":
				pc.RxBps, err = ctrParseByteRate(row.Line, name, cell)
			case "RX_PPS":
				pc.RxPps, err = ctrParseFloatUnit(row.Line, name, cell, "/s")
			case "RX_UTIL":
				pc.RxUtilPct, err = ctrParseFloatUnit(row.Line, name, cell, "%")
			case "RX_ERR":
				pc.RxErr, err = ctrParseCount(row.Line, name, cell)
			case "RX_DRP":
				pc.RxDrp, err = ctrParseCount(row.Line, name, cell)
			case "RX_OVR":
				pc.RxOvr, err = ctrParseCount(row.Line, name, cell)
			case "TX_OK":
				pc.TxOK, err = ctrParseCount(row.Line, name, cell)
			case "TX_BPS":
				pc.TxBps, err = ctrParseByteRate(row.Line, name, cell)
			case "TX_PPS":
				pc.TxPps, err = ctrParseFloatUnit(row.Line, name, cell, "/s")
			case "TX_UTIL":
				pc.TxUtilPct, err = ctrParseFloatUnit(row.Line, name, cell, "%")
			case "TX_ERR":
				pc.TxErr, err = ctrParseCount(row.Line, name, cell)
			case "TX_DRP":
				pc.TxDrp, err = ctrParseCount(row.Line, name, cell)
			case "TX_OVR":
				pc.TxOvr, err = ctrParseCount(row.Line, name, cell)
			default:
				var v *uint64
				v, err = ctrParseCount(row.Line, name, cell)
				if err == nil {
					if pc.Extra == nil {
						pc.Extra = map[string]*uint64{}
					}
					pc.Extra[name] = v
				}
			}
			if err != nil {
				return nil, err
			}
		}
		out.Ports = append(out.Ports, pc)
	}
	return out, nil
}
