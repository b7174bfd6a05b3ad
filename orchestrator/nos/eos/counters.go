package eos

// Parsers for EOS counter commands run with `| json`. Interfaces keep the
// order EOS printed them in. A value EOS prints as "-" (not configured) is
// left out, never read as 0. Counters are uint64 (a switch counts in
// unsigned 64 bits); totals sum them modulo 2^64, as the counters wrap.

import (
	"io"

	"github.com/labctl/labctl/orchestrator/textparse"
)

// PFCCounters is `show priority-flow-control counters | json`: pause frames
// received and sent per interface.
type PFCCounters struct {
	Interfaces []PFCInterfaceCounters `json:"interfaces"`
}

// PFCInterfaceCounters is one interface's PFC frames.
type PFCInterfaceCounters struct {
	Interface string `json:"interface"`
	RxFrames  uint64 `json:"rx_frames"`
	TxFrames  uint64 `json:"tx_frames"`
}

// Total sums PFC frames received and sent on intf ("" = all interfaces).
func (c *PFCCounters) Total(intf string) (rx, tx uint64) {
	for _, i := range c.Interfaces {
		if intf == "" || i.Interface == intf {
			rx += i.RxFrames
			tx += i.TxFrames
		}
	}
	return rx, tx
}

// ParsePFCCounters parses `show priority-flow-control counters | json`.
func ParsePFCCounters(r io.Reader) (*PFCCounters, error) {
	const what = "the JSON of `show priority-flow-control counters` ({\"interfaceCounters\": {\"Ethernet1\": {\"rxFrames\": 0, \"txFrames\": 0}}})"
	doc, err := ctrDecode(r)
	if err != nil {
		return nil, err
	}
	intfs, err := ctrPath(doc, what, "interfaceCounters")
	if err != nil {
		return nil, err
	}
	out := &PFCCounters{Interfaces: []PFCInterfaceCounters{}}
	for i, name := range intfs.keys {
		v := intfs.vals[i]
		path := "interfaceCounters." + name
		if v.kind != 'o' {
			return nil, textparse.Errorf(v.line, "%s is %s, expected an object with rxFrames and txFrames", path, v.kindName())
		}
		ic := PFCInterfaceCounters{Interface: name}
		for _, f := range []struct {
			key string
			dst *uint64
		}{{"rxFrames", &ic.RxFrames}, {"txFrames", &ic.TxFrames}} {
			n := v.get(f.key)
			if n == nil {
				return nil, textparse.Errorf(v.line, "%s has no %q counter", path, f.key)
			}
			if *f.dst, err = ctrCount(n, path+"."+f.key); err != nil {
				return nil, err
			}
		}
		out.Interfaces = append(out.Interfaces, ic)
	}
	return out, nil
}

// ECNCounters is `show qos interfaces ecn counters queue | json`: packets
// ECN-marked per interface and egress queue.
type ECNCounters struct {
	Interfaces []ECNInterfaceCounters `json:"interfaces"`
}

// ECNInterfaceCounters lists the queues with ECN configured; queues EOS
// reports as "-" (ECN not configured) are absent.
type ECNInterfaceCounters struct {
	Interface string     `json:"interface"`
	Queues    []ECNQueue `json:"queues"`
}

// ECNQueue is one queue's count of ECN-marked packets.
type ECNQueue struct {
	Queue  int    `json:"queue"`
	Marked uint64 `json:"marked"`
}

// Marked returns the ECN-marked packets of intf's queue; ok is false when
// the interface or queue is absent (not configured).
func (c *ECNCounters) Marked(intf string, queue int) (marked uint64, ok bool) {
	for _, i := range c.Interfaces {
		if i.Interface != intf {
			continue
		}
		for _, q := range i.Queues {
			if q.Queue == queue {
				return q.Marked, true
			}
		}
	}
	return 0, false
}

// Total sums ECN-marked packets of queue (-1 = all queues) on intf ("" =
// all interfaces). Unconfigured queues add nothing.
func (c *ECNCounters) Total(intf string, queue int) uint64 {
	var sum uint64
	for _, i := range c.Interfaces {
		if intf != "" && i.Interface != intf {
			continue
		}
		for _, q := range i.Queues {
			if queue < 0 || q.Queue == queue {
				sum += q.Marked
			}
		}
	}
	return sum
}

// ParseECNCounters parses `show qos interfaces ecn counters queue | json`.
func ParseECNCounters(r io.Reader) (*ECNCounters, error) {
	const what = "the JSON of `show qos interfaces ecn counters queue` ({\"intfQueueCounters\": {\"Ethernet1\": {\"queueCounters\": {\"3\": \"12\"}}}})"
	doc, err := ctrDecode(r)
	if err != nil {
		return nil, err
	}
	intfs, err := ctrPath(doc, what, "intfQueueCounters")
	if err != nil {
		return nil, err
	}
	out := &ECNCounters{Interfaces: []ECNInterfaceCounters{}}
	for i, name := range intfs.keys {
		qs, err := ctrPath(intfs.vals[i], what, "queueCounters")
		if err != nil {
			if ce, ok := err.(*CounterError); ok {
				ce.Msg = "intfQueueCounters." + name + ": " + ce.Msg
			}
			return nil, err
		}
		ic := ECNInterfaceCounters{Interface: name, Queues: []ECNQueue{}}
		for j, qk := range qs.keys {
			v := qs.vals[j]
			path := "intfQueueCounters." + name + ".queueCounters." + qk
			q, ok := ctrIndex(qk, "", 63)
			if !ok {
				return nil, textparse.Errorf(v.line, "%s: queue %q is not a queue number", path, qk)
			}
			if v.kind == 's' && v.text == "-" {
				continue // ECN not configured on this queue
			}
			n, err := ctrCount(v, path)
			if err != nil {
				return nil, err
			}
			ic.Queues = append(ic.Queues, ECNQueue{Queue: q, Marked: n})
		}
		out.Interfaces = append(out.Interfaces, ic)
	}
	return out, nil
}

