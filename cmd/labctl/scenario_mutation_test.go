package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	simrt "github.com/labctl/labctl/orchestrator/runtime/sim"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/specdoc"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Scenario files are inputs users edit: they copy one from scenarios/ and
// change its values. Every key of the scenario spec, as the scenario
// package's key registry lists them (scenario.KeyDocs, 'labctl explain
// scenario'), is mutated in the text of a catalog scenario, one key at a
// time:
//
//   - invalid values (a wrong type, a value out of range, an unknown name,
//     a negative number, the key misspelt) must make 'labctl run' exit 2
//     with an error at the value's file:line:col and a fix, never panic;
//   - benign values must parse and pass every check a run makes before it
//     simulates (the lab's fit, the variants' expansion);
//   - harmful values that parse (senders beyond the lab, a figure no run
//     records, a matrix of more than 400 variants) must be refused before
//     the run with the message the table names;
//   - 'labctl regress' of a record of the mutated scenario against one of
//     the original must say the scenario changed at the key's path (and
//     must not count repetitions or the regress section as a change).
//
// A handful of the benign mutations run for real on the 16gpu lab. A key
// without an entry fails the test, so a key added to the spec comes with
// its mutations.

// scenarioMutation is one key's mutations.
type scenarioMutation struct {
	// base is the catalog scenario mutated; edits are other keys set
	// first (a value "-" removes the key), so that the key applies.
	base  string
	edits []string // path=value
	// invalid values must be refused at the value (want: in the message);
	// harmful ones parse but must be refused before the run.
	invalid, harmful []badValue
	// benign values must pass; the first that differs from the base's
	// value is the one regress is checked with.
	benign []string
	// why says why a key has no harmful value to catch before the run.
	why string
}

type badValue struct{ value, want string }

func bad(value, want string) badValue { return badValue{value, want} }

// figuresOnly is why a key whose every valid value is a setting of the
// simulated NIC, switch or transport has no harmful value to catch before
// the run: its harm shows in the figures, which the lab's and transports'
// mutation suites catch with regress.
const figuresOnly = "every value in range is a setting the simulator runs: its harm shows in figures, which TestLabSectionMutations and TestTransportSectionMutations catch with regress"

// manyVariants is a matrix of 404 variants, over the 400 a run takes.
var manyVariants = func() string {
	var vals []string
	for i := range 101 {
		vals = append(vals, strconv.Itoa(100+i))
	}
	return "{ecn: [on, off], pfc: [on, off], qos.ecn.kmin_kb: [" + strings.Join(vals, ", ") + "]}"
}()

func repeatFlow(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]"
}

// oneVariant keeps an nccl sweep to one point, so that a key valid only
// for some algorithms can be set.
const oneVariant = "matrix={ecn: [on], pfc: [on]}"

// noAssertions removes the assertions that read a swept parameter.
const noAssertions = "assertions=-"

