package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
)

// The lab spec's qos and nic sections are inputs users edit, as vendor
// configs and the transports' sections are: every key of both is mutated,
// one at a time, in a lab of 16 GPUs on one switch (the smallest that
// shows every harm below: the incast, its victim and the storm all meet at
// the one leaf). A key's default written out (benign) must render the same
// configs, record the same NIC settings, change no figure of any scenario
// and no lint error or warning. A harmful value must make 'labctl regress'
// against the unchanged lab's runs fail in at least one scenario, or the
// table says why this traffic cannot show the harm; and lint, which reads
// the rendered configs (and the NICs' CNP DSCP), must add the rule the
// table names, or nothing (a qos key then says why lint cannot tell). A key without an entry fails
// the test, so a key added to either section comes with its mutations.

// labKeyMutation is one key's mutations.
type labKeyMutation struct {
	// benign is the key's default written out, or an equivalent spelling.
	benign string
	// harmful is a value that must fail regress; "" comes with why.
	harmful, why string
	// with are other keys of the section that both values need beside
	// the key, at their defaults (ecn.kmin_kb is set with ecn.kmax_kb).
	with map[string]string
	// lint is the rule lint must add for the harmful value; without it
	// lint must add nothing, and a qos key says why in quiet. eosLint,
	// where EOS's lint names the harm by another rule, is that rule:
	// labctl assumes EOS's platform buffer, which the lab's qos section
	// does not size.
	lint, quiet, eosLint string
}

// The lab's ports are all 200G: the ECN thresholds the profile scales
// with the port speed (4 and 16 KiB per Gb/s) are 800 and 3200 KiB.
var (
	withKmax = map[string]string{"ecn.kmax_kb": "3200"}
	withKmin = map[string]string{"ecn.kmin_kb": "800"}
)

