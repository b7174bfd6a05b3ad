package eos

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/qos"
)

// EOS's egress DSCP rewrite: with qos rewrite dscp the switch writes into
// the packets it sends the DSCP that qos map traffic-class N to dscp D
// gives their traffic class, and the next switch classifies them by it.
// labctl reads the pair into every port's PortConfig.TCToDSCP (the same
// fact as SONiC's TC_TO_DSCP_MAP), which the simulator runs and lint
// judges (QOS024).
//
// What labctl did not find in Arista's documentation, and the reading it
// takes, erring toward the harm a rewrite can do:
//   - whether the rewrite skips packets received on ports that trust DSCP:
//     labctl rewrites every packet the switch routes, whatever port it
//     came in on;
//   - EOS's default traffic class to DSCP map, for the classes no qos map
//     traffic-class ... to dscp line names: labctl takes such a class's
//     packets to keep their DSCP (the statement's description says so).
//
// Arista's TOI on named TC-to-DSCP maps says "DSCP of routed packets
// egressing out of the interface will be rewritten according to the map";
// labctl reads the global map as that map on every interface.

// tcToDSCP reads [no|default] qos map traffic-class <tc...> to dscp <d>.
func (p *cfgParser) tcToDSCP(f []string, where cfgPos) error {
	line := strings.Join(f, " ")
	undo := f[0] == "no" || f[0] == "default"
	if undo {
		f = f[1:]
	}
	to := slices.Index(f, "to")
	if to < 4 || to+1 >= len(f) || f[to+1] != "dscp" || (!undo && to+3 != len(f)) {
		return fmt.Errorf("%s: %q: want qos map traffic-class N... to dscp D (fix: list the traffic classes 0-7, then to dscp and one DSCP 0-63 or a name such as af31)", where, line)
	}
	d := 0
	if !undo || to+2 < len(f) {
		var err error
		if d, err = cfgDSCP(f[to+2]); err != nil {
			return fmt.Errorf("%s: %q: %w", where, line, err)
		}
	}
	for _, s := range f[3:to] {
		tc, err := cfgInt(s, 0, 7)
		if err != nil {
			return fmt.Errorf("%s: %q: traffic-class: %w", where, line, err)
		}
		if undo {
			delete(p.tcDSCP, tc)
			delete(p.tcDSCPAt, tc)
			continue
		}
		p.tcDSCP[tc], p.tcDSCPAt[tc] = d, where
	}
	return nil
}

// remark is the DSCP each traffic class leaves every port with (nil: the
// switch rewrites none) and where the files say so, for
// PortConfig.Origins["tc_to_dscp"].
func (p *cfgParser) remark() (map[int]int, string) {
	if !p.rewriteDSCP || len(p.tcDSCP) == 0 {
		return nil, ""
	}
	var at []string
	for _, tc := range slices.Sorted(maps.Keys(p.tcDSCP)) {
		at = append(at, fmt.Sprintf("qos map traffic-class %d to dscp %d (%s)", tc, p.tcDSCP[tc], p.tcDSCPAt[tc]))
	}
	return maps.Clone(p.tcDSCP), fmt.Sprintf("%s: qos rewrite dscp with %s", p.rewriteAt, strings.Join(at, ", "))
}

// rewriteRisk warns (QOS017) of the traffic classes qos rewrite dscp
// rewrites by EOS's default traffic class to DSCP map, which labctl does
// not know: it runs their packets with the DSCP they came with, which the
// switch may change (erring toward harm, lint says so rather than trust
// the reading).
func (p *cfgParser) rewriteRisk() {
	if !p.rewriteDSCP {
		return
	}
	var left []int
	for tc := range 8 {
		if _, ok := p.tcDSCP[tc]; !ok {
			left = append(left, tc)
		}
	}
	if len(left) == 0 {
		return
	}
	// Lint says "<Where> is set, which the simulator does not run: <What>";
	// the classes the map names are simulated, so Where names the default
	// map and the classes left to it, not the rewrite as a whole.
	p.risks["global qos rewrite dscp (default map)"] = qos.NotRun{Where: fmt.Sprintf("EOS's default traffic class to DSCP map for traffic classes %s (qos rewrite dscp)", qos.FormatInts(left)), Source: p.rewriteAt.src, Line: p.rewriteAt.line,
		What: "labctl keeps their DSCP, not knowing the map (not found in Arista's documentation), while the switch rewrites it and may send RoCE or its CNPs on with a DSCP the next switch classifies elsewhere; the classes a qos map traffic-class ... to dscp line names are simulated",
		Fix:  "map each traffic class that carries traffic to the DSCP it should leave with (qos map traffic-class 3 to dscp 26 for RoCE's), or turn the rewrite off (no qos rewrite dscp)"}
}
