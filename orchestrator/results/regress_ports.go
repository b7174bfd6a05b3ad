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

// samePlacement is, for a point compared as samples between seeds, the
// switch ports ("node\x00port") that forward the same set of flows in
// every repetition of both sides, by the flows' routes (Flow.Route, its
// QPs' and its routes after faults: the egress port of each switch the
// hash picked): where the seeds did not move the flows, a port's egress
// figures are not set aside as "flows went elsewhere" (the incast
// receiver's port, which every incast flow takes at every seed). nil,
// keeping every port's figures set aside, when a flow of either side has
// no route (an older record, a live lab), or the point's paths are not
// the hash's alone (lb.mode flowlet, spray or adaptive: the route is
// where a flow started, not where its packets went).
func samePlacement(base, run []*Variant) map[string]bool {
	vs := slices.Concat(base, run)
	sets := make([]map[string][]string, len(vs))
	ports := map[string]bool{}
	for i, v := range vs {
		if mode := v.Params[ParamLBMode]; mode != "" && mode != "ecmp" {
			return nil
		}
		sets[i] = map[string][]string{}
		for _, f := range v.Flows {
			if len(f.Route) == 0 {
				return nil
			}
			at := map[string]bool{}
			for _, route := range slices.Concat([][]string{f.Route, f.RouteAfterFaults}, f.QPRoutes) {
				for _, hop := range route {
					if node, port, ok := strings.Cut(hop, ":"); ok {
						at[node+"\x00"+port] = true
					}
				}
			}
			for k := range at {
				sets[i][k] = append(sets[i][k], f.ID)
				ports[k] = true
			}
		}
	}
	out := map[string]bool{}
	for k := range ports {
		first := slices.Sorted(slices.Values(sets[0][k]))
		same := true
		for _, s := range sets[1:] {
			if !slices.Equal(first, slices.Sorted(slices.Values(s[k]))) {
				same = false
				break
			}
		}
		if same {
			out[k] = true
		}
	}
	return out
}

// egressFigure says a port's figure is of its egress queue (its depth,
// the packets it marked), which only the flows the port forwards fill,
// as far as the port's own traffic goes. Pauses sent are of its ingress,
// pauses received of its peer's, and drops are counted at either: those
// stay set aside between seeds whatever the routes say.
func egressFigure(metric string) bool {
	switch metric {
	case "port.queue_p50_bytes", "port.queue_p99_bytes", "port.queue_max_bytes", "port.ecn_marked":
		return true
	}
	return false
}
