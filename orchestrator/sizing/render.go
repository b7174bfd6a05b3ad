package sizing

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/server"
)

// OpticsTotal is the number of transceiver modules at both ends of every
// link of the plan.
func (p *Plan) OpticsTotal() int {
	n := 0
	for _, o := range p.Optics {
		n += o.Count
	}
	return n
}

// SwitchCount is the number of switches of all tiers.
func (p *Plan) SwitchCount() int {
	n := p.Leaf.Count + p.Spine.Count
	if p.SuperSpine != nil {
		n += p.SuperSpine.Count
	}
	return n
}

// WriteTable prints the plan as an aligned terminal table.
func WriteTable(w io.Writer, p *Plan) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "  %s\t%v\n", k, v) }
	tiers := "tiers"
	if p.Tiers == 1 {
		tiers = "tier (one switch)"
	}
	fmt.Fprintf(tw, "%d-GPU fabric: %d %s, %s layout\n", p.GPUs, p.Tiers, tiers, p.Layout)
	row("servers", fmt.Sprintf("%d (%d GPUs each, one %dG NIC per GPU)", p.Servers, p.GPUsPerServer, p.NICSpeedGbps))
	if m := p.Server; m != nil {
		row("  scale-up"+defaulted(m, [2]string{"scale_up", "domain"}), m.ScaleUpSummary())
		row("  NIC PCIe link"+defaulted(m, [2]string{"pcie_gen", "generation"}, [2]string{"pcie_lanes", "lanes"}), m.PCIeSummary())
		row("  NIC usable rate", m.NICSummary())
	}
	row("NICs", p.NICs)
	row("leaves", p.Leaf.Count)
	row("  downlinks per leaf", fmt.Sprintf("%d x %dG (%d ports, breakout %s)", p.Leaf.DownlinksPerLeaf, p.NICSpeedGbps, p.Leaf.DownlinkPortsPerLeaf, p.Leaf.Breakout))
	if p.Tiers == 1 {
		row("  uplinks per leaf", "none: one switch holds every NIC")
	} else {
		row("  uplinks per leaf", fmt.Sprintf("%d x %dG logical = %d x %dG links, %d to each spine", p.Leaf.UplinksPerLeaf, p.NICSpeedGbps, p.Leaf.UplinkLinksPerLeaf, p.Leaf.UplinkSpeedGbps, p.Leaf.LinksPerSpine))
	}
	if p.Leaf.Rails > 0 {
		row("  rails", fmt.Sprintf("%s, %s per rail", plural.N(p.Leaf.Rails, "rail"), plural.N(p.Leaf.LeavesPerRail, "leaf")))
	}
	if p.Tiers == 3 {
		pods := fmt.Sprintf("%d (%s and %s each)", p.Pods, plural.N(p.Leaf.PerPod, "leaf"), plural.N(p.Spine.PerPod, "spine"))
		if p.Leaf.RailGroupPods > 1 {
			pods += fmt.Sprintf("; a server group's %d rail leaves span %d pods", p.Leaf.Rails, p.Leaf.RailGroupPods)
		}
		row("pods", pods)
	}
	if p.Tiers == 1 {
		row("spines", "none: one switch")
	} else {
		row("spines", p.Spine.Count)
		used := fmt.Sprintf("%d of %d (%.0f%%), %d logical %dG ports", p.Spine.DownlinkPortsPerSpine+p.Spine.UplinkPortsPerSpine, p.Spine.Ports, 100*p.Spine.PortUtilization, p.Spine.PortsUsedPerSpine, p.NICSpeedGbps)
		if p.Spine.Breakout != "" && p.Spine.Breakout != "none" {
			used += ", breakout " + p.Spine.Breakout
		}
		row("  ports used per spine", used)
	}
	if ss := p.SuperSpine; ss != nil {
		row("super-spines", fmt.Sprintf("%d (%d planes of %d)", ss.Count, ss.Planes, ss.PerPlane))
		row("  ports used per super-spine", fmt.Sprintf("%d of %d (%.0f%%)", ss.PortsUsedPerSwitch, ss.Ports, 100*ss.PortUtilization))
	}
	if p.Tiers == 1 {
		row("oversubscription", "none: every path is NIC - switch - NIC")
	} else {
		row("oversubscription", fmt.Sprintf("%.2f:1 (target %g:1)", p.Oversubscription.Actual, p.Oversubscription.Target))
	}
	row("cables server-leaf", fmt.Sprintf("%d NIC links on %d leaf ports", p.Cables.ServerLeaf, p.Cables.BreakoutServerLeaf))
	if p.Tiers > 1 {
		row("cables leaf-spine", p.Cables.LeafSpine)
	}
	if p.Tiers == 3 {
		row("cables spine-super-spine", p.Cables.SpineSuperSpine)
	}
	for _, o := range p.Optics {
		row(fmt.Sprintf("optics %s, %s side", o.Where, o.Side), fmt.Sprintf("%d x %dG", o.Count, o.SpeedGbps))
	}
	row("optics total (both ends)", p.OpticsTotal())
	for _, wmsg := range p.Warnings {
		fmt.Fprintf(tw, "warning: %s\n", wmsg)
	}
	return tw.Flush()
}

