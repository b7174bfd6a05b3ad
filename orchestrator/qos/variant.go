package qos

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/lab"
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

// WithOverrides returns the config with a scenario's swept QoS values
// applied on top of what the config holds, edits included, in the lab
// spec's terms (lab.QoSSpec):
//
//   - ecn.kmin_kb, ecn.kmax_kb (KiB) and ecn.pmax: every queue that marks
//     takes the value; its other thresholds stay as the config has them;
//   - pfc_watchdog.detection_ms, restoration_ms, action: every port whose
//     PFC watchdog is on takes the value;
//   - pfc_watchdog.enabled: false takes the watchdog off every port; true
//     keeps it where the config has it (it cannot invent one where the
//     config has none).
//
// mtu is no switch setting labctl renders (the NICs' packet size): it is
// left to the caller. Keys that reshape the whole config (profile,
// lossless_priorities, the DSCPs, cable_length_m, ets_weights, ECN's and
// PFC's enabled flags) cannot be carried over onto an edited config and are an error.
// The int is how many queues or ports the values reached, so a caller can
// tell a sweep that changes nothing (no queue marks) from one that does.
func (d DeviceConfig) WithOverrides(o lab.QoSSpec) (DeviceConfig, int, error) {
	if err := checkOverridable(o); err != nil {
		return d, 0, err
	}
	out := d.Clone()
	reached := 0
	if e := o.ECN; e != nil && (e.KminKB != nil || e.KmaxKB != nil || e.Pmax != nil) {
		for i := range out.Ports {
			p := &out.Ports[i]
			for j := range p.Queues {
				ec := p.Queues[j].ECN
				if ec == nil {
					continue
				}
				if ec.Unit != "" && (e.KminKB != nil || e.KmaxKB != nil) {
					return d, 0, fmt.Errorf("%s %s queue %d gives its ECN thresholds in %s, not bytes, so a Kmin or Kmax in KiB cannot be set on it", d.Device, p.Name, p.Queues[j].Queue, ec.Unit)
				}
				if e.KminKB != nil {
					ec.MinBytes = int64(*e.KminKB) * 1024
				}
				if e.KmaxKB != nil {
					ec.MaxBytes = int64(*e.KmaxKB) * 1024
				}
				if e.Pmax != nil {
					ec.Pmax = *e.Pmax
				}
				if ec.MinBytes >= ec.MaxBytes {
					return d, 0, fmt.Errorf("%s %s queue %d would mark from %d bytes (Kmin) with its Kmax at %d bytes: Kmin must stay below Kmax", d.Device, p.Name, p.Queues[j].Queue, ec.MinBytes, ec.MaxBytes)
				}
				reached++
			}
		}
	}
	if w := o.PFCWatchdog; w != nil && w.Enabled != nil {
		for i := range out.Ports {
			if out.Ports[i].Watchdog == nil {
				continue
			}
			if !*w.Enabled {
				out.Ports[i].Watchdog = nil
			}
			reached++
		}
		if !*w.Enabled {
			out.WatchdogPollMs = 0
		}
	}
	if w := o.PFCWatchdog; w != nil && (w.DetectionMs != nil || w.RestorationMs != nil || w.Action != nil) {
		for i := range out.Ports {
			wd := out.Ports[i].Watchdog
			if wd == nil {
				continue
			}
			if w.DetectionMs != nil {
				wd.DetectionMs = *w.DetectionMs
			}
			if w.RestorationMs != nil {
				wd.RestorationMs = *w.RestorationMs
			}
			if w.Action != nil {
				wd.Action = *w.Action
			}
			reached++
		}
	}
	if o.BufferPoolBytes != nil {
		reached += out.ResizePools(*o.BufferPoolBytes)
	}
	return out, reached, nil
}

// ResizePools gives the switch a shared buffer of size bytes: every
// ingress pool and the egress lossy pool take that size, and the egress
// lossless pool, which labctl sizes as the whole buffer (the ingress pool
// plus headroom and reserves), grows or shrinks by as much as the ingress
// pool did. It returns how many pools changed.
func (d *DeviceConfig) ResizePools(size int64) int {
	old := d.SharedPoolBytes
	if pl := d.Pool(IngressLosslessPool); pl != nil {
		old = pl.SizeBytes
	}
	n := 0
	for i := range d.Pools {
		pl := &d.Pools[i]
		switch {
		case pl.Type == "ingress", pl.Name == EgressLossyPool:
			pl.SizeBytes = size
		case pl.Name == EgressLosslessPool && old > 0:
			pl.SizeBytes = max(size, pl.SizeBytes+size-old)
		default:
			continue
		}
		n++
	}
	d.SharedPoolBytes = size
	return n
}

// checkOverridable refuses the keys WithOverrides cannot apply to a config.
func checkOverridable(o lab.QoSSpec) error {
	var bad []string
	if o.Profile != "" {
		bad = append(bad, "profile")
	}
	if len(o.LosslessPriorities) > 0 {
		bad = append(bad, "lossless_priorities")
	}
	if o.RoCEDSCP != nil {
		bad = append(bad, "roce_dscp")
	}
	if o.CNPDSCP != nil {
		bad = append(bad, "cnp_dscp")
	}
	if o.CableLengthM != nil {
		bad = append(bad, "cable_length_m")
	}
	if o.ECN != nil && o.ECN.Enabled != nil {
		bad = append(bad, "ecn.enabled")
	}
	if o.PFC != nil && o.PFC.Enabled != nil {
		bad = append(bad, "pfc.enabled")
	}
	if len(o.ETSWeights) > 0 {
		bad = append(bad, "ets_weights")
	}
	if len(bad) > 0 {
		return fmt.Errorf("qos %s cannot be applied on top of a switch config", strings.Join(bad, ", "))
	}
	return nil
}
