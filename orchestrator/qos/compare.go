package qos

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// roceFields are a port's settings that decide what happens to RoCE: its
// trust mode, the class the RoCE and CNP DSCPs land in, PFC, and for each
// of those classes its PG's buffer, its queue's scheduling, WRED and
// buffer, and the queue its pauses stop. Settings of other classes do not
// touch RoCE (a DSCP no RoCE traffic uses remapped between lossy
// classes), so comparisons of configs for RoCE look at these only.
// platform leaves out the buffer fields a NOS's platform, not its config,
// decides (EOS).
//
// It builds only those fields, with the values flattenPort gives them (the
// same helpers), rather than flattening the whole port and filtering: lint
// computes it for every port of a lab twice over.
func roceFields(p *PortConfig, roce, cnp int, platform, coloursByDSCP bool) map[string]string {
	out := make(map[string]string, 32)
	keep := func(k, v string) {
		// A profile's name says nothing of what it does.
		if v != "" && !strings.HasSuffix(k, ".profile") {
			out[k] = v
		}
	}
	keep("trust", p.Trust)
	keep("pfc_priorities", pfcPrioritiesText(p))
	keep("pfc_watchdog", watchdogText(p))
	// A shaper at or above line rate changes nothing RoCE sees.
	if p.Holds(p.Shaper) {
		keep("shaper", shaperText(p.Shaper))
	}
	classes := map[int]bool{}
	for _, tc := range roceClasses(p, roce, cnp) {
		classes[tc] = true
	}
	out[indexed("dscp_to_tc", roce)] = strconv.Itoa(p.TCOf(roce))
	out[indexed("dscp_to_tc", cnp)] = strconv.Itoa(p.TCOf(cnp))
	for _, d := range []int{roce, cnp} {
		if dp, ok := p.DSCPToDropPrecedence[d]; ok {
			out[indexed("dscp_to_drop_precedence", d)] = strconv.Itoa(dp)
		}
	}
	keepMap := func(name string, m map[int]int, tc int) {
		if v, ok := m[tc]; ok {
			out[indexed(name, tc)] = strconv.Itoa(v)
		}
	}
	for _, tc := range slices.Sorted(maps.Keys(classes)) {
		c := p.Class(tc)
		// The DSCP the class's packets leave with, where the port remarks
		// them to one a switch with its maps puts in another class (one
		// it puts in the same class changes nothing RoCE sees).
		if d, ok := p.TCToDSCP[tc]; ok && p.TCOf(d) != tc {
			out[indexed("tc_to_dscp", tc)] = strconv.Itoa(d)
		}
		keepMap("tc_to_queue", p.TCToQueue, tc)
		keepMap("pfc_to_queue", p.PFCToQueue, tc)
		// The PG that sends the class's pauses, where a map makes it
		// another than the one its traffic fills (a map that agrees
		// changes nothing RoCE sees).
		if g, ok := p.PFCToPG[tc]; ok && g != c.PG {
			out[indexed("pfc_to_pg", tc)] = strconv.Itoa(g)
		}
		if tc >= 0 && tc < NumTC {
			out[namesOf(tc).lossless] = strconv.FormatBool(c.Lossless)
		}
		// The class's queue and PG entries in the port's order, as
		// flattenPort writes them (a later entry of the same number
		// overrides an earlier one).
		for i := range p.Queues {
			if q := &p.Queues[i]; q.Queue == c.Queue {
				queueFields(q, !platform, keep)
				if coloursByDSCP {
					// A colour neither RoCE's nor the CNPs' DSCP has
					// is no concern of theirs.
					n := namesOf(q.Queue)
					for i, k := range []string{n.wredYellow, n.wredRed} {
						if dp := i + 1; p.DSCPToDropPrecedence[roce] != dp && p.DSCPToDropPrecedence[cnp] != dp {
							delete(out, k)
						}
					}
				}
				if !p.Holds(q.Shaper) {
					delete(out, namesOf(q.Queue).shaper)
				}
			}
		}
		if !platform {
			for i := range p.PGs {
				if p.PGs[i].PG == c.PG {
					profileFields(&namesOf(c.PG).pg, p.PGs[i].BufferProfile, keep)
				}
			}
			keepMap("tc_to_pg", p.TCToPG, tc)
		}
	}
	return out
}

