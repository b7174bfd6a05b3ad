package sim

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/scenario"
)

// A link fault on one member of a port channel with min links 2 of 2
// members (SONiC's minigraph sets min_links to 75% of the members) takes
// the port channel down: teamd's lacp runner drops the team device's
// carrier with fewer ports enabled than min_ports (libteam's
// lacp_update_carrier), so the other member's link carries nothing for
// as long as the fault lasts. labctl applied min links only to links
// down from the start, and left the other member up through the fault.
func TestFaultOnChannelMemberShortOfMinLinks(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	lks := l.Graph.LinksBetween("leaf1", "spine1")
	if len(lks) < 3 {
		t.Fatalf("%d links between leaf1 and spine1, want 3 or more", len(lks))
	}
	channel := func(minLinks string) {
		for i, n := range []string{"leaf1", "spine1"} {
			editSONiC(t, l, n, func(doc map[string]map[string]map[string]string) {
				pc := map[string]string{"admin_status": "up"}
				if n == "leaf1" && minLinks != "" {
					pc["min_links"] = minLinks
				}
				doc["PORTCHANNEL"] = map[string]map[string]string{"PortChannel1": pc}
				doc["PORTCHANNEL_MEMBER"] = map[string]map[string]string{}
				for _, lk := range lks[:2] {
					port := lk.A.Port
					if n == "spine1" {
						port = lk.B.Port
					}
					doc["PORTCHANNEL_MEMBER"]["PortChannel1|"+port] = map[string]string{}
				}
				addr := []string{"10.99.0.0/31", "10.99.0.1/31"}[i]
				doc["PORTCHANNEL_INTERFACE"] = map[string]map[string]string{"PortChannel1": {}, "PortChannel1|" + addr: {}}
			})
		}
	}
	fault := func(port, at string) string {
		return "  - kind: link-down\n    link: leaf1:" + port + "\n    at: " + at + "\n    for: 100us\n"
	}
	faults := fault(lks[0].A.Port, "100us")
	var whys map[string]string
	faulted := func() map[string][2]int64 {
		sc, err := scenario.Parse("t.yaml", []byte("name: t\nduration: 400us\nsample_every: 0\ntraffic:\n  - pattern: pairs\n    pairs: 2\nfaults:\n"+faults))
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: "t", ECN: true, PFC: true}, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := variantBuilder(t, l, vs).config(vs)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][2]int64{}
		whys = map[string]string{}
		for _, f := range cfg.Faults {
			k := f.Link.Node + ":" + f.Link.Port
			if _, dup := out[k]; dup {
				t.Errorf("faults %+v: two on %s", cfg.Faults, k)
			}
			out[k], whys[k] = [2]int64{f.DownNs, f.UpNs}, f.Why
		}
		return out
	}
	first, second, third := "leaf1:"+lks[0].A.Port, "leaf1:"+lks[1].A.Port, "leaf1:"+lks[2].A.Port
	channel("2")
	got := faulted()
	if _, ok := got[first]; !ok {
		t.Fatalf("faults %v, want %s", got, first)
	}
	if got[second] != got[first] {
		t.Errorf("min links 2, %s faulted: faults %v, want %s, the channel's other member, down with it over %v", first, got, second, got[first])
	}
	if _, ok := got[third]; ok {
		t.Errorf("faults %v: %s, in no port channel, went down too", got, third)
	}
	if w := whys[second]; !strings.Contains(w, first) || !strings.Contains(w, "want of members") {
		t.Errorf("%s's link-down mark %q, want it to name %s and the min links", second, w, first)
	}
	// Both members faulted, at times that overlap: each is down while
	// either fault holds the channel short, one down time per link (the
	// engine refuses two that overlap).
	faults += fault(lks[1].A.Port, "150us")
	got = faulted()
	if want := [2]int64{100000, 250000}; got[first] != want || got[second] != want {
		t.Errorf("min links 2, both members faulted at 100us and 150us for 100us: faults %v, want both down over %v", got, want)
	}
	faults = fault(lks[0].A.Port, "100us")
	// Min links 1 (or none): the other member carries on.
	for _, n := range []string{"1", ""} {
		channel(n)
		if got := faulted(); got[second] != [2]int64{} {
			t.Errorf("min links %q, %s faulted: faults %v, want %s up", n, first, got, second)
		}
	}
}
