package clab

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/hoststat"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// Counter commands of each NOS, in the order CounterReader returns their
// outputs.
var (
	SONiCCounterCommands = []string{"show pfc counters", "show queue counters", "show queue wredcounters", "show interfaces counters"}
	EOSCounterCommands   = []string{"show priority-flow-control counters | json", "show qos interfaces ecn counters queue | json", "show interfaces counters queue detail | json"}
)

// CounterCommands returns the counter commands of a NOS.
func CounterCommands(nos string) []string {
	if nos == eos.Name {
		return EOSCounterCommands
	}
	return SONiCCounterCommands
}

// ShowOverSSH runs read-only commands on a switch over SSH and returns
// their outputs in order.
func ShowOverSSH(ctx context.Context, nos, node, host string, port int, cred Credentials, cmds []string) ([]string, error) {
	if nos == eos.Name {
		return eos.RunShowCommands(ctx, eos.PushTarget{Name: node, Host: host, Port: port, Username: cred.Username, Password: cred.Password}, cmds)
	}
	return sonic.RunShowCommands(ctx, sonic.PushTarget{Name: node, Host: host, Port: port, Username: cred.Username, Password: cred.Password}, cmds)
}

// PortPriority is one switch port and priority. Priority -1 is the whole
// port (SONiC's `show interfaces counters`).
type PortPriority struct {
	Port     string
	Priority int
}

// CounterValues are the counters kept per port and priority, as the
// switch counts them: unsigned 64-bit (SAI's counters), so a counter past
// 2^63-1 is carried as it is. Only the deltas of a run go into records.
type CounterValues struct {
	TxBytes, PFCTx, PFCRx, ECNMarked, Drops uint64
}

// SwitchCounters is one switch's counters at one moment.
type SwitchCounters map[PortPriority]CounterValues

// ParseSwitchCounters reads the outputs of CounterCommands(nos) with the
// NOS's counter parsers, keeping the ports listed. Queue index and
// priority are taken as equal (labctl's configs map traffic class n to
// queue n). EOS reports PFC frames per interface, not per priority: they
// are counted under lossless, the lab's lossless priority.
func ParseSwitchCounters(nos string, outs []string, ports []string, lossless int) (SwitchCounters, error) {
	cmds := CounterCommands(nos)
	if len(outs) != len(cmds) {
		return nil, fmt.Errorf("counters: %d outputs for %d commands (%s)", len(outs), len(cmds), strings.Join(cmds, "; "))
	}
	wrap := func(i int, err error) error { return fmt.Errorf("parse %q: %w", cmds[i], err) }
	sc := SwitchCounters{}
	if nos == eos.Name {
		pfc, err := eos.ParsePFCCounters(strings.NewReader(outs[0]))
		if err != nil {
			return nil, wrap(0, err)
		}
		ecn, err := eos.ParseECNCounters(strings.NewReader(outs[1]))
		if err != nil {
			return nil, wrap(1, err)
		}
		q, err := eos.ParseQueueCounters(strings.NewReader(outs[2]))
		if err != nil {
			return nil, wrap(2, err)
		}
		for _, p := range ports {
			for prio := 0; prio < 8; prio++ {
				var v CounterValues
				v.TxBytes, _ = q.TotalBytes(p, prio)
				_, v.Drops = q.Total(p, prio)
				v.ECNMarked = ecn.Total(p, prio)
				if prio == lossless {
					v.PFCRx, v.PFCTx = pfc.Total(p)
				}
				sc[PortPriority{p, prio}] = v
			}
		}
		return sc, nil
	}
	pfc, err := sonic.ParsePFCCounters(strings.NewReader(outs[0]))
	if err != nil {
		return nil, wrap(0, err)
	}
	q, err := sonic.ParseQueueCounters(strings.NewReader(outs[1]))
	if err != nil {
		return nil, wrap(1, err)
	}
	wred, err := sonic.ParseWREDCounters(strings.NewReader(outs[2]))
	if err != nil {
		return nil, wrap(2, err)
	}
	pc, err := sonic.ParsePortCounters(strings.NewReader(outs[3]))
	if err != nil {
		return nil, wrap(3, err)
	}
	for _, p := range ports {
		for prio := 0; prio < 8; prio++ {
			var v CounterValues
			v.PFCRx, v.PFCTx = pfc.Total(p, prio)
			v.TxBytes, _ = q.TotalBytes(p, prio)
			_, qdrops := q.Total(p, prio)
			wdrops, marked := wred.Total(p, prio)
			v.Drops, v.ECNMarked = qdrops+wdrops, marked
			sc[PortPriority{p, prio}] = v
		}
		_, _, drops := pc.Total(p)
		sc[PortPriority{p, -1}] = CounterValues{Drops: drops}
	}
	return sc, nil
}

