package sim

import (
	"fmt"
	"math"
)

// The engine's side of Program (program.go): per program, per stream, a
// few counters; never anything per message, so a ring of a thousand ranks
// and two thousand steps costs what its streams cost.

// progState is one program in progress.
type progState struct {
	cfg *Program
	// Its streams are s.streams[first : first+len(cfg.Streams)].
	first int32
	// left counts the streams not yet fully received.
	left int
	// next are the programs whose After names this one.
	next []int32
	// firstPost is its first posted message, endAt its last receipt
	// (ps, -1 before), lastDone the latest stream completion so far.
	firstPost, endAt, lastDone int64
}

// streamState is one stream of a program in progress. recvd counts the
// messages fully received in order, ready those whose inputs are
// satisfied: posted, to the QP or to the GPU's egress.
type streamState struct {
	prog         int32
	self         int32 // its own index in s.streams
	msgs, bytes  int64 // messages of bytes each (bytes the largest with size)
	recvd, ready int64
	// size is Stream.Size (nil: every message carries bytes), total what
	// the messages carry in all; sent counts a scale-up stream's messages
	// that left its GPU, rcvdBytes the bytes of those received. curMsg
	// and curBytes are the last message whose size a fabric stream's
	// packets asked for (payload), so size runs once a message, not once
	// a packet.
	size             func(int64) int64
	total            int64
	sent, rcvdBytes  int64
	curMsg, curBytes int64
	// stride and phase place its messages in their sequence (Stream).
	stride, phase int64
	inputs        []Input // the program's, indices local to it
	// credit[k] > 0 says input k is received on another server than this
	// stream's sender, which learns of each message credit[k] ps later
	// (creditDelay); seen[k] counts the messages it learnt of. Nil when
	// every input is received where this stream is sent.
	credit, seen []int64
	// deps are the streams (global indices) that read this one.
	deps []int32
	// A fabric stream's QP (flow index), or -1 for a scale-up stream,
	// which sends through GPU egress gpu, serPs per message of bytes, at
	// gbps.
	flow  int32
	gpu   int32
	serPs int64
	gbps  float64
	// hops is the number of switches on a fabric stream's data path at
	// the start (1 within a leaf, 3 via a spine, 5 via a super-spine).
	hops int
}

// gpuEgress is one GPU's way into its server's scale-up domain: messages
// leave one after the other in the order they were posted, each taking
// its serialization time, and arrive latency later. Arrivals are in
// departure order, so only the next one is ever scheduled (one event per
// message, one pending event per GPU): cur is the stream of the message
// whose arrival is due, lastDone when its last byte left; q holds what
// was posted behind it, in batches of one stream's messages posted at
// once (at, ps).
type gpuEgress struct {
	node     int32 // the server
	latency  int64
	lastDone int64
	busy     bool
	cur      int32
	q        []suBatch
	head     int
}

type suBatch struct {
	stream int32
	count  int64
	at     int64
}

// maxSizedMessages bounds the messages of a stream with Stream.Size,
// which setup reads one by one.
const maxSizedMessages = 1 << 30

// maxStreamBytes bounds one stream's payload (1 PiB), so packet and byte
// counts cannot overflow.
const maxStreamBytes = 1 << 50

// programQPs counts the fabric streams of programs, for sizing the flows.
func programQPs(ps []Program) int {
	n := 0
	for i := range ps {
		for j := range ps[i].Streams {
			if !ps[i].Streams[j].ScaleUp {
				n++
			}
		}
	}
	return n
}

