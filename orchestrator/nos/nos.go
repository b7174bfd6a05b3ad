// Package nos defines labctl's network-OS plug-in interface and looks
// plug-ins up by name. As in containerlab (one package per kind) and KNE (a
// base interface plus optional capabilities found by type assertion), a NOS
// is one package under nos/ with a type satisfying NOS; adding Cumulus or
// SR Linux means adding one package and one line in Lookup.
//
// Plug-in packages must not import this package (it imports them).
package nos

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
)

// NOS is the base interface every network OS implements.
type NOS interface {
	// Name is the name in lab specs and on the command line ("sonic").
	Name() string
	// Kind is the containerlab kind ("sonic-vs", "arista_ceos").
	Kind() string
	// DefaultImage is the container image used when the lab names none.
	DefaultImage() string
	// InterfaceName maps containerlab's ethN (index N >= 1) to the NOS's
	// interface name.
	InterfaceName(index int) string
	// ConfigExt is the extension of rendered config files (".json").
	ConfigExt() string
	// RenderQoS renders one switch's QoS as the NOS's config text.
	RenderQoS(dc qos.DeviceConfig) ([]byte, error)
	// ParseQoS reads one switch's config files (merged in order) into the
	// NOS's typed tables and resolves them into the QoS model, as the
	// switch's own software would.
	ParseQoS(device string, srcs ...qos.Source) (qos.DeviceConfig, error)
	// Fields states, for every field of the NOS's config tables (or
	// statement of its CLI) the parser reads, how labctl uses it.
	Fields() []qos.FieldUse
}

// DataOnlyParser is an optional capability: the NOS's ParseQoS depends on
// the device's name only through DeviceConfig.Device and on the sources'
// names not at all, so devices whose files hold the same bytes may share
// one parse (configset.Load; a rendered lab's leaves are identical, as are
// its spines). TestParseReadsOnlyTheData holds a NOS that says so to it.
// (EOS's parse names the file and line of what it notes, so it does not.)
type DataOnlyParser interface {
	ParseReadsOnlyData()
}

// DeviceParser is an optional capability: ParseQoS for a lab's switch
// (dev), whose ports the lab knows, so that the parse decides as the lab
// does which ports the switch lacks (qos.Device.NoSuchPort) where what
// the switch does with an entry depends on it (SONiC's bufferorch refuses
// a BUFFER_PG key listing one for every port it lists). With
// DataOnlyParser, the parse depends on dev only through its Kind and
// FrontPanel (qos.Device.SameFrontPanel).
type DeviceParser interface {
	ParseQoSFor(dev *qos.Device, srcs ...qos.Source) (qos.DeviceConfig, error)
}

// ParseQoSOf parses switch name's configs with n: as the lab's switch dev
// where n is a DeviceParser and dev is known, else by its name alone.
func ParseQoSOf(n interface {
	ParseQoS(device string, srcs ...qos.Source) (qos.DeviceConfig, error)
}, name string, dev *qos.Device, srcs ...qos.Source) (qos.DeviceConfig, error) {
	if dp, ok := n.(DeviceParser); ok && dev != nil {
		return dp.ParseQoSFor(dev, srcs...)
	}
	return n.ParseQoS(name, srcs...)
}

// Target is a running switch reached over the network.
type Target struct {
	Node     string // lab node name, for messages
	Host     string
	Port     int
	Username string
	Password string // never logged or put in errors
}

// Pusher is an optional capability: apply a rendered config to a running
// switch and return the configuration read back from it.
type Pusher interface {
	PushQoS(ctx context.Context, t Target, config []byte) (readBack []byte, err error)
}

// CounterReader is an optional capability: read per-port, per-priority
// PFC, queue and ECN counters from a running switch.
type CounterReader interface {
	ReadCounters(ctx context.Context, t Target) ([]results.Counter, error)
}

// Names lists the known NOS names.
func Names() []string { return []string{sonic.Name, eos.Name} }

// Lint's MTU limits of each NOS (qos.RegisterPortMaxMTU, QOS020 and
// QOS021) are registered here, from the plug-ins Lookup returns, not by
// the plug-in packages, so that importing one changes nothing outside it.
func init() {
	for _, name := range Names() {
		n, _ := Lookup(name)
		if l, ok := n.(qos.MTULimiter); ok {
			qos.RegisterPortMaxMTU(name, l)
		}
	}
}

// Lookup returns the plug-in for a NOS name.
func Lookup(name string) (NOS, error) {
	switch name {
	case sonic.Name:
		return sonic.Plugin{}, nil
	case eos.Name:
		return eos.Plugin{}, nil
	}
	return nil, exitcode.Usagef("unknown NOS %q: use one of %s", name, strings.Join(Names(), ", "))
}

// ForExt returns the plug-in whose rendered configs use a file extension
// (".json" -> sonic, ".cfg" -> eos), for config files given without --nos.
func ForExt(ext string) (NOS, bool) {
	for _, n := range Names() {
		p, _ := Lookup(n)
		if p.ConfigExt() == ext {
			return p, true
		}
	}
	return nil, false
}

var linuxIfRE = lazyregexp.New(`^eth([1-9][0-9]{0,3})$`)

// InterfaceName maps a containerlab interface ("eth1") to the NOS's name.
func InterfaceName(n NOS, linux string) (string, error) {
	m := linuxIfRE().FindStringSubmatch(linux)
	if m == nil {
		return "", fmt.Errorf("interface %q: want ethN with N >= 1 (eth0 is management)", linux)
	}
	i, _ := strconv.Atoi(m[1])
	return n.InterfaceName(i), nil
}

// FieldsMarkdown is docs/config-fields.md: for every NOS, every field of
// its config tables and how labctl uses it, from the statements the NOS
// plug-ins keep beside their tables.
func FieldsMarkdown() string {
	var b strings.Builder
	b.WriteString(`# Config fields: what labctl does with each

Every field of the config tables a NOS plug-in reads has a statement
beside it in the code (SONiC: the tags of ` + "`nos/sonic.ConfigDB`" + `; EOS:
` + "`nos/eos/statements.go`" + `): **simulated** (it changes what the simulator
runs, and lint checks it), **lint** (lint checks it; no simulated figure
depends on it) or **ignored** (neither reads it; the reason says what that
means). A field a config holds that is not simulated is listed by
` + "`labctl config lint`" + ` (rule QOS011), and a field of a table that labctl
does not know is reported as ignored. Where a config leaves a field out,
the parser applies the NOS's documented default and names it
(` + "`labctl config show`" + ` lists them).

This file is generated from those statements; regenerate it with
` + "`go test ./orchestrator/nos -run TestFieldsReference -update`" + `.
`)
	for _, n := range Names() {
		p, _ := Lookup(n)
		fmt.Fprintf(&b, "\n## %s\n\n| Table or mode | Field or statement | Use | What it does, or why not |\n|---|---|---|---|\n", n)
		for _, f := range p.Fields() {
			why := f.Why
			if f.Risk != "" {
				why += ". Set, lint warns (QOS017): " + f.Risk
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", f.Table, strings.ReplaceAll(f.Field, "|", "\\|"), f.Use, strings.ReplaceAll(why, "|", "\\|"))
		}
	}
	return b.String()
}
