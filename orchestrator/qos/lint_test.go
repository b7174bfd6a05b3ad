package qos

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func lintBase(t *testing.T) (Intent, []DeviceConfig) {
	t.Helper()
	in, err := Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := ApplyAll(in, TestDevices())
	if err != nil {
		t.Fatal(err)
	}
	return in, cfgs
}

func findings(fs []Finding, rule string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// withoutSimNotes drops QOS011: it tells what the simulator models, not
// what is wrong with a config.
func withoutSimNotes(fs []Finding) []Finding {
	return slices.DeleteFunc(fs, func(f Finding) bool { return f.Rule == RuleSimIgnores })
}

func TestLintCleanConfig(t *testing.T) {
	in, cfgs := lintBase(t)
	fs := withoutSimNotes(Lint(cfgs, LintOptions{Intent: &in}))
	if len(fs) != 0 {
		t.Errorf("rendered lab intent has findings: %+v", fs)
	}
}

// The NICs' CNP DSCP, where the lab gives one, is what CNPs carry: lint
// checks their class at it, warns once that it is not the intent's, and
// compares the configs with the intent at the intent's (no drift).
func TestLintNICCNPDSCP(t *testing.T) {
	in, cfgs := lintBase(t)
	nic := 26
	fs := withoutSimNotes(Lint(cfgs, LintOptions{Intent: &in, NICCNPDSCP: &nic}))
	var lab, onPort int
	for _, f := range fs {
		switch {
		case f.Rule == RuleCNPPriority && f.Device == "" && strings.Contains(f.Message, "the NICs mark CNPs with DSCP 26 (nic.dcqcn.cnp_dscp)"):
			lab++
		case f.Rule == RuleCNPPriority && strings.Contains(f.Message, "CNP DSCP 26 maps to TC3, which has PFC"):
			onPort++
		case f.Rule == RuleIntentDrift:
			t.Errorf("drift where the configs are the intent's: %s", f.Message)
		}
	}
	if lab != 1 || onPort == 0 {
		t.Errorf("NICs' CNPs on DSCP 26: %d lab warnings, %d port warnings (want 1 and some): %+v", lab, onPort, fs)
	}
	nic = in.CNPDSCP
	if fs := withoutSimNotes(Lint(cfgs, LintOptions{Intent: &in, NICCNPDSCP: &nic})); len(fs) != 0 {
		t.Errorf("the NICs on the intent's CNP DSCP: %+v", fs)
	}
}

func TestLintRules(t *testing.T) {
	intP := func(v int) *int { return &v }
	tests := []struct {
		rule     string
		sev      Severity
		port     string
		contains string
		bare     bool // lint without the intent, like bare files
		opt      LintOptions
		mutate   func(cfgs []DeviceConfig, opt *LintOptions)
	}{
		{RulePFCOffLossless, SevError, "Ethernet0", "lossless priority 3", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PFCPriorities = []int{}
		}},
		{RulePFCOffLossless, SevError, "Ethernet0", "priority 4", true, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			// Bare files: a port classifying DSCP 10 into TC4 without
			// pausing it, where its siblings pause TC4.
			c[0].Port("Ethernet4").PFCPriorities = []int{3, 4}
			e0 := c[0].Port("Ethernet0")
			e0.DSCPToTC = maps.Clone(e0.DSCPToTC)
			e0.DSCPToTC[10] = 4
		}},
		{RuleDSCPMapMismatch, SevWarning, "Ethernet0", "DSCP 10 also reach a lossless class", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").DSCPToTC[10] = 3
		}},
		{RuleDSCPMapMismatch, SevWarning, "Ethernet0", "RoCE DSCP 0 is the DSCP of every unmarked packet", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			o.Intent.RoCEDSCP = 0
			for i := range c {
				for j := range c[i].Ports {
					c[i].Ports[j].DSCPToTC[0], c[i].Ports[j].DSCPToTC[26] = 3, 0
				}
			}
		}},
		{RuleDSCPMapMismatch, SevError, "Ethernet0", "lossless DSCPs [] differ from the [26] of most ports", true, LintOptions{RoCEDSCP: intP(26)}, func(c []DeviceConfig, o *LintOptions) {
			c[1].Port("Ethernet0").DSCPToTC[26] = 1
		}},
		{RuleRoCEDSCPLossy, SevError, "Ethernet0", "RoCE DSCP 26 maps to TC1", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			for i := range c {
				for j := range c[i].Ports {
					c[i].Ports[j].DSCPToTC[26] = 1
				}
			}
		}},
		{RuleRoCEDSCPLossy, SevError, "Ethernet0", "trusts cos, not DSCP: RoCE (untagged, DSCP 26) takes default CoS 0 and TC1", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.Trust, p.CoSToTC = TrustCoS, map[int]int{0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
		}},
		// Untrusted, with a default CoS in RoCE's lossless class: RoCE is
		// lossless, and so is everything else the port receives (QOS003
		// said TC3 was not lossless, naming lossless 3).
		{RuleDSCPMapMismatch, SevWarning, "Ethernet0", "trusts none, not DSCP: every untagged packet it receives, whatever its DSCP, takes default CoS 3 and TC3, RoCE's lossless class", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.Trust, p.DefaultCoS, p.CoSToTC = TrustNone, 3, map[int]int{0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
		}},
		{RuleRoCEDSCPLossy, SevError, "Ethernet0", "RoCE DSCP 24 maps to TC0", true, LintOptions{RoCEDSCP: intP(26)}, func(c []DeviceConfig, o *LintOptions) {
			o.RoCEDSCP = intP(24)
		}},
		{RuleRoCEDSCPLossy, SevInfo, "", "lossless DSCPs inferred from pfc_enable and the maps: 26", true, LintOptions{RoCEDSCP: intP(26)}, func(c []DeviceConfig, o *LintOptions) {
			o.RoCEDSCP = nil
		}},
		{RuleECNThresholds, SevWarning, "Ethernet0", "ECN Kmin and Kmax are both 1638400 bytes: the queue marks every packet above it and none below", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Queue(3).ECN.MinBytes = 1638400
		}},
		{RuleECNThresholds, SevError, "Ethernet0", "ECN Kmin 1638401 is above Kmax 1638400", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Queue(3).ECN.MinBytes = 1638401
		}},
		{RuleECNThresholds, SevError, "Ethernet0", "ECN marking probability 0% marks nothing between Kmin and Kmax", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			e := *c[0].Port("Ethernet0").Queue(3).ECN
			e.Pmax = 0
			c[0].Port("Ethernet0").Queue(3).ECN = &e
		}},
		{RuleECNThresholds, SevWarning, "Ethernet0", "above the PFC XOFF point (1048576 bytes)", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Pool(IngressLosslessPool).SizeBytes = 2 << 20
		}},
		// Kmin at or above XOFF on RoCE's queue: not one packet marked,
		// DCQCN never slows a sender (an error, as QOS005's).
		{RuleECNThresholds, SevError, "Ethernet0", "queue 3: ECN Kmin 409600 bytes is at or above the PFC XOFF point", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Pool(IngressLosslessPool).SizeBytes = 512 << 10
		}},
		// RoCE's queue marks nothing while another queue of the port
		// does: DCQCN never slows RoCE's senders (an error).
		{RuleECNLosslessQueue, SevError, "Ethernet0", "queue 3 of lossless TC3 does not mark ECN (its WRED profile ECN_409600_1638400_20 does not mark green packets) while ECN is in use", true, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.Queue(0).ECN = p.Queue(3).ECN
			p.Queue(3).ECN = nil
		}},
		// TC4 lossless on every port, its queue without ECN, but no port
		// of the switch classifies into TC4: nothing goes unmarked there
		// until one does (a warning, as QOS015's); with DSCP 10 in TC4 on
		// another port of the switch, an error.
		{RuleECNLosslessQueue, SevWarning, "Ethernet0", "queue 4 of lossless TC4 does not mark ECN (no WRED profile) while ECN is in use; no port of the switch classifies into TC4", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			for i := range c[0].Ports {
				c[0].Ports[i].PFCPriorities = []int{3, 4}
			}
		}},
		{RuleECNLosslessQueue, SevError, "Ethernet0", "queue 4 of lossless TC4 does not mark ECN (no WRED profile) while ECN is in use", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			for i := range c[0].Ports {
				c[0].Ports[i].PFCPriorities = []int{3, 4}
			}
			p := c[0].Port("Ethernet4")
			p.DSCPToTC = maps.Clone(p.DSCPToTC)
			p.DSCPToTC[10] = 4
		}},
		{RuleHeadroomShort, SevError, "Ethernet4", "below the 121360 bytes needed at 400 Gb/s over 100 m", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet4").CableM = 100
		}},
		// The link is longer than the cable the config sizes for.
		{RuleHeadroomShort, SevError, "Ethernet4", "needed at 400 Gb/s over 100 m (the config sizes it for 30 m: CABLE_LENGTH)", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet4").LinkCableM = 100
		}},
		{RuleCNPPriority, SevWarning, "Ethernet0", "CNP DSCP 48 goes to queue 6, which is weighted 5", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			q := c[0].Port("Ethernet0").Queue(6)
			q.Strict, q.Weight = false, 5
		}},
		{RuleCNPPriority, SevWarning, "Ethernet0", "CNP DSCP 0 is the DSCP of every unmarked packet", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			o.Intent.CNPDSCP = 0
			for i := range c {
				for j := range c[i].Ports {
					c[i].Ports[j].DSCPToTC[0] = CNPTC
				}
			}
		}},
		{RuleWatchdogOff, SevWarning, "Ethernet0", "without a PFC watchdog", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Watchdog = nil
		}},
		// The port's own poll interval (EOS's port timer
		// polling-interval), not the device's 100 ms.
		{RuleWatchdogOff, SevWarning, "Ethernet0", "the PFC watchdog polls every 1000 ms against a detection time of 200 ms", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			w := *c[0].Port("Ethernet0").Watchdog
			w.PollMs = 1000
			c[0].Port("Ethernet0").Watchdog = &w
		}},
		{RuleWatchdogOff, SevWarning, "Ethernet0", "the PFC watchdog only reports storms (action alert)", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			w := *c[0].Port("Ethernet0").Watchdog
			w.Action = "alert"
			c[0].Port("Ethernet0").Watchdog = &w
		}},
		{RuleWatchdogOff, SevWarning, "Ethernet0", "PFC is on priority 3 but the PFC watchdog watches 4 only", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			w := *c[0].Port("Ethernet0").Watchdog
			w.Priorities = []int{4}
			c[0].Port("Ethernet0").Watchdog = &w
		}},
		{RuleInvalidValue, SevError, "Ethernet0", "PFC watchdog detection time 0 ms is out of range", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			w := *c[0].Port("Ethernet0").Watchdog
			w.DetectionMs = 0
			c[0].Port("Ethernet0").Watchdog = &w
		}},
		{RuleInvalidValue, SevError, "Ethernet0", "PFC watchdog restoration time -1 ms is out of range", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			w := *c[0].Port("Ethernet0").Watchdog
			w.RestorationMs = -1
			c[0].Port("Ethernet0").Watchdog = &w
		}},
		{RuleInvalidValue, SevError, "Ethernet0", `PFC watchdog action "dorp" is no action a switch takes`, false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			w := *c[0].Port("Ethernet0").Watchdog
			w.Action = "dorp"
			c[0].Port("Ethernet0").Watchdog = &w
		}},
		// Priority 4 lossless at the spine's end only, where DSCP 10 takes
		// it: the spine pauses it, the leaf does not obey, and the spine
		// drops once the headroom is gone.
		{RuleLinkLosslessMatch, SevError, "Ethernet4", "differ from the peer spine1's [3,4]", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[1].Port("Ethernet0")
			p.PFCPriorities = []int{3, 4}
			p.DSCPToTC = maps.Clone(p.DSCPToTC)
			p.DSCPToTC[10] = 4
		}},
		// The same with no DSCP taking priority 4 at the spine: nothing
		// fills its PG there, so nothing is paused or dropped otherwise
		// than if the ends agreed (a warning: a DSCP mapped to it later is
		// lossless at one end only).
		{RuleLinkLosslessMatch, SevWarning, "Ethernet4", "differ from the peer spine1's [3,4]: no DSCP takes priority 4 where it is enabled", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[1].Port("Ethernet0").PFCPriorities = []int{3, 4}
		}},
		// PFC on priority 4, which no DSCP takes on the port: its lossy
		// PG and queue hold nothing, so lint warns (a DSCP mapped to it
		// later would be dropped) rather than errs.
		{RuleLosslessPG, SevWarning, "Ethernet0", "no DSCP takes priority 4 on this port", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PFCPriorities = []int{3, 4}
		}},
		{RuleWREDDropLossless, SevWarning, "Ethernet0", "no port of the switch classifies into TC4", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PFCPriorities = []int{3, 4}
		}},
		// Queue 4's WRED drops early without marking, and TC4 is lossless
		// on every port, but no port classifies into it: nothing is lost
		// there until one does (a warning); with DSCP 10 in TC4, an error.
		{RuleWREDDropLossless, SevWarning, "Ethernet0", "drops packets early (WRED from 100000 bytes, without ECN marking): lossless traffic is lost; no port of the switch classifies into TC4", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			for i := range c[0].Ports {
				c[0].Ports[i].PFCPriorities = []int{3, 4}
			}
			c[0].Port("Ethernet0").Queue(4).Drop = &ECNConfig{MinBytes: 100_000, MaxBytes: 200_000, Pmax: 0.1}
		}},
		{RuleWREDDropLossless, SevError, "Ethernet0", "drops packets early (WRED from 100000 bytes, without ECN marking): lossless traffic is lost", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			for i := range c[0].Ports {
				c[0].Ports[i].PFCPriorities = []int{3, 4}
			}
			p := c[0].Port("Ethernet0")
			p.Queue(4).Drop = &ECNConfig{MinBytes: 100_000, MaxBytes: 200_000, Pmax: 0.1}
			p.DSCPToTC = maps.Clone(p.DSCPToTC)
			p.DSCPToTC[10] = 4
		}},
		// Ethernet0's own map sends nothing to TC4, but Ethernet4's sends
		// DSCP 10 there with PFC 4: what it receives leaves by Ethernet0's
		// lossy queue 4 and is dropped there (the warning said nothing
		// was lost).
		{RuleWREDDropLossless, SevError, "Ethernet0", "queue 4 carries lossless TC4 but", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PFCPriorities = []int{3, 4}
			e4 := c[0].Port("Ethernet4")
			e4.PFCPriorities = []int{3, 4}
			e4.DSCPToTC = maps.Clone(e4.DSCPToTC)
			e4.DSCPToTC[10] = 4
		}},
		// A port that classifies by CoS takes tagged frames' CoS: CoS 4 in
		// TC4 fills its PG 4 whatever the default CoS (the downgrade
		// counted the default CoS alone).
		{RuleLosslessPG, SevError, "Ethernet0", "priority 4 has PFC on, but its PG 0", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.PFCPriorities = []int{3, 4}
			p.Trust, p.DefaultCoS = TrustCoS, 0
			p.CoSToTC = map[int]int{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
		}},
		// The same with DSCP 10 in TC4: its packets are dropped.
		{RuleLosslessPG, SevError, "Ethernet0", "priority 4 has PFC on, but its PG 0", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.PFCPriorities = []int{3, 4}
			p.DSCPToTC = maps.Clone(p.DSCPToTC)
			p.DSCPToTC[10] = 4
		}},
		{RuleWREDDropLossless, SevError, "Ethernet0", "queue 4 carries lossless TC4 but", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.PFCPriorities = []int{3, 4}
			p.DSCPToTC = maps.Clone(p.DSCPToTC)
			p.DSCPToTC[10] = 4
		}},
		// Priority 4 at the spine's end only, which no DSCP takes, but its
		// lossless PG is PG 3, which RoCE fills: XOFF there pauses 4
		// too, which the leaf does not obey.
		{RuleLinkLosslessMatch, SevError, "Ethernet4", "PFC priorities [3] differ from the peer spine1's [3,4]", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[1].Port("Ethernet0")
			p.PFCPriorities = []int{3, 4}
			p.TCToPG = maps.Clone(p.TCToPG)
			p.TCToPG[4] = 3
		}},
		{RuleLinkLosslessMatch, SevInfo, "", "peers are not known", true, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[1].PeersKnown = false
		}},
		{RuleParseNote, SevInfo, "", "service-profile X", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Notes = []string{"service-profile X is not in the files read"}
		}},
		{RuleUnresolved, SevError, "Ethernet0", "QUEUE|Ethernet0|3 wred_profile names X, which WRED_PROFILE does not define", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Unresolved = []Unresolved{{Where: "QUEUE|Ethernet0|3", Field: "wred_profile", Ref: "X", Table: "WRED_PROFILE", Effect: "no marking", Ports: []string{"Ethernet0"}}}
		}},
		{RuleOverruled, SevError, "Ethernet0", "leaf1.json:12: QUEUE|Ethernet0|3-3: orchagent refuses the key", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Sources = []string{"leaf1.json"}
			c[0].Overruled = []Overruled{{Where: "QUEUE|Ethernet0|3-3", Line: 12, Refused: true, What: "orchagent refuses the key", Fix: "write 3", Ports: []string{"Ethernet0"}}}
		}},
		{RuleOverruled, SevWarning, "Ethernet0", "line 7: BUFFER_PG|Ethernet0|3: buffermgrd writes over it", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Overruled = []Overruled{{Where: "BUFFER_PG|Ethernet0|3", Line: 7, What: "buffermgrd writes over it", Fix: "remove it", Ports: []string{"Ethernet0"}}}
		}},
		{RuleLosslessPG, SevError, "Ethernet0", "priority 3 has PFC on, but its PG 3 has the profile ingress_lossy_profile, which has no xoff", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PG(3).BufferProfile = IngressLossyProfile()
		}},
		{RuleLosslessPG, SevError, "Ethernet0", "PG 3 has the profile pg_lossless_100000_5m_profile with xoff 0", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PG(3).XoffBytes = Ptr(int64(0))
		}},
		{RuleLosslessPG, SevError, "Ethernet0", "its PG 0 has the profile ingress_lossy_profile", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").TCToPG[3] = 0
		}},
		{RuleHeadroomShort, SevError, "Ethernet0", "size 8192 bytes is below its xoff 35531", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PG(3).SizeBytes = Ptr(int64(8192))
		}},
		{RuleWREDDropLossless, SevError, "Ethernet0", "queue 3 carries lossless TC3 but drops packets early", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			q := c[0].Port("Ethernet0").Queue(3)
			q.Drop, q.ECN = q.ECN, nil
		}},
		{RulePFCQueueMap, SevError, "Ethernet0", "PFC frame for priority 3 received here pauses queue 0, but TC3 leaves by queue 3", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PFCToQueue[3] = 0
		}},
		{RuleRouting, SevWarning, "", "the spines have 2 different ASNs", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			o.Routing = []string{"the spines have 2 different ASNs"}
		}},
		{RuleShapedLossless, SevWarning, "Ethernet0", "queue 3 carries lossless TC3 and is shaped to 40 Gb/s, 40% of the port's 100 Gb/s", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Queue(3).Shaper = &Shaper{RateKbps: 40_000_000}
		}},
		{RuleShapedLossless, SevWarning, "Ethernet0", "queue 3 carries lossless TC3 and is shaped to 25 Gb/s, 25% of the port's 100 Gb/s", true, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Queue(3).Shaper = &Shaper{Percent: 25}
		}},
		{RuleShapedLossless, SevWarning, "Ethernet0", "the port carries lossless TC3 and is shaped to 50 Gb/s, 50% of the port's 100 Gb/s", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Shaper = &Shaper{RateKbps: 50_000_000}
		}},
		{RulePFCPGMap, SevError, "Ethernet0", "PFC priority 3's traffic fills PG 3 but its pause frames come from PG 0", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").PFCToPG = map[int]int{3: 0, 4: 4}
		}},
		// Bare EOS files say no speed: a percent shaper is named by its
		// percent.
		{RuleShapedLossless, SevWarning, "Ethernet0", "queue 3 carries lossless TC3 and is shaped to 10% of the port's speed", true, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.SpeedGbps, p.LinkSpeedGbps = 0, 0
			p.Queue(3).Shaper = &Shaper{Percent: 10}
		}},
		{RuleShapedLossless, SevWarning, "Ethernet0", "the port carries lossless TC3 and is shaped to 50% of the port's speed", true, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			p := c[0].Port("Ethernet0")
			p.SpeedGbps, p.LinkSpeedGbps = 0, 0
			p.Shaper = &Shaper{Percent: 50}
		}},
		// A packet meter is named by its frames a second.
		{RuleShapedLossless, SevWarning, "Ethernet0", "queue 3 carries lossless TC3 and is shaped to 1000000 packets/s:", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Queue(3).Shaper = &Shaper{PacketsPerSec: 1_000_000}
		}},
		// A port shaper is a RoCE setting the intent does not give.
		{RuleIntentDrift, SevWarning, "Ethernet0", "shaper is 50 Gb/s; the lab's QoS intent gives -", false, LintOptions{Devices: TestDevices()}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Shaper = &Shaper{RateKbps: 50_000_000}
		}},
		{RulePortMTU, SevError, "Ethernet0", "the port's MTU 1500 is below the 4156 bytes", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").MTU = 1500
		}},
		{RuleDefaultRelied, SevWarning, "Ethernet0", "interface qos trust is not set", false, LintOptions{}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Defaults = []Default{{Field: "interface qos trust", Value: "dscp", Source: "EOS default", Ports: []string{"Ethernet0"}, Risky: true}}
		}},
		{RuleIntentDrift, SevWarning, "Ethernet0", "queue.3.ecn is min=3000000 max=1638400 bytes pmax=0.2; the lab's QoS intent gives min=409600", false, LintOptions{Devices: TestDevices()}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Queue(3).ECN.MinBytes = 3000000
		}},
		// Best effort's weight raised (EOS: tx-queue 0 bandwidth percent
		// 20 made 90): RoCE's queue keeps its own weight, 50, but its
		// share of the round robin (of the queues some DSCP reaches, 0, 3,
		// 5 and 7) falls from 50 of 85 to 50 of 155, which QOS018 compared
		// no field of (only the RoCE classes' own).
		{RuleIntentDrift, SevWarning, "Ethernet0", "queue.3.rr_share is 34.5% (q0 90, q3 50, q5 5 of 145); the lab's QoS intent gives 66.7% (q0 20, q3 50, q5 5 of 75)", false, LintOptions{Devices: TestDevices()}, func(c []DeviceConfig, o *LintOptions) {
			c[0].Port("Ethernet0").Queue(0).Weight = 90
		}},
	}
	for _, tt := range tests {
		t.Run(tt.rule+"/"+tt.contains, func(t *testing.T) {
			in, cfgs := lintBase(t)
			opt := tt.opt
			if !tt.bare {
				opt.Intent = &in
			}
			before := findings(Lint(cfgs, opt), tt.rule)
			for _, f := range before {
				if f.Severity == tt.sev && strings.Contains(f.Message, tt.contains) {
					t.Fatalf("finding present before the change: %+v", f)
				}
			}
			tt.mutate(cfgs, &opt)
			got := findings(Lint(cfgs, opt), tt.rule)
			for _, f := range got {
				if f.Severity == tt.sev && (f.Port == tt.port || slices.Contains(f.Ports, tt.port)) && strings.Contains(f.Message, tt.contains) {
					if f.Severity != SevInfo && f.Fix == "" {
						t.Errorf("finding has no fix: %+v", f)
					}
					return
				}
			}
			t.Errorf("no %s %s finding on port %q containing %q; got %+v", tt.sev, tt.rule, tt.port, tt.contains, got)
		})
	}
}

