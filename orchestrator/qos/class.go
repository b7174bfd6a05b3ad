package qos

import "slices"

// Class is what one port does with one traffic class: the single place
// where the model's fields combine into behaviour (which PG a class fills,
// whether it pauses, which queue it leaves by). Lint, the simulator and
// `config show` read classes; none of them combines the fields itself.
type Class struct {
	TC int `json:"tc"`
	// PG is the ingress priority group the class fills when the port
	// receives it, PGConfig its buffer (nil when no profile applies).
	PG       int       `json:"pg"`
	PGConfig *PGConfig `json:"-"`
	// PFC says pfc_enable (or no-drop) has the priority; Lossless that the
	// port can actually keep it lossless: PFC on, and a lossless PG
	// profile (an xoff above 0: headroom for what arrives after XOFF). A
	// priority with PFC and a lossy profile drops instead of pausing.
	PFC      bool `json:"pfc"`
	Lossless bool `json:"lossless"`
	// Queue is the egress queue the class leaves by when the port sends
	// it, QueueConfig that queue.
	Queue       int          `json:"queue"`
	QueueConfig *QueueConfig `json:"-"`
	// PausedQueue is the queue a PFC frame for this priority, received by
	// the port, pauses: the class's own queue when the maps agree.
	PausedQueue int `json:"paused_queue"`
	// Watchdog is the port's PFC watchdog when the priority has PFC.
	Watchdog *PortWatchdog `json:"-"`
}

// TrustsDSCP says whether the port classifies by DSCP: it trusts DSCP,
// or its config sets no trust (a port no parser has read: labctl's intent
// trusts DSCP).
func (p *PortConfig) TrustsDSCP() bool { return p.Trust == TrustDSCP || p.Trust == "" }

// TCOf is the traffic class an untagged IP packet with this DSCP gets
// when it arrives on the port: the class an ingress QoS policy gives it
// (PolicyTC), else by DSCP with trust dscp, else the class of the port's
// default CoS (RoCE between routed ports carries no VLAN tag, so CoS
// trust sees no priority field).
func (p *PortConfig) TCOf(dscp int) int {
	if tc, ok := p.PolicyTC[dscp]; ok {
		return tc
	}
	if p.TrustsDSCP() {
		return p.DSCPToTC[dscp]
	}
	return p.CoSToTC[p.DefaultCoS]
}

// SwitchTCOf is TCOf as the switch applies it: a class beyond the model's
// 8 where the port's DSCP map gives one (BeyondTC, SONiC's TC 8), which
// TCOf runs as the class of a DSCP the map leaves out. For lint's words
// and comparisons of what the switches do; the model's classes are
// TCOf's.
func (p *PortConfig) SwitchTCOf(dscp int) int {
	if _, byPolicy := p.PolicyTC[dscp]; !byPolicy && p.TrustsDSCP() {
		if tc, ok := p.BeyondTC[dscp]; ok {
			return tc
		}
	}
	return p.TCOf(dscp)
}

// GeneratedLossless says whether the switch's buffer manager makes PG g
// lossless when the config gives the PG no profile of its own: SONiC's
// buffermgrd makes the PGs numbered as the PFC priorities lossless
// (doSpeedUpdateTask: BUFFER_PG|<port>|3-4 from pfc_enable "3,4"), not
// the PGs tc_to_pg_map sends those priorities to, so a PFC priority mapped
// to another PG lands on a lossy one. EOS maps each priority to its own
// PG, where the two rules agree. The priorities are the port's PFC
// priorities, or ManagerLossless where the manager reads others.
func (p *PortConfig) GeneratedLossless(g int) bool {
	if p.ManagerLossless != nil {
		return slices.Contains(p.ManagerLossless, g)
	}
	return slices.Contains(p.PFCPriorities, g)
}

// Class resolves traffic class tc on the port.
func (p *PortConfig) Class(tc int) Class {
	c := Class{TC: tc, PG: mapOr(p.TCToPG, tc, 0), Queue: mapOr(p.TCToQueue, tc, tc), PausedQueue: mapOr(p.PFCToQueue, tc, tc)}
	c.PGConfig = p.PG(c.PG)
	c.QueueConfig = p.Queue(c.Queue)
	c.PFC = slices.Contains(p.PFCPriorities, tc)
	// Without buffer tables in the files read the PG's profile is not
	// known: PFC alone says lossless.
	c.Lossless = c.PFC && (p.BufferUnknown || c.PGConfig != nil && LosslessProfile(&c.PGConfig.BufferProfile))
	if c.PFC && p.Watchdog != nil && p.Watchdog.Watches(tc) {
		c.Watchdog = p.Watchdog
	}
	return c
}

// LosslessProfile says whether a PG profile can hold a class lossless: it
// has headroom (xoff) above 0. SAI generates XOFF only for a PG whose
// profile sets an XOFF threshold; without one the PG is lossy.
func LosslessProfile(b *BufferProfile) bool {
	return b.SizedBySwitch || b.XoffBytes != nil && *b.XoffBytes > 0
}

// mapOr is m[k], or def when m has no k.
func mapOr(m map[int]int, k, def int) int {
	if v, ok := m[k]; ok {
		return v
	}
	return def
}
