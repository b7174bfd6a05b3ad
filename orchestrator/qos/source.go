package qos

import (
	"fmt"
	"maps"
	"slices"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// Source is one config file handed to a NOS parser: its name (for error
// messages) and its bytes.
type Source struct {
	Name string
	Data []byte
}

// AttachTopology adds what vendor files do not say to parsed configs: each
// port's peer, whether it is a data port, and (when the file does not give
// them) its speed and cable length. A data port the file
// does not name gets the QoS its NOS gives an unconfigured port (the
// resolver's DefaultPort). A config without buffer pools, or without any
// buffer tables, gets the buffer of the switch labctl assumes (the one it
// renders for the lab: AssumedBuffer), named in Defaults. Ports the fabric
// does not know keep what the file says. After it, PeersKnown is true for
// devices found in devs, so lint checks both ends of each link.
func AttachTopology(cfgs []DeviceConfig, devs []Device, in Intent) {
	byName := map[string]*Device{}
	for i := range devs {
		byName[devs[i].Name] = &devs[i]
	}
	for i := range cfgs {
		d := &cfgs[i]
		dev := byName[d.Device]
		if dev == nil {
			continue
		}
		d.PeersKnown = true
		ports := map[string]Port{}
		for _, p := range dev.Ports {
			ports[p.Name] = p
		}
		d.dropNoSuchPorts(dev)
		for j := range d.Ports {
			pc := &d.Ports[j]
			p, ok := ports[pc.Name]
			if !ok {
				// A port the fabric does not use: not a data port.
				pc.Fabric = false
				continue
			}
			pc.Peer = p.Peer
			pc.Fabric = p.Fabric
			fillPort(pc, p, in)
		}
		var missing []string
		for _, p := range dev.Ports {
			if !p.Fabric || d.Port(p.Name) != nil {
				continue
			}
			pc := PortConfig{Name: p.Name, Peer: p.Peer, Fabric: true, PFCPriorities: []int{}}
			if d.DefaultPort != nil {
				pc = clonePort(*d.DefaultPort)
				pc.Name, pc.Peer, pc.Fabric = p.Name, p.Peer, true
			}
			fillPort(&pc, p, in)
			d.Ports = append(d.Ports, pc)
			missing = append(missing, p.Name)
		}
		if len(missing) > 0 {
			d.Defaults = append(d.Defaults, Default{Field: "port", Value: "the QoS of a port the config does not name", Source: d.NOS + " defaults", Ports: missing, Risky: true})
		}
		assumeBuffer(d, *dev, in)
		// A platform's assumed buffer (EOS) is sized as the lab says when
		// it sets qos.buffer_pool_bytes.
		if d.PlatformBuffer && in.Buffer.SharedPoolBytes > 0 {
			d.ResizePools(in.Buffer.SharedPoolBytes)
		}
		if d.PlatformBuffer {
			d.holdIngressAtEgress()
		}
		d.Sort()
	}
}

func fillPort(pc *PortConfig, p Port, in Intent) {
	if pc.SpeedGbps == 0 {
		pc.SpeedGbps = p.SpeedGbps
	}
	pc.LinkSpeedGbps = p.SpeedGbps
	pc.LinkCableM = in.cableM(p)
	if pc.CableM == 0 {
		pc.CableM = pc.LinkCableM
	}
}

// assumeBuffer gives a config without pools, or ports without buffer
// profiles (their config has no buffer tables at all), the buffer labctl
// renders for the lab: what the switch's own buffer template would set up
// is not in the files read, and a simulation needs one. Lossless profiles
// go to the PGs of the port's own PFC priorities, as SONiC's buffer
// manager creates them from pfc_enable.
//
// What labctl renders is Apply's, but a port's part of it is rendered only
// for a port that takes some (Intent.portConfig), and the whole switch
// only for its pools: most configs (every rendered SONiC one) have their
// buffers, and rendering every switch for nothing was a quarter of
// 'labctl config lint' on the 4096-GPU lab.
func assumeBuffer(d *DeviceConfig, dev Device, in Intent) {
	if _, unknown := dev.portWithoutSpeed(); unknown {
		return // Apply renders nothing for the switch
	}
	if len(d.Pools) == 0 {
		want, err := Apply(in, dev)
		if err != nil {
			return
		}
		d.Pools = slices.Clone(want.Pools)
		d.Defaults = append(d.Defaults, Default{Field: "buffer pools", Value: fmt.Sprintf("the pools labctl renders for %s (ingress pool %d bytes)", dev.Name, want.IngressPoolBytes()),
			Source: "assumed: the config has no buffer pools, the switch's SKU template sets them"})
	}
	fabric := dev.fabricPorts()
	var pgPorts, qPorts []string
	for j := range d.Ports {
		p := &d.Ports[j]
		dp := fabric[p.Name]
		if dp == nil || !p.Fabric {
			continue
		}
		var rendered *PortConfig
		wanted := func() *PortConfig { // what Apply gives the port
			if rendered == nil {
				// The buffer manager sizes the lossless PGs for the
				// cable the config gives (CABLE_LENGTH), which need not
				// be the link's.
				at := *dp
				at.CableM = p.CableM
				pc := in.portConfig(at)
				rendered = &pc
			}
			return rendered
		}
		if p.PGs == nil && p.BufferUnknown {
			p.PGs = assumedPGs(p, wanted(), in)
			pgPorts = append(pgPorts, p.Name)
		}
		// Lossless PGs the NOS makes itself take the lab's profile for
		// the port.
		for k := range p.PGs {
			g := &p.PGs[k]
			if !g.Assumed || !p.GeneratedLossless(g.PG) {
				continue
			}
			if lp := losslessOf(wanted()); lp != nil {
				g.BufferProfile = lp.Clone()
			}
		}
		if p.BufferUnknown {
			for k := range p.Queues {
				q := &p.Queues[k]
				if q.Buffer != nil {
					continue
				}
				if slices.ContainsFunc(p.PFCPriorities, func(pr int) bool { return mapOr(p.TCToQueue, pr, pr) == q.Queue }) {
					q.Buffer = Ptr(EgressLosslessProfile())
				} else {
					q.Buffer = Ptr(EgressLossyProfile())
				}
			}
			qPorts = append(qPorts, p.Name)
		}
		p.BufferUnknown = false
	}
	if len(pgPorts) > 0 {
		d.Defaults = append(d.Defaults, Default{Field: "priority group buffers", Value: "the PG profiles labctl renders for the port's speed and cable, lossless for its PFC priorities",
			Source: "assumed: the config has no buffer tables (BUFFER_PG), the switch's buffer manager creates them", Ports: pgPorts})
	}
	if len(qPorts) > 0 && len(pgPorts) == 0 {
		d.Defaults = append(d.Defaults, Default{Field: "queue buffers", Value: "labctl's egress lossless profile for the PFC priorities' queues, its lossy one for the rest",
			Source: "assumed: the config has no buffer tables (BUFFER_QUEUE)", Ports: qPorts})
	}
}

// assumedPGs are the PG profiles of a port whose config has no buffer
// tables: for every PG its classes use, the intent's lossless profile
// where the buffer manager makes it lossless (GeneratedLossless), the
// lossy one otherwise.
func assumedPGs(p, want *PortConfig, in Intent) []PGConfig {
	lossless := losslessOf(want)
	if lossless == nil {
		lossless = Ptr(in.losslessPGProfile(p.SpeedGbps, p.CableM))
	}
	used := map[int]bool{}
	for tc := range NumTC {
		used[mapOr(p.TCToPG, tc, 0)] = true
	}
	var out []PGConfig
	for _, g := range slices.Sorted(maps.Keys(used)) {
		b := IngressLossyProfile()
		if p.GeneratedLossless(g) {
			b = lossless.Clone()
		}
		out = append(out, PGConfig{PG: g, BufferProfile: b, Origin: "assumed (no buffer tables in the config)", Assumed: true})
	}
	return out
}

// losslessOf is the lossless PG profile of a rendered port, nil without
// one.
func losslessOf(p *PortConfig) *BufferProfile {
	for _, g := range p.PGs {
		if LosslessProfile(&g.BufferProfile) {
			return Ptr(g.BufferProfile.Clone())
		}
	}
	return nil
}

func clonePort(p PortConfig) PortConfig {
	d := DeviceConfig{Ports: []PortConfig{p}}
	return d.Clone().Ports[0]
}

// dropNoSuchPorts takes the ports the switch does not have
// (Device.NoSuchPort) out of d, as their entries configure nothing: the
// model holds no such port, the defaults and references it had name it no
// more, and one Overruled entry per port says where its entries went
// (lint: QOS021).
func (d *DeviceConfig) dropNoSuchPorts(dev *Device) {
	var gone []string
	d.Ports = slices.DeleteFunc(d.Ports, func(pc PortConfig) bool {
		if dev.NoSuchPort(pc.Name) {
			gone = append(gone, pc.Name)
			return true
		}
		return false
	})
	if len(gone) == 0 {
		return
	}
	isGone := func(name string) bool { return slices.Contains(gone, name) }
	d.Defaults = withoutPorts(d.Defaults, func(x *Default) *[]string { return &x.Ports }, isGone)
	d.Unresolved = withoutPorts(d.Unresolved, func(x *Unresolved) *[]string { return &x.Ports }, isGone)
	d.Overruled = withoutPorts(d.Overruled, func(x *Overruled) *[]string { return &x.Ports }, isGone)
	for _, name := range gone {
		d.Overruled = append(d.Overruled, Overruled{
			Where: "the entries naming " + name,
			What:  noSuchPortWhat(dev),
			Fix:   "key the entries by a port of the switch (a typo of one?), or delete them",
			Ports: []string{name},
		})
	}
}

// withoutPorts takes the ports gone says out of each entry's list (ports
// gives it), in one pass, and leaves out an entry that named ports and now
// names none (it was about those ports alone); a device-wide entry (no
// ports) stays.
func withoutPorts[T any](entries []T, ports func(*T) *[]string, gone func(string) bool) []T {
	kept := entries[:0]
	for i := range entries {
		e := entries[i]
		p := ports(&e)
		had := len(*p) > 0
		*p = slices.DeleteFunc(slices.Clone(*p), gone)
		if had && len(*p) == 0 {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// noSuchPortWhat says what a switch does with config entries naming a port
// it does not have (Device.NoSuchPort), and which ports it has.
func noSuchPortWhat(dev *Device) string {
	does := "the switch applies none of these entries"
	switch dev.Kind {
	case fabric.KindSonicVS:
		does = "orchagent applies none of these entries to it (it logs that no port has the name, drops a QUEUE, BUFFER_PG, BUFFER_QUEUE or PFC_WD entry and skips the name in a PORT_QOS_MAP key); where a BUFFER_PG or BUFFER_QUEUE key lists it beside other ports, bufferorch refuses the whole entry (it looks every port up before applying any), and qosorch applies a QUEUE entry port by port up to it, so the ports listed with it (after it, for QUEUE) lose the entry too, which labctl models for BUFFER_PG and BUFFER_QUEUE (in a lab, from the lab's ports; in bare files, where the config is a whole CONFIG_DB, DEVICE_METADATA's hwsku and every PORT entry with its lanes, whose PORT table leaves the port out), not for QUEUE: it gives them the entry"
	case fabric.KindCEOS:
		does = "EOS has no such interface, so nothing of its configuration applies"
	}
	return fmt.Sprintf("no port of %s has that name (%s, %d of them wired in the lab): %s, and lint checks no other rule there",
		dev.Name, FrontPanelPorts(dev), len(dev.Ports), does)
}

// FrontPanelPorts says which front-panel ports a switch has ("its 64
// front-panel ports are Ethernet0..Ethernet252"), for a note on an entry
// naming one it lacks (Device.NoSuchPort).
func FrontPanelPorts(dev *Device) string {
	return fmt.Sprintf("its %d front-panel ports are %s..%s", dev.FrontPanel, fabric.PortName(dev.Kind, 1), fabric.PortName(dev.Kind, dev.FrontPanel))
}