// intentDrift (QOS018) compares, with a lab's intent, each port's RoCE
// settings with what the intent renders for that port: a user's edit of a
// RoCE class (a threshold, a profile, a map entry) is named, with the
// lab's value beside it. Edits that do not reach RoCE's classes are not
// drift.
func (l *linter) intentDrift() {
	if l.opt.Intent == nil || len(l.opt.Devices) == 0 {
		return
	}
	in := *l.opt.Intent
	devs := map[string]Device{}
	for _, d := range l.opt.Devices {
		devs[d.Name] = d
	}
	// What the intent gives a port depends on the port's speed and cable
	// length alone (Intent.portConfig), and a fabric has a few of those:
	// each is rendered once, not once per port (a 320-switch lab has
	// 20,000 ports).
	type shape struct {
		speed, cable int
		platform     bool
	}
	intended, intendedPort := map[shape]map[string]string{}, map[shape]*PortConfig{}
	for i := range l.cfgs {
		d := &l.cfgs[i]
		dev, ok := devs[d.Device]
		if _, unknown := dev.portWithoutSpeed(); !ok || unknown {
			continue // Apply renders no config for it
		}
		fabric := dev.fabricPorts()
		for j := range d.Ports {
			p := &d.Ports[j]
			dp := fabric[p.Name]
			if dp == nil || !p.Fabric {
				continue
			}
			key := shape{dp.SpeedGbps, in.cableM(*dp), d.PlatformBuffer}
			exp, ok := intended[key]
			if !ok {
				pc := in.portConfig(*dp)
				exp = roceFields(&pc, in.RoCEDSCP, in.CNPDSCP, d.PlatformBuffer, d.ColoursByDSCP)
				intended[key], intendedPort[key] = exp, &pc
			}
			got := l.roceFieldsOf(i, j)
			ip := intendedPort[key]
			counted := sharedQueues(p, ip, in.RoCEDSCP, in.CNPDSCP)
			gotShares, expShares := lowerShares(roceShares(p, p, counted, in.RoCEDSCP, in.CNPDSCP), roceShares(ip, p, counted, in.RoCEDSCP, in.CNPDSCP))
			// Most ports are as the intent renders them: look for a
			// difference before sorting the fields to name them.
			if sameFields(got, exp) && sameFields(gotShares, expShares) {
				continue
			}
			got, exp = maps.Clone(got), maps.Clone(exp)
			maps.Copy(got, gotShares)
			maps.Copy(exp, expShares)
			// A WRED colour named on one side only is that side's green.
			colourAsGreenPort(got, exp)
			colourAsGreenPort(exp, got)
			if sameFields(got, exp) {
				continue
			}
			keys := map[string]bool{}
			for k := range got {
				keys[k] = true
			}
			for k := range exp {
				keys[k] = true
			}
			// One finding per port: every field one edit moved (a PG
			// pointed at another profile changes several) together.
			var diffs []string
			for _, k := range slices.SortedFunc(maps.Keys(keys), ComparePorts) {
				if got[k] != exp[k] {
					diffs = append(diffs, fmt.Sprintf("%s is %s; the lab's QoS intent gives %s", k, orDash(got[k]), orDash(exp[k])))
				}
			}
			if len(diffs) == 0 {
				continue
			}
			more := ""
			if len(diffs) > 6 {
				more = fmt.Sprintf("; and %d more", len(diffs)-6)
				diffs = diffs[:6]
			}
			l.add(RuleIntentDrift, SevWarning, d.Device, p.Name,
				"if the change is intended, save a new baseline after the next run; 'labctl config render --force' writes the intent's values back",
				"%s%s", strings.Join(diffs, "; "), more)
		}
	}
}