var scenarioMutations = map[string]scenarioMutation{
	"name": {base: "incast", invalid: []badValue{bad("Bad_Name", "not allowed"), bad(`""`, "no name")}, benign: []string{"my-incast"},
		why: "a label: no value of it harms a run"},
	"description": {base: "incast", invalid: []badValue{bad("[a, b]", "")}, benign: []string{"my incast"}, why: "free text"},
	"matrix": {base: "incast", invalid: []badValue{bad("[on, off]", "")},
		harmful: []badValue{bad(manyVariants, "400")}, benign: []string{"{ecn: [on], pfc: [on]}"}},
	"matrix.ecn": {base: "incast", invalid: []badValue{bad("[maybe]", "not on or off"), bad("[on, on]", "twice")},
		benign: []string{"[on]", "[true, false]"}, why: "on and off are both runs of the lab"},
	"matrix.pfc": {base: "incast", invalid: []badValue{bad("[maybe]", "not on or off"), bad("[off, off]", "twice")},
		benign: []string{"[off]", "[true, false]"}, why: "on and off are both runs of the lab"},
	"duration": {base: "incast", invalid: []badValue{bad("-1ms", "not a positive time"), bad("0", "not a positive time"), bad("5", ""), bad("five", "")},
		harmful: []badValue{bad("1000h", "")}, benign: []string{"10ms", "500us"}},
	"warmup": {base: "incast", invalid: []badValue{bad("-1ms", "shorter than"), bad("soon", "")},
		harmful: []badValue{bad("30ms", "shorter than the duration"), bad("20ms", "shorter than the duration")}, benign: []string{"1ms"}},
	"sample_every": {base: "incast", invalid: []badValue{bad("-10us", "not a time"), bad("often", "not a time")},
		harmful: []badValue{bad("10ns", "100000 samples"), bad("1s", "longer than the duration")}, benign: []string{"20us", "0"}},
	"dcqcn": {base: "incast", edits: []string{"nic={dcqcn: {preset: connectx}}"}, invalid: []badValue{bad("dctcp", "unknown dcqcn preset")},
		harmful: []badValue{bad("paper", "disagree")}, benign: []string{"connectx"}},
	"nic":       {base: "incast", invalid: []badValue{bad("[1]", "")}, benign: []string{"{qp_timeout: 12}"}, why: figuresOnly},
	"nic.dcqcn": {base: "incast", invalid: []badValue{bad("paper", "")}, benign: []string{"{preset: paper}"}, why: figuresOnly},
	"transport": {base: "incast", invalid: []badValue{bad("tcp", "")}, harmful: []badValue{bad("infiniband", "pfc")}, benign: []string{"uet", "roce"}},
	// A transport's section is read by that transport's variants only (a
	// section no variant reads is refused): the base runs it.
	"infiniband": {base: "incast", edits: []string{"transport=infiniband", oneVariant}, invalid: []badValue{bad("[1]", "")}, benign: []string{"{vls: 2}"}, why: figuresOnly},
	"uet":        {base: "incast", edits: []string{"transport=uet", oneVariant}, invalid: []badValue{bad("[1]", "")}, benign: []string{"{evs: 16}"}, why: figuresOnly},
	"model": {base: "nccl-allreduce", invalid: []badValue{bad("fluid", "unknown model")},
		harmful: []badValue{bad("flow", "packet")}, benign: []string{"packet"}},
	"repetitions": {base: "incast", invalid: []badValue{bad("0", "not allowed"), bad("-1", "out of range"), bad("101", "out of range"), bad("two", "")},
		benign: []string{"3"}, why: "1 to 100 repetitions are as many runs of the lab; the variant cap counts them with the matrix (its harmful mutation)"},
	"traffic": {base: "incast", invalid: []badValue{bad("{pattern: incast}", ""), bad("[]", "no traffic")},
		harmful: []badValue{bad(repeatFlow("{pattern: pairs}", 65), "more than the 64")}, benign: []string{"[{pattern: incast, senders: 4}]"}},
	"traffic[].pattern": {base: "baseline-bw", edits: []string{"assertions=-"}, invalid: []badValue{bad("pair", "")},
		harmful: []badValue{bad("incast", "pairs does not apply")}, benign: []string{"latency"}, why: "every pattern is a traffic labctl runs"},
	"traffic[].pairs": {base: "baseline-bw", invalid: []badValue{bad("0", ""), bad("-2", ""), bad("one", "")},
		harmful: []badValue{bad("100", "")}, benign: []string{"4"}},
	"traffic[].senders": {base: "incast", invalid: []badValue{bad("0", ""), bad("1", ""), bad("-3", ""), bad("eight", "")},
		harmful: []badValue{bad("40", "")}, benign: []string{"4", "15"}},
	"traffic[].victim": {base: "incast", invalid: []badValue{bad("maybe", "")},
		harmful: []badValue{bad("true", "")}, edits: []string{"traffic[0].senders=15"}, benign: []string{"false"}},
	"traffic[].ranks": {base: "allreduce", invalid: []badValue{bad("0", ""), bad("1", ""), bad("-4", ""), bad("all", "")},
		harmful: []badValue{bad("100", "")}, benign: []string{"8"}},
	"traffic[].rank_per": {base: "allreduce", invalid: []badValue{bad("gpu", "")},
		benign: []string{"server", "nic"}, why: "both are rings over the lab; ranks beyond the lab are traffic[].ranks's harm"},
	"traffic[].cross_leaf": {base: "incast", invalid: []badValue{bad("maybe", "")}, benign: []string{"false"},
		harmful: []badValue{bad("true", "no traffic can cross the spines")}},
	"traffic[].bytes": {base: "incast", invalid: []badValue{bad("1XB", ""), bad("-1MiB", ""), bad("0", ""), bad("lots", "")},
		benign: []string{"1MiB"}, why: "any size is a flow the lab runs"},
	"traffic[].message_size": {base: "incast", invalid: []badValue{bad("2GiB", ""), bad("0", ""), bad("-1KiB", ""), bad("big", "")},
		benign: []string{"4KiB"}, why: "any size from 1 B to 1 GiB is one perftest sends"},
	"traffic[].qps": {base: "incast", invalid: []badValue{bad("0", ""), bad("65", ""), bad("-1", ""), bad("two", "")},
		benign: []string{"2"}, why: figuresOnly},
	"traffic[].tx_depth": {base: "incast", invalid: []badValue{bad("0", ""), bad("-1", ""), bad("100000000", ""), bad("deep", "")},
		benign: []string{"64"}, why: figuresOnly},
	"traffic[].bidirectional": {base: "incast", invalid: []badValue{bad("maybe", "")}, benign: []string{"true"}, why: figuresOnly},
	"traffic[].iterations": {base: "baseline-bw", edits: []string{"traffic[0].pattern=latency", "assertions=-"},
		invalid: []badValue{bad("0", ""), bad("-1", ""), bad("many", "")}, benign: []string{"100"}, why: figuresOnly},
	"traffic[].traffic_class": {base: "incast", invalid: []badValue{bad("256", ""), bad("-1", ""), bad("roce", "")},
		benign: []string{"104"}, why: "a class the lab does not make lossless is best effort, a traffic the lab runs (the lab's suite mutates it)"},
	"traffic[].start": {base: "incast", invalid: []badValue{bad("-1ms", ""), bad("later", "")},
		harmful: []badValue{bad("30ms", "")}, benign: []string{"1ms"}},
	"traffic[].case": {base: "incast", invalid: []badValue{bad("Bad Case", ""), bad("[a]", "")}, benign: []string{"one"},
		why: "a case only groups entries"},
	"traffic[].role": {base: "incast", invalid: []badValue{bad("Best Effort", "not a role name"), bad("8gpu", "starting with a letter"), bad("[a]", "")},
		harmful: []badValue{bad("rdma", `no traffic of this scenario has role "incast"`)}, benign: []string{"incast"}},
	"traffic[].collective": {base: "nccl-allreduce", edits: []string{oneVariant, noAssertions}, invalid: []badValue{bad("allreduce", ""), bad("all_reduce_perf", "")},
		benign: []string{"all_gather"}, why: "every collective runs over the lab's GPUs"},
	"traffic[].algorithm": {base: "nccl-allreduce", edits: []string{oneVariant, noAssertions}, invalid: []badValue{bad("mesh", "")},
		benign: []string{"tree"}, why: "both run every size of the sweep"},
	"traffic[].channels": {base: "nccl-allreduce", invalid: []badValue{bad("0", ""), bad("65", ""), bad("-1", ""), bad("many", "")},
		benign: []string{"8"}, why: figuresOnly},
	"traffic[].rank_order": {base: "nccl-allreduce", invalid: []badValue{bad("random", "")}, benign: []string{"naive"}, why: figuresOnly},
	"traffic[].min_bytes": {base: "nccl-allreduce", invalid: []badValue{bad("0", ""), bad("-8", ""), bad("tiny", "")},
		harmful: []badValue{bad("1GiB", "")}, benign: []string{"1KiB"}},
	"traffic[].max_bytes": {base: "nccl-allreduce", invalid: []badValue{bad("0", ""), bad("huge", "")},
		harmful: []badValue{bad("4", "")}, benign: []string{"64MiB"}},
	"traffic[].step_factor": {base: "nccl-allreduce", invalid: []badValue{bad("0", ""), bad("1", ""), bad("-2", ""), bad("double", "")},
		benign: []string{"4"}, why: "any factor of 2 or more gives at most the sizes of factor 2"},
	"traffic[].step_bytes": {base: "nccl-allreduce", edits: []string{"traffic[0].step_factor=-"}, invalid: []badValue{bad("-1", ""), bad("some", "")},
		harmful: []badValue{bad("8", "more than the 64")}, benign: []string{"64MiB"}},
	"traffic[].root": {base: "nccl-allreduce", edits: []string{oneVariant, noAssertions, "traffic[0].collective=broadcast"}, invalid: []badValue{bad("-1", ""), bad("first", "")},
		harmful: []badValue{bad("16", "")}, benign: []string{"3"}},
	"traffic[].datatype": {base: "nccl-allreduce", invalid: []badValue{bad("fp8", "")}, benign: []string{"half"}, why: figuresOnly},
	"traffic[].qps_per_connection": {base: "nccl-allreduce", invalid: []badValue{bad("0", ""), bad("129", ""), bad("-1", ""), bad("four", "")},
		benign: []string{"2"}, why: figuresOnly},
	"faults": {base: "link-failure", invalid: []badValue{bad("{kind: link-down}", "")},
		benign: []string{"[{kind: link-down, link: leaf1-spine1, at: 5ms, for: 1ms}]"}, why: "the entries' harms are their keys'"},
	"faults[].kind": {base: "link-failure", edits: []string{"faults[0].for=-", "faults[0].down=1ms", "faults[0].up=1ms"},
		invalid: []badValue{bad("link-up", ""), bad("[link-flap]", "")}, benign: []string{"link-flap"}, why: "the kinds' harms are their keys'"},
	"faults[].link": {base: "link-failure", edits: []string{"faults[0].on_path=-"}, invalid: []badValue{bad("leaf1", ""), bad("[leaf1-spine1]", "")},
		harmful: []badValue{bad("leaf99-spine1", "")}, benign: []string{"leaf1-spine1", "leaf1:Ethernet0"}},
	"faults[].all": {base: "link-failure", edits: []string{"faults[0].on_path=-", "faults[0].link=leaf1-spine1"}, invalid: []badValue{bad("maybe", "")},
		benign: []string{"true"}, why: "failing every link between two nodes is a fault the lab takes"},
	"faults[].on_path": {base: "link-failure", invalid: []badValue{bad("traffic[3]", ""), bad("flows", "")},
		benign: []string{"traffic[0]"}, why: "an entry's path is one the lab has"},
	"faults[].nic": {base: "pfc-storm", invalid: []badValue{bad("host1", ""), bad("host1:x", "")},
		harmful: []badValue{bad("host9:0", "no NIC"), bad("host1:8", "no NIC")}, benign: []string{"host2:3"}},
	"faults[].priority": {base: "pfc-storm", invalid: []badValue{bad("8", ""), bad("-1", ""), bad("three", "")}, benign: []string{"4"},
		why: "a storm on any priority is one a stuck NIC can send"},
	"faults[].at": {base: "pfc-storm", invalid: []badValue{bad("-1ms", ""), bad("soon", "")},
		harmful: []badValue{bad("500ms", "")}, benign: []string{"10ms"}},
	"faults[].for": {base: "pfc-storm", invalid: []badValue{bad("0", ""), bad("-1ms", ""), bad("long", "")}, benign: []string{"100ms"},
		why: "a fault past the end of the run lasts to its end, as leaving for out does"},
	"faults[].down": {base: "link-failure", edits: []string{"faults[0].for=-", "faults[0].kind=link-flap", "faults[0].up=1ms"},
		invalid: []badValue{bad("0", ""), bad("-1ms", ""), bad("long", "")}, benign: []string{"2ms"}, why: "flaps past the end of the run are left out"},
	"faults[].up": {base: "link-failure", edits: []string{"faults[0].for=-", "faults[0].kind=link-flap", "faults[0].down=1ms"},
		invalid: []badValue{bad("0", ""), bad("-1ms", ""), bad("long", "")}, benign: []string{"2ms"}, why: "flaps past the end of the run are left out"},
	"faults[].count": {base: "link-failure", edits: []string{"faults[0].for=-", "faults[0].kind=link-flap", "faults[0].down=1ms", "faults[0].up=1ms"},
		invalid: []badValue{bad("0", ""), bad("1001", ""), bad("-1", ""), bad("twice", "")}, benign: []string{"3"}, why: "flaps past the end of the run are left out"},
	"faults[].detect": {base: "link-failure", edits: []string{oneVariant, noAssertions}, invalid: []badValue{bad("-1ms", ""), bad("fast", "")},
		benign: []string{"2ms", "0"}, why: "any detection time is one a switch may take"},
	"faults[].converge": {base: "link-failure", invalid: []badValue{bad("-1ms", ""), bad("fast", "")},
		benign: []string{"5ms", "0"}, why: "any convergence time is one a fabric may take"},
	"faults[].case": {base: "link-failure", invalid: []badValue{bad("Bad Case", "")}, benign: []string{"failure"}, why: "a case only groups entries"},
	"lb":            {base: "incast", invalid: []badValue{bad("spray", "")}, benign: []string{"{mode: spray}"}, why: figuresOnly},
	"regress": {base: "incast", invalid: []badValue{bad("[1]", "")}, benign: []string{"{tolerances: {drops: 2}}"},
		why: "how labctl regress compares runs of the scenario, not what runs: no value of it changes a run, and regress lists every override it used"},
	"regress.tolerances": {base: "incast",
		invalid: []badValue{bad("{throughput: 3%}", "unknown metric"), bad("{drops: lots}", "not a non-negative number"),
			bad("{throughput_gbps_total: 150%}", "could never flag it"), bad("{'role[victim].drops': 1}", "not a role's metric"), bad("[1]", "")},
		benign: []string{"{drops: off, port.queue_p99_bytes: 25%+65536}", "{'role[incast].latency_us_p50': 5%}"},
		why:    "a tolerance, however wide, is the user's choice of what regress lets pass, listed in its output with where it came from; it changes no run"},
	"lb.mode":        {base: "incast", invalid: []badValue{bad("random", "")}, benign: []string{"flowlet", "adaptive"}, why: figuresOnly},
	"lb.flowlet_gap": {base: "incast", edits: []string{"lb.mode=flowlet"}, invalid: []badValue{bad("0", ""), bad("-1us", ""), bad("short", "")}, benign: []string{"50us"}, why: figuresOnly},
	"assertions":     {base: "incast", invalid: []badValue{bad("{expr: summary.drops == 0}", "")}, harmful: []badValue{bad(repeatFlow("{expr: summary.drops >= 0}", 257), "256")}, benign: []string{"[{expr: summary.drops >= 0}]"}},
	"assertions[].name": {base: "incast", invalid: []badValue{bad("[a, b]", "")},
		harmful: []badValue{bad("with PFC alone the receiver runs at line rate", "also assertions")}, benign: []string{"no drops"}},
	"assertions[].expr": {base: "incast", invalid: []badValue{bad("summary.drops ==", ""), bad(`""`, "no expr")},
		harmful: []badValue{bad("summary.no_such_figure == 0", ""), bad("[ecn=maybe].summary.drops == 0", "")}, benign: []string{"summary.drops >= 0 when pfc"}},
}

