package sim

import (
	"slices"

	"github.com/labctl/labctl/orchestrator/routing"
)

// Load balancing: how a switch picks the egress port of a data packet
// among the equal-cost ports towards its destination.

const (
	lbECMP = iota
	lbFlowlet
	lbSpray
	lbAdaptive
)

type lbState struct {
	mode int
	gap  int64 // flowlet gap, ps
	// flowlets holds, per switch and flow, the port of the current
	// flowlet and when the flow's last packet passed.
	flowlets map[flowletKey]flowlet
}

type flowletKey struct {
	node int32
	flow int32
}

type flowlet struct {
	out  int32
	last int64
}

func (s *sim) buildLB() error {
	lb := s.cfg.LB
	switch lb.Mode {
	case "", "ecmp":
		s.lb.mode = lbECMP
	case "flowlet":
		s.lb.mode = lbFlowlet
		s.lb.flowlets = map[flowletKey]flowlet{}
	case "spray":
		s.lb.mode = lbSpray
	case "adaptive":
		s.lb.mode = lbAdaptive
	default:
		return errorf("load balancing %q: use ecmp, flowlet, spray or adaptive", lb.Mode)
	}
	if lb.FlowletGapNs < 0 || lb.FlowletGapNs > maxTimeNs {
		return errorf("flowlet gap %d ns out of range (0 means %d ns)", lb.FlowletGapNs, int64(DefaultFlowletGapNs))
	}
	s.lb.gap = lb.FlowletGapNs * 1000
	if s.lb.gap == 0 {
		s.lb.gap = DefaultFlowletGapNs * 1000
	}
	return nil
}

// pickData returns the egress port of a data packet at switch node ni
// among cands, or -1 for the flow hash to decide.
func (s *sim) pickData(ni int32, n *node, pk *packet, cands []int32) int32 {
	if len(cands) == 1 {
		return cands[0]
	}
	switch s.lb.mode {
	case lbSpray:
		return cands[s.rng.IntN(len(cands))]
	case lbAdaptive:
		// The port with the fewest bytes queued for the packet's
		// priority; ties go to the first from the flow hash's choice on,
		// so an idle fabric still spreads flows.
		start := routing.ECMPIndex(len(cands), pk.hash, n.seed)
		best, bestQ := int32(-1), int64(0)
		for j := range cands {
			c := cands[(start+j)%len(cands)]
			if q := s.ports[c].lane[s.ports[c].queueOf[pk.prio]].q.bytes; best < 0 || q < bestQ {
				best, bestQ = c, q
			}
		}
		return best
	case lbFlowlet:
		key := flowletKey{node: ni, flow: pk.flow}
		fl, ok := s.lb.flowlets[key]
		if !ok || s.now-fl.last > s.lb.gap || !slices.Contains(cands, fl.out) {
			fl.out = cands[s.rng.IntN(len(cands))]
		}
		fl.last = s.now
		s.lb.flowlets[key] = fl
		return fl.out
	}
	return -1 // ECMP: the flow hash decides
}
