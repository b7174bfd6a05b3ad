package sim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/transport"
)

// sweptPair gives two values of every path a matrix can sweep (but
// traffic[<i>] and faults[<i>], which no transport ignores, and list
// values, which no matrix can give), both valid on the 16gpu lab's SONiC
// configs.
var sweptPair = map[string][2]string{
	"duration":       {"100us", "200us"},
	"warmup":         {"10us", "20us"},
	"sample_every":   {"10us", "20us"},
	"lb.mode":        {"ecmp", "spray"},
	"lb.flowlet_gap": {"100us", "200us"},

	"nic.dcqcn.preset":                        {"connectx", "paper"},
	"nic.dcqcn.clamp_tgt_rate":                {"true", "false"},
	"nic.dcqcn.clamp_tgt_rate_after_time_inc": {"true", "false"},
	"nic.dcqcn.rpg_time_reset":                {"300", "600"},
	"nic.dcqcn.rpg_byte_reset":                {"32767", "65535"},
	"nic.dcqcn.rpg_threshold":                 {"1", "5"},
	"nic.dcqcn.rpg_max_rate":                  {"100000", "150000"},
	"nic.dcqcn.rpg_ai_rate":                   {"5", "40"},
	"nic.dcqcn.rpg_hai_rate":                  {"50", "200"},
	"nic.dcqcn.rpg_gd":                        {"11", "12"},
	"nic.dcqcn.rpg_min_dec_fac":               {"50", "20"},
	"nic.dcqcn.rpg_min_rate":                  {"1", "100"},
	"nic.dcqcn.rate_to_set_on_first_cnp":      {"100000", "150000"},
	"nic.dcqcn.dce_tcp_g":                     {"1019", "1020"},
	"nic.dcqcn.dce_tcp_rtt":                   {"1", "55"},
	"nic.dcqcn.rate_reduce_monitor_period":    {"4", "8"},
	"nic.dcqcn.initial_alpha_value":           {"1023", "1024"},
	"nic.dcqcn.min_time_between_cnps":         {"4", "50"},
	"nic.dcqcn.cnp_dscp":                      {"48", "40"},
	"nic.dcqcn.cnp_802p_prio":                 {"6", "5"},
	"nic.dcqcn.cnp_moderation":                {"per_flow", "per_port"},
	"nic.qp_timeout":                          {"14", "16"},
	"nic.retry_cnt":                           {"7", "3"},
	"nic.nak_repeat_us":                       {"50", "100"},
	"nic.out_of_order":                        {"false", "true"},

	"qos.ecn.kmin_kb":                 {"100", "400"},
	"qos.ecn.kmax_kb":                 {"2000", "3000"},
	"qos.ecn.pmax":                    {"0.1", "0.5"},
	"qos.mtu":                         {"1024", "4096"},
	"qos.buffer_pool_bytes":           {"8000000", "12000000"},
	"qos.pfc_watchdog.enabled":        {"true", "false"},
	"qos.pfc_watchdog.detection_ms":   {"200", "400"},
	"qos.pfc_watchdog.restoration_ms": {"200", "400"},
	"qos.pfc_watchdog.action":         {"drop", "forward"},

	"infiniband.routing":          {"ftree", "minhop"},
	"infiniband.adaptive_routing": {"false", "true"},
	"infiniband.vls":              {"4", "8"},
	"infiniband.vl_buffer_kb":     {"64", "128"},
	"infiniband.cc.enabled":       {"false", "true"},
	"infiniband.cc.threshold":     {"8", "15"},
	"infiniband.cc.marking_rate":  {"3", "5"},
	"infiniband.cc.ccti_increase": {"1", "2"},
	"infiniband.cc.ccti_limit":    {"10", "20"},
	"infiniband.cc.ccti_timer":    {"20", "40"},
	"infiniband.cc.ccti_min":      {"1", "2"},

	"uet.lb":                {"reps", "oblivious"},
	"uet.evs":               {"64", "32"},
	"uet.trimming":          {"true", "false"},
	"uet.trim_bytes":        {"64", "128"},
	"uet.cc":                {"nscc", "none"},
	"uet.rccc":              {"false", "true"},
	"uet.target_qdelay_us":  {"5", "10"},
	"uet.base_rtt_us":       {"5", "10"},
	"uet.qa_gate":           {"3", "2"},
	"uet.gamma":             {"0.8", "0.5"},
	"uet.delay_alpha":       {"0.0125", "0.025"},
	"uet.max_cwnd_bdp":      {"1.5", "2"},
	"uet.rto_us":            {"100", "200"},
	"uet.ack_bytes":         {"16384", "8192"},
	"uet.ack_timer_us":      {"5", "10"},
	"uet.sack_reorder_pkts": {"4", "8"},
}