var qosMutations = map[string]labKeyMutation{
	"profile": {benign: "roce-dcqcn", harmful: "roce-pfc-only",
		quiet: "a profile without ECN is a design the intent states and the configs follow: lint has no mismatch to report"},
	// EF (DSCP 46), which labctl's maps put in TC5, then shares RoCE's
	// lossless class (0, where every unassigned DSCP would, the spec
	// refuses: the best-effort class).
	"lossless_priorities": {benign: "[3]", harmful: "[5]", lint: qos.RuleDSCPMapMismatch},
	// DSCP 0 is every unmarked packet's: best effort joins the lossless
	// class, and the hosts' RoCE (the scenario's traffic_class 106, DSCP
	// 26) leaves it.
	"roce_dscp": {benign: "26", harmful: "0", lint: qos.RuleDSCPMapMismatch},
	// The switches map qos.cnp_dscp to strict TC6 and the NICs mark
	// their CNPs with it, so both ends move together; but DSCP 0 is every
	// unmarked packet's, and best effort then overtakes RoCE.
	"cnp_dscp": {benign: "48", harmful: "0", lint: qos.RuleCNPPriority},
	"mtu": {benign: "4096", harmful: "256",
		quiet: "256 is a RoCE path MTU: small packets only cost header overhead, which lint does not weigh"},
	"cable_length_m": {benign: "5", harmful: "2000",
		quiet: "the configs size headroom for the length they state, and the simulator takes that length as the cable's (the lab has no other record of its cables): a long cable slows DCQCN's loop, but headroom and cable agree"},
	// 453 quanta: the IEEE bound at 200G written out. 65535 (168 us at
	// 200G) is ports that take that long to stop. SONiC's configs size
	// headroom for that response, some 4 MB a lossless PG, which the PGs
	// reserve (size = xon + xoff): together far more than the ingress
	// pool, which lint only notes (QOS028's note: on a platform whose pool
	// is the shared part beside the reserves, as SONiC sizes Mellanox
	// pools, that is as sized, and labctl does not know the ASIC's memory
	// that 4 MB a PG would exceed). EOS's platform buffer keeps its fixed
	// headroom, short of it: QOS006.
	"pause_response_quanta": {benign: "453", harmful: "65535", eosLint: qos.RuleHeadroomShort,
		quiet: "SONiC's lossless PGs reserve some 4 MB each, more than the ingress pool: lint's QOS028 notes it (as sized where the pool is the shared part beside the reserves), and labctl does not know the ASIC's memory they would exceed; run and regress catch it"},
	// The switch's fastest ports are 200G: the pool of SONiC's SN3700.
	"buffer_pool_bytes": {benign: "11622400", harmful: "65536", lint: qos.RuleECNThresholds},
	"ecn.enabled": {benign: "true", harmful: "false",
		quiet: "ECN off is the roce-pfc-only design: the intent states it and the configs follow"},
	"ecn.kmin_kb": {benign: "800", harmful: "3000", with: withKmax,
		quiet: "marking from 3000 of 3200 KiB is steep but ramps, below the XOFF point: a tuning lint has no bound for"},
	"ecn.kmax_kb": {benign: "3200", harmful: "100000", with: withKmin, lint: qos.RuleECNThresholds},
	"ecn.pmax": {benign: "0.20", harmful: "0.01",
		quiet: "a 1% marking probability ramps: a tuning lint has no bound for"},
	"pfc.enabled": {benign: "true", harmful: "false",
		quiet: "PFC off is the roce-ecn-only design: the intent states it and the configs follow"},
	"pfc_watchdog.enabled": {benign: "true", harmful: "false", lint: qos.RuleWatchdogOff},
	"pfc_watchdog.detection_ms": {benign: "200", harmful: "5000",
		quiet: "5 s is within SONiC's range: how long a pause may last before it is a storm is the operator's call"},
	"pfc_watchdog.restoration_ms": {benign: "200", harmful: "60000",
		quiet: "60 s is within SONiC's range: how long a stormed queue stays dropped is the operator's call"},
	// A watchdog that only reports leaves the storm's pause in place.
	"pfc_watchdog.action": {benign: "drop", harmful: "alert", lint: qos.RuleWatchdogOff},
	// RoCE's queue gets 1 of 100 against best effort's 99.
	"ets_weights": {benign: "{7: 10, 5: 5, 4: 5, 3: 50, 2: 5, 1: 5, 0: 20}", harmful: "{0: 99, 3: 1}",
		quiet: "the weights are the intent's, and lint does not weigh RoCE's share against other classes"},
}

