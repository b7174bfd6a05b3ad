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

// MTULimits are an EOS lab's MTU limits, read by nos.CheckSpec and lint's
// registration (qos.RegisterPortMaxMTU, by package nos): the least an
// mtu line takes (MinMTU), the most a port of the modeled platform takes
// (PlatformMaxMTU) and the most labctl renders on a lab's ports
// (LabMaxMTU, what cEOS and the platform both take).
func (Plugin) MTULimits() (lo, port, lab int) { return MinMTU, PlatformMaxMTU, LabMaxMTU }

// MTURangeNote says what MTULimits' lab limit is: what a cEOS lab switch
// takes, below the modeled platform's maximum (nos.CheckSpec's error,
// lint's QOS020 and QOS021).
func (Plugin) MTURangeNote() string {
	return fmt.Sprintf("a cEOS lab switch takes at most %d, the modeled 7050CX3 %d", CEOSMaxMTU, PlatformMaxMTU)
}