// TestLintRRShareOfEmptyQueues: a round-robin queue no DSCP reaches holds
// nothing and takes nothing from RoCE (a scheduler passes over an empty
// queue), so its weight raised is no QOS018 finding (EOS: tx-queue 1
// bandwidth percent 5 made 30); with a DSCP mapped to it, it is, the
// intent's share reckoned over the same queues (the SONiC mutation suite
// holds the DSCP moved alone, the weights the intent's, to be none).
func TestLintRRShareOfEmptyQueues(t *testing.T) {
	in, cfgs := lintBase(t)
	opt := LintOptions{Intent: &in, Devices: TestDevices()}
	none := func(what string) {
		t.Helper()
		for _, f := range findings(Lint(cfgs, opt), RuleIntentDrift) {
			t.Errorf("%s: %+v", what, f)
		}
	}
	for _, q := range []int{1, 2, 4} {
		cfgs[0].Port("Ethernet0").Queue(q).Weight = 30
	}
	none("weights of queues no DSCP reaches raised")
	p7 := cfgs[0].Port("Ethernet0")
	nc := p7.DSCPsByQueue()[7]
	if !networkControlOnly(nc) {
		t.Fatalf("queue 7 takes DSCPs %v, not network control's alone", nc)
	}
	w7 := p7.Queue(7).Weight
	p7.Queue(7).Weight = 2 * w7
	none("the weight of queue 7, network control's alone, doubled")
	p7.Queue(7).Weight = w7
	for _, q := range []int{1, 2, 4} {
		cfgs[0].Port("Ethernet0").Queue(q).Weight = 5
	}
	p := cfgs[0].Port("Ethernet0")
	tc := slices.IndexFunc([]int{0, 1, 2, 3, 4, 5, 6, 7}, func(tc int) bool { return p.Class(tc).Queue == 1 })
	if tc < 0 {
		t.Fatal("no class of queue 1")
	}
	p.DSCPToTC = maps.Clone(p.DSCPToTC)
	p.DSCPToTC[10] = tc
	none("DSCP 10 mapped to queue 1, weighted as the intent has it")
	p.Queue(1).Weight = 30
	want := "queue.3.rr_share is 47.6% (q0 20, q1 30, q3 50, q5 5 of 105); the lab's QoS intent gives 62.5% (q0 20, q1 5, q3 50, q5 5 of 80)"
	for _, f := range findings(Lint(cfgs, opt), RuleIntentDrift) {
		if f.Port == "Ethernet0" && strings.Contains(f.Message, want) {
			return
		}
	}
	t.Errorf("DSCP 10 mapped to queue 1, weighted 30: no QOS018 finding containing %q", want)
}

