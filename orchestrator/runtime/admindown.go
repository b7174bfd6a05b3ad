package runtime

import (
	"fmt"
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

// AdminDownEnd is the switch that keeps its end of lk administratively
// down (qos.PortConfig.AdminDown: lint's QOS026), with why and the files
// of its config; why is "" when both ends are up. Such a link is down
// from the start of a run: the simulator runs it so, and a link fault on
// it would change nothing (FaultOnDownLinkError).
func AdminDownEnd(cfgs map[string]*qos.DeviceConfig, lk *fabric.Link) (node, why, files string) {
	for _, e := range []fabric.LinkEnd{lk.A, lk.B} {
		if dc := cfgs[e.Node]; dc != nil {
			if pc := dc.Port(e.Port); pc != nil && pc.AdminDown != "" {
				return e.Node, pc.AdminDown, strings.Join(dc.Sources, ", ")
			}
		}
	}
	return "", "", ""
}

// FaultOnDownLinkError refuses link fault f, whose link lk (every link it
// names, with All) an end keeps administratively down: the fault would
// change nothing, and a scenario that fails a link expects it to carry
// traffic until then. It names the link, the config entry that takes it
// down and its file, and the fix. The simulator and a live lab refuse
// alike; with All, the links between the nodes that are up go down and
// those kept down stay so.
func FaultOnDownLinkError(cfgs map[string]*qos.DeviceConfig, f FaultSpec, lk *fabric.Link) error {
	node, why, files := AdminDownEnd(cfgs, lk)
	named := ""
	switch {
	case f.OnPath != "":
		named = fmt.Sprintf(" (on_path %s: the link its flow's ECMP hash picks with every link up)", f.OnPath)
	case f.Link != lk.A.Node+":"+lk.A.Port:
		named = fmt.Sprintf(" (%s)", f.Link)
	}
	if f.All {
		named += ", and every other link between its nodes,"
	}
	return exitcode.Usagef("link %s - %s%s is administratively down in the lab's configs (%s: %s, in %s): it is down from the start of the run and the fault would change nothing (fix: %s in %s's config, or fault a link that is up)",
		lk.A.Node+":"+lk.A.Port, lk.B.Node+":"+lk.B.Port, named, node, why, files, qos.PortUpFix, node)
}