// sectionMutation fills in the keys of the sections a scenario shares with
// the lab and the transports (nic, infiniband, uet), from the section's
// resolved defaults: the default written out is benign, a value of the
// wrong type or a negative number invalid.
func sectionScenarioMutation(t *testing.T, path, typ string, defaults map[string]string) (scenarioMutation, bool) {
	section, key, ok := strings.Cut(path, ".")
	if !ok || !slices.Contains([]string{"nic", "infiniband", "uet"}, section) {
		return scenarioMutation{}, false
	}
	def, ok := defaults[path]
	if !ok {
		return scenarioMutation{}, false
	}
	m := scenarioMutation{base: "incast", benign: []string{def}, why: figuresOnly}
	if section != "nic" {
		// Read by that transport's variants only: the base runs it.
		m.edits = []string{"transport=" + section, oneVariant}
	}
	_ = key
	switch typ {
	case "integer", "number":
		m.invalid = []badValue{bad("-7", ""), bad("lots", "")}
	case "boolean":
		m.invalid = []badValue{bad("maybe", "")}
	case "string":
		m.invalid = []badValue{bad("no-such-value", "")}
	case "list of integers":
		m.invalid = []badValue{bad("[lots]", "")}
	case "list of strings":
		m.invalid = []badValue{bad("[no-such-value]", "")}
	}
	return m, true
}

