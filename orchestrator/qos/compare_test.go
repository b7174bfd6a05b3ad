package qos

import (
	"maps"
	"strconv"
	"strings"
	"testing"
)

// roceFieldsByFilter is what roceFields means, spelled as a filter of the
// port's full flattening: the fields of trust, PFC, the watchdog, the
// RoCE and CNP DSCPs' classes and, for each class of those and of the PFC
// priorities, its maps, its queue's fields and its PG's (no profile
// names; no buffers with platform).
func roceFieldsByFilter(p *PortConfig, roce, cnp int, platform bool) map[string]string {
	all := flattenPort(p)
	out := map[string]string{}
	keep := func(k string) {
		if v, ok := all[k]; ok && !strings.HasSuffix(k, ".profile") {
			out[k] = v
		}
	}
	keep("trust")
	keep("pfc_priorities")
	keep("pfc_watchdog")
	classes := map[int]bool{p.TCOf(roce): true, p.TCOf(cnp): true}
	for _, pr := range p.PFCPriorities {
		classes[pr] = true
	}
	out["dscp_to_tc."+strconv.Itoa(roce)] = strconv.Itoa(p.TCOf(roce))
	out["dscp_to_tc."+strconv.Itoa(cnp)] = strconv.Itoa(p.TCOf(cnp))
	for tc := range classes {
		c := p.Class(tc)
		n := strconv.Itoa(tc)
		if v, ok := all["tc_to_dscp."+n]; ok {
			if d, _ := strconv.Atoi(v); p.TCOf(d) != tc {
				out["tc_to_dscp."+n] = v
			}
		}
		keep("tc_to_queue." + n)
		keep("pfc_to_queue." + n)
		keep("priority." + n + ".lossless")
		for k := range all {
			if strings.HasPrefix(k, "queue."+strconv.Itoa(c.Queue)+".") && (!platform || !strings.Contains(k, ".buffer.")) {
				keep(k)
			}
			if !platform && strings.HasPrefix(k, "pg."+strconv.Itoa(c.PG)+".") {
				keep(k)
			}
		}
		if !platform {
			keep("tc_to_pg." + n)
		}
	}
	return out
}

// roceFields builds its fields directly; it must give what filtering the
// full flattening gives, on rendered configs and on edited ones (a PG
// pointed elsewhere, a duplicate queue entry, ECN and PFC removed, a
// priority outside the eight classes).
func TestRoCEFieldsMatchFlatten(t *testing.T) {
	in, cfgs := lintBase(t)
	var ports []PortConfig
	for _, dc := range cfgs {
		for _, v := range []DeviceConfig{dc, dc.WithoutECN(), dc.WithoutPFC(), dc.WithoutECN().WithoutPFC()} {
			ports = append(ports, v.Clone().Ports...)
		}
	}
	edited := cfgs[0].Clone().Ports
	for i := range edited {
		p := &edited[i]
		p.TCToPG[3] = 4
		p.PFCPriorities = append(p.PFCPriorities, 9)
		if len(p.Queues) > 0 {
			dup := p.Queues[len(p.Queues)-1]
			dup.Weight += 7
			dup.Buffer = nil
			p.Queues = append(p.Queues, dup)
		}
		if len(p.PGs) > 0 {
			p.PGs = append(p.PGs, p.PGs[0])
			p.PGs[len(p.PGs)-1].Profile = ""
		}
		p.Watchdog = nil
		p.Trust = ""
		// RoCE's class remarked into another, the CNPs' kept in theirs:
		// only RoCE's is a field.
		p.TCToDSCP = map[int]int{3: 10, 6: 48}
	}
	ports = append(ports, edited...)
	if len(ports) == 0 {
		t.Fatal("no ports to compare")
	}
	for i := range ports {
		p := &ports[i]
		for _, platform := range []bool{false, true} {
			for _, dscp := range [][2]int{{in.RoCEDSCP, in.CNPDSCP}, {0, 63}, {26, 26}} {
				got := roceFields(p, dscp[0], dscp[1], platform, false)
				want := roceFieldsByFilter(p, dscp[0], dscp[1], platform)
				if !maps.Equal(got, want) {
					t.Errorf("port %s platform=%v dscp=%v:\n got  %v\n want %v", p.Name, platform, dscp, got, want)
				}
			}
		}
	}
}

// On a port that classifies by CoS (EOS: qos trust cos) tagged frames
// reach the queues of the classes their CoS maps to, though no DSCP does:
// such a queue's round-robin weight raised takes RoCE's bandwidth under
// contention, so it counts in RoCE's share (QOS018). sharedQueues counted
// only the queues some DSCP reaches.
func TestSharedQueuesFollowTrust(t *testing.T) {
	in, cfgs := lintBase(t)
	p := &cfgs[0].Ports[0]
	_, rendered := lintBase(t)
	ip := rendered[0].Ports[0]
	p.Trust, p.CoSToTC, p.DefaultCoS = TrustCoS, IdentityMap(), 3
	// Queue 1 (TC1), which no DSCP reaches on either port, weighted 90
	// where the intent gives 5.
	p.Queue(1).Weight = 90
	counted := sharedQueues(p, &ip, in.RoCEDSCP, in.CNPDSCP)
	if !counted[1] || !counted[2] || !counted[4] {
		t.Fatalf("trust cos: queues counted %v, want 1, 2 and 4, which CoS 1, 2 and 4 reach", counted)
	}
	got, exp := lowerShares(roceShares(p, p, counted, in.RoCEDSCP, in.CNPDSCP), roceShares(&ip, p, counted, in.RoCEDSCP, in.CNPDSCP))
	if got["queue.3.rr_share"] == "" {
		t.Errorf("queue 1 weighted 90 on a trust cos port: RoCE's share not lowered (%v against %v)", got, exp)
	}
	// Trust none: every frame takes the default CoS's class, whatever
	// its CoS, so queue 1 stays empty.
	p.Trust = TrustNone
	if counted := sharedQueues(p, &ip, in.RoCEDSCP, in.CNPDSCP); counted[1] {
		t.Errorf("trust none: queue 1 counted, which no frame reaches: %v", counted)
	}
}