// buildPrograms checks the programs and sets up their streams: fabric
// streams as quiet QPs, scale-up streams on their GPUs' egress.
func (s *sim) buildPrograms(paths pathCache) error {
	if err := s.checkScaleUp(); err != nil {
		return err
	}
	if len(s.cfg.Programs) == 0 {
		return nil
	}
	byID := make(map[string]int32, len(s.cfg.Programs))
	nStreams, nFabric := 0, programQPs(s.cfg.Programs)
	for pi := range s.cfg.Programs {
		nStreams += len(s.cfg.Programs[pi].Streams)
	}
	if nStreams > math.MaxInt32 {
		return errorf("programs hold %d streams, more than the engine indexes (%d)", nStreams, math.MaxInt32)
	}
	// Sized once: flows point at their stream.
	s.streams = make([]streamState, 0, nStreams)
	s.progs = make([]progState, len(s.cfg.Programs))
	flowCfgs := make([]Flow, 0, nFabric)
	gpuOf := map[[2]int32]int32{}
	for pi := range s.cfg.Programs {
		p := &s.cfg.Programs[pi]
		if p.ID == "" {
			return errorf("program %d has no ID: give every program one", pi)
		}
		if _, dup := byID[p.ID]; dup {
			return errorf("program ID %q used twice: program IDs must be unique", p.ID)
		}
		if p.After != "" {
			prev, ok := byID[p.After]
			if !ok {
				return errorf("program %q: After names %q, which is no earlier program (a program may only wait for one before it in Config.Programs)", p.ID, p.After)
			}
			s.progs[prev].next = append(s.progs[prev].next, int32(pi))
		}
		byID[p.ID] = int32(pi)
		if p.StartNs < 0 || p.StartNs > maxTimeNs {
			return errorf("program %q: start %d ns must be in 0..%d", p.ID, p.StartNs, int64(maxTimeNs))
		}
		if len(p.Streams) == 0 {
			return errorf("program %q has no streams: give it at least one", p.ID)
		}
		dscp := flowDSCP(p.DSCP, p.ExplicitDSCP)
		if dscp < 0 || dscp > 63 {
			return errorf("program %q: DSCP %d out of range 0..63", p.ID, dscp)
		}
		ps := &s.progs[pi]
		*ps = progState{cfg: p, first: int32(len(s.streams)), left: len(p.Streams), firstPost: -1, endAt: -1}
		for si := range p.Streams {
			st := &p.Streams[si]
			fail := func(format string, a ...any) error {
				return errorf("program %q stream %d: %s", p.ID, si, fmt.Sprintf(format, a...))
			}
			if st.Messages < 1 || st.MessageBytes < 1 {
				return fail("%d messages of %d bytes: both must be at least 1", st.Messages, st.MessageBytes)
			}
			if st.MessageBytes > 1<<30 {
				return fail("message size %d bytes out of range: use 1 B..1 GiB", st.MessageBytes)
			}
			if st.Messages > maxStreamBytes/st.MessageBytes {
				return fail("%d messages of %d bytes exceed %d bytes per stream", st.Messages, st.MessageBytes, int64(maxStreamBytes))
			}
			if st.Stride < 0 || st.Stride > maxStride || st.Phase < 0 || st.Phase >= max(st.Stride, 1) {
				return fail("stride %d and phase %d: use a stride of 0 to %d and a phase below it", st.Stride, st.Phase, maxStride)
			}
			for k, in := range st.Inputs {
				switch {
				case in.Stream < 0 || int(in.Stream) >= len(p.Streams):
					return fail("input %d names stream %d, out of range 0..%d", k, in.Stream, len(p.Streams)-1)
				case int(in.Stream) == si && in.Offset >= 0:
					return fail("input %d waits for its own message m+%d before sending message m, which never happens: a stream can only wait for its own earlier messages (offset < 0)", k, in.Offset)
				}
			}
			total := st.Messages * st.MessageBytes
			if st.Size != nil && st.Messages > maxSizedMessages {
				return fail("%d messages of their own sizes: at most %d", st.Messages, maxSizedMessages)
			}
			if st.Size != nil {
				total = 0
				for m := range st.Messages {
					b := st.Size(m)
					if b < 0 || b > st.MessageBytes {
						return fail("message %d carries %d bytes: a message's size must be in 0..%d (MessageBytes, the largest)", m, b, st.MessageBytes)
					}
					total += b
				}
			}
			ss := streamState{prog: int32(pi), self: int32(len(s.streams)), msgs: st.Messages, bytes: st.MessageBytes, size: st.Size, total: total, curMsg: -1, inputs: st.Inputs, flow: -1, gpu: -1,
				stride: max(st.Stride, 1), phase: st.Phase}
			if st.ScaleUp {
				g, err := s.scaleUpEgress(st, gpuOf)
				if err != nil {
					return fail("%v", err)
				}
				ss.gpu = g
				d := s.cfg.ScaleUp[st.Host]
				ss.gbps = d.GbpsPerGPU
				ss.serPs = ss.serOf(st.MessageBytes)
				s.streams = append(s.streams, ss)
				continue
			}
			src, err := s.resolveNIC(st.Src)
			if err != nil {
				return fail("source: %v", err)
			}
			dst, err := s.resolveNIC(st.Dst)
			if err != nil {
				return fail("destination: %v", err)
			}
			if src == dst {
				return fail("source and destination are the same NIC %s: a transfer within one NIC is no fabric stream", s.ports[src].ref)
			}
			sp := st.SrcPort
			if sp == 0 {
				sp = 49152 + si%16384
			}
			if sp < 0 || sp > 65535 {
				return fail("UDP source port %d out of range 0..65535", sp)
			}
			fwd, rev := s.flowHashes(src, dst, sp)
			hops := 0
			if at, _ := s.walk(src, dst, fwd, func(_, _ int32) { hops++ }); at >= 0 {
				return fail("%v", s.reaches(src, dst, fwd))
			}
			if err := s.reaches(dst, src, rev); err != nil {
				return fail("reverse path for ACKs: %v", err)
			}
			ss.hops = hops
			flowCfgs = append(flowCfgs, Flow{
				ID: p.ID, Src: st.Src, Dst: st.Dst, SrcPort: sp, DSCP: p.DSCP, ExplicitDSCP: p.ExplicitDSCP,
				Bytes: total, MessageBytes: st.MessageBytes, Role: p.Role, Quiet: true,
			})
			fi := int32(len(s.flows))
			s.flows = append(s.flows, flowState{})
			if err := s.initFlow(fi, &flowCfgs[len(flowCfgs)-1], nil, paths); err != nil {
				return err
			}
			fs := &s.flows[fi]
			// Every message ends in its own packet, even when it is a
			// whole number of MTUs: the receiver tells message ends.
			fs.perMsg = (st.MessageBytes + s.mtu - 1) / s.mtu
			fs.total = fs.perMsg * st.Messages
			fs.avail = 0 // nothing is posted before the program starts
			ss.flow = fi
			s.streams = append(s.streams, ss)
		}
	}
	// Reverse edges, in one backing array: O(streams + inputs).
	nIn := 0
	for i := range s.streams {
		nIn += len(s.streams[i].inputs)
	}
	count := make([]int32, len(s.streams))
	for i := range s.streams {
		base := s.progs[s.streams[i].prog].first
		for _, in := range s.streams[i].inputs {
			count[base+in.Stream]++
		}
	}
	back := make([]int32, 0, nIn)
	for i := range s.streams {
		s.streams[i].deps = back[len(back) : len(back) : len(back)+int(count[i])]
		back = back[:len(back)+int(count[i])]
	}
	for i := range s.streams {
		base := s.progs[s.streams[i].prog].first
		for _, in := range s.streams[i].inputs {
			d := &s.streams[base+in.Stream]
			// A stream reading another twice recomputes once.
			if n := len(d.deps); n > 0 && d.deps[n-1] == int32(i) {
				continue
			}
			d.deps = append(d.deps, int32(i))
		}
	}
	for i := range s.streams {
		if f := s.streams[i].flow; f >= 0 {
			s.flows[f].stream = &s.streams[i]
		}
	}
	return nil
}