// TestLintUntrustedPortWithPolicy: on a port that does not trust DSCP,
// a QoS policy decides RoCE's class ahead of the default CoS, so QOS002's
// "every untagged packet takes the default CoS's class" warns only where
// that class (not RoCE's) is lossless and names it, and QOS003 on a class
// the policy gave blames the policy, not the trust mode.
func TestLintUntrustedPortWithPolicy(t *testing.T) {
	cos := map[int]int{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
	for _, tt := range []struct {
		name       string
		defCoS     int
		policy     map[int]int
		rule, want string // "" : no finding on Ethernet0 of the rule
		notFix     string
	}{
		{"policy gives RoCE TC3, CoS 0 lossy", 0, map[int]int{26: 3}, RuleDSCPMapMismatch, "", ""},
		{"policy gives RoCE TC3, CoS 3 lossless", 3, map[int]int{26: 3}, RuleDSCPMapMismatch,
			"every untagged packet it receives that its QoS policy leaves out, whatever its DSCP, takes default CoS 3 and TC3, RoCE's lossless class", ""},
		{"policy gives RoCE TC1", 3, map[int]int{26: 1}, RuleRoCEDSCPLossy,
			"the port's QoS policy gives RoCE (DSCP 26) TC1, which is not lossless", TrustDSCPFix},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, cfgs := lintBase(t)
			p := cfgs[0].Port("Ethernet0")
			p.Trust, p.DefaultCoS, p.CoSToTC, p.PolicyTC = TrustNone, tt.defCoS, cos, tt.policy
			var got []Finding
			for _, f := range findings(Lint(cfgs, LintOptions{Intent: &in}), tt.rule) {
				if f.Port == "Ethernet0" || slices.Contains(f.Ports, "Ethernet0") {
					got = append(got, f)
				}
			}
			if tt.want == "" {
				if len(got) > 0 {
					t.Fatalf("%s on Ethernet0, want none: %+v", tt.rule, got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0].Message, tt.want) || got[0].Fix == tt.notFix {
				t.Fatalf("%s on Ethernet0: %+v, want one containing %q (fix not %q)", tt.rule, got, tt.want, tt.notFix)
			}
		})
	}
}