// The switch configs do not carry the NICs' settings: lint, which reads
// the configs, must say the same of every nic value.
var nicMutations = map[string]labKeyMutation{
	// mellanox is the older name of the connectx preset.
	"dcqcn.preset":         {benign: "mellanox", harmful: "paper"},
	"dcqcn.clamp_tgt_rate": {benign: "false", harmful: "true"},
	"dcqcn.clamp_tgt_rate_after_time_inc": {benign: "true",
		why: "it decides a cut's target only when the rate timer fired since the last cut and the byte counter did not (a flow sending under 32 KiB per 300 µs, 0.87 Gb/s); every flow cut here sends faster, so the byte counter sets the target either way"},
	"dcqcn.rpg_time_reset": {benign: "300", harmful: "1"},
	"dcqcn.rpg_byte_reset": {benign: "32767", harmful: "1"},
	"dcqcn.rpg_threshold": {benign: "1",
		why: "31 fast-recovery stages before additive increase instead of 1: a stage ends on each 32 KiB sent, so the recovery scenario's flows pass 31 of them within some 40 us and reach 327.3 Gb/s against 329.1; the congestion scenario's slowest flow moved 12% while ports obeyed a PAUSE at once, and 2% (12.7 to 12.5 Gb/s) since they take the IEEE response, within tolerance. The stages cost a flow cut far below 1 Gb/s, where each lasts up to 300 us, which no scenario here holds"},
	"dcqcn.rpg_max_rate":               {benign: "0", harmful: "1000"},
	"dcqcn.rpg_ai_rate":                {benign: "5", harmful: "100000"},
	"dcqcn.rpg_hai_rate":               {benign: "50", harmful: "200000"},
	"dcqcn.rpg_gd":                     {benign: "11", harmful: "15"},
	"dcqcn.rpg_min_dec_fac":            {benign: "50", harmful: "100"},
	"dcqcn.rpg_min_rate":               {benign: "1", harmful: "150000"},
	"dcqcn.rate_to_set_on_first_cnp":   {benign: "0", harmful: "1"},
	"dcqcn.dce_tcp_g":                  {benign: "1019", harmful: "1023"},
	"dcqcn.dce_tcp_rtt":                {benign: "1", harmful: "10000000"},
	"dcqcn.rate_reduce_monitor_period": {benign: "4", harmful: "10000"},
	"dcqcn.initial_alpha_value":        {benign: "1023", harmful: "0"},
	"dcqcn.min_time_between_cnps":      {benign: "4", harmful: "10000000"},
	// CNPs in the lossless class wait behind the data they throttle; lint
	// checks the CNPs' class at the NICs' DSCP and names the mismatch.
	"dcqcn.cnp_dscp": {benign: "48", harmful: "26", lint: qos.RuleCNPPriority},
	"dcqcn.cnp_802p_prio": {benign: "6",
		why: "the switches classify by DSCP (they trust DSCP, as labctl renders them), so the CNPs' 802.1p priority moves nothing; the simulator records it only"},
	"dcqcn.cnp_moderation": {benign: "per_flow", harmful: "per_port"},
	// 8 µs: every queue of the incast outlasts it, so QPs go back and
	// resend what was not lost.
	"qp_timeout": {benign: "14", harmful: "1"},
	// The storm's incast QPs time out: the first timeout fails them.
	"retry_cnt": {benign: "7", harmful: "0"},
	// A NAK every µs sends the sender back again before its resent
	// packets can fill the gap.
	"nak_repeat_us": {benign: "0", harmful: "1"},
	// Without reordering (ECMP), placing packets out of order only delays
	// a loss's NAK by 100 µs, and go-back-N then resends 100 µs more.
	"out_of_order": {benign: "false", harmful: "true"},
}

// mutationLab is the lab every mutation brings up: 16 GPUs (two servers
// of eight 200G NICs) on one switch, its qos and nic sections as %s.
const mutationLab = `name: mut
sizing: {gpus: 16, tiers: 1}
qos: %s
nic: %s
`

// mutationScenarios are the traffic every mutation runs, each showing
// harms the others cannot.
var mutationScenarios = []struct{ name, yaml string }{
	// Congestion that every mechanism acts on, ECN and PFC each on and
	// off: RoCE's 8:1 incast into host1:0 with a victim from its first
	// sender; best effort (DSCP 0) into the same port, so the DWRR weights
	// decide what RoCE gets; and two RoCE flows from host1:0 to host2:7,
	// whose CNPs come back through the incast's congested port, as the
	// incast's CNPs to host2:7 go through theirs, so the CNPs' class
	// matters. Best effort and the ECN-off variants drop, so loss recovery
	// acts too.
	{"congestion", `name: congestion
matrix: {ecn: [on, off], pfc: [on, off]}
duration: 3ms
sample_every: 0
traffic:
  - {pattern: incast, senders: 8, victim: true, message_size: 64KiB, traffic_class: 106}
  - {pattern: incast, senders: 2, message_size: 64KiB, traffic_class: 0}
  - {pattern: pairs, pairs: 1, message_size: 64KiB, traffic_class: 106}
  - {pattern: pairs, pairs: 1, message_size: 64KiB, traffic_class: 106}
`},
	// Recovery: two long-lived flows into host1:0 that DCQCN cuts hard
	// during an 8:1 burst, which ends after about half a millisecond;
	// then they climb back by DCQCN's increase steps, hyper increase
	// included (it starts two rate-timer periods after a cut, which the
	// congestion's flows never go without).
	{"recovery", `name: recovery
matrix: {ecn: [on], pfc: [on]}
duration: 3ms
sample_every: 0
traffic:
  - {pattern: incast, senders: 2, message_size: 64KiB, traffic_class: 106}
  - {pattern: incast, senders: 8, bytes: 512KiB, traffic_class: 106}
`},
	// A PFC storm: host1:0 pauses its port from 1 to 400 ms under an 8:1
	// incast, so that leaf1 pauses host2's NICs in turn. At seed 1
	// leaf1's watchdog polls at 23.3 ms and every 100 ms after: it
	// declares the storm at 223 ms (200 ms of detection), drops what
	// comes for host1:0, which frees host2's NICs, and restores the port
	// at 623 ms (200 ms after the last pause frame). A victim from host2
	// to host2 at 300 ms then takes 1 ms, where a watchdog that does not
	// act leaves it paused until the storm ends; a second incast at 630
	// ms finds the port restored. The incast's QPs, dropped from 223 ms
	// on, time out every 67 ms.
	{"storm", `name: storm
matrix: {ecn: [on], pfc: [on]}
duration: 700ms
sample_every: 0
traffic:
  - {pattern: incast, senders: 8, message_size: 64KiB, traffic_class: 106}
  - {pattern: incast, senders: 2, victim: true, bytes: 16MiB, start: 300ms, traffic_class: 106}
  - {pattern: incast, senders: 2, bytes: 1MiB, start: 630ms, traffic_class: 106}
faults:
  - {kind: pfc-storm, nic: host1:0, at: 1ms, for: 399ms}
`},
}

