package qos

import (
	"maps"
	"slices"
	"strings"
)

// Clone returns a deep copy of the device config.
func (d DeviceConfig) Clone() DeviceConfig {
	out := d
	out.DSCPToTC = maps.Clone(d.DSCPToTC)
	out.TCToQueue = maps.Clone(d.TCToQueue)
	out.TCToPG = maps.Clone(d.TCToPG)
	out.Notes = slices.Clone(d.Notes)
	out.Pools = slices.Clone(d.Pools)
	for i := range out.Pools {
		out.Pools[i].HeadroomPoolBytes = clonePtr(out.Pools[i].HeadroomPoolBytes)
	}
	out.Ports = make([]PortConfig, len(d.Ports))
	for i, p := range d.Ports {
		q := p
		q.DSCPToTC = maps.Clone(p.DSCPToTC)
		q.PFCPriorities = slices.Clone(p.PFCPriorities)
		if p.Watchdog != nil {
			w := *p.Watchdog
			q.Watchdog = &w
		}
		q.Queues = make([]QueueConfig, len(p.Queues))
		for j, qc := range p.Queues {
			if qc.ECN != nil {
				e := *qc.ECN
				qc.ECN = &e
			}
			if qc.Buffer != nil {
				qc.Buffer = Ptr(qc.Buffer.Clone())
			}
			q.Queues[j] = qc
		}
		q.PGs = make([]PGConfig, len(p.PGs))
		for j, pg := range p.PGs {
			pg.BufferProfile = pg.BufferProfile.Clone()
			q.PGs[j] = pg
		}
		if p.PGs == nil {
			q.PGs = nil
		}
		out.Ports[i] = q
	}
	if d.Ports == nil {
		out.Ports = nil
	}
	return out
}

// Clone returns a deep copy of the profile.
func (b BufferProfile) Clone() BufferProfile {
	b.SizeBytes = clonePtr(b.SizeBytes)
	b.StaticThBytes = clonePtr(b.StaticThBytes)
	b.DynamicTh = clonePtr(b.DynamicTh)
	b.XoffBytes = clonePtr(b.XoffBytes)
	b.XonBytes = clonePtr(b.XonBytes)
	b.XonOffsetBytes = clonePtr(b.XonOffsetBytes)
	return b
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// WithoutECN returns the config with ECN marking removed from every queue:
// the ecn=off variant of a scenario, applied to whatever the config files
// say (edits included).
func (d DeviceConfig) WithoutECN() DeviceConfig {
	out := d.Clone()
	for i := range out.Ports {
		for j := range out.Ports[i].Queues {
			out.Ports[i].Queues[j].ECN = nil
		}
	}
	return out
}

// WithoutPFC returns the config with PFC removed from every port: no PFC
// priorities, no watchdog, and the lossless buffer turned lossy (the
// pfc=off variant): the lossless PGs take the port's lossy PG profile and
// the lossless queues its lossy queue profile, so the class drops where
// it would have paused. Pools stay: the buffer is the ASIC's.
func (d DeviceConfig) WithoutPFC() DeviceConfig {
	out := d.Clone()
	out.WatchdogPollMs = 0
	for i := range out.Ports {
		p := &out.Ports[i]
		p.PFCPriorities = []int{}
		p.Watchdog = nil
		var lossyPG, lossyQ *BufferProfile
		for _, pg := range p.PGs {
			if !pg.Lossless && lossyPG == nil {
				lossyPG = Ptr(pg.BufferProfile.Clone())
			}
		}
		for _, q := range p.Queues {
			if q.Buffer != nil && lossyQ == nil && !isLosslessQueueProfile(q.Buffer) {
				lossyQ = Ptr(q.Buffer.Clone())
			}
		}
		kept := p.PGs[:0]
		for _, pg := range p.PGs {
			if !pg.Lossless {
				kept = append(kept, pg)
			} else if lossyPG != nil {
				kept = append(kept, PGConfig{PG: pg.PG, BufferProfile: lossyPG.Clone()})
			}
		}
		p.PGs = kept
		if len(p.PGs) == 0 {
			p.PGs = nil
		}
		for j := range p.Queues {
			if q := &p.Queues[j]; q.Buffer != nil && lossyQ != nil && isLosslessQueueProfile(q.Buffer) {
				q.Buffer = Ptr(lossyQ.Clone())
			}
		}
	}
	return out
}

// isLosslessQueueProfile tells a lossless egress queue profile by its pool
// or name, as SONiC names them.
func isLosslessQueueProfile(b *BufferProfile) bool {
	return strings.Contains(b.Pool, "lossless") || strings.Contains(b.Profile, "lossless")
}