// delta is after-before per counter; a counter that went down was cleared
// in between, and then after is what accumulated since. Switch (SAI's)
// and host (the kernel's) counters are both uint64.
func delta(before, after uint64) uint64 {
	if after < before {
		return after
	}
	return after - before
}

// recordDelta is delta as a record's int64 holds it: a counter that moved
// by more than 2^63-1, which no run carries (a value that counts nothing,
// such as the 2^64-1 some platforms show for a counter they lack), is
// named in *tooBig and counts 0, rather than written wrapped (negative).
func recordDelta(tooBig *[]string, name string, before, after uint64) int64 {
	v := delta(before, after)
	if v > math.MaxInt64 {
		*tooBig = append(*tooBig, fmt.Sprintf("%s %d -> %d", name, before, after))
		return 0
	}
	return int64(v)
}

// leftOut is the note that names the counters recordDelta left out.
func leftOut(where string, tooBig []string) string {
	return fmt.Sprintf("%s: left out, a counter moved by more than 2^63-1, which no run carries: %s", where, strings.Join(tooBig, ", "))
}

// CounterDeltas turns two snapshots of a switch into measured counters:
// every port and priority whose counters moved, plus the lossless
// priority of every port (so a measured zero shows as one). Rows are
// sorted by port and priority. Records count in int64: a row with a delta
// above 2^63-1, which no run carries (it is a value that counts nothing,
// such as the 2^64-1 some platforms show for a counter they lack), is left
// out and named in the returned notes rather than written wrapped.
func CounterDeltas(node string, before, after SwitchCounters, lossless int) ([]results.Counter, []string) {
	var keys []PortPriority
	for k := range after {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Port != keys[j].Port {
			return portLess(keys[i].Port, keys[j].Port)
		}
		return keys[i].Priority < keys[j].Priority
	})
	var out []results.Counter
	var notes []string
	for _, k := range keys {
		a, b := after[k], before[k]
		var tooBig []string
		d := func(name string, before, after uint64) int64 { return recordDelta(&tooBig, name, before, after) }
		c := results.Counter{Node: node, Port: k.Port, Priority: k.Priority, Source: results.Measured,
			TxBytes: d("tx_bytes", b.TxBytes, a.TxBytes), PFCTx: d("pfc_tx", b.PFCTx, a.PFCTx), PFCRx: d("pfc_rx", b.PFCRx, a.PFCRx),
			ECNMarked: d("ecn_marked", b.ECNMarked, a.ECNMarked), Drops: d("drops", b.Drops, a.Drops)}
		if len(tooBig) > 0 {
			notes = append(notes, leftOut(fmt.Sprintf("%s %s priority %d", node, k.Port, k.Priority), tooBig))
			continue
		}
		moved := c.TxBytes != 0 || c.PFCTx != 0 || c.PFCRx != 0 || c.ECNMarked != 0 || c.Drops != 0
		if moved || k.Priority == lossless {
			out = append(out, c)
		}
	}
	return out, notes
}

// portLess orders Ethernet4 before Ethernet12.
func portLess(a, b string) bool {
	ta, na := splitNum(a)
	tb, nb := splitNum(b)
	if ta != tb || na < 0 || nb < 0 {
		return a < b
	}
	return na < nb
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return s, -1
	}
	return s[:i], n
}