// labOutcome is what lint and the scenarios' runs made of one lab spec.
type labOutcome struct {
	dir, spec string
	lint      map[string]qos.Finding // errors and warnings by lintKey
	runs      map[string]*results.Run
}

func lintKey(f qos.Finding) string {
	return strings.Join([]string{f.Rule, string(f.Severity), f.Device, f.Port, f.Where, f.Message}, "\x00")
}

// mutationLabSpec is the mutation lab with the given qos and nic sections.
func mutationLabSpec(qosYAML, nicYAML string) string {
	return fmt.Sprintf(mutationLab, qosYAML, nicYAML)
}

// upLabSpec writes a lab spec in a fresh work directory, brings the lab
// up and lints it.
func upLabSpec(t *testing.T, spec string) *labOutcome {
	t.Helper()
	o := &labOutcome{dir: t.TempDir(), lint: map[string]qos.Finding{}, runs: map[string]*results.Run{}}
	o.spec = filepath.Join(o.dir, "lab.yaml")
	if err := os.WriteFile(o.spec, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := resultsCLI(t, o.dir, "up", o.spec); code != 0 {
		t.Fatalf("up: exit %d: %s", code, errs)
	}
	code, out, errs := resultsCLI(t, o.dir, "config", "lint", o.spec, "-o", "json")
	var rep struct{ Findings []qos.Finding }
	if err := json.Unmarshal([]byte(out), &rep); code > 1 || err != nil {
		t.Fatalf("config lint: exit %d: %v\n%s%s", code, err, out, errs)
	}
	for _, f := range rep.Findings {
		if f.Severity != qos.SevInfo {
			o.lint[lintKey(f)] = f
		}
	}
	return o
}

// run runs scenario i on the lab (a run that finds the configs unusable
// fails the test: a harmful value must be one the lab takes).
func (o *labOutcome) run(t *testing.T, scenarios string, i int) *results.Run {
	t.Helper()
	name := mutationScenarios[i].name
	code, r, errs := runJSON(t, o.dir, filepath.Join(scenarios, name+".yaml"), o.spec)
	if code > 1 || r == nil {
		t.Fatalf("run %s: exit %d: %s", name, code, errs)
	}
	o.runs[name] = r
	return r
}

// regress compares run r with the baseline file of its scenario.
func (o *labOutcome) regress(t *testing.T, r *results.Run, baseline string) (int, results.Report) {
	t.Helper()
	code, out, errs := resultsCLI(t, o.dir, "regress", r.RunID, "--baseline", baseline, "-o", "json")
	var rep results.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("regress %s: exit %d: %v\n%s%s", r.Scenario, code, err, out, errs)
	}
	return code, rep
}

