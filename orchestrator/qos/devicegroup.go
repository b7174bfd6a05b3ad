package qos

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
)

// DeviceGroup is the findings of one cause on several switches, as the
// text outputs print them (labctl config lint, the warning of labctl run,
// the reports): the same rule, severity, entry, message and fix, where
// each switch naming its own config file ("leaf1.cfg:74") counts as the
// same, and so do the ports of each (leaves' Ethernet33-48 and spines'
// Ethernet1-32). JSON keeps one finding per switch.
type DeviceGroup struct {
	// Finding is the first switch's, and for several switches with their
	// own file's name written SwitchFile ("<switch>.cfg:74"); where their
	// ports differ, with none (Port and a note's NotePorts empty), and
	// Switches names each switch's.
	Finding
	// Devices are the switches in PortLess order; nil for a finding of
	// no device.
	Devices []string
	// ports are each device's ports (Port, or a note's NotePorts), as
	// Devices orders them.
	ports []string
}

// SwitchFile stands for each switch's own name in the config file names a
// group's text gives ("configs/<switch>.cfg:74").
const SwitchFile = "<switch>"

// notePortsSep ends a parser's note on some of a switch's ports, before
// them (NotePorts).
const notePortsSep = "; ports: "

// NotePorts is a parser's note (DeviceConfig.Notes) on some ports of the
// switch: the note and then them ("...; ports: Ethernet1-48"), which
// GroupDevices reads as the note's ports.
func NotePorts(note, ports string) string { return note + notePortsSep + ports }

// findingPorts splits a finding into its message without the ports a
// note ends with, and its ports (Port, or the note's).
func findingPorts(f *Finding) (msg, ports string) {
	if f.Rule == RuleParseNote && f.Port == "" {
		if i := strings.LastIndex(f.Message, notePortsSep); i >= 0 {
			return f.Message[:i], f.Message[i+len(notePortsSep):]
		}
	}
	return f.Message, f.Port
}

// GroupDevices merges the findings of one cause on several switches into
// one group each, in the order of each group's first finding (fs's order,
// so its severities stay where they were). A group holds one set of ports
// of each switch: the findings of one cause on the same ports group
// first, and those groups merge where their switches differ (leaves'
// Ethernet33-48 and spines' Ethernet1-32), not where a switch has the
// finding on several sets of ports (Ethernet1 and Ethernet5 of each
// leaf: a group each, as two findings of one cause on one switch stay
// two).
func GroupDevices(fs []Finding) []DeviceGroup {
	type key struct {
		rule, where, msg, fix string
		sev                   Severity
		note                  bool
	}
	type portKey struct {
		key
		ports string
	}
	type group struct {
		DeviceGroup
		k key
	}
	var gs []group
	at := map[portKey][]int{}
	for _, f := range fs {
		if f.Device == "" {
			gs = append(gs, group{DeviceGroup: DeviceGroup{Finding: f}})
			continue
		}
		msg, ports := findingPorts(&f)
		k := key{f.Rule, switchFile(f.Where, f.Device), switchFile(msg, f.Device), switchFile(f.Fix, f.Device), f.Severity, msg != f.Message}
		pk := portKey{k, ports}
		i := slices.IndexFunc(at[pk], func(i int) bool { return !slices.Contains(gs[i].Devices, f.Device) })
		if i < 0 {
			at[pk] = append(at[pk], len(gs))
			gs = append(gs, group{DeviceGroup: DeviceGroup{Finding: f, Devices: []string{f.Device}, ports: []string{ports}}, k: k})
			continue
		}
		g := &gs[at[pk][i]]
		g.Devices = append(g.Devices, f.Device)
		g.ports = append(g.ports, ports)
	}
	// The groups of one cause on other ports join the first before them
	// that has none of their switches.
	var out []DeviceGroup
	var keys []key
	for _, g := range gs {
		j := -1
		if g.Devices != nil {
			for x := range out {
				if out[x].Devices != nil && keys[x] == g.k && !slices.ContainsFunc(g.Devices, func(d string) bool { return slices.Contains(out[x].Devices, d) }) {
					j = x
					break
				}
			}
		}
		if j < 0 {
			out = append(out, g.DeviceGroup)
			keys = append(keys, g.k)
			continue
		}
		o := &out[j]
		o.Devices = append(o.Devices, g.Devices...)
		o.ports = append(o.ports, g.ports...)
	}
	// A group of several switches: their own file's name SwitchFile, and
	// where their ports differ, none.
	for i := range out {
		g := &out[i]
		if len(g.Devices) < 2 {
			continue
		}
		k := keys[i]
		g.Where, g.Fix = k.where, k.fix
		if !g.SamePorts() {
			g.Port, g.Message = "", k.msg
		} else if k.note {
			g.Message = NotePorts(k.msg, g.ports[0])
		} else {
			g.Message = k.msg
		}
	}
	for i := range out {
		g := &out[i]
		idx := make([]int, len(g.Devices))
		for j := range idx {
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return PortLess(g.Devices[idx[a]], g.Devices[idx[b]]) })
		devs, ports := make([]string, len(idx)), make([]string, len(idx))
		for j, x := range idx {
			devs[j], ports[j] = g.Devices[x], g.ports[x]
		}
		g.Devices, g.ports = devs, ports
	}
	return out
}