// TestLintShapersThatHoldNothing: a queue's or port's shaper at the port's
// line rate, or on a queue no lossless class leaves by, is no QOS022
// finding, and no drift from the intent (QOS018) either: it changes
// nothing RoCE sees.
func TestLintShapersThatHoldNothing(t *testing.T) {
	for name, mutate := range map[string]func(p *PortConfig){
		"line rate":           func(p *PortConfig) { p.Queue(3).Shaper = &Shaper{Percent: 100} },
		"a lossy queue":       func(p *PortConfig) { p.Queue(1).Shaper = &Shaper{RateKbps: 1_000_000} },
		"a port at line rate": func(p *PortConfig) { p.Shaper = &Shaper{RateKbps: 100_000_000} },
		"100 percent, the speed unknown": func(p *PortConfig) {
			p.SpeedGbps, p.LinkSpeedGbps = 0, 0
			p.Queue(3).Shaper = &Shaper{Percent: 100}
		},
	} {
		in, cfgs := lintBase(t)
		mutate(cfgs[0].Port("Ethernet0"))
		fs := Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices()})
		if got := append(findings(fs, RuleShapedLossless), findings(fs, RuleIntentDrift)...); len(got) > 0 {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

func TestLintRulesHaveStableIDs(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for _, r := range Rules() {
		if seen[r.ID] || !strings.HasPrefix(r.ID, "QOS") || r.Name == "" || r.Summary == "" {
			t.Errorf("rule %+v", r)
		}
		// In id order, as lint --help lists them (QOS021 came after
		// QOS024 there).
		if r.ID < prev {
			t.Errorf("rule %s listed after %s", r.ID, prev)
		}
		seen[r.ID] = true
		prev = r.ID
	}
}

func TestHasErrors(t *testing.T) {
	if HasErrors([]Finding{{Severity: SevWarning}, {Severity: SevInfo}}) {
		t.Error("warnings counted as errors")
	}
	if !HasErrors([]Finding{{Severity: SevError}}) {
		t.Error("error not counted")
	}
}

func TestDiff(t *testing.T) {
	_, a := lintBase(t)
	_, b := lintBase(t)
	if d := Diff(a, b); len(d) != 0 {
		t.Fatalf("identical sets differ: %+v", d)
	}
	for j := range b[0].Ports {
		b[0].Ports[j].DSCPToTC[26] = 1
	}
	b[0].Port("Ethernet0").PFCPriorities = []int{}
	q3 := b[0].Port("Ethernet0").Queue(3)
	e := *q3.ECN
	e.MaxBytes = 2000000
	q3.SetMarking(e)
	b = b[:1]
	b = append(b, DeviceConfig{Device: "spine2"})
	got := Diff(a, b)
	want := []Difference{
		{Device: "leaf1", Port: "Ethernet0, Ethernet4", Ports: []string{"Ethernet0", "Ethernet4"}, Field: "dscp_to_tc.26", A: "3", B: "1"},
		{Device: "leaf1", Port: "Ethernet0", Field: "pfc_priorities", A: "[3]", B: "[]"},
		{Device: "leaf1", Port: "Ethernet0", Field: "priority.3.lossless", A: "true", B: "false"},
		{Device: "leaf1", Port: "Ethernet0", Field: "queue.3.ecn", A: "min=409600 max=1638400 bytes pmax=0.2", B: "min=409600 max=2000000 bytes pmax=0.2"},
		{Device: "spine1", Field: "device", A: "present"},
		{Device: "spine2", Field: "device", B: "present"},
	}
	if len(got) != len(want) {
		t.Fatalf("diff = %+v", got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("diff[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := FormatDiff(got); !strings.Contains(s, "leaf1 Ethernet0, Ethernet4 dscp_to_tc.26: 3 -> 1\n") || !strings.Contains(s, "spine1 device: present -> -") {
		t.Errorf("FormatDiff = %q", s)
	}
	// Summaries (what run records keep) compare the same way.
	var sa, sb []Settings
	for i := range a {
		sa = append(sa, Summarize(&a[i]))
	}
	for i := range b {
		sb = append(sb, Summarize(&b[i]))
	}
	if again := DiffSettings(sa, sb); !reflect.DeepEqual(again, got) {
		t.Errorf("DiffSettings = %+v", again)
	}
}

// TestAssumedBufferPerPort: a config without buffer tables takes, port
// by port, the buffer labctl renders for that port's own speed and cable
// (the intent's lossless PG profile), and a PG the NOS assumed for a PFC
// priority takes the port's lossless profile; without pools, the
// switch's pools are the ones Apply renders.
func TestAssumedBufferPerPort(t *testing.T) {
	in, err := Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	dev := Device{Name: "leaf1", Role: "leaf", Ports: []Port{
		{Name: "Ethernet0", SpeedGbps: 400, Peer: "spine1:Ethernet0", Fabric: true},
		{Name: "Ethernet4", SpeedGbps: 400, CableM: 300, Peer: "spine2:Ethernet0", Fabric: true},
		{Name: "Ethernet8", SpeedGbps: 100, Peer: "h1:eth1", Fabric: true},
		{Name: "Ethernet12", SpeedGbps: 100, CableM: 300, Peer: "h2:eth1", Fabric: true},
	}}
	want, err := Apply(in, dev)
	if err != nil {
		t.Fatal(err)
	}
	lossless := func(p *PortConfig) BufferProfile {
		for _, g := range p.PGs {
			if LosslessProfile(&g.BufferProfile) {
				return g.BufferProfile
			}
		}
		t.Fatalf("%s has no lossless PG", p.Name)
		return BufferProfile{}
	}
	got, err := Apply(in, dev)
	if err != nil {
		t.Fatal(err)
	}
	got.Pools = nil
	for _, name := range []string{"Ethernet0", "Ethernet12"} { // as parsed from a config without buffer tables
		p := got.Port(name)
		p.PGs, p.BufferUnknown = nil, true
		for k := range p.Queues {
			p.Queues[k].Buffer = nil
		}
	}
	for _, name := range []string{"Ethernet4", "Ethernet8"} { // PGs the NOS made, with another profile
		p := got.Port(name)
		for k := range p.PGs {
			if LosslessProfile(&p.PGs[k].BufferProfile) {
				p.PGs[k].BufferProfile = IngressLossyProfile()
				p.PGs[k].BufferProfile.XoffBytes = Ptr(int64(1))
				p.PGs[k].Assumed = true
			}
		}
	}
	cfgs := []DeviceConfig{got}
	AttachTopology(cfgs, []Device{dev}, in)
	if !reflect.DeepEqual(cfgs[0].Pools, want.Pools) {
		t.Errorf("pools = %+v, want Apply's %+v", cfgs[0].Pools, want.Pools)
	}
	for _, p := range dev.Ports {
		if g, w := lossless(cfgs[0].Port(p.Name)), lossless(want.Port(p.Name)); !reflect.DeepEqual(g, w) {
			t.Errorf("%s (%d G, cable %d m): lossless PG %+v, want %+v", p.Name, p.SpeedGbps, p.CableM, g, w)
		}
	}
}

func TestAttachTopology(t *testing.T) {
	in, cfgs := lintBase(t)
	// As parsed from files: no peers, no MTU, and a port missing entirely.
	for i := range cfgs {
		cfgs[i].PeersKnown = false
		for j := range cfgs[i].Ports {
			cfgs[i].Ports[j].Peer, cfgs[i].Ports[j].MTU = "", 0
		}
	}
	cfgs[0].Ports = cfgs[0].Ports[1:] // drop Ethernet0
	AttachTopology(cfgs, TestDevices(), in)
	if !cfgs[0].PeersKnown || cfgs[0].Port("Ethernet4").Peer != "spine1:Ethernet0" || cfgs[0].Port("Ethernet4").CableM != 30 {
		t.Errorf("leaf1 = %+v", cfgs[0])
	}
	fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RulePFCOffLossless)
	if len(fs) != 1 || fs[0].Port != "Ethernet0" {
		t.Errorf("missing port not flagged: %+v", fs)
	}
}

func TestLintBareLosslessByMajority(t *testing.T) {
	in, _ := Profile("")
	dev := Device{Name: "sw", Ports: []Port{
		{Name: "Ethernet0", SpeedGbps: 100, Fabric: true},
		{Name: "Ethernet4", SpeedGbps: 100, Fabric: true},
		{Name: "Ethernet8", SpeedGbps: 100, Fabric: true},
		{Name: "Ethernet12", SpeedGbps: 100, Fabric: true},
	}}
	dc, err := Apply(in, dev)
	if err != nil {
		t.Fatal(err)
	}
	dc.PeersKnown = false
	// An uplink enabling extra priorities is not a finding…
	dc.Port("Ethernet8").PFCPriorities = []int{2, 3, 6}
	if fs := findings(Lint([]DeviceConfig{dc}, LintOptions{}), RulePFCOffLossless); len(fs) != 0 {
		t.Errorf("extra priorities flagged: %+v", fs)
	}
	// …a port missing the majority's priority is.
	dc.Port("Ethernet4").PFCPriorities = []int{}
	fs := findings(Lint([]DeviceConfig{dc}, LintOptions{}), RulePFCOffLossless)
	if len(fs) != 1 || fs[0].Port != "Ethernet4" {
		t.Errorf("findings = %+v", fs)
	}
	// A buffer-only file (no PFC anywhere) has nothing to enforce.
	for i := range dc.Ports {
		dc.Ports[i].PFCPriorities = []int{}
	}
	if fs := findings(Lint([]DeviceConfig{dc}, LintOptions{}), RulePFCOffLossless); len(fs) != 0 {
		t.Errorf("buffer-only device flagged: %+v", fs)
	}
}

// TestIntentDriftPortShapes: QOS018 holds each port to what the intent
// renders for that port's own speed and cable length (lint renders each
// speed and length once). Two ports that swap lossless PG profiles (their
// headroom follows the cable) are both named; as rendered, nothing is.
func TestIntentDriftPortShapes(t *testing.T) {
	in, err := Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	devs := []Device{{Name: "leaf1", Role: "leaf", Ports: []Port{
		{Name: "Ethernet0", SpeedGbps: 400, Peer: "spine1:Ethernet0", Fabric: true},
		{Name: "Ethernet4", SpeedGbps: 400, CableM: 300, Peer: "spine2:Ethernet0", Fabric: true},
		{Name: "Ethernet8", SpeedGbps: 100, Peer: "h1:eth1", Fabric: true},
		{Name: "Ethernet12", SpeedGbps: 100, CableM: 300, Peer: "h2:eth1", Fabric: true},
		{Name: "Ethernet16", SpeedGbps: 100, Peer: "h3:eth1", Fabric: true},
	}}}
	opt := LintOptions{Intent: &in, Devices: devs}
	render := func() []DeviceConfig {
		cfgs, err := ApplyAll(in, devs)
		if err != nil {
			t.Fatal(err)
		}
		return cfgs
	}
	if fs := findings(Lint(render(), opt), RuleIntentDrift); len(fs) != 0 {
		t.Fatalf("as rendered: %+v", fs)
	}
	pg := func(p *PortConfig) *PGConfig {
		for i := range p.PGs {
			if p.PGs[i].BufferProfile.Profile == LosslessPGProfileName(p.SpeedGbps, p.CableM) {
				return &p.PGs[i]
			}
		}
		t.Fatalf("%s has no lossless PG", p.Name)
		return nil
	}
	for _, pair := range [][2]string{{"Ethernet0", "Ethernet4"}, {"Ethernet8", "Ethernet12"}, {"Ethernet4", "Ethernet12"}} {
		cfgs := render()
		a, b := pg(cfgs[0].Port(pair[0])), pg(cfgs[0].Port(pair[1]))
		a.BufferProfile, b.BufferProfile = b.BufferProfile, a.BufferProfile
		var named []string
		for _, f := range findings(Lint(cfgs, opt), RuleIntentDrift) {
			named = append(named, f.Port)
		}
		if !slices.Equal(named, pair[:]) {
			t.Errorf("lossless PG profiles of %s and %s swapped: QOS018 on %v, want both", pair[0], pair[1], named)
		}
	}
}

// TestSiblingsNeedAMajority: QOS012 names the switch that left its role's
// shared RoCE settings only when the others agree against it; between two
// leaves that differ neither is the odd one out, and QOS018 names the one
// that moved from the intent.
func TestSiblingsNeedAMajority(t *testing.T) {
	in, err := Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	leaves := func(n int) []Device {
		var ds []Device
		for i := 1; i <= n; i++ {
			ds = append(ds, Device{Name: "leaf" + string(rune('0'+i)), Role: "leaf", Ports: []Port{
				{Name: "Ethernet0", SpeedGbps: 100, Peer: "h1:eth1", Fabric: true},
			}})
		}
		return ds
	}
	for _, n := range []int{2, 3} {
		devs := leaves(n)
		cfgs, err := ApplyAll(in, devs)
		if err != nil {
			t.Fatal(err)
		}
		opt := LintOptions{Intent: &in, Devices: devs}
		if fs := findings(Lint(cfgs, opt), RulePortDiffers); len(fs) != 0 {
			t.Fatalf("%d leaves as rendered: %+v", n, fs)
		}
		cfgs[0].Port("Ethernet0").Queue(3).ECN.MinBytes = 100000
		fs := Lint(cfgs, opt)
		var odd []string
		for _, f := range findings(fs, RulePortDiffers) {
			odd = append(odd, f.Device)
		}
		want := []string{"leaf1"}
		if n == 2 {
			want = nil
		}
		if !slices.Equal(odd, want) {
			t.Errorf("%d leaves, leaf1 edited: QOS012 on %v, want %v", n, odd, want)
		}
		if drift := findings(fs, RuleIntentDrift); len(drift) != 1 || drift[0].Device != "leaf1" {
			t.Errorf("%d leaves, leaf1 edited: QOS018 = %+v", n, drift)
		}
	}
}

// TestUnresolvedOneFindingPerCause: the same missing profile named by a
// per-port entry on every port is one QOS013 finding over the ports; a
// different missing name is another.
func TestUnresolvedOneFindingPerCause(t *testing.T) {
	in, cfgs := lintBase(t)
	u := func(port, ref string) Unresolved {
		return Unresolved{Where: "BUFFER_PG|" + port + "|3", Field: "profile", Ref: ref, Table: "BUFFER_PROFILE", Effect: "no headroom", Ports: []string{port}}
	}
	cfgs[0].Unresolved = []Unresolved{u("Ethernet0", "typo"), u("Ethernet4", "typo"), u("Ethernet8", "other")}
	fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleUnresolved)
	if len(fs) != 2 {
		t.Fatalf("QOS013 findings = %+v, want 2", fs)
	}
	if f := fs[0]; f.Where != "BUFFER_PG|*|3" || !slices.Equal(f.Ports, []string{"Ethernet0", "Ethernet4"}) || !strings.HasPrefix(f.Message, "BUFFER_PG|*|3 profile names typo,") {
		t.Errorf("grouped finding = %+v", f)
	}
	if f := fs[1]; f.Port != "Ethernet8" || len(f.Ports) != 0 || !strings.HasPrefix(f.Message, "BUFFER_PG|Ethernet8|3 profile names other,") {
		t.Errorf("single finding = %+v", f)
	}
}

// TestOverruledOneFindingPerCause: the same per-port entry overruled for
// the same reason on several ports is one QOS021 finding over the ports,
// placed at the first; an entry naming several ports keeps its key.
func TestOverruledOneFindingPerCause(t *testing.T) {
	in, cfgs := lintBase(t)
	o := func(port string, line int) Overruled {
		return Overruled{Where: "BUFFER_PG|" + port + "|3", Source: 1, Line: line, What: "buffermgrd writes over it", Fix: "remove it", Ports: []string{port}}
	}
	cfgs[0].Sources = []string{"leaf1.json", "leaf1.buffers.json"}
	cfgs[0].Overruled = []Overruled{o("Ethernet0", 10), o("Ethernet4", 14),
		{Where: "QUEUE|Ethernet0,Ethernet4|3-3", Line: 3, Refused: true, What: "orchagent refuses it", Fix: "write 3", Ports: []string{"Ethernet0", "Ethernet4"}}}
	fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleOverruled)
	if len(fs) != 2 {
		t.Fatalf("QOS021 findings = %+v, want 2", fs)
	}
	for _, f := range fs {
		switch f.Severity {
		case SevWarning:
			if f.Where != "BUFFER_PG|*|3" || f.Message != "BUFFER_PG|*|3 (2 entries, the first at leaf1.buffers.json:10): buffermgrd writes over it" || !slices.Equal(f.Ports, []string{"Ethernet0", "Ethernet4"}) {
				t.Errorf("grouped finding = %+v", f)
			}
		case SevError:
			if f.Message != "leaf1.json:3: QUEUE|Ethernet0,Ethernet4|3-3: orchagent refuses it" || f.Fix != "write 3" || !slices.Equal(f.Ports, []string{"Ethernet0", "Ethernet4"}) {
				t.Errorf("refused finding = %+v", f)
			}
		}
	}
}

