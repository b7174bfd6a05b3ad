package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/runtime"
)

// rank_per: server makes a ring over servers (first NIC of each), as the
// seed's "8 nodes" AllReduce; the default ring is over NICs.
func TestRingAllReduceRankPerServer(t *testing.T) {
	var nics []NIC
	for h := 1; h <= 8; h++ {
		for n := range 8 {
			nics = append(nics, NIC{Endpoint: runtime.Endpoint{Host: fmt.Sprintf("host%d", h), NIC: n}, Leaf: fmt.Sprintf("leaf%d", (h-1)/4+1)})
		}
	}
	expand := func(extra string) (runtime.VariantSpec, error) {
		sc, err := Parse("t.yaml", []byte("name: t\nmatrix: {ecn: [on], pfc: [on]}\ntraffic:\n  - pattern: ring-allreduce\n    ranks: 8\n"+extra))
		if err != nil {
			return runtime.VariantSpec{}, err
		}
		return sc.Expand(nics, Point{Name: VariantName(true, true), ECN: true, PFC: true}, 1)
	}
	vs, err := expand("    rank_per: server\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range vs.Collective.Ranks {
		got = append(got, fmt.Sprintf("%s:%d", r.Host, r.NIC))
	}
	if strings.Join(got, " ") != "host1:0 host2:0 host3:0 host4:0 host5:0 host6:0 host7:0 host8:0" {
		t.Errorf("ranks per server: %v", got)
	}
	vs, err = expand("")
	if err != nil {
		t.Fatal(err)
	}
	if r := vs.Collective.Ranks; r[7].Host != "host1" || r[7].NIC != 7 {
		t.Errorf("default ranks are not the first 8 NICs: %v", r)
	}
	if _, err := expand("    rank_per: rack\n"); err == nil || !strings.Contains(err.Error(), "rank_per") {
		t.Errorf("bad rank_per: %v", err)
	}
	nics = nics[:7*8] // 7 servers: 8 ranks per server no longer fit
	if _, err := expand("    rank_per: server\n"); err == nil || !strings.Contains(err.Error(), "7 servers") {
		t.Errorf("8 ranks over 7 servers: %v", err)
	}
}