// buildCredits finds the inputs received on another server than the
// stream that reads them is sent from. NCCL's sender learns that its
// receiver's buffer has room (the transfers it feeds took the data on)
// when the receiver tells it over the network; such an input reaches the
// stream's sender a minimum frame's trip from the input's receiving NIC
// to the sender's NIC later. That trip crosses every partition boundary
// between the two, so it is at least a lookahead: a split run delivers it
// as an event of the sender's partition, and every split gives the same
// delays. It runs once the transport is known (an InfiniBand fabric's
// minimum frame and NIC delay are its own).
func (s *sim) buildCredits() error {
	for i := range s.streams {
		st := &s.streams[i]
		base := s.progs[st.prog].first
		to, toNIC := s.streamEnd(int32(i), true)
		for k, in := range st.inputs {
			from, fromNIC := s.streamEnd(base+in.Stream, false)
			// An offset beyond every sequence number never holds the
			// stream back (readyOf): no credit to send.
			if from == to || in.Offset < -maxSeq {
				continue
			}
			d, err := s.creditDelay(fromNIC, toNIC)
			if err != nil {
				return errorf("program %q stream %d waits for stream %d, received on %s: %v", s.progs[st.prog].cfg.ID, int32(i)-base, in.Stream, s.nodes[from].name, err)
			}
			if st.credit == nil {
				st.credit, st.seen = make([]int64, len(st.inputs)), make([]int64, len(st.inputs))
			}
			st.credit[k] = d
		}
	}
	return nil
}

