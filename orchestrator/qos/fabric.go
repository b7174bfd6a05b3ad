package qos

import "github.com/labctl/labctl/orchestrator/fabric"

// DevicesFromGraph adapts a fabric graph to the QoS layer's device list:
// every switch with its data ports (NOS names, speeds, "node:port" peers).
// Hosts are left out. The graph has no cable lengths, so ports get the
// intent's CableLengthM.
//
// A lab port that stands for several merged plan links gets the speed of
// one member link: QoS thresholds and headroom belong to each physical port
// of the real fabric, and scaling them to the aggregate (16 x 400G) would
// give buffers no switch has.
func DevicesFromGraph(g *fabric.Graph) []Device {
	var out []Device
	for _, n := range g.Switches() {
		d := Device{Name: n.Name, Role: string(n.Role), Kind: n.Kind, FrontPanel: g.FrontPanelPorts(n)}
		for _, p := range n.Ports {
			peer := p.Peer
			if p.PeerPort != "" {
				peer += ":" + p.PeerPort
			}
			speed := p.SpeedGbps
			if p.Merged > 1 {
				speed /= p.Merged
			}
			d.Ports = append(d.Ports, Port{Name: p.Name, SpeedGbps: speed, Peer: peer, Fabric: true, MTU: fabric.SwitchMTU})
		}
		out = append(out, d)
	}
	return out
}
