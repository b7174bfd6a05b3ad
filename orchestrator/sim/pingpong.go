package sim

// PingPong is an ib_write_lat run between two NICs, as perftest's
// run_iter_lat_write runs it: one RC QP each way, Iterations RDMA writes
// of MessageBytes from each side. The server (perftest's passive side)
// posts its first write at the start; after that each side posts its next
// write once the other side's write has arrived and its own previous one
// has completed (been acknowledged: a tx depth of one, perftest's
// DEF_TX_LAT). The client's post times are its round trips, from which
// perftest computes its report (perftest.LatencyOfPosts). Its two QPs are
// reported as flows "<ID>/ping" (client to server) and "<ID>/pong".
type PingPong struct {
	ID             string
	Client, Server string
	MessageBytes   int64
	Iterations     int
	// DSCP and ExplicitDSCP classify both QPs as Flow's do.
	DSCP         int
	ExplicitDSCP bool
	// SrcPort is the UDP source port of the client's QP (the server's
	// takes the next one); 0 derives one from the flow index.
	SrcPort int
	StartNs int64
	Role    string
	// NoRateSeries is Flow's, for both QPs.
	NoRateSeries bool
}

// PingPongStats is one ping-pong's outcome: when the client posted each of
// its writes (ns from the start of the run), as many as it got to.
type PingPongStats struct {
	ID         string  `json:"id"`
	Client     string  `json:"client"`
	Server     string  `json:"server"`
	Iterations int     `json:"iterations"`
	PostedNs   []int64 `json:"posted_ns"`
}

// pingState is one ping-pong in progress.
type pingState struct {
	cfg *PingPong
	// qps are the client's QP (0) and the server's (1).
	qps [2]int32
	// posted are the client's post times (ps).
	posted []int64
}

// buildPingPongs adds the two QPs of every ping-pong to the flows.
func (s *sim) buildPingPongs(ids map[string]int32, paths pathCache) error {
	for pi := range s.cfg.PingPongs {
		c := &s.cfg.PingPongs[pi]
		if c.ID == "" || c.Iterations < 1 || c.MessageBytes < 1 || c.MessageBytes > 1<<30 || c.SrcPort < 0 || c.SrcPort > 65534 {
			return errorf("ping-pong %d (%q): needs an ID, 1 or more iterations, a message of 1 B..1 GiB and a UDP source port below 65535 (got %d iterations, %d bytes, port %d)",
				pi, c.ID, c.Iterations, c.MessageBytes, c.SrcPort)
		}
		// The posts grow as they happen: a run's duration may end long
		// before perftest's up to 10^8 iterations, whose room taken at once
		// was 800 MB for a 1 ms run.
		ps := &pingState{cfg: c, posted: make([]int64, 0, min(c.Iterations, 1<<12))}
		for side, ends := range [2][2]string{{c.Client, c.Server}, {c.Server, c.Client}} {
			sport := c.SrcPort
			if sport > 0 {
				sport += side
			}
			f := Flow{
				ID: c.ID + [2]string{"/ping", "/pong"}[side], Src: ends[0], Dst: ends[1], SrcPort: sport,
				DSCP: c.DSCP, ExplicitDSCP: c.ExplicitDSCP, MessageBytes: c.MessageBytes,
				Bytes: c.MessageBytes * int64(c.Iterations), TxDepth: 1, StartNs: c.StartNs, Role: c.Role,
				NoRateSeries: c.NoRateSeries,
			}
			fi := int32(len(s.flows))
			s.flows = append(s.flows, flowState{})
			if err := s.initFlow(fi, &f, ids, paths); err != nil {
				return err
			}
			fs := &s.flows[fi]
			// Every write ends in a packet of its own, which the other side
			// sees arrive (perftest polls the write's last byte).
			fs.perMsg = (c.MessageBytes + s.mtu - 1) / s.mtu
			fs.total = fs.perMsg * int64(c.Iterations)
			fs.avail = 0
			if side == 1 {
				fs.avail = fs.perMsg // the server writes first
			}
			fs.ping = ps
			ps.qps[side] = fi
		}
		s.pings = append(s.pings, ps)
	}
	return nil
}

// pingReceived runs when a ping-pong's write has fully arrived at the
// other side (f is the QP that carried it): that side may post its next.
func (s *sim) pingReceived(f *flowState) {
	ps := f.ping
	next := ps.qps[0]
	if &s.flows[next] == f {
		next = ps.qps[1]
	}
	n := &s.flows[next]
	if n.avail >= n.total {
		return
	}
	n.avail += n.perMsg
	s.pingPosted(next)
	if n.started {
		s.unpark(next)
		s.kick(n.src)
	}
}

// pingPosted records the client's post times: a write is posted when both
// of its conditions hold (the server's previous write has arrived, its own
// previous write has completed), which the QP's avail and tx depth window
// say. Both change one write at a time, so at most one write is posted per
// call.
func (s *sim) pingPosted(fi int32) {
	f := &s.flows[fi]
	ps := f.ping
	if ps == nil || ps.qps[0] != fi || !f.started {
		return
	}
	k := int64(len(ps.posted))
	if k < int64(ps.cfg.Iterations) && k*f.perMsg < f.avail && k*f.perMsg < f.winEnd {
		ps.posted = append(ps.posted, s.now)
	}
}

func pingQPs(ps []PingPong) int { return 2 * len(ps) }

// pingStats reports every ping-pong's client posts.
func (s *sim) pingStats() []PingPongStats {
	var out []PingPongStats
	for _, ps := range s.pings {
		st := PingPongStats{ID: ps.cfg.ID, Client: s.ports[s.flows[ps.qps[0]].src].ref.String(), Server: s.ports[s.flows[ps.qps[1]].src].ref.String(),
			Iterations: ps.cfg.Iterations, PostedNs: make([]int64, len(ps.posted))}
		for i, t := range ps.posted {
			st.PostedNs[i] = t / 1000
		}
		out = append(out, st)
	}
	return out
}