// streamEnd is the server that sends (send) or receives stream i and its
// NIC port there: its QP's NIC, or for a scale-up stream the server's
// first NIC (-1 for a server without one).
func (s *sim) streamEnd(i int32, send bool) (node, nic int32) {
	if f := s.streams[i].flow; f >= 0 {
		p := s.flows[f].dst
		if send {
			p = s.flows[f].src
		}
		return s.ports[p].node, p
	}
	node = s.gpus[s.streams[i].gpu].node
	if ps := s.nodes[node].ports; len(ps) > 0 {
		return node, ps[0]
	}
	return node, -1
}

// creditDelay is a minimum frame's trip from NIC port a to NIC port b
// (ps): every link's serialization and propagation, and b's NIC delay.
func (s *sim) creditDelay(a, b int32) (int64, error) {
	if a < 0 || b < 0 {
		return 0, fmt.Errorf("a server without a NIC cannot send or receive the credit")
	}
	nic := s.nicDelay
	if s.ib != nil {
		nic = s.ib.nicDelay // the HCA's pipeline (buildIB)
	}
	d := s.ports[a].propPs + s.ports[a].serPs(s.minWire()) + nic
	h, _ := s.flowHashes(a, b, 0)
	if at, _ := s.walk(a, b, h, func(_, out int32) {
		d += s.ports[out].propPs + s.ports[out].serPs(s.minWire())
	}); at >= 0 {
		return 0, s.reaches(a, b, h)
	}
	return d, nil
}

// inputSeen: stream i's sender learns that its input k got a message
// further.
func (s *sim) inputSeen(i, k int32) {
	s.streams[i].seen[k]++
	s.post(i)
}

// checkScaleUp checks every server's scale-up domain.
func (s *sim) checkScaleUp() error {
	for host, d := range s.cfg.ScaleUp {
		ni, ok := s.nodeByName[host]
		if !ok || s.nodes[ni].kind != Host {
			return errorf("scale-up domain given for %q, which is not a host of the topology: key Config.ScaleUp by host name", host)
		}
		if !(d.GbpsPerGPU >= 1e-3 && d.GbpsPerGPU <= 1e6) {
			return errorf("host %q: scale-up bandwidth %v Gb/s per GPU must be in 0.001..1e6 (one direction, what a GPU sends into the domain)", host, d.GbpsPerGPU)
		}
		if d.LatencyNs < 0 || d.LatencyNs > 1e9 {
			return errorf("host %q: scale-up latency %d ns must be in 0..1e9", host, d.LatencyNs)
		}
		if d.GPUs < 0 || d.GPUs > 1<<16 {
			return errorf("host %q: %d GPUs in the scale-up domain: use 1..65536 (0: not given, any GPU index is taken)", host, d.GPUs)
		}
	}
	for h, c := range s.cfg.NICCapGbps {
		ni, ok := s.nodeByName[h]
		if !ok || s.nodes[ni].kind != Host {
			return errorf("NIC cap given for %q, which is not a host of the topology: key Config.NICCapGbps by host name", h)
		}
		if c < 0 || math.IsNaN(c) || c > 1e5 {
			return errorf("host %q: NIC cap %v Gb/s must be in 0..100000 (0: no cap)", h, c)
		}
		if c == 0 {
			continue
		}
		for _, pi := range s.nodes[ni].ports {
			p := &s.ports[pi]
			p.capMbps = c * 1000
			p.capKbps = max(int64(math.Round(c*1e6)), 1)
			p.capped = true
		}
	}
	return nil
}

