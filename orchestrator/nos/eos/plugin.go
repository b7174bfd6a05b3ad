package eos

import (
	"fmt"

	"github.com/labctl/labctl/orchestrator/qos"
)

// Plugin is the Arista EOS NOS plug-in (it satisfies nos.NOS).
type Plugin struct{}

// Name returns "eos".
func (Plugin) Name() string { return Name }

// Kind returns the containerlab kind, "arista_ceos".
func (Plugin) Kind() string { return Kind }

// DefaultImage returns the cEOS-lab image name.
func (Plugin) DefaultImage() string { return DefaultImage }

// InterfaceName maps containerlab's ethN to EthernetN.
func (Plugin) InterfaceName(index int) string { return InterfaceName(index) }

// ConfigExt returns ".cfg".
func (Plugin) ConfigExt() string { return ConfigExt }

// RenderQoS renders EOS CLI.
func (Plugin) RenderQoS(dc qos.DeviceConfig) ([]byte, error) { return Render(dc) }

// ParseQoS parses EOS configuration files, read in order.
func (Plugin) ParseQoS(device string, srcs ...qos.Source) (qos.DeviceConfig, error) {
	return Parse(device, srcs...)
}

// Fields states how labctl uses each field it reads.
func (Plugin) Fields() []qos.FieldUse { return Fields() }

// MTURange returns the MTUs labctl renders on an EOS lab's ports (MinMTU
// to LabMaxMTU, what cEOS and the modeled platform both take): a lab
// whose ports labctl would render outside them is refused (nos.CheckSpec).
func (Plugin) MTURange() (lo, hi int) { return MinMTU, LabMaxMTU }

// MTURangeNote says what MTURange's upper end is: what a cEOS lab switch
// takes, below the modeled platform's maximum (nos.CheckSpec's error).
func (Plugin) MTURangeNote() string {
	return fmt.Sprintf("a cEOS lab switch takes at most %d, the modeled 7050CX3 %d", CEOSMaxMTU, PlatformMaxMTU)
}

// A port takes at most PlatformMaxMTU, a lab's at most LabMaxMTU (lint's QOS020 says so).
func init() { qos.RegisterPortMaxMTU(Name, PlatformMaxMTU, LabMaxMTU, Plugin{}.MTURangeNote()) }