// sectionDefaults are the nic, infiniband and uet sections' defaults by
// the scenario's key paths, as YAML flow values.
func sectionDefaults(t *testing.T) map[string]string {
	out := map[string]string{}
	for k, m := range nicMutations {
		out["nic."+k] = m.benign
	}
	ib, err := transport.ResolveIB()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range defaultValues(t, ib) {
		out["infiniband."+k] = v
	}
	var cct []string
	for _, e := range ib.CC.CCT {
		cct = append(cct, fmt.Sprintf("%q", e.String()))
	}
	out["infiniband.cc.cct"] = "[" + strings.Join(cct, ", ") + "]"
	uet, err := transport.ResolveUET()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range defaultValues(t, uet) {
		out["uet."+k] = v
	}
	return out
}

// yamlSeg is one step of a key path: a mapping key, and for a list the
// item (-1 for none).
type yamlSeg struct {
	key  string
	item int
}

func splitKeyPath(path string) []yamlSeg {
	var out []yamlSeg
	for _, p := range strings.Split(path, ".") {
		s := yamlSeg{key: p, item: -1}
		if k, rest, ok := strings.Cut(p, "["); ok {
			s.key = k
			s.item, _ = strconv.Atoi(strings.TrimSuffix(rest, "]"))
		}
		out = append(out, s)
	}
	return out
}