// scaleUpEgress checks a scale-up stream and returns its source GPU's
// egress, adding it on first use.
func (s *sim) scaleUpEgress(st *Stream, gpuOf map[[2]int32]int32) (int32, error) {
	d, ok := s.cfg.ScaleUp[st.Host]
	if !ok {
		if ni, isNode := s.nodeByName[st.Host]; !isNode || s.nodes[ni].kind != Host {
			return -1, fmt.Errorf("scale-up host %q is not a host of the topology", st.Host)
		}
		return -1, fmt.Errorf("host %q has no scale-up domain: give it one in Config.ScaleUp, or make the stream a fabric stream", st.Host)
	}
	if st.SrcGPU == st.DstGPU {
		return -1, fmt.Errorf("source and destination are the same GPU %d of %q: a transfer within one GPU is no stream", st.SrcGPU, st.Host)
	}
	for _, g := range []int{st.SrcGPU, st.DstGPU} {
		if g < 0 || g > math.MaxInt32 || d.GPUs > 0 && g >= d.GPUs {
			n := "any index from 0"
			if d.GPUs > 0 {
				n = fmt.Sprintf("0..%d", d.GPUs-1)
			}
			return -1, fmt.Errorf("GPU %d of %q out of range (%s)", g, st.Host, n)
		}
	}
	k := [2]int32{s.nodeByName[st.Host], int32(st.SrcGPU)}
	if g, ok := gpuOf[k]; ok {
		return g, nil
	}
	g := int32(len(s.gpus))
	s.gpus = append(s.gpus, gpuEgress{node: k[0], latency: d.LatencyNs * 1000})
	gpuOf[k] = g
	return g, nil
}

// startPrograms schedules the programs that wait for none.
func (s *sim) startPrograms() {
	for i := range s.progs {
		if s.progs[i].cfg.After == "" {
			s.push(s.progs[i].cfg.StartNs*1000, evProgStart, int32(i), 0, 0)
		}
	}
}

// progStart starts program pi: its QPs come up and every stream posts
// what its inputs already allow. In a split run it runs between windows,
// each stream on its sender's partition.
func (s *sim) progStart(pi int32) {
	ps := &s.progs[pi]
	n := int32(len(ps.cfg.Streams))
	for i := ps.first; i < ps.first+n; i++ {
		if f := s.streams[i].flow; f >= 0 {
			s.senderSide(i).flowStart(f)
		}
	}
	for i := ps.first; i < ps.first+n; i++ {
		s.senderSide(i).post(i)
	}
}

// senderSide is the sim that runs stream i's sender: s, or between the
// windows of a split run the sender's partition at s.now.
func (s *sim) senderSide(i int32) *sim {
	if s.par == nil || s.part != nil {
		return s
	}
	return s.par.atNode(s.streamSender(i), s.now)
}

// streamSender is the server that sends stream i.
func (s *sim) streamSender(i int32) int32 {
	n, _ := s.streamEnd(i, true)
	return n
}

