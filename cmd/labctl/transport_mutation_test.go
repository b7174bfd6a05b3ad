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

	"github.com/labctl/labctl/orchestrator/specdoc"
	"github.com/labctl/labctl/orchestrator/transport"
)

// The transports' sections are inputs users edit, as vendor configs are:
// every key of the infiniband and uet sections is mutated, one at a time,
// in a scenario over the 64gpu lab. Its default written out (benign) must
// change no figure: a key left out and its default are one setting (a key
// the base scenario sets is written with the base's value). A
// harmful value must make 'labctl regress' against the unchanged run fail,
// or the table says why this traffic cannot show the harm. A key without
// an entry fails the test, so a key added to a section comes with its
// mutations.

// sectionMutation is one key's mutations; harmful "" comes with why.
type sectionMutation struct {
	harmful, why string
}

var ibMutations = map[string]sectionMutation{
	"routing":          {why: "on a two-tier fat tree ftree, updn and minhop all route every destination over a least-loaded minimal up-port: the same paths for this traffic"},
	"adaptive_routing": {why: "adaptive routing only spreads packets better than the SM's static routes; it is not a harm to catch"},
	"vls":              {why: "the traffic uses one service level, so how many VLs the ports run changes nothing"},
	"sl2vl":            {why: "the traffic uses one service level, whatever VL the table maps it to"},
	"vl_buffer_kb":     {harmful: "6"},
	"cc.enabled":       {harmful: "false"},
	"cc.threshold":     {harmful: "0"},
	"cc.marking_rate":  {harmful: "1000"},
	"cc.ccti_increase": {harmful: "40"},
	"cc.ccti_limit":    {harmful: "1"},
	"cc.ccti_timer":    {harmful: "1"},
	"cc.ccti_min":      {harmful: "100"},
	"cc.cct":           {harmful: `["0:0"]`},
}

var uetMutations = map[string]sectionMutation{
	"lb":                {harmful: "ecmp"},
	"evs":               {harmful: "1"},
	"trimming":          {harmful: "false"},
	"trim_bytes":        {harmful: "1024"},
	"cc":                {harmful: "none"},
	"rccc":              {why: "receiver credit control evens the incast's flows out and trims less: a trade-off, not a harm"},
	"target_qdelay_us":  {harmful: "200"},
	"base_rtt_us":       {harmful: "200"},
	"qa_gate":           {harmful: "16"},
	"gamma":             {why: "the multiplicative decrease needs a standing ECN-marked queue; the shallow buffer holds none (about 100 marks, 225 against 227 trims with gamma 0.01), while a long-lived incast over the lab's deep buffer shows it (p99 25.6 to 29.7 us with gamma 0.01), traffic this scenario does not run"},
	"delay_alpha":       {why: "how fast the delay average follows its samples trades reaction for noise; neither end hurts this traffic (0.0001 left the trims at 218 against 225, and lowered a long-lived incast's p99 from 25.6 to 20.5 us)"},
	"max_cwnd_bdp":      {harmful: "20"},
	"rto_us":            {harmful: "5"},
	"ack_bytes":         {harmful: "4194304"},
	"ack_timer_us":      {why: "the timer fires only when coalescing holds back the packets of a window NSCC shrank; this traffic's ACK requests and ECN marks are acknowledged at once, so a 5 ms timer changes nothing here (it cut 211 RTO timeouts in a 64gpu all-to-all when it came in)"},
	"sack_reorder_pkts": {harmful: "1"},
}

// sectionKeys lists a section's leaf keys by their YAML paths, as the
// spec reference documents them.
func sectionKeys(t reflect.Type) []string {
	var out []string
	for _, k := range specdoc.Keys(t, nil) {
		if !k.Children {
			out = append(out, k.Path)
		}
	}
	return out
}

// checkMutationTable fails t for every key of a section the table has no
// entry for, and for every entry naming a key the section has no more.
func checkMutationTable[M any](t *testing.T, section string, keys []string, table map[string]M) {
	t.Helper()
	for _, k := range keys {
		if _, ok := table[k]; !ok {
			t.Errorf("%s.%s has no mutations: add its harmful value (or why this traffic cannot show one) to the table", section, k)
		}
	}
	for k := range table {
		if !slices.Contains(keys, k) {
			t.Errorf("the table mutates %s.%s, which the section has no more", section, k)
		}
	}
}

// defaultValues are a section's resolved defaults by key path, as YAML
// flow values (JSON is YAML), from the settings' JSON: the default every
// benign mutation writes out.
func defaultValues(t *testing.T, settings any) map[string]string {
	t.Helper()
	data, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			b, _ := json.Marshal(v)
			out[prefix+k] = string(b)
		}
	}
	walk("", m)
	return out
}

