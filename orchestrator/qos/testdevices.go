package qos

// TestDevices is a small synthetic fabric (one leaf, one spine, one host)
// used by labctl's own tests and golden files in this package and the NOS
// packages: a leaf with a 100G host port, a 400G uplink and an unused port;
// a spine with the other end of the uplink.
func TestDevices() []Device {
	return []Device{
		{Name: "leaf1", Role: "leaf", Ports: []Port{
			{Name: "Ethernet0", SpeedGbps: 100, Peer: "h1:eth1", Fabric: true},
			{Name: "Ethernet4", SpeedGbps: 400, CableM: 30, Peer: "spine1:Ethernet0", Fabric: true},
			{Name: "Ethernet8", SpeedGbps: 100},
		}},
		{Name: "spine1", Role: "spine", Ports: []Port{
			{Name: "Ethernet0", SpeedGbps: 400, CableM: 30, Peer: "leaf1:Ethernet4", Fabric: true},
		}},
		{Name: "h1", Role: "host"},
	}
}