// QueueCounters is `show interfaces counters queue detail | json`: per
// interface, queue type, traffic class and drop precedence.
type QueueCounters struct {
	Queues []QueueCounter `json:"queues"`
}

// QueueCounter is one (interface, unicast/multicast, TC, DP) entry. A
// counter EOS did not report is nil.
type QueueCounter struct {
	Interface       string  `json:"interface"`
	Type            string  `json:"type"` // unicast or multicast
	TrafficClass    int     `json:"traffic_class"`
	DropPrecedence  int     `json:"drop_precedence"`
	EnqueuedPackets *uint64 `json:"enqueued_packets"`
	EnqueuedBytes   *uint64 `json:"enqueued_bytes"`
	DroppedPackets  *uint64 `json:"dropped_packets"`
	DroppedBytes    *uint64 `json:"dropped_bytes"`
}

// Total sums enqueued and dropped packets of unicast traffic class tc (-1 =
// all) on intf ("" = all interfaces), over every drop precedence.
func (c *QueueCounters) Total(intf string, tc int) (enqueued, dropped uint64) {
	for _, q := range c.Queues {
		if (intf != "" && q.Interface != intf) || q.Type != "unicast" || (tc >= 0 && q.TrafficClass != tc) {
			continue
		}
		if q.EnqueuedPackets != nil {
			enqueued += *q.EnqueuedPackets
		}
		if q.DroppedPackets != nil {
			dropped += *q.DroppedPackets
		}
	}
	return enqueued, dropped
}

// TotalBytes sums enqueued and dropped bytes of unicast traffic class tc
// (-1 = all) on intf ("" = all interfaces), over every drop precedence.
func (c *QueueCounters) TotalBytes(intf string, tc int) (enqueued, dropped uint64) {
	for _, q := range c.Queues {
		if (intf != "" && q.Interface != intf) || q.Type != "unicast" || (tc >= 0 && q.TrafficClass != tc) {
			continue
		}
		if q.EnqueuedBytes != nil {
			enqueued += *q.EnqueuedBytes
		}
		if q.DroppedBytes != nil {
			dropped += *q.DroppedBytes
		}
	}
	return enqueued, dropped
}

// ParseQueueCounters parses `show interfaces counters queue detail | json`.
func ParseQueueCounters(r io.Reader) (*QueueCounters, error) {
	const what = "the JSON of `show interfaces counters queue detail` (egressQueueCounters.interfaces.<if>.ucastQueues.trafficClasses.TC<n>.dropPrecedences.DP<n>)"
	doc, err := ctrDecode(r)
	if err != nil {
		return nil, err
	}
	intfs, err := ctrPath(doc, what, "egressQueueCounters", "interfaces")
	if err != nil {
		return nil, err
	}
	out := &QueueCounters{Queues: []QueueCounter{}}
	for i, name := range intfs.keys {
		iv := intfs.vals[i]
		ipath := "egressQueueCounters.interfaces." + name
		if iv.kind != 'o' {
			return nil, textparse.Errorf(iv.line, "%s is %s, expected an object", ipath, iv.kindName())
		}
		found := false
		for _, qt := range []struct{ key, typ string }{{"ucastQueues", "unicast"}, {"mcastQueues", "multicast"}} {
			qv := iv.get(qt.key)
			if qv == nil {
				continue
			}
			found = true
			tcs, err := ctrPath(qv, what, "trafficClasses")
			if err != nil {
				return nil, err
			}
			for j, tck := range tcs.keys {
				tpath := ipath + "." + qt.key + ".trafficClasses." + tck
				tc, ok := ctrIndex(tck, "TC", 15)
				if !ok {
					return nil, textparse.Errorf(tcs.vals[j].line, "%s: expected traffic class keys TC0..TC15", tpath)
				}
				dps, err := ctrPath(tcs.vals[j], what, "dropPrecedences")
				if err != nil {
					return nil, err
				}
				for k, dpk := range dps.keys {
					dv := dps.vals[k]
					dpath := tpath + ".dropPrecedences." + dpk
					dp, ok := ctrIndex(dpk, "DP", 7)
					if !ok {
						return nil, textparse.Errorf(dv.line, "%s: expected drop precedence keys DP0..DP7", dpath)
					}
					if dv.kind != 'o' {
						return nil, textparse.Errorf(dv.line, "%s is %s, expected an object of counters", dpath, dv.kindName())
					}
					qc := QueueCounter{Interface: name, Type: qt.typ, TrafficClass: tc, DropPrecedence: dp}
					have := false
					for _, f := range []struct {
						key string
						dst **uint64
					}{{"enqueuedPackets", &qc.EnqueuedPackets}, {"enqueuedBytes", &qc.EnqueuedBytes}, {"droppedPackets", &qc.DroppedPackets}, {"droppedBytes", &qc.DroppedBytes}} {
						n := dv.get(f.key)
						if n == nil {
							continue
						}
						v, err := ctrCount(n, dpath+"."+f.key)
						if err != nil {
							return nil, err
						}
						*f.dst = &v
						have = true
					}
					if !have {
						return nil, textparse.Errorf(dv.line, "%s has none of enqueuedPackets, enqueuedBytes, droppedPackets, droppedBytes", dpath)
					}
					out.Queues = append(out.Queues, qc)
				}
			}
		}
		if !found {
			return nil, textparse.Errorf(iv.line, "%s has neither ucastQueues nor mcastQueues", ipath)
		}
	}
	return out, nil
}