// A change of a WRED profile's green thresholds alone is one field, not
// yellow and red turning up: the colours are named only where they differ
// from green, and the side that does not name them marks them as green.
func TestDiffGreenOnlyNamesGreen(t *testing.T) {
	_, cfgs := lintBase(t)
	q := cfgs[0].Port("Ethernet0").Queue(3)
	if q.ECN == nil {
		t.Skip("the base config's queue 3 does not mark")
	}
	green := *q.ECN
	q.WRED = &WREDProfile{Yellow: &WREDColour{Mark: true, ECNConfig: green}, Red: &WREDColour{Mark: true, ECNConfig: green}}
	before := cfgs[0].Clone()
	after := cfgs[0].Clone()
	e := *after.Port("Ethernet0").Queue(3).ECN
	e.MinBytes *= 2
	after.Port("Ethernet0").Queue(3).ECN = &e
	var fields []string
	for _, d := range Diff([]DeviceConfig{before}, []DeviceConfig{after}) {
		fields = append(fields, d.Field)
	}
	if !slices.Equal(fields, []string{"queue.3.ecn"}) {
		t.Errorf("changed fields %v, want only queue.3.ecn", fields)
	}
}

// A record from before EOS's notify-only read as alert compares with one
// from after as the same action; another action still differs.
func TestDiffWatchdogNotifyOnlyIsAlert(t *testing.T) {
	_, cfgs := lintBase(t)
	p := cfgs[0].Port("Ethernet0")
	if len(p.PFCPriorities) == 0 {
		t.Skip("the base config's Ethernet0 has no PFC")
	}
	with := func(action string) []Settings {
		dc := cfgs[0].Clone()
		dc.Port("Ethernet0").Watchdog = &PortWatchdog{DetectionMs: 200, RestorationMs: 200, Action: action}
		return SummarizeAll([]DeviceConfig{dc})
	}
	if d := DiffSettings(with("notify-only"), with("alert")); len(d) > 0 {
		t.Errorf("notify-only against alert: %v", d)
	}
	if d := DiffSettings(with("notify-only"), with("drop")); len(d) != 1 || d[0].Field != "pfc_watchdog" {
		t.Errorf("notify-only against drop: %v", d)
	}
}