// maxStride bounds Stream.Stride (far above the QPs a connection has), so
// that sequence numbers (messages x stride, at most maxSeq) never
// overflow.
const (
	maxStride = 1 << 10
	maxSeq    = maxStreamBytes * maxStride
)

// readyOf is how many messages of stream i its inputs allow. In sequence
// numbers (Stream.Stride, Phase): an input that received recvd messages
// has received everything of its own before sequence message
// phase+recvd*stride, so it allows the sequence messages m with
// m+Offset below that (every one once it completed); stream i may post
// its messages whose sequence number is below the least such bound.
// With stride 1 and phase 0 everywhere that is recvd-Offset.
func (s *sim) readyOf(i int32) int64 {
	st := &s.streams[i]
	bound := int64(math.MaxInt64)
	base := s.progs[st.prog].first
	for k, in := range st.inputs {
		src := &s.streams[base+in.Stream]
		// An input received on another server: what this stream's
		// sender learnt of it (its recvd is another partition's).
		var recvd int64
		if st.credit != nil && st.credit[k] > 0 {
			recvd = st.seen[k]
		} else {
			recvd = src.recvd
		}
		// An offset beyond every sequence number never holds it back.
		if recvd == src.msgs || in.Offset < -maxSeq {
			continue
		}
		bound = min(bound, src.phase+recvd*src.stride-in.Offset)
	}
	if bound == math.MaxInt64 {
		return st.msgs
	}
	// Messages i with i*stride+phase < bound: ceil((bound-phase)/stride).
	if bound <= st.phase {
		return 0
	}
	return min((bound-st.phase+st.stride-1)/st.stride, st.msgs)
}

// post posts the messages of stream i its inputs newly allow.
func (s *sim) post(i int32) {
	st := &s.streams[i]
	r := s.readyOf(i)
	if r <= st.ready {
		return
	}
	delta := r - st.ready
	st.ready = r
	// A program's first post is at its start, which a split run runs
	// between windows: partitions only read firstPost (a program that
	// posts nothing at its start never posts).
	if ps := &s.progs[st.prog]; ps.firstPost < 0 {
		ps.firstPost = s.now
	}
	if st.flow >= 0 {
		fi := st.flow
		f := &s.flows[fi]
		f.avail += delta * f.perMsg
		if f.rtoIdle {
			// Its timer stopped while it had nothing to send.
			f.rtoIdle = false
			f.lastProgress = s.now
			s.push(s.now+s.rto, evRTO, fi, 0, 0)
		}
		s.unpark(fi)
		s.kick(f.src)
		return
	}
	s.gpuPost(st.gpu, i, delta)
}

// gpuPost hands count messages of stream i to GPU egress g.
func (s *sim) gpuPost(g, i int32, count int64) {
	e := &s.gpus[g]
	if !e.busy {
		e.busy = true
		s.gpuSend(g, i, s.now)
		if count--; count == 0 {
			return
		}
	}
	if n := len(e.q); n > e.head && e.q[n-1].stream == i && e.q[n-1].at == s.now {
		e.q[n-1].count += count
		return
	}
	if e.head >= 32 && 2*e.head >= len(e.q) {
		// A GPU that never drains (it sends for several channels) would
		// grow its queue with every message: reuse the sent half.
		e.q = e.q[:copy(e.q, e.q[e.head:])]
		e.head = 0
	}
	e.q = append(e.q, suBatch{stream: i, count: count, at: s.now})
}

// serOf is a scale-up message of b bytes' serialization (ps).
func (st *streamState) serOf(b int64) int64 {
	return int64(math.Round(float64(b) * 8000 / st.gbps))
}

// msgBytes is what message m of the stream carries.
func (st *streamState) msgBytes(m int64) int64 {
	if st.size == nil {
		return st.bytes
	}
	return st.size(m)
}

