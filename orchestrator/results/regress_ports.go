package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
)

// alignRunPorts is run with its switches' ports named as the baseline's
// NOS names the same front-panel port, when the two records' NOS differ
// (a lab brought up again with --nos): SONiC's Ethernet4 is EOS's
// Ethernet2, and matched by name a port would be compared with another
// port. The counters (the ports' findings), the flows' routes and the
// resolved QoS (the changes listed) are renamed, as qos.AlignPorts does
// for 'labctl config diff'; names of no front-panel port (hosts' eth1)
// stay. It says how the ports were matched, "" when it renamed nothing
// (the same NOS, or either unknown).
func alignRunPorts(run, baseline *Run) (*Run, string) {
	if run.NOS == "" || baseline.NOS == "" || run.NOS == baseline.NOS {
		return run, ""
	}
	from, into := fabric.ClabKind(run.NOS), fabric.ClabKind(baseline.NOS)
	if from == into {
		return run, ""
	}
	rename := func(name string) string {
		if n, ok := fabric.FrontPanelNumber(from, name); ok {
			return fabric.PortName(into, n)
		}
		return name
	}
	c := *run
	c.Variants = make([]Variant, len(run.Variants))
	for i, v := range run.Variants {
		v.Counters = renameCounters(v.Counters, rename)
		v.Flows = renameRoutes(v.Flows, rename)
		if v.Simulated != nil {
			sp := *v.Simulated
			sp.Counters = renameCounters(sp.Counters, rename)
			sp.Flows = renameRoutes(sp.Flows, rename)
			v.Simulated = &sp
		}
		c.Variants[i] = v
	}
	c.QoS = make([]qos.Settings, len(run.QoS))
	for i, s := range run.QoS {
		s.Ports = slices.Clone(s.Ports)
		for j, p := range s.Ports {
			s.Ports[j] = rename(p)
		}
		c.QoS[i] = s
	}
	return &c, fmt.Sprintf("ports matched by front-panel position: the run's %s ports are named as the baseline's %s names them (%s's %s is %s's %s)",
		run.NOS, baseline.NOS, run.NOS, fabric.PortName(from, 2), baseline.NOS, fabric.PortName(into, 2))
}

func renameCounters(cs []Counter, rename func(string) string) []Counter {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Port = rename(out[i].Port)
	}
	return out
}

// renameRoutes renames the ports of the flows' routes ("node:port").
func renameRoutes(fs []Flow, rename func(string) string) []Flow {
	hop := func(route []string) []string {
		if route == nil {
			return nil
		}
		out := make([]string, len(route))
		for i, h := range route {
			node, port, ok := strings.Cut(h, ":")
			if ok {
				h = node + ":" + rename(port)
			}
			out[i] = h
		}
		return out
	}
	out := slices.Clone(fs)
	for i := range out {
		f := &out[i]
		f.Route, f.RouteAfterFaults = hop(f.Route), hop(f.RouteAfterFaults)
		if f.QPRoutes != nil {
			qp := make([][]string, len(f.QPRoutes))
			for j, r := range f.QPRoutes {
				qp[j] = hop(r)
			}
			f.QPRoutes = qp
		}
	}
	return out
}