// SamePorts says whether the group's switches have the same ports (the
// Finding's), or each their own (Switches names them).
func (g DeviceGroup) SamePorts() bool {
	return !slices.ContainsFunc(g.ports, func(p string) bool { return p != g.ports[0] })
}

// Switches names the group's switches: the one switch's name, or their
// ranges ("leaf1-32, spine1-16"), and where their ports differ each set
// of ports after its switches ("leaf1-32 (Ethernet33-48); spine1-16
// (Ethernet1-32)"); past max ranges (max > 0) a set gives the first max
// and how many more.
func (g DeviceGroup) Switches(max int) string {
	if len(g.Devices) <= 1 {
		return g.Device
	}
	if g.SamePorts() {
		return DeviceRanges(g.Devices, max)
	}
	var order []string
	by := map[string][]string{}
	for j, d := range g.Devices {
		p := g.ports[j]
		if _, ok := by[p]; !ok {
			order = append(order, p)
		}
		by[p] = append(by[p], d)
	}
	parts := make([]string, len(order))
	for j, p := range order {
		parts[j] = DeviceRanges(by[p], max)
		if p != "" {
			parts[j] += " (" + p + ")"
		}
	}
	return strings.Join(parts, "; ")
}

// DeviceRanges names a set of devices compactly: names that differ only in
// a trailing number counting up by one become a run ("leaf1-32"; two stay
// "leaf1, leaf2"), in PortLess order, joined by ", "; past max parts
// (max > 0), the first max and how many more.
func DeviceRanges(names []string, max int) string {
	ns := slices.Clone(names)
	sortPorts(ns)
	ns = slices.Compact(ns)
	// Each name is its own part, or the run it is the first of; a name
	// in a run before is done.
	done := make([]bool, len(ns))
	var parts []string
	for i := range ns {
		if done[i] {
			continue
		}
		prefix, n, ok := trailingNumber(ns[i])
		last := ns[i]
		runLen := 1
		for ok {
			j := slices.Index(ns, prefix+strconv.Itoa(n+runLen))
			if j < 0 {
				break
			}
			done[j] = true
			last = ns[j]
			runLen++
		}
		switch runLen {
		case 1:
			parts = append(parts, ns[i])
		case 2:
			parts = append(parts, ns[i], last)
		default:
			parts = append(parts, ns[i]+"-"+last[len(prefix):])
		}
	}
	if max > 0 {
		return plural.Some(parts, max, ", ")
	}
	return strings.Join(parts, ", ")
}

// trailingNumber splits a name into its text and the number it ends with
// ("leaf12" -> "leaf", 12); ok is false for a name without one or with a
// leading zero ("leaf01" is not in a run with "leaf2").
func trailingNumber(name string) (prefix string, n int, ok bool) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	digits := name[i:]
	if digits == "" || len(digits) > 9 || (digits[0] == '0' && len(digits) > 1) {
		return name, 0, false
	}
	n, err := strconv.Atoi(digits)
	return name[:i], n, err == nil
}

// switchFile writes the device's own config file names in s ("leaf1.cfg",
// ".../leaf1.buffers.json:12": the device's name as a whole word followed
// by a dot and a letter) as SwitchFile's.
func switchFile(s, dev string) string {
	if dev == "" || !strings.Contains(s, dev) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, dev)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dev)
		if (i == 0 || !nameByte(s[i-1])) && end+1 < len(s) && s[end] == '.' && isLetter(s[end+1]) {
			b.WriteString(s[:i])
			b.WriteString(SwitchFile)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// nameByte says whether c can be part of a device's name, so that "leaf1"
// in "xleaf1.cfg" or "spine-leaf1.cfg" is not the device leaf1's file.
func nameByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

// Place names where the group's findings are on one line: the switch and
// its ports ("leaf1 Ethernet33-48"), or how many switches, Switches(max)
// and their common ports ("48 switches (leaf1-32, spine1-16)
// Ethernet33-48").
func (g DeviceGroup) Place(max int) string {
	where := g.Device
	if len(g.Devices) > 1 {
		where = plural.N(len(g.Devices), "switch") + " (" + g.Switches(max) + ")"
	}
	return strings.TrimSpace(where + " " + g.Port)
}

// SummaryRanges is how many ranges of switches a grouped finding's line
// names before how many more where a run's output, its report and regress
// sum its findings up (ShortPlace).
const SummaryRanges = 8

// ShortPlace is Place as a run's summary of its findings names them: up
// to SummaryRanges ranges of switches.
func (g DeviceGroup) ShortPlace() string { return g.Place(SummaryRanges) }