// gpuSend sends the next message of stream i from GPU g, posted at at:
// it leaves once the GPU's previous message did and arrives latency
// after its last byte. A stream's messages leave its GPU in order.
func (s *sim) gpuSend(g, i int32, at int64) {
	e := &s.gpus[g]
	st := &s.streams[i]
	ser := st.serPs
	if st.size != nil {
		ser = st.serOf(st.size(st.sent))
	}
	st.sent++
	e.lastDone = max(at, e.lastDone) + ser
	e.cur = i
	s.push(e.lastDone+e.latency, evScaleUp, g, 0, 0)
}

// gpuArrive delivers the message GPU g sent last and sends its next.
func (s *sim) gpuArrive(g int32) {
	e := &s.gpus[g]
	i := e.cur
	if e.head < len(e.q) {
		b := &e.q[e.head]
		s.gpuSend(g, b.stream, b.at)
		if b.count--; b.count == 0 {
			if e.head++; e.head == len(e.q) {
				e.q, e.head = e.q[:0], 0
			}
		}
	} else {
		e.busy = false
	}
	// Arrivals are in departure order: this is the stream's next message.
	st := &s.streams[i]
	b := st.msgBytes(st.recvd)
	st.rcvdBytes += b
	s.work.delivered += b
	s.received(i)
}

// received runs when stream i has received its next message: its readers
// may post more, and its program may complete.
func (s *sim) received(i int32) {
	st := &s.streams[i]
	st.recvd++
	for _, d := range st.deps {
		ds := &s.streams[d]
		if ds.credit == nil {
			s.post(d)
			continue
		}
		base := s.progs[ds.prog].first
		local := false
		for k, in := range ds.inputs {
			if base+in.Stream != i {
				continue
			}
			if c := ds.credit[k]; c > 0 {
				s.push(s.now+c, evInputSeen, d, int32(k), 0)
			} else {
				local = true
			}
		}
		if local {
			s.post(d)
		}
	}
	if st.recvd < st.msgs {
		return
	}
	if s.part != nil {
		// The program's other streams may complete on other partitions
		// in this window: the run counts them after it.
		s.part.streamsDone = append(s.part.streamsDone, streamDone{stream: i, t: s.now})
		return
	}
	s.programStreamDone(i, s.now)
}

// programStreamDone counts stream i complete at t (ps): its program
// completes with its last stream, and the programs that wait for it
// start StartNs later.
func (s *sim) programStreamDone(i int32, t int64) {
	ps := &s.progs[s.streams[i].prog]
	// A split run counts a window's completions in partition order, not
	// in time order.
	ps.lastDone = max(ps.lastDone, t)
	if ps.left--; ps.left > 0 {
		return
	}
	ps.endAt = ps.lastDone
	for _, q := range ps.next {
		s.push(ps.endAt+s.progs[q].cfg.StartNs*1000, evProgStart, q, 0, 0)
	}
}

// programStats reports every program, in Config.Programs order.
func (s *sim) programStats() []ProgramStats {
	if len(s.progs) == 0 {
		return nil
	}
	out := make([]ProgramStats, len(s.progs))
	for pi := range s.progs {
		ps := &s.progs[pi]
		st := ProgramStats{ID: ps.cfg.ID, StartNs: -1, EndNs: -1}
		if ps.firstPost >= 0 {
			st.StartNs = ps.firstPost / 1000
		}
		n := int32(len(ps.cfg.Streams))
		for i := ps.first; i < ps.first+n; i++ {
			ss := &s.streams[i]
			if ss.flow < 0 {
				// Its messages arrived whole, one by one.
				st.ScaleUpBytes += ss.rcvdBytes
				continue
			}
			f := &s.flows[ss.flow]
			st.FabricBytes += f.delivered
			if st.SwitchHopBytes == nil {
				st.SwitchHopBytes = map[int]int64{}
			}
			st.SwitchHopBytes[ss.hops] += f.delivered
			if f.failed {
				st.FailedStreams++
			}
		}
		if ps.endAt >= 0 {
			st.EndNs = ps.endAt / 1000
			t := (ps.endAt - ps.firstPost) / 1000
			st.TimeNs = &t
		}
		out[pi] = st
	}
	return out
}