// SummarizeCounters fills the switch-side figures of a measured summary
// from counter deltas: drops and ECN marks of the per-priority rows, PFC
// pause frames sent. Whole-port rows (priority -1) are not added, so a drop
// is not counted twice.
func SummarizeCounters(s *results.Summary, cs []results.Counter) {
	for _, c := range cs {
		if c.Priority < 0 {
			continue
		}
		s.Drops += c.Drops
		s.ECNMarked += c.ECNMarked
		s.PFCPauseFrames += c.PFCTx
	}
}

// HostNIC is one host NIC whose counters a variant reads.
type HostNIC struct {
	Host, Container, Iface, RDMADev string
	NIC                             int
}

// HostNICs lists the NICs the flows of v use, in flow order, once each.
func HostNICs(l *runtime.Lab, v runtime.VariantSpec) []HostNIC {
	seen := map[runtime.Endpoint]bool{}
	var out []HostNIC
	for _, f := range v.Flows {
		for _, ep := range []runtime.Endpoint{f.Src, f.Dst} {
			n := l.Graph.Node(ep.Host)
			if seen[ep] || n == nil || ep.NIC < 0 || ep.NIC >= len(n.Ports) {
				continue
			}
			seen[ep] = true
			out = append(out, HostNIC{Host: ep.Host, NIC: ep.NIC, Container: ContainerName(l.Name, ep.Host), Iface: n.Ports[ep.NIC].Iface, RDMADev: fabric.RXEName(ep.Host, ep.NIC)})
		}
	}
	return out
}

// HostCounters reads a NIC's RDMA link statistics (`rdma -j statistic show
// link <dev>/1`, hoststat) and its driver counters (`ethtool -S`), keyed
// "rdma.<name>" and "ethtool.<name>".
func HostCounters(ctx context.Context, e Execer, n HostNIC) (map[string]uint64, error) {
	out := map[string]uint64{}
	res, err := ExecOK(ctx, e, n.Container, []string{"rdma", "-j", "statistic", "show", "link", n.RDMADev + "/1"}, ExecOptions{})
	if err != nil {
		return nil, fmt.Errorf("rdma statistics of %s:%d: %w", n.Host, n.NIC, err)
	}
	rs, err := hoststat.ParseRDMAStatistic(strings.NewReader(string(res.Stdout)))
	if err != nil {
		return nil, fmt.Errorf("rdma statistics of %s:%d: %w", n.Host, n.NIC, err)
	}
	for _, l := range rs.Links {
		for k, v := range l.Counters {
			out["rdma."+k] = v // one link: <dev>/1
		}
	}
	res, err = ExecOK(ctx, e, n.Container, []string{"ethtool", "-S", n.Iface}, ExecOptions{})
	if err != nil {
		return nil, fmt.Errorf("ethtool counters of %s %s: %w", n.Host, n.Iface, err)
	}
	es, err := hoststat.ParseEthtoolStats(strings.NewReader(string(res.Stdout)))
	if err != nil {
		return nil, fmt.Errorf("ethtool counters of %s %s: %w", n.Host, n.Iface, err)
	}
	for k, v := range es.Counters {
		out["ethtool."+k] = v
	}
	return out, nil
}

// HostDeltas keeps the counters of NIC nic that moved between two host
// readings. The kernel's counters are unsigned 64-bit and records count
// in int64: as CounterDeltas does for switches, a counter that moved by
// more than 2^63-1, which no run carries, is left out and named in the
// returned note rather than written wrapped (negative).
func HostDeltas(nic string, before, after map[string]uint64) (map[string]int64, string) {
	out := map[string]int64{}
	var tooBig []string
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if d := recordDelta(&tooBig, k, before[k], after[k]); d != 0 {
			out[k] = d
		}
	}
	if len(tooBig) > 0 {
		return out, leftOut(nic, tooBig)
	}
	return out, ""
}

// rxeRetransmitCounter is soft-RoCE's count of requester retries (timeouts
// and NAKs), the nearest it has to retransmissions.
const rxeRetransmitCounter = "rdma.completer_retry_err"