// WriteMarkdown prints the plan as a design document answering the six
// questions of the seed's exercise 1 (servers; leaves and their ports;
// spines and their port use; breakout; optics; oversubscription), followed by
// the bill of materials and the placement.
func WriteMarkdown(w io.Writer, p *Plan) error {
	var b strings.Builder
	f := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	if p.Tiers == 1 {
		return writeMarkdown1Tier(w, p)
	}
	f("# %d-GPU spine-leaf fabric design\n\n", p.GPUs)
	f("Requirements: %d GPUs, %d per server, one %dG NIC per GPU, %dx%dG leaves, %dx%dG spines, target oversubscription %g:1, %s layout.\n\n",
		p.GPUs, p.GPUsPerServer, p.NICSpeedGbps, p.Leaf.Ports, p.Leaf.PortSpeedGbps, p.Spine.Ports, p.Spine.PortSpeedGbps, p.Oversubscription.Target, p.Layout)
	f("## 1. Servers\n\n%d servers (%d GPUs / %d per server), %d NICs.\n\n", p.Servers, p.GPUs, p.GPUsPerServer, p.NICs)
	serverMarkdown(&b, p)
	links := "links"
	if p.Leaf.LinksPerSpine == 1 {
		links = "link"
	}
	leaves := "leaves"
	if p.Leaf.Count == 1 {
		leaves = "leaf"
	}
	f("## 2. Leaves\n\n%d %s. Each leaf has %d downlinks and %d uplinks in %dG units (the leaf's %d ports are %d logical %dG ports): %d physical ports down, %d x %dG ports up, %d %s to each spine.\n\n",
		p.Leaf.Count, leaves, p.Leaf.DownlinksPerLeaf, p.Leaf.UplinksPerLeaf, p.NICSpeedGbps, p.Leaf.Ports, p.Leaf.LogicalPorts, p.NICSpeedGbps,
		p.Leaf.DownlinkPortsPerLeaf, p.Leaf.UplinkPortsPerLeaf, p.Leaf.PortSpeedGbps, p.Leaf.LinksPerSpine, links)
	if p.Leaf.Rails > 0 {
		f("Rail-optimized: NIC i of every server attaches to rail i; %s with %s each.\n\n", plural.N(p.Leaf.Rails, "rail"), plural.N(p.Leaf.LeavesPerRail, "leaf"))
	}
	if p.Spine.Count == 1 {
		f("## 3. Spines\n\n1 spine")
	} else {
		f("## 3. Spines\n\n%d spines", p.Spine.Count)
	}
	if p.Tiers == 3 {
		f(" in %d pods (%d per pod, %d leaves per pod)", p.Pods, p.Spine.PerPod, p.Leaf.PerPod)
	}
	f(". Each spine uses %d of its %d ports (%.0f%% utilization; %d logical %dG ports).\n\n",
		p.Spine.DownlinkPortsPerSpine+p.Spine.UplinkPortsPerSpine, p.Spine.Ports, 100*p.Spine.PortUtilization, p.Spine.PortsUsedPerSpine, p.NICSpeedGbps)
	if ss := p.SuperSpine; ss != nil {
		f("Super-spines: %d in %d planes of %d; spine j of every pod connects to every super-spine of plane j. Each uses %d of %d ports (%.0f%%).\n\n",
			ss.Count, ss.Planes, ss.PerPlane, ss.PortsUsedPerSwitch, ss.Ports, 100*ss.PortUtilization)
	}
	f("## 4. Port configuration\n\nLeaf downlinks: %s", p.Leaf.Breakout)
	if p.Leaf.Breakout != "none" {
		f(" (each %dG leaf port serves %d NICs)", p.Leaf.PortSpeedGbps, p.Leaf.PortSpeedGbps/p.NICSpeedGbps)
	}
	f(". Fabric links run at %dG; spine ports: %s.\n\n", p.Leaf.UplinkSpeedGbps, p.Spine.Breakout)
	f("## 5. Optics (both ends)\n\n| link | side | speed | modules |\n|---|---|---|---|\n")
	for _, o := range p.Optics {
		f("| %s | %s | %dG | %d |\n", o.Where, o.Side, o.SpeedGbps, o.Count)
	}
	f("| **total** | | | **%d** |\n\nA broken-out switch port takes one module at the switch and one per NIC at the far end.\n\n", p.OpticsTotal())
	// Uplinks in links, not ports: 3 400G links on two 800G ports are
	// 1200G up, not 1600G.
	f("## 6. Oversubscription\n\n%.2f:1 (target %g:1): %d x %dG down against %d x %dG up per leaf.\n\n",
		p.Oversubscription.Actual, p.Oversubscription.Target, p.Leaf.DownlinksPerLeaf, p.NICSpeedGbps, p.Leaf.UplinkLinksPerLeaf, p.Leaf.UplinkSpeedGbps)
	f("## Bill of materials\n\n| item | count |\n|---|---|\n")
	f("| leaf switches (%dx%dG) | %d |\n| spine switches (%dx%dG) | %d |\n", p.Leaf.Ports, p.Leaf.PortSpeedGbps, p.Leaf.Count, p.Spine.Ports, p.Spine.PortSpeedGbps, p.Spine.Count)
	if ss := p.SuperSpine; ss != nil {
		f("| super-spine switches (%dx%dG) | %d |\n", ss.Ports, ss.PortSpeedGbps, ss.Count)
	}
	f("| server-leaf links (%dG) | %d |\n| leaf-spine links (%dG) | %d |\n", p.NICSpeedGbps, p.Cables.ServerLeaf, p.Leaf.UplinkSpeedGbps, p.Cables.LeafSpine)
	if p.Tiers == 3 {
		f("| spine-super-spine links | %d |\n", p.Cables.SpineSuperSpine)
	}
	f("| optics | %d |\n\n", p.OpticsTotal())
	f("## Placement\n\n")
	if len(p.Placement) <= 64 {
		f("| server | GPUs | leaves of NIC 0..%d |\n|---|---|---|\n", p.GPUsPerServer-1)
		for _, s := range p.Placement {
			f("| host%d | %d | %s |\n", s.Server, s.GPUs, joinInts(s.Leaves))
		}
	} else {
		f("%d servers; NICs per leaf: %s.\n", p.Servers, summarizeInts(p.Leaf.NICsPerLeaf))
	}
	if len(p.Warnings) > 0 {
		f("\n## Warnings\n\n")
		for _, wm := range p.Warnings {
			f("- %s\n", wm)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdown1Tier is the design document of a single-switch fabric: the
// spine, breakout-to-spine and oversubscription questions have no subject.
func writeMarkdown1Tier(w io.Writer, p *Plan) error {
	var b strings.Builder
	f := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	f("# %d-GPU single-switch fabric design\n\n", p.GPUs)
	f("Requirements: %d GPUs, %d per server, one %dG NIC per GPU, one %dx%dG switch, %s layout.\n\n",
		p.GPUs, p.GPUsPerServer, p.NICSpeedGbps, p.Leaf.Ports, p.Leaf.PortSpeedGbps, p.Layout)
	f("## 1. Servers\n\n%d servers (%d GPUs / %d per server), %d NICs.\n\n", p.Servers, p.GPUs, p.GPUsPerServer, p.NICs)
	serverMarkdown(&b, p)
	f("## 2. Switch\n\nOne switch (leaf1) attaches all %d NICs on %d of its %d ports (%d logical %dG ports). There is no spine tier: every path is NIC - switch - NIC, and nothing is oversubscribed.\n\n",
		p.NICs, p.Leaf.DownlinkPortsPerLeaf, p.Leaf.Ports, p.Leaf.LogicalPorts, p.NICSpeedGbps)
	if p.Leaf.Breakout == "none" {
		f("## 3. Port configuration\n\nNo breakout: one NIC per %dG switch port", p.Leaf.PortSpeedGbps)
	} else {
		f("## 3. Port configuration\n\nDownlinks: %s (each %dG switch port serves %d NICs)", p.Leaf.Breakout, p.Leaf.PortSpeedGbps, p.Leaf.PortSpeedGbps/p.NICSpeedGbps)
	}
	f(".\n\n## 4. Optics (both ends)\n\n| link | side | speed | modules |\n|---|---|---|---|\n")
	for _, o := range p.Optics {
		f("| %s | %s | %dG | %d |\n", o.Where, o.Side, o.SpeedGbps, o.Count)
	}
	f("| **total** | | | **%d** |\n\n", p.OpticsTotal())
	f("## Bill of materials\n\n| item | count |\n|---|---|\n| switches (%dx%dG) | 1 |\n| server-switch links (%dG) | %d |\n| optics | %d |\n",
		p.Leaf.Ports, p.Leaf.PortSpeedGbps, p.NICSpeedGbps, p.Cables.ServerLeaf, p.OpticsTotal())
	if len(p.Warnings) > 0 {
		f("\n## Warnings\n\n")
		for _, wm := range p.Warnings {
			f("- %s\n", wm)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// defaulted marks a table row whose keys the spec left out: " (default)"
// when it left out all of them, " (default lanes)" when some.
func defaulted(m *server.Model, keys ...[2]string) string {
	var some []string
	for _, k := range keys {
		if _, ok := m.Defaulted[k[0]]; ok {
			some = append(some, k[1])
		}
	}
	switch len(some) {
	case 0:
		return ""
	case len(keys):
		return " (default)"
	}
	return " (default " + strings.Join(some, ", ") + ")"
}

// serverMarkdown is the design document's account of the servers: the
// scale-up domain, the NICs' PCIe links and what the NICs can send.
func serverMarkdown(b *strings.Builder, p *Plan) {
	m := p.Server
	if m == nil {
		return
	}
	fmt.Fprintf(b, "| server | |\n|---|---|\n| scale-up domain | %s |\n| NIC PCIe link | %s |\n| NIC usable rate | %s |\n\n",
		m.ScaleUpSummary(), m.PCIeSummary(), m.NICSummary())
	fmt.Fprintf(b, "Transfers between GPUs of one server take the scale-up domain and never touch the fabric; every NIC has a PCIe link of its own.")
	if m.PCIeBound {
		fmt.Fprintf(b, " The NICs are PCIe-bound (see the warnings).")
	}
	if d := m.DefaultsSummary(); d != "" {
		fmt.Fprintf(b, " Defaults (the lab spec's server section leaves them out): %s.", d)
	}
	b.WriteString("\n\n")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("leaf%d", x)
	}
	return strings.Join(s, " ")
}

// summarizeInts prints a run-length summary such as "32 x 31, 16 x 1".
func summarizeInts(v []int) string {
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && v[j] == v[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%d on %d leaves", v[i], j-i))
		i = j
	}
	return strings.Join(parts, ", ")
}