// roceShares are, for each round-robin queue of the RoCE and CNP classes
// (roceFields' classes), its share of port p's round robin:
// "queue.<q>.rr_share", its weight over the weights of the round-robin
// queues counted (a queue number's last entry counting, as flattenPort
// reads them), to a tenth of a percent, followed by the weights counted
// ("58.8% (q0 20, q3 50, q5 5, q7 10 of 85)"). Weights are relative:
// another queue's weight raised (EOS: tx-queue 0 bandwidth percent 20
// made 90) takes RoCE's bandwidth under contention as surely as its own
// lowered, while roceFields, the Settings fields of RoCE's classes, do
// not move. intentDrift compares them beside roceFields where the port's
// is the lower (lowerShares); they are no Settings field, so no record
// changes.
//
// counted are the queues that take traffic (sharedQueues), the same for
// the port and the intent. Which queues are strict is sched's (the
// port's own, for the intent's figure too): how a NOS serves the
// intent's queues is its own (EOS makes a round-robin tx-queue above a
// strict one strict, tx-queue 7 above the CNPs' 6, so the intent's 50 is
// of 75 there, not of 85), and a queue made strict is QOS007's and
// QOS025's; the share compares the weights, like with like.
func roceShares(p, sched *PortConfig, counted map[int]bool, roce, cnp int) map[string]rrShare {
	strict := map[int]bool{}
	for _, x := range sched.Queues {
		strict[x.Queue] = x.Strict
	}
	weights := map[int]int{}
	for _, x := range p.Queues {
		s, ok := strict[x.Queue]
		if !ok {
			s = x.Strict
		}
		if s {
			delete(weights, x.Queue)
		} else {
			weights[x.Queue] = x.Weight
		}
	}
	sum := 0
	var named []string
	for _, q := range slices.Sorted(maps.Keys(weights)) {
		if counted[q] {
			sum += weights[q]
			if weights[q] > 0 {
				// A queue the intent makes strict reads as weight 0
				// here (sched is the port's): no weight to name.
				named = append(named, fmt.Sprintf("q%d %d", q, weights[q]))
			}
		}
	}
	out := map[string]rrShare{}
	for _, tc := range roceClasses(p, roce, cnp) {
		q := p.Class(tc).Queue
		if w, ok := weights[q]; ok && w > 0 && sum > 0 {
			t := tenthsOf(w, sum)
			out[fmt.Sprintf("queue.%d.rr_share", q)] = rrShare{t, fmt.Sprintf("%d.%d%% (%s of %d)", t/10, t%10, strings.Join(named, ", "), sum)}
		}
	}
	return out
}

// rrShare is one queue's round-robin share (roceShares): in tenths of a
// percent, as it is printed, and its text.
type rrShare struct {
	tenths int
	text   string
}

// tenthsOf is w of sum (w, sum > 0) in tenths of a percent, rounded as
// strconv.FormatFloat(float64(w)*100/float64(sum), 'f', 1, 64) rounds it,
// which roceShares printed: to the nearest tenth, the float's error
// (2^-53 of it) being far less than the 1/(20*sum)% between a share and a
// half tenth it is not. At a half tenth FormatFloat rounds the float, which
// holds the half only where it is a binary fraction (then to the even
// tenth) and is otherwise a little above or below it (with sum a multiple
// of 2000: 3 of 2000 prints 0.1%): FMA says which, exactly.
func tenthsOf(w, sum int) int {
	t, r := w*1000/sum, w*1000%sum
	if 2*r == sum {
		d := math.FMA(float64(w)*100/float64(sum), 20, -float64(2*t+1))
		if d > 0 || d == 0 && t%2 == 1 {
			t++
		}
	} else if 2*r > sum {
		t++
	}
	return t
}

