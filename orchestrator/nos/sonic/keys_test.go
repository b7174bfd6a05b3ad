package sonic

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

func TestSwssTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		"":                     nil,
		"Ethernet0":            {"Ethernet0"},
		"Ethernet0,Ethernet4":  {"Ethernet0", "Ethernet4"},
		"Ethernet0,":           {"Ethernet0"},
		",Ethernet0":           {"", "Ethernet0"},
		"Ethernet0,,Ethernet4": {"Ethernet0", "", "Ethernet4"},
		",":                    {""},
	} {
		if got := swssTokenize(in, ','); !slices.Equal(got, want) {
			t.Errorf("swssTokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseIndexRange: the index part of a key as Orch::parseIndexRange
// reads it, std::stoul's prefix reading and all.
func TestParseIndexRange(t *testing.T) {
	tests := []struct {
		in             string
		lo, hi         uint32
		refused        bool
		throws         bool
		unread         string
		refusedContain string
	}{
		{in: "3", lo: 3, hi: 3},
		{in: "3-4", lo: 3, hi: 4},
		{in: "0-7", lo: 0, hi: 7},
		{in: "03", lo: 3, hi: 3},
		{in: " 3", lo: 3, hi: 3},
		{in: "+3", lo: 3, hi: 3},
		{in: "3 ", lo: 3, hi: 3},
		{in: "3 - 4", lo: 3, hi: 4},
		// std::stoul stops at the first character that is no digit.
		{in: "2,3", lo: 2, hi: 2, unread: ",3"},
		{in: "3,4-5", lo: 3, hi: 5, unread: ",4"},
		{in: "3a", lo: 3, hi: 3, unread: "a"},
		// sai_uint32_t keeps the low 32 bits.
		{in: "4294967299", lo: 3, hi: 3},
		{in: "3-3", refused: true, refusedContain: "left value must be below its right"},
		{in: "4-3", refused: true, refusedContain: "left value must be below its right"},
		{in: "3-", refused: true, refusedContain: "not two numbers"},
		{in: "-", refused: true, refusedContain: "not two numbers"},
		{in: "3-4-5", refused: true, refusedContain: "not two numbers"},
		{in: "3--4", refused: true, refusedContain: "not two numbers"},
		{in: "x", refused: true, throws: true},
		{in: "", refused: true, throws: true},
		{in: "-3", refused: true, throws: true},
		{in: "3-x", refused: true, throws: true},
		{in: "99999999999999999999", refused: true, throws: true},
	}
	for _, tt := range tests {
		r := parseIndexRange(tt.in)
		if (r.refused != "") != tt.refused || r.throws != tt.throws || r.unread != tt.unread || !strings.Contains(r.refused, tt.refusedContain) {
			t.Errorf("parseIndexRange(%q) = %+v, want refused %v (%q), throws %v, unread %q", tt.in, r, tt.refused, tt.refusedContain, tt.throws, tt.unread)
			continue
		}
		if !tt.refused && (r.lo != tt.lo || r.hi != tt.hi) {
			t.Errorf("parseIndexRange(%q) = %d-%d, want %d-%d", tt.in, r.lo, r.hi, tt.lo, tt.hi)
		}
	}
}

// TestReadRangedKey: which ports and indexes orchagent applies an entry
// of QUEUE, BUFFER_PG or BUFFER_QUEUE to, and which entries it refuses.
func TestReadRangedKey(t *testing.T) {
	tests := []struct {
		table, key   string
		ports        []string
		idx          []int
		refused      string
		partly       string
		stalls       bool
		named        []string
		fixMentions  string
		whyMentioned string
	}{
		{table: "QUEUE", key: "Ethernet0|3", ports: []string{"Ethernet0"}, idx: []int{3}, named: []string{"Ethernet0"}},
		{table: "BUFFER_PG", key: "Ethernet0,Ethernet4|3-4", ports: []string{"Ethernet0", "Ethernet4"}, idx: []int{3, 4}, named: []string{"Ethernet0", "Ethernet4"}},
		{table: "BUFFER_QUEUE", key: "Ethernet0,|0-2", ports: []string{"Ethernet0"}, idx: []int{0, 1, 2}, named: []string{"Ethernet0"}},
		{table: "QUEUE", key: "Ethernet0|2,3", ports: []string{"Ethernet0"}, idx: []int{2}, named: []string{"Ethernet0"}, partly: `stops at ",3": the entry applies to queue 2 only`, fixMentions: "one entry per index"},
		{table: "BUFFER_PG", key: "Ethernet0|3-3", named: []string{"Ethernet0"}, refused: "left value must be below its right", fixMentions: "like 3"},
		{table: "BUFFER_PG", key: "Ethernet0|8", named: []string{"Ethernet0"}, refused: "names PG 8"},
		// A queue beyond 7: applied on a platform with the queue, as
		// labctl reads it (queues 0-7 of it), warned.
		{table: "QUEUE", key: "Ethernet0|6-9", ports: []string{"Ethernet0"}, idx: []int{6, 7}, named: []string{"Ethernet0"}, partly: "only queues 6-7 of Ethernet0 keep it", fixMentions: "<port>|6-7"},
		{table: "QUEUE", key: "Ethernet0,Ethernet4|6-9", ports: []string{"Ethernet0", "Ethernet4"}, idx: []int{6, 7}, named: []string{"Ethernet0", "Ethernet4"}, partly: "only queues 6-7 of Ethernet0 keep it"},
		{table: "BUFFER_QUEUE", key: "Ethernet0|0-15", ports: []string{"Ethernet0"}, idx: []int{0, 1, 2, 3, 4, 5, 6, 7}, named: []string{"Ethernet0"}, partly: "applies none of it (processQueue: Invalid queue index)", fixMentions: "show queue counters"},
		{table: "QUEUE", key: "Ethernet0|8", ports: []string{"Ethernet0"}, named: []string{"Ethernet0"}, partly: "labctl models queues 0-7 and none of it", fixMentions: "remove the entry unless"},
		{table: "BUFFER_PG", key: "Ethernet0|3-9", named: []string{"Ethernet0"}, refused: "names PG 9"},
		{table: "QUEUE", key: "Ethernet0", refused: "malformed key, 1 parts"},
		{table: "QUEUE", key: "Ethernet0|3|4", refused: "malformed key, 3 parts"},
		{table: "QUEUE", key: "Ethernet0|", refused: "malformed key, 1 parts"},
		{table: "QUEUE", key: "|3", refused: "names no port"},
		{table: "QUEUE", key: "Ethernet0|x", named: []string{"Ethernet0"}, refused: "throws", stalls: true},
		// bufferorch looks every port up before it applies anything;
		// qosorch applies port by port and stops at one it cannot find.
		{table: "BUFFER_QUEUE", key: "Ethernet0, Ethernet4|3", named: []string{"Ethernet0"}, refused: `names " Ethernet4"`},
		{table: "QUEUE", key: "Ethernet0, Ethernet4|3", ports: []string{"Ethernet0"}, idx: []int{3}, named: []string{"Ethernet0"}, partly: "applies the entry to Ethernet0 only"},
		{table: "QUEUE", key: ",Ethernet4|3", named: []string{"Ethernet4"}, refused: `names ""`},
	}
	for _, tt := range tests {
		kr := readRangedKey(tt.table, tt.key)
		ok := slices.Equal(kr.ports, tt.ports) && slices.Equal(kr.idx, tt.idx) && slices.Equal(kr.named, tt.named) && kr.stalls == tt.stalls &&
			(tt.refused == "") == (kr.refused == "") && strings.Contains(kr.refused, tt.refused) &&
			(tt.partly == "") == (kr.partly == "") && strings.Contains(kr.partly, tt.partly) && strings.Contains(kr.fix, tt.fixMentions)
		if (kr.refused != "" || kr.partly != "") && kr.fix == "" {
			ok = false
		}
		if !ok {
			t.Errorf("readRangedKey(%s, %q) = %+v", tt.table, tt.key, kr)
		}
	}
}

// keysConfig holds keys of every form orchagent reads its own way; its
// lines are the ones TestResolveKeys places the overruled entries at.
const keysConfig = `{
    "SCHEDULER": {"strict": {"type": "STRICT"}, "w50": {"type": "DWRR", "weight": "50"}},
    "QUEUE": {
        "Ethernet0,Ethernet4|6": {"scheduler": "strict"},
        "Ethernet12|6": {"scheduler": "strict"},
        "Ethernet16|3-3": {"scheduler": "w50"},
        "Ethernet16|2,3": {"scheduler": "w50"},
        "Ethernet20|x": {"scheduler": "strict"},
        "Ethernet24|6": {"scheduler": "strict"}
    },
    "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "1000000"}},
    "BUFFER_PROFILE": {"lossy": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}},
    "BUFFER_PG": {"Ethernet0,Ethernet4|0": {"profile": "lossy"}},
    "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"pfc_enable": "3"}, "Ethernet4": {"pfcwd_sw_enable": "3"}},
    "PFC_WD": {"Ethernet0,Ethernet4": {"action": "drop", "detection_time": "200", "restoration_time": "200"}}
}`

// TestResolveKeys: the resolved model applies each entry to the ports and
// indexes orchagent does, nothing of an entry it refuses, and notes every
// such entry at its line.
func TestResolveKeys(t *testing.T) {
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(keysConfig)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range dc.Ports {
		names = append(names, p.Name)
	}
	if want := []string{"Ethernet0", "Ethernet4", "Ethernet12", "Ethernet16", "Ethernet20", "Ethernet24"}; !slices.Equal(names, want) {
		t.Fatalf("ports %v, want %v (a list in a key names each of its ports)", names, want)
	}
	strict := func(port string, q int) bool { return dc.Port(port).Queue(q).Strict }
	weight := func(port string, q int) int { return dc.Port(port).Queue(q).Weight }
	// A port list: each port.
	if !strict("Ethernet0", 6) || !strict("Ethernet4", 6) {
		t.Error("QUEUE|Ethernet0,Ethernet4|6 did not make queue 6 strict on both ports")
	}
	// "3-3" is refused; "2,3" is queue 2 only.
	if weight("Ethernet16", 3) != 1 || weight("Ethernet16", 2) != 50 {
		t.Errorf("Ethernet16 queue 3 weight %d (want 1: 3-3 refused, 2,3 read as 2), queue 2 weight %d (want 50)", weight("Ethernet16", 3), weight("Ethernet16", 2))
	}
	// "x" throws: qosorch applies the QUEUE entries before it in key
	// order ("Ethernet12|6", "Ethernet16|2,3") and none from it on.
	if !strict("Ethernet12", 6) || strict("Ethernet20", 6) || strict("Ethernet24", 6) {
		t.Errorf("queue 6 strict on Ethernet12 %v (want true), Ethernet20 %v, Ethernet24 %v (want false: after the key qosorch throws on)", strict("Ethernet12", 6), strict("Ethernet20", 6), strict("Ethernet24", 6))
	}
	for _, p := range []string{"Ethernet0", "Ethernet4"} {
		pc := dc.Port(p)
		if pg := pc.PG(0); pg == nil || pg.Profile != "lossy" {
			t.Errorf("%s PG 0 = %+v, want the profile lossy of BUFFER_PG|Ethernet0,Ethernet4|0", p, pg)
		}
	}
	// PORT_QOS_MAP: Ethernet0 takes the list's PFC; Ethernet4's own
	// entry comes after the list in key order, and its pfc_enable (none)
	// is the port's.
	if e0, e4 := dc.Port("Ethernet0").PFCPriorities, dc.Port("Ethernet4").PFCPriorities; !slices.Equal(e0, []int{3}) || len(e4) != 0 {
		t.Errorf("PFC priorities Ethernet0 %v (want [3]), Ethernet4 %v (want none: its own entry, applied last, has no pfc_enable)", e0, e4)
	}
	// PFC_WD keyed by a list names no port: no watchdog from it.
	if w := dc.Port("Ethernet0").Watchdog; w != nil {
		t.Errorf("Ethernet0 has a watchdog %+v from PFC_WD|Ethernet0,Ethernet4", w)
	}

	lines := strings.Split(keysConfig, "\n")
	lineOf := func(table, key string) int {
		in := false
		for i, l := range lines {
			in = in || strings.Contains(l, `"`+table+`"`)
			if in && strings.Contains(l, `"`+key+`"`) {
				return i + 1
			}
		}
		return 0
	}
	want := map[string]struct {
		refused bool
		what    string
	}{
		"QUEUE|Ethernet16|3-3":       {true, "its left value must be below its right"},
		"QUEUE|Ethernet16|2,3":       {false, "applies to queue 2 only"},
		"QUEUE|Ethernet20|x":         {true, "neither it nor the 1 QUEUE entry after it"},
		"PFC_WD|Ethernet0,Ethernet4": {true, "no port gets this watchdog"},
	}
	if len(dc.Overruled) != len(want) {
		t.Errorf("overruled entries %+v, want %d", dc.Overruled, len(want))
	}
	for _, o := range dc.Overruled {
		w, ok := want[o.Where]
		table, key, _ := strings.Cut(o.Where, "|")
		switch {
		case !ok:
			t.Errorf("%s overruled: %+v", o.Where, o)
		case o.Refused != w.refused || !strings.Contains(o.What, w.what) || o.Fix == "":
			t.Errorf("%s: %+v, want refused %v, what containing %q and a fix", o.Where, o, w.refused, w.what)
		case o.Line != lineOf(table, key) || o.Source != 0:
			t.Errorf("%s at file %d line %d, want 0 and %d", o.Where, o.Source, o.Line, lineOf(table, key))
		}
	}
}

// TestResolveKeysBufferStall: a BUFFER_QUEUE key orchagent throws on
// leaves the whole table unapplied (bufferorch never reaches its bulk
// flush); a BUFFER_PG one the PGs buffermgrd writes too, as its entries
// take the same way.
func TestResolveKeysBufferStall(t *testing.T) {
	pgs := `{
    "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "tc_to_pg_map": "AZURE"}},
    "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "1000000"}},
    "BUFFER_PROFILE": {"lossy": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}},
    "BUFFER_PG": {"Ethernet0|0": {"profile": "lossy"}, "Ethernet0|pg3": {"profile": "lossy"}}
}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(pgs)})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []int{0, 3} {
		if pg := dc.Port("Ethernet0").PG(g); pg == nil || (pg.Profile != "" || pg.Assumed || qos.LosslessProfile(&pg.BufferProfile)) {
			t.Errorf("PG %d = %+v, want no profile: bufferorch applies no BUFFER_PG entry, its own nor buffermgrd's", g, pg)
		}
	}

	cfg := `{
    "BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "1000000"}},
    "BUFFER_PROFILE": {"q": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"}},
    "BUFFER_QUEUE": {"Ethernet0|0-7": {"profile": "q"}, "Ethernet4|0-7": {"profile": "q"}, "Ethernet8|3-x": {"profile": "q"}}
}`
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range dc.Ports {
		for _, q := range p.Queues {
			if q.Buffer != nil {
				t.Errorf("%s queue %d has buffer %s: bufferorch applies no BUFFER_QUEUE entry once one throws", p.Name, q.Queue, q.Buffer.Profile)
			}
		}
	}
	// Beside the throwing key, the cold start's note (coldStartStall)
	// names every key of the stalled table.
	var stall, cold []qos.Overruled
	for _, o := range dc.Overruled {
		if strings.Contains(o.Where, "cold start") {
			cold = append(cold, o)
		} else {
			stall = append(stall, o)
		}
	}
	if len(stall) != 1 || !strings.Contains(stall[0].What, "none of the table's 3 BUFFER_QUEUE entries applies") || stall[0].Line != 4 {
		t.Errorf("overruled %+v", stall)
	}
	if len(cold) != 1 || !strings.Contains(cold[0].What, "3 entries") || len(cold[0].Ports) != 3 {
		t.Errorf("cold start notes %+v, want one naming the 3 entries and their 3 ports", cold)
	}
}

// pfc_enable "3, 4" (a blank after the comma) is what orchagent and the
// buffer manager read as 3,4: std::stoi and std::stoul skip blanks before
// a number. labctl refused it (exit 2); it reads it as the switch does and
// notes that SONiC's YANG model refuses it (QOS000). A blank before a
// comma ("3 ,4") stays refused: buffermgrd's to_uint rejects "3 ", so the
// two daemons read it differently.
func TestPFCEnableBlankAfterComma(t *testing.T) {
	parse := func(list string) (qos.DeviceConfig, error) {
		return Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "` + list + `", "pfcwd_sw_enable": "` + list + `"}}}`)})
	}
	plain, err := parse("3,4")
	if err != nil {
		t.Fatal(err)
	}
	blank, err := parse("3, 4")
	if err != nil {
		t.Fatalf("pfc_enable \"3, 4\" refused: %v", err)
	}
	p, b := plain.Port("Ethernet0"), blank.Port("Ethernet0")
	if !slices.Equal(p.PFCPriorities, b.PFCPriorities) || !slices.Equal(b.PFCPriorities, []int{3, 4}) || !reflect.DeepEqual(p.Watchdog, b.Watchdog) {
		t.Errorf("\"3, 4\" read as PFC %v watchdog %+v; \"3,4\" as %v %+v", b.PFCPriorities, b.Watchdog, p.PFCPriorities, p.Watchdog)
	}
	if len(plain.Notes) != 0 || !slices.ContainsFunc(blank.Notes, func(n string) bool { return strings.Contains(n, "YANG") && strings.Contains(n, `"3,4"`) }) {
		t.Errorf("notes: plain %q, blank %q; want one naming the YANG model's refusal and the fix", plain.Notes, blank.Notes)
	}
	if _, err := parse("3 ,4"); err == nil {
		t.Error("pfc_enable \"3 ,4\" accepted: buffermgrd and orchagent read it differently")
	}
}

// A key naming a port channel is read for a port of that name, and the
// note says that its members get none of it.
func TestPortChannelKeyNoted(t *testing.T) {
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{"PORT_QOS_MAP": {"PortChannel0001": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}, "PORTCHANNEL_MEMBER": {"PortChannel0001|Ethernet0": {}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(dc.Notes, func(n string) bool {
		return strings.HasPrefix(n, "PortChannel0001 named") && strings.Contains(n, "members")
	}) {
		t.Errorf("notes %q: want one naming PortChannel0001", dc.Notes)
	}
	plain, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{"PORT_QOS_MAP": {"Ethernet4": {"pfc_enable": "3"}}}`)})
	if err != nil || len(plain.Notes) != 0 {
		t.Errorf("a config without port channels: notes %q, %v", plain.Notes, err)
	}
}
