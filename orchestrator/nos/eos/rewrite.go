package eos

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