func lineIndent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func isContent(l string) bool {
	s := strings.TrimSpace(l)
	return s != "" && !strings.HasPrefix(s, "#")
}

// setYAMLKey sets the key at path (traffic[0].senders, nic.dcqcn.rpg_gd)
// in a block-style YAML text to value (YAML flow text), adding the key and
// the mappings above it where missing; value "-" removes the key, and a
// non-empty rename writes the key under that name instead. It returns the
// new text and the 1-based line and column of the value (of the key, for
// a rename).
func setYAMLKey(text, path, value, rename string) (string, int, int, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	// The region [start, end) holds the current mapping's keys at indent;
	// first is a line that holds its first key after "- ".
	start, end, indent, first := 0, len(lines), 0, -1
	insertAt := len(lines) // where a missing key of the region goes
	keyAt := func(i int, key string) (int, bool) {
		l := lines[i]
		if i == first {
			return indent, strings.HasPrefix(l[indent:], key+":")
		}
		return indent, lineIndent(l) == indent && strings.HasPrefix(l[indent:], key+":")
	}
	blockEnd := func(i, ind int) int { // the end of the block under line i
		j := i + 1
		for j < len(lines) && (!isContent(lines[j]) || lineIndent(lines[j]) > ind) {
			j++
		}
		for j > i+1 && !isContent(lines[j-1]) {
			j--
		}
		return j
	}
	segs := splitKeyPath(path)
	for n, seg := range segs {
		last := n == len(segs)-1
		found := -1
		for i := start; i < end; i++ {
			if _, ok := keyAt(i, seg.key); ok && isContent(lines[i]) {
				found = i
				break
			}
		}
		if found < 0 {
			if seg.item >= 0 {
				return "", 0, 0, fmt.Errorf("%s: no list %s to set an item of", path, seg.key)
			}
			if value == "-" && last {
				return text, 0, 0, nil
			}
			at := insertAt
			name := seg.key
			if last && rename != "" {
				name = rename
			}
			l := strings.Repeat(" ", indent) + name + ":"
			if last {
				l += " " + value
			}
			lines = slices.Insert(lines, at, l)
			if last {
				col := indent + len(name) + 3
				if rename != "" {
					col = indent + 1
				}
				return strings.Join(lines, "\n") + "\n", at + 1, col, nil
			}
			start, end, indent, first, insertAt = at+1, at+1, indent+2, -1, at+1
			continue
		}
		bend := blockEnd(found, indent)
		if last {
			prefix := lines[found][:indent] + seg.key + ":"
			if value == "-" {
				lines = slices.Delete(lines, found, bend)
				return strings.Join(lines, "\n") + "\n", 0, 0, nil
			}
			col := len(prefix) + 2
			if rename != "" {
				prefix = lines[found][:indent] + rename + ":"
				col = indent + 1
			}
			lines = slices.Replace(lines, found, bend, prefix+" "+value)
			return strings.Join(lines, "\n") + "\n", found + 1, col, nil
		}
		if seg.item < 0 {
			childIndent := indent + 2
			if found+1 < bend {
				childIndent = lineIndent(lines[found+1])
			}
			start, end, indent, first, insertAt = found+1, bend, childIndent, -1, found+1
			continue
		}
		// The item-th "- " line of the list under the key.
		items := []int{}
		for i := found + 1; i < bend; i++ {
			if isContent(lines[i]) && strings.HasPrefix(strings.TrimLeft(lines[i], " "), "- ") && (len(items) == 0 || lineIndent(lines[i]) == lineIndent(lines[items[0]])) {
				items = append(items, i)
			}
		}
		if seg.item >= len(items) {
			return "", 0, 0, fmt.Errorf("%s: list %s has %d items", path, seg.key, len(items))
		}
		it := items[seg.item]
		li := lineIndent(lines[it])
		iend := bend
		if seg.item+1 < len(items) {
			iend = items[seg.item+1]
		}
		start, end, indent, first, insertAt = it, iend, li+2, it, it+1
	}
	return "", 0, 0, fmt.Errorf("%s: empty path", path)
}