// sharedQueues are the queues whose round-robin weights count in
// roceShares, for port p and the intent's port alike: those some DSCP
// reaches on either (DSCPsByQueue), or, on a port that classifies tagged
// frames by CoS (EOS: qos trust cos), some CoS (CoSByQueue: the port's
// trust mode decides what reaches a queue), and the RoCE and CNP
// classes' and PFC priorities' queues, though no packet reach them; not
// a queue only network control's DSCPs or CoS reach (networkControlOnly,
// networkControlCoS). A round-robin queue no packet reaches holds
// nothing and takes nothing from RoCE, whatever its weight: a deficit round robin passes over an empty queue (the
// simulator's, sim.pickQueue, as a switch's scheduler). Counting the
// union for both sides, a DSCP moved to a queue the intent leaves empty
// moves both shares alike (roceFields holds such a DSCP, no RoCE
// traffic's, to be no drift), while that queue's weight raised is.
func sharedQueues(p, intent *PortConfig, roce, cnp int) map[int]bool {
	counted := map[int]bool{}
	for _, x := range []*PortConfig{p, intent} {
		for q, dscps := range x.DSCPsByQueue() {
			if !networkControlOnly(dscps) {
				counted[q] = true
			}
		}
		for q, cos := range x.CoSByQueue() {
			if !networkControlCoS(cos) {
				counted[q] = true
			}
		}
		for _, tc := range roceClasses(x, roce, cnp) {
			counted[x.Class(tc).Queue] = true
		}
	}
	return counted
}

// networkControlOnly says whether dscps (in order) are all network
// control's, RFC 4594's CS6 and CS7 and the codepoints beside them
// (48-63): routing protocols' and the fabric's own few packets, which
// take nothing from RoCE under load whatever their queue's weight (a
// queue of CS7 alone weighted 20 instead of 10 is no drift).
func networkControlOnly(dscps []int) bool { return len(dscps) > 0 && dscps[0] >= 48 }

// networkControlCoS says the same of 802.1p priorities (in order): all are
// 6 and 7, IEEE 802.1Q's internetwork and network control.
func networkControlCoS(cos []int) bool { return len(cos) > 0 && cos[0] >= 6 }

// lowerShares keeps of got and exp (roceShares of a port and of the
// intent's) the queues whose share the port lowers, the harm: a share
// raised takes nothing from RoCE, and a NOS may render the intent with a
// larger one (EOS makes a round-robin queue above a strict one strict,
// tx-queue 7's 10 with it, so RoCE's 50 is of 90, not 100).
//
// They are compared as printed, in tenths of a percent, not as the
// weights' exact ratios: a share lowered by less than half a tenth reads
// as the intent's, and a finding naming it would give the same figure on
// both sides.
func lowerShares(got, exp map[string]rrShare) (map[string]string, map[string]string) {
	g, e := map[string]string{}, map[string]string{}
	for k, ev := range exp {
		if gv, ok := got[k]; ok && gv.tenths < ev.tenths {
			g[k], e[k] = gv.text, ev.text
		}
	}
	return g, e
}

// roceClasses are the traffic classes of port p that roceFields,
// roceShares and sharedQueues look at: the RoCE and CNP DSCPs' classes and
// every PFC priority (a class may be named twice).
func roceClasses(p *PortConfig, roce, cnp int) []int {
	return append([]int{p.TCOf(roce), p.TCOf(cnp)}, p.PFCPriorities...)
}

