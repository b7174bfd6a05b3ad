package qos

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of the device config.
func (d DeviceConfig) Clone() DeviceConfig {
	out := d
	out.DSCPToTC = maps.Clone(d.DSCPToTC)
	out.TCToQueue = maps.Clone(d.TCToQueue)
	out.TCToPG = maps.Clone(d.TCToPG)
	out.Notes = slices.Clone(d.Notes)
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
			q.Queues[j] = qc
		}
		q.PGs = make([]PGConfig, len(p.PGs))
		for j, pg := range p.PGs {
			if pg.DynamicTh != nil {
				th := *pg.DynamicTh
				pg.DynamicTh = &th
			}
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
// priorities, no watchdog, no lossless headroom (the pfc=off variant).
func (d DeviceConfig) WithoutPFC() DeviceConfig {
	out := d.Clone()
	out.SharedPoolBytes = 0
	out.WatchdogPollMs = 0
	for i := range out.Ports {
		p := &out.Ports[i]
		p.PFCPriorities = []int{}
		p.Watchdog = nil
		p.PGs = slices.DeleteFunc(p.PGs, func(pg PGConfig) bool { return pg.Lossless })
		if len(p.PGs) == 0 {
			p.PGs = nil
		}
	}
	return out
}