// TestLintPFCPGMapThatAgrees: a PFC-priority-to-PG map that pauses each
// PFC priority from the PG its traffic fills (the identity here) is no
// QOS023 finding.
func TestLintPFCPGMapThatAgrees(t *testing.T) {
	in, cfgs := lintBase(t)
	cfgs[0].Port("Ethernet0").PFCToPG = map[int]int{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
	if got := findings(Lint(cfgs, LintOptions{Intent: &in}), RulePFCPGMap); len(got) > 0 {
		t.Errorf("identity: %+v", got)
	}
	// TC3 fills PG 4 and the map pauses priority 3 from PG 4: they agree,
	// though neither map is the identity.
	in, cfgs = lintBase(t)
	p := cfgs[0].Port("Ethernet0")
	p.TCToPG = maps.Clone(p.TCToPG)
	p.TCToPG[3] = 4
	p.PFCToPG = map[int]int{3: 4}
	if got := findings(Lint(cfgs, LintOptions{Intent: &in}), RulePFCPGMap); len(got) > 0 {
		t.Errorf("TC3 in PG 4, paused from PG 4: %+v", got)
	}
}

// TestLintEgressRemark: QOS024 reads the class RoCE's rewritten DSCP
// takes at the next switch, the port's peer: leaf1's uplink remarking TC3
// to DSCP 0 puts RoCE in the spine's lossy TC0; to a DSCP the spine also
// classifies into TC3 it does not; leaf1's port to a NIC remarks for no
// switch. With the peer unknown (bare files) the port's own maps stand
// for the next switch's. The class remarked is the one RoCE gets where it
// enters the switch, and the CNPs' DSCP the NICs'.
func TestLintEgressRemark(t *testing.T) {
	in, cfgs := lintBase(t)
	cfgs[0].Port("Ethernet4").TCToDSCP = map[int]int{3: 0}
	cfgs[0].Port("Ethernet0").TCToDSCP = map[int]int{3: 0}
	lab := LintOptions{Intent: &in, Devices: TestDevices()}
	got := findings(Lint(cfgs, lab), RuleEgressRemark)
	if len(got) != 1 || got[0].Device != "leaf1" || got[0].Port != "Ethernet4" || got[0].Severity != SevError ||
		!strings.Contains(got[0].Message, "RoCE (DSCP 26, traffic class 3) leaves the port rewritten to DSCP 0, which spine1 classifies into traffic class 0 (lossy) instead of 3 (lossless)") ||
		!strings.Contains(got[0].Fix, "TC_TO_DSCP_MAP, 3: 26") {
		t.Errorf("TC3 to DSCP 0 on both ports: %+v; want one error on the uplink", got)
	}
	// The spine classifies DSCP 27 into TC3 as well: no finding.
	in, cfgs = lintBase(t)
	sp := cfgs[1].Port("Ethernet0")
	sp.DSCPToTC = maps.Clone(sp.DSCPToTC)
	sp.DSCPToTC[27] = 3
	cfgs[0].Port("Ethernet4").TCToDSCP = map[int]int{3: 27}
	if got := findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices()}), RuleEgressRemark); len(got) > 0 {
		t.Errorf("TC3 to DSCP 27, which the spine puts in TC3: %+v", got)
	}
	// The uplink's own map puts DSCP 26 in TC0, but RoCE enters leaf1 by
	// Ethernet0, which puts it in TC3: TC3's remark is RoCE's.
	in, cfgs = lintBase(t)
	up := cfgs[0].Port("Ethernet4")
	up.DSCPToTC = maps.Clone(up.DSCPToTC)
	up.DSCPToTC[26] = 0
	up.TCToDSCP = map[int]int{3: 0}
	if got := findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices()}), RuleEgressRemark); len(got) != 1 || !strings.Contains(got[0].Message, "traffic class 3) leaves the port rewritten to DSCP 0") {
		t.Errorf("RoCE in TC3 where it enters, remarked on an uplink that maps 26 elsewhere: %+v", got)
	}
	// The NICs mark CNPs with DSCP 10 (not the configs' 48): a remark of
	// TC0, DSCP 10's class, to RoCE's DSCP moves them into TC3.
	in, cfgs = lintBase(t)
	cfgs[0].Port("Ethernet4").TCToDSCP = map[int]int{0: 26}
	cnp := 10
	if got := findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices(), NICCNPDSCP: &cnp}), RuleEgressRemark); len(got) != 1 || !strings.Contains(got[0].Message, "CNPs (DSCP 10, traffic class 0) leave the port rewritten to DSCP 26") {
		t.Errorf("the NICs' CNPs (DSCP 10) remarked to 26: %+v", got)
	}
	// Two hops on: the spine keeps DSCP 27 in TC3 and sends it on by
	// another port to a leaf port that puts 27 in TC0.
	in, cfgs = lintBase(t)
	sp = cfgs[1].Port("Ethernet0")
	sp.DSCPToTC = maps.Clone(sp.DSCPToTC)
	sp.DSCPToTC[27] = 3
	down := clonePort(*sp)
	down.Name, down.Peer = "Ethernet4", "leaf1:Ethernet12"
	cfgs[1].Ports = append(cfgs[1].Ports, down)
	back := clonePort(*cfgs[0].Port("Ethernet4"))
	back.Name, back.Peer = "Ethernet12", "spine1:Ethernet4"
	cfgs[0].Ports = append(cfgs[0].Ports, back)
	cfgs[0].Port("Ethernet4").TCToDSCP = map[int]int{3: 27}
	if got := findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices()}), RuleEgressRemark); len(got) != 1 || got[0].Port != "Ethernet4" ||
		!strings.Contains(got[0].Message, "rewritten to DSCP 27, which leaf1 classifies into traffic class 0 (lossy) instead of 3 (lossless)") {
		t.Errorf("TC3 to DSCP 27, kept by the spine, lossy at the leaf after it: %+v", got)
	}
	// ... and rewritten again by the spine's port to 10 on the way.
	cfgs[1].Ports[len(cfgs[1].Ports)-1].TCToDSCP = map[int]int{3: 10}
	if got := findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices()}), RuleEgressRemark); !slices.ContainsFunc(got, func(f Finding) bool {
		return f.Device == "leaf1" && strings.Contains(f.Message, "rewritten to DSCP 27, which reaches leaf1 as DSCP 10, classified there into traffic class 0")
	}) {
		t.Errorf("TC3 to DSCP 27, then to 10 at the spine: %+v", got)
	}
	// Bare files: the port's own map (27 is TC0 there) stands for the
	// next switch's.
	_, cfgs = lintBase(t)
	for i := range cfgs {
		cfgs[i].PeersKnown = false
	}
	cfgs[0].Port("Ethernet4").TCToDSCP = map[int]int{3: 27}
	roce := 26
	if got := findings(Lint(cfgs, LintOptions{RoCEDSCP: &roce}), RuleEgressRemark); len(got) != 1 {
		t.Errorf("bare files, TC3 to DSCP 27: %+v; want one finding", got)
	}
}

