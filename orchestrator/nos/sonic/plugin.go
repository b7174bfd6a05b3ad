package sonic

import "github.com/labctl/labctl/orchestrator/qos"

// Plugin is the SONiC NOS plug-in (it satisfies nos.NOS).
type Plugin struct{}

// Name returns "sonic".
func (Plugin) Name() string { return Name }

// Kind returns the containerlab kind, "sonic-vs".
func (Plugin) Kind() string { return Kind }

// DefaultImage returns the docker-sonic-vs image name.
func (Plugin) DefaultImage() string { return DefaultImage }

// InterfaceName maps containerlab's ethN to EthernetX.
func (Plugin) InterfaceName(index int) string { return InterfaceName(index) }

// ConfigExt returns ".json".
func (Plugin) ConfigExt() string { return ConfigExt }

// RenderQoS renders CONFIG_DB JSON.
func (Plugin) RenderQoS(dc qos.DeviceConfig) ([]byte, error) { return Render(dc) }

// ParseReadsOnlyData says the parse depends only on the files' bytes and
// the device's name only through Device (nos.DataOnlyParser): CONFIG_DB's
// tables say nothing of the file they come from, and nothing in the model
// names it.
func (Plugin) ParseReadsOnlyData() {}

// ParseQoS parses and merges CONFIG_DB JSON files.
func (Plugin) ParseQoS(device string, srcs ...qos.Source) (qos.DeviceConfig, error) {
	return Parse(device, srcs...)
}

// ParseQoSFor parses and merges a lab switch's CONFIG_DB JSON files
// (nos.DeviceParser): the lab says which ports the switch has (ParseFor).
func (Plugin) ParseQoSFor(dev *qos.Device, srcs ...qos.Source) (qos.DeviceConfig, error) {
	return ParseFor(dev, srcs...)
}

// Fields states how labctl uses each field it reads.
func (Plugin) Fields() []qos.FieldUse { return Fields() }

// MTULimits are a SONiC lab's MTU limits, read by nos.CheckSpec and lint's
// registration (qos.RegisterPortMaxMTU, by package nos): the PORT mtu
// values portsorch takes (cfgPortMTUMin, cfgPortMTUMax), the most a port
// takes being the most labctl renders on a lab's.
func (Plugin) MTULimits() (lo, port, lab int) { return cfgPortMTUMin, cfgPortMTUMax, cfgPortMTUMax }