// sectionYAML writes a section with base's keys and key set to value, as
// nested flow mappings: {cc: {enabled: true, ccti_min: 100}}.
func sectionYAML(base map[string]string, key, value string) string {
	kv := map[string]string{}
	for k, v := range base {
		kv[k] = v
	}
	if key != "" {
		kv[key] = value
	}
	tree := map[string]any{}
	for k, v := range kv {
		parts := strings.Split(k, ".")
		node := tree
		for _, p := range parts[:len(parts)-1] {
			if node[p] == nil {
				node[p] = map[string]any{}
			}
			node = node[p].(map[string]any)
		}
		node[parts[len(parts)-1]] = v
	}
	var write func(m map[string]any) string
	write = func(m map[string]any) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			switch v := m[k].(type) {
			case string:
				parts = append(parts, k+": "+v)
			case map[string]any:
				parts = append(parts, k+": "+write(v))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return write(tree)
}

func TestTransportSectionMutations(t *testing.T) {
	t.Parallel()
	ib, err := transport.ResolveIB()
	if err != nil {
		t.Fatal(err)
	}
	uet, err := transport.ResolveUET()
	if err != nil {
		t.Fatal(err)
	}
	ibDefaults := defaultValues(t, ib)
	// The CCT is written as OpenSM does, "shift:multiplier" entries.
	var cct []string
	for _, e := range ib.CC.CCT {
		cct = append(cct, fmt.Sprintf("%q", e.String()))
	}
	ibDefaults["cc.cct"] = "[" + strings.Join(cct, ", ") + "]"
	for _, tc := range []struct {
		section   string
		typ       reflect.Type
		mutations map[string]sectionMutation
		defaults  map[string]string
		base      map[string]string // keys the base scenario sets
		scenario  string            // the scenario, %s its section
	}{
		{"infiniband", reflect.TypeOf(transport.IBSpec{}), ibMutations, ibDefaults, map[string]string{"cc.enabled": "true"}, `name: mut
matrix: {ecn: [on], pfc: [on]}
transport: infiniband
infiniband: %s
duration: 3ms
sample_every: 0
traffic: [{pattern: incast, senders: 8, victim: true, bytes: 2MiB}]
`},
		{"uet", reflect.TypeOf(transport.UETSpec{}), uetMutations, defaultValues(t, uet), map[string]string{}, `name: mut
matrix: {ecn: [on], pfc: [off], qos.buffer_pool_bytes: [524288], qos.ecn.kmin_kb: [40]}
transport: uet
uet: %s
duration: 3ms
sample_every: 0
traffic:
  - {pattern: incast, senders: 8, victim: true, bytes: 2MiB}
  - {pattern: permutation, ranks: 32, bytes: 2MiB}
`},
	} {
		t.Run(tc.section, func(t *testing.T) {
			t.Parallel()
			keys := sectionKeys(tc.typ)
			checkMutationTable(t, tc.section, keys, tc.mutations)
			for _, k := range keys {
				if _, ok := tc.defaults[k]; !ok {
					t.Errorf("%s.%s: no resolved default to write out", tc.section, k)
				}
			}
			if t.Failed() {
				return
			}
			dir := upLab(t, "64gpu")
			scen := filepath.Join(dir, "mut.yaml")
			run := func(key, value string) (int, string) {
				t.Helper()
				if err := os.WriteFile(scen, []byte(fmt.Sprintf(tc.scenario, sectionYAML(tc.base, key, value))), 0o644); err != nil {
					t.Fatal(err)
				}
				code, _, errs := resultsCLI(t, dir, "run", scen, "--lab", "64gpu")
				return code, errs
			}
			if code, errs := run("", ""); code != 0 {
				t.Fatalf("base run: exit %d: %s", code, errs)
			}
			if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "good"); code != 0 {
				t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
			}
			regress := func() (int, string) {
				code, out, _ := resultsCLI(t, dir, "regress", "latest", "--baseline", "good")
				return code, out
			}
			for _, k := range keys {
				m := tc.mutations[k]
				benign, ok := tc.base[k] // the base's own value, else the default
				if !ok {
					benign = tc.defaults[k]
				}
				if code, errs := run(k, benign); code != 0 {
					t.Errorf("%s.%s: %s (unchanged): run exit %d: %s", tc.section, k, benign, code, errs)
				} else if code, rep, _ := regressJSON(t, dir); code != 0 || rep.Compared.Unchanged != rep.Compared.Metrics {
					t.Errorf("%s.%s: %s (unchanged) changed figures: regress exit %d, %d of %d metrics unchanged", tc.section, k, benign, code, rep.Compared.Unchanged, rep.Compared.Metrics)
				}
				if m.harmful == "" {
					if m.why == "" {
						t.Errorf("%s.%s: neither a harmful value nor why there is none", tc.section, k)
					}
					continue
				}
				if code, errs := run(k, m.harmful); code > 1 {
					t.Errorf("%s.%s: %s: run exit %d: %s", tc.section, k, m.harmful, code, errs)
					continue
				}
				if code, out := regress(); code != 1 {
					t.Errorf("%s.%s: %s passed regress (exit %d):\n%s", tc.section, k, m.harmful, code, out)
				}
			}
		})
	}
}