// TestRemarkShownAndDiffed: config show's DSCP column says what a class
// leaves the port with, and the settings' difference names the map.
func TestRemarkShownAndDiffed(t *testing.T) {
	_, cfgs := lintBase(t)
	before := Summarize(&cfgs[0])
	cfgs[0].Port("Ethernet0").TCToDSCP = map[int]int{3: 10}
	rows := ClassTable(&cfgs[0], "Ethernet0", []int{3, 6})
	if len(rows) != 2 || rows[0].DSCPs != "26, sent as 10" || strings.Contains(rows[1].DSCPs, "sent as") {
		t.Errorf("config show's DSCPs: %+v", rows)
	}
	// A class no DSCP lands in, remarked.
	cfgs[0].Port("Ethernet0").TCToDSCP = map[int]int{3: 10, 4: 46}
	if rows := ClassTable(&cfgs[0], "Ethernet0", []int{4}); len(rows) != 1 || rows[0].DSCPs != "sent as 46" {
		t.Errorf("config show's DSCPs of a remarked class no DSCP maps to: %+v", rows)
	}
	cfgs[0].Port("Ethernet0").TCToDSCP = map[int]int{3: 10}
	d := DiffSettings([]Settings{before}, []Settings{Summarize(&cfgs[0])})
	if len(d) != 1 || d[0].Field != "tc_to_dscp.3" || d[0].A != "" || d[0].B != "10" {
		t.Errorf("the settings' difference: %+v", d)
	}
}

// A queue that marks every colour as green (EOS's random-detect ecn, one
// statement; labctl's ECN_ profiles) with Kmin above Kmax is one finding,
// green's, not three (green, yellow and red); a yellow of its own that
// cannot ramp is still reported.
func TestLintUniformMarkingReportedOnce(t *testing.T) {
	in, cfgs := lintBase(t)
	q := cfgs[0].Port("Ethernet0").Queue(3)
	e := *q.ECN
	e.MinBytes = e.MaxBytes + 1
	q.SetMarking(e)
	count := func() (n int, colours int) {
		for _, f := range findings(Lint(cfgs, LintOptions{Intent: &in}), RuleECNThresholds) {
			if f.Port == "Ethernet0" || slices.Contains(f.Ports, "Ethernet0") {
				n++
				if strings.Contains(f.Message, "cannot ramp") {
					colours++
				}
			}
		}
		return n, colours
	}
	if n, colours := count(); n != 1 || colours != 0 {
		t.Errorf("uniform marking with Kmin above Kmax: %d findings, %d of them a colour's; want green's alone", n, colours)
	}
	y := *q.WRED.Yellow
	y.MinBytes = y.MaxBytes + 2
	q.WRED.Yellow = &y
	if _, colours := count(); colours != 1 {
		t.Errorf("a yellow of its own that cannot ramp: %d colour findings, want 1", colours)
	}
}

// Bare files checked at a given RoCE DSCP: its class must have PFC on every
// data port. With PFC off on most ports (or all) the lossless priorities
// inferred from the majority are none, and lint passed such files; without
// a RoCE DSCP given, nothing is said of a device without PFC.
func TestLintBareRoCEDSCPNeedsPFCEverywhere(t *testing.T) {
	in, _ := Profile("")
	dev := Device{Name: "sw", Ports: []Port{
		{Name: "Ethernet0", SpeedGbps: 100, Fabric: true},
		{Name: "Ethernet4", SpeedGbps: 100, Fabric: true},
		{Name: "Ethernet8", SpeedGbps: 100, Fabric: true},
	}}
	roce := in.RoCEDSCP
	for _, off := range [][]string{{"Ethernet0", "Ethernet4"}, {"Ethernet0", "Ethernet4", "Ethernet8"}} {
		dc, err := Apply(in, dev)
		if err != nil {
			t.Fatal(err)
		}
		dc.PeersKnown = false
		for _, name := range off {
			dc.Port(name).PFCPriorities = []int{}
		}
		fs := findings(Lint([]DeviceConfig{dc}, LintOptions{RoCEDSCP: &roce}), RuleRoCEDSCPLossy)
		if len(fs) != 1 || fs[0].Severity != SevError || !strings.Contains(fs[0].Message, "which has no PFC here") || !slices.Equal(fs[0].Ports, off) {
			t.Errorf("PFC off on %v: QOS003 %+v, want one error naming those ports", off, fs)
		}
		if got := findings(Lint([]DeviceConfig{dc}, LintOptions{}), RuleRoCEDSCPLossy); slices.ContainsFunc(got, func(f Finding) bool { return f.Severity == SevError }) {
			t.Errorf("PFC off on %v, no RoCE DSCP given: %+v", off, got)
		}
	}
}

// QOS025: a strict queue some DSCP reaches that is neither a lossless
// class's nor the CNPs', above a lossless round-robin queue, can starve
// RoCE; the CNPs' strict queue is what RoCE profiles want.
func TestLintStrictOtherQueue(t *testing.T) {
	in, cfgs := lintBase(t)
	if fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleStrictOtherQueue); len(fs) != 0 {
		t.Fatalf("as rendered (the CNPs' queue strict): %+v", fs)
	}
	for i := range cfgs[0].Ports {
		p := &cfgs[0].Ports[i]
		for j := range p.Queues {
			if p.Queues[j].Queue == 0 {
				p.Queues[j].Strict = true
			}
		}
	}
	fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleStrictOtherQueue)
	if len(fs) != 1 || fs[0].Severity != SevWarning || fs[0].Device != "leaf1" || !strings.Contains(fs[0].Message, "queue 0 is strict priority and carries DSCP 0-") {
		t.Errorf("queue 0 strict: %+v", fs)
	}
}

// QOS025 on the CNPs' own strict queue: the DSCP map's catch-all line
// (EOS: qos map dscp 0 1 2 ... to traffic-class 0) edited to the CNPs'
// class sends every unmarked packet to their strict queue, before RoCE's
// round-robin one and beside the CNPs: lint said nothing (the CNPs' queue
// was exempt), and ecn-pfc, all RoCE, moved nothing.
func TestLintStrictCNPQueueBulk(t *testing.T) {
	in, cfgs := lintBase(t)
	cnpTC := cfgs[0].Ports[0].TCOf(in.CNPDSCP)
	for i := range cfgs[0].Ports {
		p := &cfgs[0].Ports[i]
		for d, tc := range p.DSCPToTC {
			if tc == 0 {
				p.DSCPToTC[d] = cnpTC
			}
		}
	}
	fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleStrictOtherQueue)
	if len(fs) != 1 || fs[0].Severity != SevWarning || fs[0].Device != "leaf1" || !strings.Contains(fs[0].Message, "besides the CNPs' DSCP") || !strings.Contains(fs[0].Message, "DSCP 0-") {
		t.Errorf("bulk DSCPs on the CNPs' strict queue: %+v", fs)
	}
	// A DSCP or two beside the CNPs' (network control) is no finding.
	in2, cfgs := lintBase(t)
	p := &cfgs[0].Ports[0]
	p.DSCPToTC[46] = p.TCOf(in2.CNPDSCP)
	if fs := findings(Lint(cfgs, LintOptions{Intent: &in2}), RuleStrictOtherQueue); len(fs) != 0 {
		t.Errorf("DSCP 46 beside the CNPs: %+v", fs)
	}
}

