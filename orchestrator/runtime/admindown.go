package runtime

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
)

// ConfigsByDevice indexes a lab's configs by switch name.
func ConfigsByDevice(cfgs []qos.DeviceConfig) map[string]*qos.DeviceConfig {
	out := make(map[string]*qos.DeviceConfig, len(cfgs))
	for i := range cfgs {
		out[cfgs[i].Device] = &cfgs[i]
	}
	return out
}

// LinkDown says why a link does not come up in a lab's configs (DownEnd):
// an end its switch keeps administratively down (qos.PortConfig.AdminDown:
// lint's QOS026), an end in a port channel that carries nothing
// (qos.MemberAlone: the other end in none, a channel down, without an
// address or short of its min links, LACP modes that never bundle; QOS026
// too), an end EOS keeps L2 where the configs show it was meant to route
// (qos.NotRouted: QOS026), or two ends whose configs set different FEC modes
// (qos.FECMismatch: lint's QOS009). Such a link is down from the start of
// a run: the simulator runs it so, and a link fault on it would change
// nothing (FaultOnDownLinkError). The zero value is a link that comes up.
type LinkDown struct {
	Node  string // the switch whose config says it ("" for FEC: both ends')
	State string // "administratively down", "not routed", or "down for its FEC modes"
	Why   string // the config entry, or the two ends' modes
	Fix   string // what brings it up
	Files string // the files of Node's config (both ends', for FEC)
	// FEC says the link is down for its FEC modes, which only the
	// simulator runs so: a live lab's virtual switches (SONiC-VS's
	// virtual SAI) record a port's FEC mode, and its link follows the
	// container's veth pair, up whatever the modes.
	FEC bool
}

// Down reports whether the link does not come up.
func (d LinkDown) Down() bool { return d.Why != "" }

// DownOn says whether the link is down when a run starts: on the
// simulator whenever it does not come up in the configs (Down), on a live
// lab (live) not for its FEC modes alone (FEC), which its virtual
// switches bring up.
func (d LinkDown) DownOn(live bool) bool { return d.Down() && !(live && d.FEC) }

// FECBlind is an optional capability of a Runtime: LinksUpWhateverFEC
// says that its links come up whatever FEC modes their ends' configs set
// (a live lab's virtual switches: LinkDown.FEC), where the simulator, a
// runtime without it, runs such a link down.
type FECBlind interface {
	LinksUpWhateverFEC() bool
}

// LinksUpWhateverFEC says whether rt brings up links whose ends' FEC
// modes differ (FECBlind): LinkDown.DownOn's live.
func LinksUpWhateverFEC(rt Runtime) bool {
	b, ok := rt.(FECBlind)
	return ok && b.LinksUpWhateverFEC()
}

// DownLink is a link that is down when a run starts (DownFromStart), and
// why.
type DownLink struct {
	Index int // of Link in the graph's Links
	Link  *fabric.Link
	Why   LinkDown
}

// DownFromStart are the links of g that are down when a run starts on the
// configs cfgs (DownEnd, LinkDown.DownOn), in g's order: the one decision
// the simulator's link faults down from the start (its builder's
// downFaults) and the routes that leave them out (DownLinks) read.
func DownFromStart(g *fabric.Graph, cfgs map[string]*qos.DeviceConfig, live bool) []DownLink {
	var out []DownLink
	for i, lk := range g.Links {
		if d := DownEnd(cfgs, lk); d.DownOn(live) {
			out = append(out, DownLink{Index: i, Link: lk, Why: d})
		}
	}
	return out
}

// DownLinks are the members of every link of g that is down when a run
// starts on the configs cfgs (DownFromStart): the links the switches'
// routes leave out from the start.
func DownLinks(g *fabric.Graph, cfgs map[string]*qos.DeviceConfig, live bool) []fabric.LinkMember {
	var out []fabric.LinkMember
	for _, d := range DownFromStart(g, cfgs, live) {
		for m := range d.Link.Members() {
			out = append(out, fabric.LinkMember{Link: d.Index, Member: m})
		}
	}
	return out
}

// Entry is what in the configs takes the link down: the switch and its
// entry, or the two ends' FEC modes.
func (d LinkDown) Entry() string {
	if d.Node == "" {
		return d.Why
	}
	return d.Node + ": " + d.Why
}

