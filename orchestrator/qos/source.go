package qos

// Source is one config file handed to a NOS parser: its name (for error
// messages) and its bytes.
type Source struct {
	Name string
	Data []byte
}

// AttachTopology adds what vendor files do not say to parsed configs: each
// port's peer, whether it is a data port, and (when the file does not give
// them) its speed, cable length and the lab's MTU. Ports the fabric does not
// know keep what the file says. After it, PeersKnown is true for devices
// found in devs, so lint checks both ends of each link.
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
			if pc.SpeedGbps == 0 {
				pc.SpeedGbps = p.SpeedGbps
			}
			if pc.CableM == 0 {
				pc.CableM = p.CableM
				if pc.CableM == 0 {
					pc.CableM = in.CableLengthM
				}
			}
			if pc.MTU == 0 {
				pc.MTU = in.MTU
			}
		}
		// Data ports missing from the file entirely have no QoS at all.
		for _, p := range dev.Ports {
			if p.Fabric && d.Port(p.Name) == nil {
				d.Ports = append(d.Ports, PortConfig{Name: p.Name, SpeedGbps: p.SpeedGbps, CableM: p.CableM, MTU: in.MTU, Peer: p.Peer, Fabric: true, PFCPriorities: []int{}})
			}
		}
		d.Sort()
	}
}