// sameFields says whether two field sets hold the same values, an absent
// field being "" (as intentDrift compares them).
func sameFields(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// roceFieldsOf is roceFields of port j of config i at the lab's RoCE and
// CNP DSCPs (roceDSCPs), built once per lint: siblings and intentDrift
// both compare them.
func (l *linter) roceFieldsOf(i, j int) map[string]string {
	if l.roceFields == nil {
		l.roceFields = make([][]map[string]string, len(l.cfgs))
	}
	if l.roceFields[i] == nil {
		l.roceFields[i] = make([]map[string]string, len(l.cfgs[i].Ports))
	}
	if l.roceFields[i][j] == nil {
		d := &l.cfgs[i]
		roce, cnp := l.roceDSCPs()
		l.roceFields[i][j] = roceFields(&d.Ports[j], roce, cnp, d.PlatformBuffer, d.ColoursByDSCP)
	}
	return l.roceFields[i][j]
}

// roceDSCPs are the DSCPs of RoCE data and CNPs that lab mode compares
// ports at: the intent's, else the option's or 26 and designCNPDSCP.
func (l *linter) roceDSCPs() (roce, cnp int) {
	roce, cnp = 26, l.designCNPDSCP()
	if r := l.roceDSCP(); r != nil {
		roce = *r
	}
	return roce, cnp
}

// siblings (QOS012, lab mode) flags a switch whose RoCE settings differ
// from the other switches of its role: one leaf with another WRED
// threshold than every other leaf.
func (l *linter) siblings() {
	if len(l.opt.Devices) == 0 {
		return
	}
	role := map[string]string{}
	for _, d := range l.opt.Devices {
		role[d.Name] = d.Role
	}
	byRole := map[string][]int{}
	for i := range l.cfgs {
		if r := role[l.cfgs[i].Device]; r != "" {
			byRole[r] = append(byRole[r], i)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(byRole)) {
		idx := byRole[r]
		if len(idx) < 2 {
			continue
		}
		// Each device's value of a field: its ports' values joined.
		vals := make([]map[string]string, len(idx))
		keys := map[string]bool{}
		for n, i := range idx {
			d := &l.cfgs[i]
			per := map[string]map[string]bool{}
			for j := range d.Ports {
				if !d.Ports[j].Fabric {
					continue
				}
				for k, v := range l.roceFieldsOf(i, j) {
					if per[k] == nil {
						per[k] = map[string]bool{}
					}
					per[k][v] = true
					keys[k] = true
				}
			}
			vals[n] = map[string]string{}
			for k, set := range per {
				vals[n][k] = strings.Join(slices.Sorted(maps.Keys(set)), " | ")
			}
		}
		for n, i := range idx {
			var diffs []string
			for _, k := range slices.SortedFunc(maps.Keys(keys), ComparePorts) {
				count := map[string]int{}
				for m := range idx {
					count[vals[m][k]]++
				}
				mine := vals[n][k]
				// An absent field counts as the value "", so the first
				// value seen, not "", starts the search.
				best, tie, seen := "", false, false
				for v, c := range count {
					switch {
					case !seen || c > count[best]:
						best, tie, seen = v, false, true
					case c == count[best] && v != best:
						tie = true
					}
				}
				// With no majority (two leaves that differ) neither is the
				// odd one out: with an intent, QOS018 names the one that
				// moved; without one, the first device stands as the
				// reference.
				ref := best
				if tie {
					if l.opt.Intent != nil {
						continue
					}
					ref = vals[0][k]
				}
				if mine != ref {
					diffs = append(diffs, fmt.Sprintf("%s %s (others: %s)", k, orDash(mine), orDash(ref)))
				}
			}
			if len(diffs) == 0 {
				continue
			}
			more := ""
			if len(diffs) > 4 {
				more = fmt.Sprintf(" and %d more", len(diffs)-4)
				diffs = diffs[:4]
			}
			l.add(RulePortDiffers, SevWarning, l.cfgs[i].Device, "",
				fmt.Sprintf("give %s the RoCE QoS of the other %ss, or make the difference part of the lab's design", l.cfgs[i].Device, r),
				"the RoCE QoS differs from the other %ss': %s%s", r, strings.Join(diffs, "; "), more)
		}
	}
}