// DownEnd is why lk does not come up in the configs cfgs (LinkDown).
func DownEnd(cfgs map[string]*qos.DeviceConfig, lk *fabric.Link) LinkDown {
	ends := []fabric.LinkEnd{lk.A, lk.B}
	var pcs [2]*qos.PortConfig
	for i, e := range ends {
		if dc := cfgs[e.Node]; dc != nil {
			pcs[i] = dc.Port(e.Port)
			if pcs[i] != nil && pcs[i].AdminDown != "" {
				return LinkDown{Node: e.Node, State: "administratively down", Why: pcs[i].AdminDown,
					Fix: qos.PortUpFix + " in " + e.Node + "'s config", Files: strings.Join(dc.Sources, ", ")}
			}
		}
	}
	// A member's link's other end, by the lab's wiring the configs carry
	// (PortConfig.Peer), for its port channel's min links.
	peer := func(m *qos.PortConfig) *qos.PortConfig {
		_, mp := qos.PeerPortIn(cfgs, m)
		return mp
	}
	for i, e := range ends {
		if why, fix := qos.MemberAlone(cfgs[e.Node], pcs[i], pcs[1-i], peer); why != "" {
			return LinkDown{Node: e.Node, State: "down for its port channel", Why: e.Port + " is " + why,
				Fix: fix + " in " + e.Node + "'s config", Files: strings.Join(cfgs[e.Node].Sources, ", ")}
		}
	}
	for i, e := range ends {
		if why, fix := qos.NotRouted(pcs[i], pcs[1-i]); why != "" {
			return LinkDown{Node: e.Node, State: "not routed", Why: e.Port + " is " + why,
				Fix: fix + " in " + e.Node + "'s config", Files: strings.Join(cfgs[e.Node].Sources, ", ")}
		}
	}
	why := qos.FECMismatch(pcs[0], pcs[1])
	if why == "" {
		return LinkDown{}
	}
	var files []string
	for _, e := range ends {
		files = append(files, cfgs[e.Node].Sources...)
	}
	return LinkDown{State: "down for its FEC modes", FEC: true,
		Why:   fmt.Sprintf("%s fec %s, %s fec %s: %s", lk.A.Node+":"+lk.A.Port, pcs[0].FEC, lk.B.Node+":"+lk.B.Port, pcs[1].FEC, why),
		Fix:   qos.FECMatchFix,
		Files: strings.Join(files, ", ")}
}

// DownWith are the links of g that a fault taking down the links down
// (indices into g.Links) takes down with them, in g's order, and why:
// those up in the configs cfgs that DownEnd finds down once the faulted
// links' ports are taken as down, a fellow member of a port channel left
// short of its min links (qos.MemberAlone, the one decision lint and the
// links down from the start read). On a real switch teamd's lacp runner
// drops the team device's carrier once fewer ports are enabled than
// min_ports (libteam's teamd/teamd_runner_lacp.c, lacp_update_carrier),
// so every member goes down with the faulted one, and comes back with
// it. A fault that would bring a link up (a partner selection it
// changes) is not modelled: links down from the start stay so.
func DownWith(g *fabric.Graph, cfgs map[string]*qos.DeviceConfig, down []int) []DownLink {
	faulted := map[int]bool{}
	with := maps.Clone(cfgs)
	for _, i := range down {
		faulted[i] = true
		lk := g.Links[i]
		for _, e := range []fabric.LinkEnd{lk.A, lk.B} {
			dc := cfgs[e.Node]
			if dc == nil || dc.Port(e.Port) == nil {
				continue
			}
			if with[e.Node] == dc {
				cp := *dc
				cp.Ports = slices.Clone(dc.Ports)
				with[e.Node] = &cp
			}
			with[e.Node].Port(e.Port).AdminDown = "a link fault"
		}
	}
	if len(faulted) == 0 {
		return nil
	}
	var out []DownLink
	for i, lk := range g.Links {
		// Only a link with an end on a switch the faults touch can change:
		// its own ports, its fellow members and their far ends (a member
		// whose far end is faulted has its own switch at the fault's other
		// end) are all there; DownEnd of every other link is the same.
		if faulted[i] || with[lk.A.Node] == cfgs[lk.A.Node] && with[lk.B.Node] == cfgs[lk.B.Node] {
			continue
		}
		if d := DownEnd(with, lk); d.Down() && !DownEnd(cfgs, lk).Down() {
			out = append(out, DownLink{Index: i, Link: lk, Why: d})
		}
	}
	return out
}

// FaultOnDownLinkError refuses link fault f, whose link lk (every link it
// names, with All) does not come up in the lab's configs (DownEnd): the
// fault would change nothing, and a scenario that fails a link expects it
// to carry traffic until then. It names the link, the config entry that
// takes it down and its file, and the fix. The simulator and a live lab
// refuse alike; with All, the links between the nodes that are up go down
// and those kept down stay so.
func FaultOnDownLinkError(cfgs map[string]*qos.DeviceConfig, f FaultSpec, lk *fabric.Link) error {
	d := DownEnd(cfgs, lk)
	named := ""
	switch {
	case f.OnPath != "":
		named = fmt.Sprintf(" (on_path %s: the link its flow's ECMP hash picks)", f.OnPath)
	case f.Link != lk.A.Node+":"+lk.A.Port:
		named = fmt.Sprintf(" (%s)", f.Link)
	}
	if f.All {
		named += ", and every other link between its nodes,"
	}
	return exitcode.Usagef("link %s - %s%s is %s in the lab's configs (%s, in %s): it is down from the start of the run and the fault would change nothing (fix: %s, or fault a link that is up)",
		lk.A.Node+":"+lk.A.Port, lk.B.Node+":"+lk.B.Port, named, d.State, d.Entry(), d.Files, d.Fix)
}