// TestLintHeadroomPeerCable: a cable has one length, so where the peer
// switch's config sizes its end of a link for a longer one than the lab
// gives (one switch's SONiC CABLE_LENGTH changed, its peer's not: an edit
// made on every switch but one), the end whose headroom holds only the
// lab's length gets a QOS006 warning naming the peer's; the end sized for
// the longer, and a peer's length shorter than the lab's, get none.
func TestLintHeadroomPeerCable(t *testing.T) {
	in, cfgs := lintBase(t)
	leaf, spine := cfgs[0].Port("Ethernet4"), cfgs[1].Port("Ethernet0")
	if cfgs[0].Device != "leaf1" || cfgs[1].Device != "spine1" || leaf == nil || spine == nil {
		t.Fatalf("unexpected test devices: %s, %s", cfgs[0].Device, cfgs[1].Device)
	}
	// The lab gives the link 30 m; leaf1's config says 100 m, and its
	// PG 3 has the headroom 100 m needs (as SONiC's buffer manager sizes
	// it from CABLE_LENGTH).
	leaf.LinkCableM, spine.LinkCableM = 30, 30
	leaf.CableM = 100
	g := leaf.Class(3).PGConfig
	g.XoffBytes = Ptr(int64(200000))
	g.SizeBytes = Ptr(Val(g.XoffBytes) + Val(g.XonBytes))
	fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleHeadroomShort)
	if len(fs) != 1 || fs[0].Device != "spine1" || fs[0].Port != "Ethernet0" || fs[0].Severity != SevWarning ||
		!strings.Contains(fs[0].Message, "holds the 30 m the lab gives the link, but the peer leaf1's CABLE_LENGTH sizes the link for 100 m, which needs 121360 bytes at 400 Gb/s") ||
		!strings.Contains(fs[0].Fix, "CABLE_LENGTH: 100 m there, 30 m here") {
		t.Fatalf("QOS006: %+v, want one warning on spine1 Ethernet0 naming leaf1's 100 m", fs)
	}
	// A peer's length shorter than the lab's is no finding.
	leaf.CableM = 10
	if fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleHeadroomShort); len(fs) != 0 {
		t.Fatalf("QOS006 with the peer's cable shorter: %+v", fs)
	}
}

// TestSiblingsBareEOS: QOS012 among a device's ports in bare files.
// Subinterfaces are no siblings (AVD's Ethernet26.1-.500 and 68.1-.10,
// trust of their own, made a majority against the routed ports), and a
// majority without QoS makes no odd one out: it was compared with a port
// of no queues, which no EOS port is (strict queues by default), so every
// routed port and the one with PFC were flagged on AVD's
// ethernet-interfaces.cfg.
func TestSiblingsBareEOS(t *testing.T) {
	port := func(name string, trust string, pfc []int) PortConfig {
		p := PortConfig{Name: name, Fabric: true, Trust: trust, PFCPriorities: pfc, DSCPToTC: map[int]int{26: 3}, CoSToTC: map[int]int{3: 3}, TCToQueue: IdentityMap(), TCToPG: IdentityMap()}
		for q := range NumTC {
			p.Queues = append(p.Queues, QueueConfig{Queue: q, Strict: true})
		}
		return p
	}
	odd := func(dc DeviceConfig) []string {
		var out []string
		for _, f := range findings(Lint([]DeviceConfig{dc}, LintOptions{}), RulePortDiffers) {
			out = append(out, f.Port)
			out = append(out, f.Ports...)
		}
		return out
	}
	// Six routed ports with PFC on 3, twelve subinterfaces without it.
	dc := DeviceConfig{Device: "sw", NOS: "eos"}
	for i := 1; i <= 6; i++ {
		dc.Ports = append(dc.Ports, port(fmt.Sprintf("Ethernet%d", i), TrustDSCP, []int{3}))
	}
	for i := 1; i <= 12; i++ {
		dc.Ports = append(dc.Ports, port(fmt.Sprintf("Ethernet1.%d", i), TrustCoS, []int{}))
	}
	if got := odd(dc); len(got) != 0 {
		t.Errorf("ports with their subinterfaces: QOS012 on %v", got)
	}
	// Ten switchports without QoS, one routed port, one with PFC.
	dc = DeviceConfig{Device: "sw", NOS: "eos"}
	for i := 1; i <= 10; i++ {
		dc.Ports = append(dc.Ports, port(fmt.Sprintf("Ethernet%d", i), TrustCoS, []int{}))
	}
	dc.Ports = append(dc.Ports, port("Ethernet11", TrustDSCP, []int{}), port("Ethernet12", TrustCoS, []int{5}))
	if got := odd(dc); len(got) != 0 {
		t.Errorf("a majority without QoS: QOS012 on %v", got)
	}
	// A majority with PFC still names the port without it.
	dc = DeviceConfig{Device: "sw", NOS: "eos"}
	for i := 1; i <= 10; i++ {
		dc.Ports = append(dc.Ports, port(fmt.Sprintf("Ethernet%d", i), TrustDSCP, []int{3}))
	}
	dc.Ports = append(dc.Ports, port("Ethernet11", TrustDSCP, []int{}), port("Ethernet11.1", TrustDSCP, []int{}))
	if got := odd(dc); !slices.Equal(got, []string{"Ethernet11"}) {
		t.Errorf("a majority with PFC: QOS012 on %v; want Ethernet11 alone", got)
	}
}

// replacePortName replaces a port's whole name only: Ethernet4, not the
// start of Ethernet40 or Ethernet4_x.
func TestReplacePortName(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"PORT_QOS_MAP|Ethernet4", "PORT_QOS_MAP|*"},
		{"PORT_QOS_MAP|Ethernet40", "PORT_QOS_MAP|Ethernet40"},
		{"Ethernet4, Ethernet40 and Ethernet4", "*, Ethernet40 and *"},
		{"Ethernet4_x Ethernet4.", "Ethernet4_x *."},
		{"", ""},
	} {
		if got := replacePortName(c.text, "Ethernet4", "*"); got != c.want {
			t.Errorf("replacePortName(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A default's text is the finding's, a % in it too: the message for an
// entry never applied is no format made of it (QOS017, for one port and
// grouped over several).
func TestUnappliedDefaultKeepsPercent(t *testing.T) {
	def := func(port string) Default {
		return Default{Field: "QUEUE scheduler", Value: "DWRR at 50% of the port", Source: "SAI default", Risky: true,
			Unapplied: "PORT_QOS_MAP|" + port + ", which orchagent never applies", Ports: []string{port}}
	}
	for _, ports := range [][]string{{"Ethernet0"}, {"Ethernet0", "Ethernet4"}} {
		d := DeviceConfig{Device: "leaf1", NOS: "sonic"}
		for _, p := range ports {
			d.Ports = append(d.Ports, PortConfig{Name: p})
			d.Defaults = append(d.Defaults, def(p))
		}
		entry := "PORT_QOS_MAP|Ethernet0"
		if len(ports) > 1 {
			entry = "PORT_QOS_MAP|*"
		}
		want := "QUEUE scheduler is set but never applied (" + entry + ", which orchagent never applies), so the switch uses its default: DWRR at 50% of the port (SAI default)"
		var got []string
		for _, f := range Lint([]DeviceConfig{d}, LintOptions{}) {
			if f.Rule == RuleDefaultRelied {
				got = append(got, f.Message)
			}
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("%d ports: QOS017 findings %q, want %q", len(ports), got, want)
		}
	}
}

// TestLintEgressRemarkSeverity: a rewrite that moves traffic from one
// lossy class to another at the next switch is a warning (a real EOS
// config with PFC off moved its CNPs so, and erred), one that takes RoCE
// out of its lossless class an error; where the rewritten class carries
// other DSCPs the fix does not tell the user to rewrite the whole class
// to this traffic's DSCP, which would re-mark them all as it.
func TestLintEgressRemarkSeverity(t *testing.T) {
	in, cfgs := lintBase(t)
	cnpTC := cfgs[0].Port("Ethernet0").TCOf(48)
	if cfgs[1].Port("Ethernet0").Class(cnpTC).Lossless || cfgs[1].Port("Ethernet0").Class(0).Lossless {
		t.Fatalf("lintBase: the CNPs' class %d or TC0 is lossless at the spine", cnpTC)
	}
	cfgs[0].Port("Ethernet4").TCToDSCP = map[int]int{cnpTC: 0}
	got := findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices()}), RuleEgressRemark)
	if len(got) != 1 || got[0].Severity != SevWarning || !strings.Contains(got[0].Message, "CNPs (DSCP 48") {
		t.Errorf("CNPs remarked from lossy class %d to lossy TC0: %+v; want one warning", cnpTC, got)
	}
	// TC0 carries every unlisted DSCP: rewriting it to RoCE's puts them
	// all in RoCE's lossless class (an error), and where the spine puts
	// one of them (12) in another class than the CNPs' DSCP 10, the fix
	// must not be to rewrite TC0 to 10, which would move 12 into TC0
	// there.
	in, cfgs = lintBase(t)
	cfgs[0].Port("Ethernet4").TCToDSCP = map[int]int{0: 26}
	sp := cfgs[1].Port("Ethernet0")
	sp.DSCPToTC = maps.Clone(sp.DSCPToTC)
	sp.DSCPToTC[12] = 1
	cnp := 10
	got = findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices(), NICCNPDSCP: &cnp}), RuleEgressRemark)
	if len(got) != 1 || got[0].Severity != SevError || strings.Contains(got[0].Fix, "map traffic class 0 to DSCP 10") ||
		!strings.Contains(got[0].Fix, "classify DSCP 10 into a traffic class of its own") || !strings.Contains(got[0].Fix, "DSCP 12 as CNPs") {
		t.Errorf("TC0 (DSCP 10 and others) rewritten to 26: %+v; want one error whose fix keeps DSCP 10 out of TC0", got)
	}
}