// addedLint are the errors and warnings o's lint gives that base's does
// not, sorted.
func addedLint(base, o *labOutcome) []qos.Finding {
	var out []qos.Finding
	for k, f := range o.lint {
		if _, ok := base.lint[k]; !ok {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return lintKey(out[i]) < lintKey(out[j]) })
	return out
}

// nicDiff says how a variant's recorded NIC settings differ from want's
// ("" when they do not).
func nicDiff(got, want *results.NIC) string {
	if got == nil || want == nil {
		if got != want {
			return fmt.Sprintf("recorded %v, want %v", got != nil, want != nil)
		}
		return ""
	}
	var diffs []string
	if got.DCQCN != want.DCQCN {
		diffs = append(diffs, fmt.Sprintf("dcqcn %s, want %s", got.DCQCN, want.DCQCN))
	}
	wantValue := map[string]string{}
	for _, p := range want.Params {
		wantValue[p.Name] = p.Value
	}
	for _, p := range got.Params {
		if w, ok := wantValue[p.Name]; !ok || w != p.Value {
			diffs = append(diffs, fmt.Sprintf("%s %s, want %s", p.Name, p.Value, w))
		}
	}
	if len(got.Params) != len(want.Params) {
		diffs = append(diffs, fmt.Sprintf("%d parameters, want %d", len(got.Params), len(want.Params)))
	}
	return strings.Join(diffs, "; ")
}

