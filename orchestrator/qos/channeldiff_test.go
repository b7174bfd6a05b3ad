package qos

import (
	"strings"
	"testing"
)

// Regress names a member's LACP mode, its port channel's address, its
// port channel down, its LACP fallback and its min links: each decides whether the link carries traffic
// (ChannelAlone). labctl's comparison named the port channel alone.
func TestDiffNamesChannelModeAddressAndDown(t *testing.T) {
	base := PortConfig{Name: "Ethernet1", Channel: "Port-Channel1", ChannelMode: "active", ChannelAddress: true}
	for _, c := range []struct {
		field string
		edit  func(p *PortConfig)
	}{
		{"port_channel_mode", func(p *PortConfig) { p.ChannelMode = "passive" }},
		{"port_channel_address", func(p *PortConfig) { p.ChannelAddress = false }},
		{"port_channel_down", func(p *PortConfig) { p.ChannelDown = `PORTCHANNEL|PortChannel1 admin_status "down"` }},
		{"port_channel_fallback", func(p *PortConfig) { p.ChannelFallback = "static" }},
		{"port_channel_min_links", func(p *PortConfig) { p.ChannelMinLinks = 2 }},
	} {
		b := base
		c.edit(&b)
		diffs := Diff([]DeviceConfig{{Device: "leaf1", Ports: []PortConfig{base}}}, []DeviceConfig{{Device: "leaf1", Ports: []PortConfig{b}}})
		var named bool
		for _, d := range diffs {
			named = named || strings.Contains(d.String(), c.field)
		}
		if !named {
			t.Errorf("%s changed: differences %v, none names it", c.field, diffs)
		}
	}
}