// mutationLabs are the labs scenarios are checked against: link faults
// need spines between leaves, which 16gpu's one leaf lacks.
func mutationLabFor(base string) string {
	if base == "link-failure" {
		return "64gpu"
	}
	return "16gpu"
}

var errPos = regexp.MustCompile(`:(\d+):(\d+): `)

func TestScenarioMutations(t *testing.T) {
	t.Parallel()
	defaults := sectionDefaults(t)
	keys := specdoc.Keys(reflect.TypeOf(scenario.Spec{}), scenario.KeyDocs)
	table := map[string]scenarioMutation{}
	for _, k := range keys {
		if m, ok := scenarioMutations[k.Path]; ok {
			table[k.Path] = m
		} else if m, ok := sectionScenarioMutation(t, k.Path, k.Type, defaults); ok {
			table[k.Path] = m
		} else if k.Children && strings.Contains(k.Path, ".") {
			// A mapping inside a section: its keys are mutated one by one.
			var child string
			for p, v := range defaults {
				if rest, ok := strings.CutPrefix(p, k.Path+"."); ok && !strings.Contains(rest, ".") && (child == "" || p < child) {
					child = rest + ": " + v
				}
			}
			m := scenarioMutation{base: "incast", invalid: []badValue{bad("[1]", "")}, benign: []string{"{" + child + "}"}, why: figuresOnly}
			if section, _, _ := strings.Cut(k.Path, "."); section != "nic" {
				m.edits = []string{"transport=" + section, oneVariant} // read by its transport only
			}
			table[k.Path] = m
		}
	}
	var paths []string
	for _, k := range keys {
		paths = append(paths, k.Path)
	}
	checkMutationTable(t, "scenario", paths, table)
	if t.Failed() {
		return
	}

	dir := upLab(t, "16gpu")
	if code, _, errs := resultsCLI(t, dir, "up", "64gpu"); code != 0 {
		t.Fatalf("up 64gpu: exit %d: %s", code, errs)
	}
	labs := map[string]*runtime.Lab{}
	for _, name := range []string{"16gpu", "64gpu"} {
		spec, err := lab.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		l, err := runtime.NewLab(spec, filepath.Join(dir, "topologies"), "")
		if err != nil {
			t.Fatal(err)
		}
		labs[name] = l
	}
	catalog := map[string]string{}
	for _, name := range scenario.CatalogNames() {
		s, err := scenario.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		catalog[name] = s.Text()
	}

	// A record of a real run, whose scenario text regress compares.
	short, _, _, err := setYAMLKey(catalog["incast"], "duration", "300us", "")
	if err != nil {
		t.Fatal(err)
	}
	short, _, _, _ = setYAMLKey(short, "matrix", "{ecn: [on], pfc: [on]}", "")
	short, _, _, _ = setYAMLKey(short, "assertions", "[{expr: summary.drops == 0}]", "")
	realRun := func(name, text string) *results.Run {
		t.Helper()
		file := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, r, errs := runJSON(t, dir, file, "16gpu")
		if code != 0 || r == nil {
			t.Fatalf("run %s: exit %d: %s", name, code, errs)
		}
		return r
	}
	baseRun := realRun("short", short)
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", baseRun.RunID, "short"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}

	// regressChanges writes records of the same figures with the two
	// scenario texts and returns what regress says changed.
	nfile := 0
	regressChanges := func(baseText, text string) (results.Report, string) {
		t.Helper()
		nfile++
		write := func(name, yaml string) string {
			r := *baseRun
			r.ScenarioYAML = yaml
			data, err := json.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(dir, fmt.Sprintf("%s-%d.json", name, nfile))
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return f
		}
		b, r := write("base", baseText), write("mut", text)
		_, out, errs := resultsCLI(t, dir, "regress", r, "--baseline", b, "-o", "json")
		var rep results.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("regress -o json: %v\n%s%s", err, out, errs)
		}
		return rep, errs
	}

	// cli runs 'labctl run' on the mutated file; a panic is an error.
	cli := func(file, labName string) (code int, errs string, panicked any) {
		defer func() { panicked = recover() }()
		code, _, errs = resultsCLI(t, dir, "run", file, "--lab", labName)
		return code, errs, nil
	}
	// precheck parses the file and makes every check of a run on the lab
	// before it simulates: the runner stops at a cancelled context once
	// the checks are done.
	precheck := func(file, labName string) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		s, err := scenario.Resolve(file)
		if err != nil {
			return err
		}
		l := *labs[labName]
		l.Dir = filepath.Join(dir, "topologies", labName)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := &scenario.Runner{Runtime: simrt.New(), Lab: &l, NICs: scenario.NICsFromGraph(l.Graph),
			ConfigsDir: filepath.Join(dir, "configs-"+filepath.Base(file))}
		err = r.Run(ctx, s, &results.Run{RunID: "x", Lab: labName, Scenario: s.Name, Runtime: "sim", Seed: 1})
		if errors.Is(err, context.Canceled) || err != nil && strings.Contains(err.Error(), "interrupted after 0 variants") {
			return nil
		}
		return err
	}

	counts := map[string]int{}
	n := 0
	for _, k := range keys {
		m := table[k.Path]
		path := strings.ReplaceAll(k.Path, "[]", "[0]")
		base := catalog[m.base]
		if base == "" {
			t.Errorf("%s: no catalog scenario %q", k.Path, m.base)
			continue
		}
		for _, e := range m.edits {
			p, v, _ := strings.Cut(e, "=")
			if base, _, _, err = setYAMLKey(base, p, v, ""); err != nil {
				t.Fatalf("%s: edit %s: %v", k.Path, e, err)
			}
		}
		labName := mutationLabFor(m.base)
		mutate := func(value, rename string) (file, text string, line, col int) {
			t.Helper()
			text, line, col, err := setYAMLKey(base, path, value, rename)
			if err != nil {
				t.Fatalf("%s: %v", k.Path, err)
			}
			n++
			file = filepath.Join(dir, fmt.Sprintf("mut%d.yaml", n))
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			return file, text, line, col
		}
		// refused checks that the value is refused at line:col (exact: the
		// column too), or for a harmful value at any place of the file
		// (line 0): it may conflict with another key.
		refused := func(kind, value string, file string, line, col int, want string, exact bool) {
			t.Helper()
			counts[kind]++
			code, errs, p := cli(file, labName)
			if p != nil {
				t.Errorf("%s: %s: labctl run panics: %v", k.Path, value, p)
				return
			}
			var where string
			if m := errPos.FindStringSubmatch(errs); m != nil {
				l, _ := strconv.Atoi(m[1])
				c, _ := strconv.Atoi(m[2])
				if line > 0 && (l != line || (exact && c != col) || c < col) {
					where = fmt.Sprintf("at %d:%d, not %d:%d", l, c, line, col)
				}
			} else {
				where = fmt.Sprintf("without the position %d:%d", line, col)
			}
			switch {
			case code != 2:
				t.Errorf("%s: %s value %s: exit %d, want 2: %s", k.Path, kind, value, code, errs)
			case !strings.Contains(errs, file):
				t.Errorf("%s: %s value %s: the error does not name the file: %s", k.Path, kind, value, errs)
			case where != "":
				t.Errorf("%s: %s value %s: the error is %s: %s", k.Path, kind, value, where, errs)
			case !strings.Contains(errs, "fix"):
				t.Errorf("%s: %s value %s: the error gives no fix: %s", k.Path, kind, value, errs)
			case want != "" && !strings.Contains(errs, want):
				t.Errorf("%s: %s value %s: the error does not say %q: %s", k.Path, kind, value, want, errs)
			}
		}
		// (a) Invalid values, the type's wrong value and a misspelt key.
		invalid := slices.Clone(m.invalid)
		if len(invalid) == 0 {
			t.Errorf("%s: no invalid value", k.Path)
		}
		for _, v := range invalid {
			file, _, line, col := mutate(v.value, "")
			refused("invalid", v.value, file, line, col, v.want, false)
		}
		if len(m.benign) == 0 {
			t.Errorf("%s: no benign value", k.Path)
			continue
		}
		segs := splitKeyPath(path)
		typo := segs[len(segs)-1].key + "x"
		file, _, line, col := mutate(m.benign[0], typo)
		refused("misspelt key", typo, file, line, col, "", true)
		// (c) Harmful values that parse.
		if len(m.harmful) == 0 && m.why == "" {
			t.Errorf("%s: neither a harmful value nor why there is none", k.Path)
		}
		for _, v := range m.harmful {
			file, _, _, _ := mutate(v.value, "")
			refused("harmful", v.value, file, 0, 0, v.want, false)
		}
		// (b) Benign values pass every check before the run.
		regressed := false
		for _, v := range m.benign {
			counts["benign"]++
			file, text, _, _ := mutate(v, "")
			if err := precheck(file, labName); err != nil {
				t.Errorf("%s: benign value %s refused: %v", k.Path, v, err)
				continue
			}
			if regressed || text == base {
				continue
			}
			regressed = true
			counts["regress"]++
			rep, errs := regressChanges(base, text)
			var got []string
			named := false
			for _, c := range rep.ScenarioChanges {
				got = append(got, c.String())
				if c.Path == path || strings.HasPrefix(c.Path, path+".") || strings.HasPrefix(c.Path, path+"[") {
					named = true
				}
			}
			switch {
			case k.Path == "repetitions" || k.Path == "regress" || strings.HasPrefix(k.Path, "regress."):
				// The same runs: repetitions at seed + r, and tolerances
				// that say how regress compares them.
				if len(rep.ScenarioChanges) != 0 {
					t.Errorf("%s %s counts as a scenario change: %v", k.Path, v, got)
				}
			case !rep.ScenarioChanged || !named:
				t.Errorf("%s: %s: regress does not name the change (changed %v: %v) %s", k.Path, v, rep.ScenarioChanged, got, errs)
			}
		}
	}

	// A few benign mutations run for real: regress of each against the
	// short run names the change, and repetitions are no change.
	for _, mut := range []struct{ path, value string }{
		{"traffic[0].senders", "4"},
		{"repetitions", "2"},
		{"lb", "{mode: spray}"},
		{"warmup", "100us"},
	} {
		text, _, _, err := setYAMLKey(short, mut.path, mut.value, "")
		if err != nil {
			t.Fatal(err)
		}
		counts["real run"]++
		realRun("short", text)
		code, rep, errs := regressJSON(t, dir, "short")
		var got []string
		for _, c := range rep.ScenarioChanges {
			got = append(got, c.String())
		}
		if mut.path == "repetitions" {
			if len(rep.ScenarioChanges) != 0 {
				t.Errorf("real run, repetitions 2: regress exit %d, changes %v %s", code, got, errs)
			}
			continue
		}
		if !rep.ScenarioChanged || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, mut.path) }) {
			t.Errorf("real run, %s %s: regress says changed %v: %v %s", mut.path, mut.value, rep.ScenarioChanged, got, errs)
		}
	}
	t.Logf("%d keys, %d mutated files: %v", len(keys), n, counts)
}
