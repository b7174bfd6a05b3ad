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
	out.Notes = slices.Clone(d.Notes)
	out.Fields = slices.Clone(d.Fields)
	out.Unsimulated = slices.Clone(d.Unsimulated)
	out.Filters = slices.Clone(d.Filters)
	for i := range out.Filters {
		out.Filters[i].Ports = slices.Clone(out.Filters[i].Ports)
		out.Filters[i].DSCPs = slices.Clone(out.Filters[i].DSCPs)
	}
	out.Defaults = slices.Clone(d.Defaults)
	for i := range out.Defaults {
		out.Defaults[i].Ports = slices.Clone(out.Defaults[i].Ports)
	}
	out.Unresolved = slices.Clone(d.Unresolved)
	for i := range out.Unresolved {
		out.Unresolved[i].Ports = slices.Clone(out.Unresolved[i].Ports)
	}
	out.Overruled = slices.Clone(d.Overruled)
	for i := range out.Overruled {
		out.Overruled[i].Ports = slices.Clone(out.Overruled[i].Ports)
	}
	out.Sources = slices.Clone(d.Sources)
	if d.DefaultPort != nil {
		out.DefaultPort = Ptr(clonePort(*d.DefaultPort))
	}
	out.Pools = slices.Clone(d.Pools)
	for i := range out.Pools {
		out.Pools[i].HeadroomPoolBytes = clonePtr(out.Pools[i].HeadroomPoolBytes)
	}
	out.Ports = make([]PortConfig, len(d.Ports))
	for i, p := range d.Ports {
		q := p
		q.DSCPToTC = maps.Clone(p.DSCPToTC)
		q.PolicyTC = maps.Clone(p.PolicyTC)
		q.BeyondTC = maps.Clone(p.BeyondTC)
		q.BeyondQueue = maps.Clone(p.BeyondQueue)
		q.DSCPToDropPrecedence = maps.Clone(p.DSCPToDropPrecedence)
		q.CoSToTC = maps.Clone(p.CoSToTC)
		q.TCToQueue = maps.Clone(p.TCToQueue)
		q.TCToPG = maps.Clone(p.TCToPG)
		q.PFCToQueue = maps.Clone(p.PFCToQueue)
		q.PFCToPG = maps.Clone(p.PFCToPG)
		q.TCToDSCP = maps.Clone(p.TCToDSCP)
		q.Origins = maps.Clone(p.Origins)
		q.PFCPriorities = slices.Clone(p.PFCPriorities)
		q.AdvSpeedsGbps = slices.Clone(p.AdvSpeedsGbps)
		q.ManagerLossless = slices.Clone(p.ManagerLossless)
		q.Watchdog = clonePtr(p.Watchdog)
		q.Shaper = clonePtr(p.Shaper)
		q.Queues = make([]QueueConfig, len(p.Queues))
		for j, qc := range p.Queues {
			qc.ECN = clonePtr(qc.ECN)
			qc.Shaper = clonePtr(qc.Shaper)
			qc.Drop = clonePtr(qc.Drop)
			if qc.WRED != nil {
				w := *qc.WRED
				w.Yellow, w.Red = clonePtr(w.Yellow), clonePtr(w.Red)
				qc.WRED = &w
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
// say (edits included). WRED's early drop is not ECN and stays.
func (d DeviceConfig) WithoutECN() DeviceConfig {
	out := d.Clone()
	out.RemoveECN()
	return out
}

// RemoveECN is WithoutECN in place, for a config that is the caller's own
// (a Clone, or what runtime.LoadConfigs hands out): nothing it points to
// is shared with another config.
func (d *DeviceConfig) RemoveECN() {
	for i := range d.Ports {
		for j := range d.Ports[i].Queues {
			q := &d.Ports[i].Queues[j]
			q.ECN = nil
			if w := q.WRED; w != nil {
				// A colour that marked now neither marks nor drops.
				if w.Yellow != nil && w.Yellow.Mark {
					w.Yellow = nil
				}
				if w.Red != nil && w.Red.Mark {
					w.Red = nil
				}
				if w.Yellow == nil && w.Red == nil && q.Drop == nil {
					q.WRED = nil
				}
			}
		}
	}
}

// WithoutPFC returns the config with PFC removed from every port: no PFC
// priorities, no watchdog, and the lossless buffer turned lossy (the
// pfc=off variant): the lossless PGs take the port's lossy PG profile and
// the lossless queues its lossy queue profile, so the class drops where
// it would have paused. Pools stay: the buffer is the ASIC's.
func (d DeviceConfig) WithoutPFC() DeviceConfig {
	out := d.Clone()
	out.RemovePFC()
	return out
}

// RemovePFC is WithoutPFC in place, for a config that is the caller's own
// (as RemoveECN).
func (d *DeviceConfig) RemovePFC() {
	d.WatchdogPollMs = 0
	for i := range d.Ports {
		p := &d.Ports[i]
		p.PFCPriorities = []int{}
		p.Watchdog = nil
		var lossyPG, lossyQ *BufferProfile
		lossyOrigin := ""
		for _, pg := range p.PGs {
			if !LosslessProfile(&pg.BufferProfile) && lossyPG == nil {
				lossyPG, lossyOrigin = Ptr(pg.BufferProfile.Clone()), pg.Origin
			}
		}
		for _, q := range p.Queues {
			if q.Buffer != nil && lossyQ == nil && !isLosslessQueueProfile(q.Buffer) {
				lossyQ = Ptr(q.Buffer.Clone())
			}
		}
		kept := p.PGs[:0]
		for _, pg := range p.PGs {
			if !LosslessProfile(&pg.BufferProfile) {
				kept = append(kept, pg)
			} else if lossyPG != nil {
				kept = append(kept, PGConfig{PG: pg.PG, BufferProfile: lossyPG.Clone(), Origin: lossyOrigin})
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
	out := d.Clone()
	reached, err := out.ApplyOverrides(o)
	if err != nil {
		return d, 0, err
	}
	return out, reached, nil
}

// ApplyOverrides is WithOverrides in place, for a config that is the
// caller's own (as RemoveECN). On an error the config may hold some of the
// values: the caller drops it.
func (d *DeviceConfig) ApplyOverrides(o lab.QoSSpec) (int, error) {
	if err := checkOverridable(o); err != nil {
		return 0, err
	}
	reached := 0
	if e := o.ECN; e != nil && (e.KminKB != nil || e.KmaxKB != nil || e.Pmax != nil) {
		for i := range d.Ports {
			p := &d.Ports[i]
			for j := range p.Queues {
				ec := p.Queues[j].ECN
				if ec == nil {
					continue
				}
				if ec.Unit != "" && (e.KminKB != nil || e.KmaxKB != nil) {
					return 0, fmt.Errorf("%s %s queue %d gives its ECN thresholds in %s, not bytes, so a Kmin or Kmax in KiB cannot be set on it", d.Device, p.Name, p.Queues[j].Queue, ec.Unit)
				}
				nc := *ec
				if e.KminKB != nil {
					nc.MinBytes = int64(*e.KminKB) * 1024
				}
				if e.KmaxKB != nil {
					nc.MaxBytes = int64(*e.KmaxKB) * 1024
				}
				if e.Pmax != nil {
					nc.Pmax = *e.Pmax
				}
				p.Queues[j].SetMarking(nc)
				ec = &nc
				if ec.MinBytes >= ec.MaxBytes {
					return 0, fmt.Errorf("%s %s queue %d would mark from %d bytes (Kmin) with its Kmax at %d bytes: Kmin must stay below Kmax", d.Device, p.Name, p.Queues[j].Queue, ec.MinBytes, ec.MaxBytes)
				}
				reached++
			}
		}
	}
	if w := o.PFCWatchdog; w != nil && w.Enabled != nil {
		for i := range d.Ports {
			if d.Ports[i].Watchdog == nil {
				continue
			}
			if !*w.Enabled {
				d.Ports[i].Watchdog = nil
			}
			reached++
		}
		if !*w.Enabled {
			d.WatchdogPollMs = 0
		}
	}
	if w := o.PFCWatchdog; w != nil && (w.DetectionMs != nil || w.RestorationMs != nil || w.Action != nil) {
		for i := range d.Ports {
			wd := d.Ports[i].Watchdog
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
		reached += d.ResizePools(*o.BufferPoolBytes)
	}
	return reached, nil
}

// ResizePools gives the switch a shared buffer of size bytes: every
// ingress pool and the egress lossy pool take that size, and the egress
// lossless pool, which labctl sizes as the whole buffer (the ingress pool
// plus headroom and reserves), grows or shrinks by as much as the ingress
// pool did, and holds at least what the ingress side can admit (the new
// ingress pool and its shared headroom pool), so that lossless queues stay
// unlimited at egress: PFC at ingress, not an egress drop, bounds them.
// (An EOS switch's assumed platform pools have an egress lossless pool
// 113 KB smaller than the ingress pool, with 1.6 MB of shared headroom
// beside it: shrunk by as much, a 512 KiB buffer dropped lossless packets
// at egress.) It returns how many pools changed.
func (d *DeviceConfig) ResizePools(size int64) int {
	old := d.IngressPoolBytes()
	var headroom int64
	if pl := d.Pool(IngressLosslessPool); pl != nil && pl.HeadroomPoolBytes != nil {
		headroom = *pl.HeadroomPoolBytes
	}
	n := 0
	for i := range d.Pools {
		pl := &d.Pools[i]
		switch {
		case pl.Type == "ingress", pl.Name == EgressLossyPool:
			pl.SizeBytes = size
		case pl.Name == EgressLosslessPool && old > 0:
			pl.SizeBytes = max(size+headroom, pl.SizeBytes+size-old)
		default:
			continue
		}
		n++
	}
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