func TestLabSectionMutations(t *testing.T) {
	t.Parallel()
	sections := []struct {
		name      string
		typ       reflect.Type
		mutations map[string]labKeyMutation
		// lintReads: the configs carry the section, so lint's silence
		// about a harmful value needs a reason.
		lintReads bool
	}{
		{"qos", reflect.TypeOf(lab.QoSSpec{}), qosMutations, true},
		{"nic", reflect.TypeOf(nic.Spec{}), nicMutations, false},
	}
	for _, s := range sections {
		checkMutationTable(t, s.name, sectionKeys(s.typ), s.mutations)
		for k, m := range s.mutations {
			switch {
			case m.benign == "":
				t.Errorf("%s.%s: no benign value", s.name, k)
			case m.harmful == "" && m.why == "":
				t.Errorf("%s.%s: neither a harmful value nor why there is none", s.name, k)
			case m.harmful != "" && m.lint == "" && s.lintReads && m.quiet == "":
				t.Errorf("%s.%s: lint says nothing of %s: say why", s.name, k, m.harmful)
			}
		}
	}
	if t.Failed() {
		return
	}
	scenarios := t.TempDir()
	for _, sc := range mutationScenarios {
		if err := os.WriteFile(filepath.Join(scenarios, sc.name+".yaml"), []byte(sc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := upLabSpec(t, mutationLabSpec("{}", "{}"))
	baselines := map[string]string{}
	for i, sc := range mutationScenarios {
		r := base.run(t, scenarios, i)
		if code, out, errs := resultsCLI(t, base.dir, "regress", "--save-baseline", r.RunID, sc.name); code != 0 {
			t.Fatalf("save baseline %s: exit %d: %s%s", sc.name, code, out, errs)
		}
		baselines[sc.name] = filepath.Join(base.dir, "results", "baselines", sc.name+".json")
	}
	for _, s := range sections {
		for _, k := range sectionKeys(s.typ) {
			m := s.mutations[k]
			specWith := func(value string) string {
				section := sectionYAML(m.with, k, value)
				if s.name == "qos" {
					return mutationLabSpec(section, "{}")
				}
				return mutationLabSpec("{}", section)
			}
			t.Run(s.name+"."+k, func(t *testing.T) {
				t.Parallel()
				o := upLabSpec(t, specWith(m.benign))
				for _, f := range addedLint(base, o) {
					t.Errorf("%s (unchanged): lint adds %s %s %s: %s", m.benign, f.Rule, f.Severity, f.Device, f.Message)
				}
				for _, f := range addedLint(o, base) {
					t.Errorf("%s (unchanged): lint no longer says %s %s %s: %s", m.benign, f.Rule, f.Severity, f.Device, f.Message)
				}
				for i, sc := range mutationScenarios {
					r, want := o.run(t, scenarios, i), base.runs[sc.name]
					if r.ConfigDigest != want.ConfigDigest {
						t.Errorf("%s (unchanged): %s: the configs differ from the unchanged lab's", m.benign, sc.name)
					}
					for j := range min(len(r.Variants), len(want.Variants)) {
						if d := nicDiff(r.Variants[j].NIC, want.Variants[j].NIC); d != "" {
							t.Errorf("%s (unchanged): %s %s: NIC settings differ: %s", m.benign, sc.name, r.Variants[j].Name, d)
						}
					}
					if code, rep := o.regress(t, r, baselines[sc.name]); code != 0 || rep.Compared.Unchanged != rep.Compared.Metrics {
						t.Errorf("%s (unchanged): %s changed figures: regress exit %d, %d of %d metrics unchanged", m.benign, sc.name, code, rep.Compared.Unchanged, rep.Compared.Metrics)
					}
				}
				if m.harmful == "" {
					return
				}
				o = upLabSpec(t, specWith(m.harmful))
				added := addedLint(base, o)
				var rules []string
				for _, f := range added {
					rules = append(rules, f.Rule)
				}
				switch {
				case m.lint == "" && len(added) > 0:
					t.Errorf("%s: lint adds %s, the table says it adds nothing: name the rule", m.harmful, strings.Join(rules, ", "))
				case m.lint != "" && !slices.Contains(rules, m.lint):
					t.Errorf("%s: lint adds [%s], not %s", m.harmful, strings.Join(rules, ", "), m.lint)
				}
				// The first scenario whose regress fails has shown the harm.
				var passed []string
				for i, sc := range mutationScenarios {
					code, rep := o.regress(t, o.run(t, scenarios, i), baselines[sc.name])
					if code == 1 {
						t.Logf("%s: regress fails %s (%d regressions); lint adds [%s]", m.harmful, sc.name, rep.Regressions, strings.Join(rules, ", "))
						return
					}
					if code != 0 {
						t.Fatalf("%s: regress %s: exit %d", m.harmful, sc.name, code)
					}
					passed = append(passed, sc.name)
				}
				t.Errorf("%s passed regress in %s", m.harmful, strings.Join(passed, ", "))
			})
		}
	}
}

// Every value of the qos section that the mutations above give (each
// key's benign and harmful one) is a lab a user can bring up on every
// NOS, not only on SONiC, where TestLabSectionMutations runs them: the
// NOS's renderer writes it (an EOS lab asking for the watchdog action
// alert once failed 'labctl up' with "no EOS equivalent"), lint reads it
// back, and a harmful value gives the rule the table names on every NOS
// (its benign value no finding the unchanged lab lacks).
func TestLabQoSValuesRenderOnEveryNOS(t *testing.T) {
	t.Parallel()
	for _, name := range nos.Names() {
		up := func(qosYAML string) (*labOutcome, bool) {
			spec := strings.Replace(mutationLabSpec(qosYAML, "{}"), "sizing:", "nos: "+name+"\nsizing:", 1)
			o := &labOutcome{dir: t.TempDir(), lint: map[string]qos.Finding{}}
			o.spec = filepath.Join(o.dir, "lab.yaml")
			if err := os.WriteFile(o.spec, []byte(spec), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := resultsCLI(t, o.dir, "up", o.spec); code != 0 {
				t.Errorf("%s: qos %s: up: exit %d: %s", name, qosYAML, code, errs)
				return nil, false
			}
			code, out, errs := resultsCLI(t, o.dir, "config", "lint", o.spec, "-o", "json")
			var rep struct{ Findings []qos.Finding }
			if err := json.Unmarshal([]byte(out), &rep); code > 1 || err != nil {
				t.Errorf("%s: qos %s: config lint: exit %d: %v\n%s%s", name, qosYAML, code, err, out, errs)
				return nil, false
			}
			for _, f := range rep.Findings {
				if f.Severity != qos.SevInfo {
					o.lint[lintKey(f)] = f
				}
			}
			return o, true
		}
		base, ok := up("{}")
		if !ok {
			continue
		}
		for _, k := range sectionKeys(reflect.TypeOf(lab.QoSSpec{})) {
			m := qosMutations[k]
			if o, ok := up(sectionYAML(m.with, k, m.benign)); ok {
				for _, f := range addedLint(base, o) {
					t.Errorf("%s: qos.%s %s (unchanged): lint adds %s %s %s: %s", name, k, m.benign, f.Rule, f.Severity, f.Device, f.Message)
				}
			}
			if m.harmful == "" {
				continue
			}
			want := m.lint
			if name == "eos" && m.eosLint != "" {
				want = m.eosLint
			}
			o, ok := up(sectionYAML(m.with, k, m.harmful))
			if !ok || want == "" {
				continue
			}
			var rules []string
			for _, f := range addedLint(base, o) {
				rules = append(rules, f.Rule)
			}
			if !slices.Contains(rules, want) {
				t.Errorf("%s: qos.%s %s: lint adds [%s], not %s", name, k, m.harmful, strings.Join(rules, ", "), want)
			}
		}
	}
}

// A sweep of the watchdog's action over every value a scenario may give
// runs on an EOS lab (alert once failed the run before any variant, "no
// EOS equivalent"), and each variant's kept config says its action as EOS
// does.
func TestEOSWatchdogActionSweepRuns(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu", "--nos", "eos")
	sc := filepath.Join(dir, "wd.yaml")
	if err := os.WriteFile(sc, []byte("name: wd\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  qos.pfc_watchdog.action: [drop, forward, alert]\nduration: 100us\nsample_every: 0\ntraffic:\n  - pattern: incast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, r, errs := runJSON(t, dir, sc, "16gpu")
	if code != 0 || r == nil || len(r.Variants) != 3 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, v := range r.Variants {
		if v.Configs == nil || v.Configs.Dir == "" {
			t.Fatalf("%s: no kept configs", v.Name)
		}
		data, err := os.ReadFile(filepath.Join(dir, "results", r.RunID, v.Configs.Dir, "leaf1.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"drop": "drop", "forward": "no-drop", "alert": "notify-only"}[v.Params["qos.pfc_watchdog.action"]]
		if want == "" || !strings.Contains(string(data), "priority-flow-control pause watchdog action "+want+"\n") {
			t.Errorf("%s: leaf1.cfg does not say the action %q:\n%s", v.Name, want, data)
		}
	}
}

// A swept buffer pool runs on an EOS lab in the simulator, but EOS
// configures no pools: the record names what the variant's kept files
// cannot carry, and the summary says so; on SONiC, whose configs carry
// it, nothing is named.
func TestSweptPoolNotInEOSFiles(t *testing.T) {
	t.Parallel()
	for _, name := range nos.Names() {
		dir := upLab(t, "16gpu", "--nos", name)
		sc := filepath.Join(dir, "pool.yaml")
		if err := os.WriteFile(sc, []byte("name: pool\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  qos.buffer_pool_bytes: [8388608]\nduration: 100us\nsample_every: 0\ntraffic:\n  - pattern: incast\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, r, errs := runJSON(t, dir, sc, "16gpu")
		if code != 0 || r == nil || len(r.Variants) != 1 || r.Variants[0].Configs == nil {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		got := r.Variants[0].Configs.NotInFiles
		switch {
		case name == "eos" && !slices.Contains(got, "leaf1 pool.ingress_lossless_pool.size_bytes -> 8388608"):
			t.Errorf("eos: not_in_files %q, want leaf1's ingress pool", got)
		case name != "eos" && len(got) > 0:
			t.Errorf("%s: not_in_files %q, want none", name, got)
		}
		// The text summary says it too, for EOS only.
		code, out, errs := runCLI(t, "run", sc, "--lab", "16gpu", "--dir", dir)
		if said := strings.Contains(out, "its files cannot carry"); code != 0 || said != (name == "eos") {
			t.Errorf("%s: text summary (exit %d) says the files cannot carry: %v\n%s%s", name, code, said, out, errs)
		}
	}
}