// sweptWith is what a scenario sweeping a path needs besides: a key the
// path is read under.
var sweptWith = map[string]string{
	"lb.flowlet_gap": "lb:\n  mode: flowlet\n",
}

// The simulator reads what transport.Reads says each transport reads,
// and nothing else: for every transport and every setting a matrix can
// sweep, the simulations built of the setting at its two values are the
// same exactly where Reads says the transport does not read it. So the
// scenario runner's refusal of twin variants (and the acceptance of every
// other sweep) follows the simulator's builder (ib.go, uet.go), and a
// setting either starts or stops reading fails here.
func TestTransportReads(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, sp := range scenario.SweepPaths() {
		path := sp.Path
		if path == "transport" || strings.HasPrefix(path, "traffic[") || strings.HasPrefix(path, "faults[") || strings.HasPrefix(sp.Type, "list") {
			continue
		}
		pair, ok := sweptPair[path]
		if !ok {
			t.Errorf("%s: no two values in sweptPair: add them, so that what each transport reads of it is checked", path)
			continue
		}
		for _, tr := range transport.Names {
			a, b := sweptSimulations(t, l, tr, path, pair)
			if a == nil || b == nil {
				continue
			}
			same := reflect.DeepEqual(a, b)
			if reads := transport.Reads(tr, path); same == reads {
				said := map[bool]string{true: "reads", false: "does not read"}[reads]
				built := map[bool]string{true: "the same", false: "different"}[same]
				t.Errorf("transport.Reads says %s %s %s, but its simulations with %s and %s are %s", tr, said, path, pair[0], pair[1], built)
			}
		}
	}
}

// sweptSimulations builds the simulation inputs of the two variants of
// a scenario on transport tr that sweeps path over pair, as the runner
// and the runtime make them; nil where a variant cannot be built (the
// test has failed then).
func sweptSimulations(t *testing.T, l *runtime.Lab, tr, path string, pair [2]string) (*engine.Config, *engine.Config) {
	t.Helper()
	src := fmt.Sprintf("name: t\ntransport: %s\nduration: 300us\ntraffic:\n  - pattern: incast\n    senders: 2\n%smatrix:\n  ecn: [on]\n  pfc: [on]\n  %s: [%s, %s]\n", tr, sweptWith[path], path, pair[0], pair[1])
	s, err := scenario.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Errorf("transport %s, %s: %v", tr, path, err)
		return nil, nil
	}
	var cfgs [2]*engine.Config
	for i, pt := range s.Points() {
		vs, err := s.Expand(scenario.NICsFromGraph(l.Graph), pt, 1)
		if err == nil {
			swept := s.PointNIC(pt)
			vs.NIC, err = l.Spec.NICSettings(&s.NIC, &swept)
		}
		if err == nil {
			name, ib, uet := s.PointTransport(pt)
			vs.Transport, err = l.Spec.TransportSettings([]*transport.IBSpec{&s.InfiniBand, &ib}, []*transport.UETSpec{&s.UET, &uet}, name)
		}
		var b *builder
		if err == nil {
			// The switch configs RunVariant runs vs on.
			dcs, cerr := runtime.VariantOnlyConfigs(l, vs)
			if err = cerr; err == nil {
				b, err = newVariantBuilder(l, vs, dcs)
			}
		}
		if err == nil {
			cfgs[i], err = b.config(vs)
		}
		if err != nil {
			t.Errorf("transport %s, %s at %s: %v", tr, path, pt.Name, err)
			return nil, nil
		}
		// A function is equal only to nil: the hash is the lab's, the
		// same for every variant.
		cfgs[i].KeyHash = nil
	}
	return cfgs[0], cfgs[1]
}
