package fabric

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/sizing"
)

var update = flag.Bool("update", false, "rewrite the committed topologies/<lab>/ files from the generator")

// catalogLabs are the labs whose generated files are committed.
var catalogLabs = []string{"16gpu", "64gpu", "128gpu", "1024gpu"}

func catalogGraph(t testing.TB, name, nos string) (*Graph, *sizing.Plan) {
	t.Helper()
	spec, err := lab.Resolve(name)
	if err != nil {
		t.Fatalf("resolve %s: %v", name, err)
	}
	if nos != "" {
		s := *spec
		s.NOS = nos
		spec = &s
	}
	return computedGraph(t, spec, spec.Sizing)
}

func computedGraph(t testing.TB, spec *lab.Spec, in sizing.Input) (*Graph, *sizing.Plan) {
	t.Helper()
	p, err := sizing.Compute(in.Normalize())
	if err != nil {
		t.Fatalf("size %s: %v", spec.Name, err)
	}
	g, err := Build(spec, p)
	if err != nil {
		t.Fatalf("build %s: %v", spec.Name, err)
	}
	return g, p
}

// handPlan builds a plan by hand: tiny 2- and 3-tier fabrics whose paths
// the tests can reason about exactly.
type handSpec struct {
	tiers, servers, gps                int
	leaves, leafPerPod                 int
	spines, spinePerPod, linksPerSpine int
	planes, perPlane, linksPerSuper    int
	nicsOnLeaf                         func(server, nic int) int // 1-based leaf
	layout                             sizing.Layout
	nicSpeed, leafUplinkSpeed, ssSpeed int
}

func handPlan(h handSpec) *sizing.Plan {
	p := &sizing.Plan{
		SchemaVersion: sizing.SchemaVersion,
		GPUs:          h.servers * h.gps,
		GPUsPerServer: h.gps,
		Servers:       h.servers,
		NICs:          h.servers * h.gps,
		NICSpeedGbps:  h.nicSpeed,
		Layout:        h.layout,
		Tiers:         h.tiers,
		Leaf:          sizing.LeafTier{Count: h.leaves, PerPod: h.leafPerPod, PortSpeedGbps: h.leafUplinkSpeed, UplinkSpeedGbps: h.leafUplinkSpeed, LinksPerSpine: h.linksPerSpine},
		Spine:         sizing.SpineTier{Count: h.spines, PerPod: h.spinePerPod, PortSpeedGbps: h.ssSpeed, LinksPerSuperSpine: h.linksPerSuper},
		Pods:          h.leaves / h.leafPerPod,
	}
	if h.tiers == 3 {
		p.SuperSpine = &sizing.SuperSpineTier{Count: h.planes * h.perPlane, Planes: h.planes, PerPlane: h.perPlane, PortSpeedGbps: h.ssSpeed}
	}
	for s := 1; s <= h.servers; s++ {
		sp := sizing.ServerPlacement{Server: s, GPUs: h.gps}
		for nic := 0; nic < h.gps; nic++ {
			sp.Leaves = append(sp.Leaves, h.nicsOnLeaf(s, nic))
		}
		p.Placement = append(p.Placement, sp)
	}
	return p
}

// threeTier: 2 pods x (2 leaves, 2 spines), 2 planes x 2 super-spines,
// 4 servers x 4 GPUs, one server per leaf, 2 links per leaf-spine pair.
func threeTier() *sizing.Plan {
	return handPlan(handSpec{
		tiers: 3, servers: 4, gps: 4, leaves: 4, leafPerPod: 2,
		spines: 4, spinePerPod: 2, linksPerSpine: 2,
		planes: 2, perPlane: 2, linksPerSuper: 1,
		nicsOnLeaf: func(server, nic int) int { return server },
		layout:     sizing.LayoutToR, nicSpeed: 100, leafUplinkSpeed: 100, ssSpeed: 400,
	})
}

// twoTierRail: 4 servers x 4 GPUs on 4 rails of one leaf, 2 spines.
func twoTierRail() *sizing.Plan {
	return handPlan(handSpec{
		tiers: 2, servers: 4, gps: 4, leaves: 4, leafPerPod: 4,
		spines: 2, spinePerPod: 2, linksPerSpine: 2,
		nicsOnLeaf: func(server, nic int) int { return nic + 1 },
		layout:     sizing.LayoutRail, nicSpeed: 200, leafUplinkSpeed: 400,
	})
}

func spec(name, nos string) *lab.Spec { return &lab.Spec{Name: name, NOS: nos} }

// checkGraph asserts the invariants every graph must hold against its plan.
func checkGraph(t *testing.T, g *Graph, p *sizing.Plan) {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	// Every link joins existing nodes on existing ports; no port twice.
	used := map[string]bool{}
	for i, l := range g.Links {
		if l.ID != i {
			t.Fatalf("link %d has id %d", i, l.ID)
		}
		for _, end := range []LinkEnd{l.A, l.B} {
			n := g.Node(end.Node)
			if n == nil {
				t.Fatalf("link %d: unknown node %s", i, end.Node)
			}
			key := end.Node + ":" + end.Iface
			if used[key] {
				t.Fatalf("endpoint %s used twice", key)
			}
			used[key] = true
			found := false
			for _, port := range n.Ports {
				if port.Iface == end.Iface {
					found = true
					if port.Link != i || port.Name != end.Port || port.Address != end.Address {
						t.Fatalf("link %d end %s disagrees with port %+v", i, key, port)
					}
				}
			}
			if !found {
				t.Fatalf("link %d: %s has no port %s", i, end.Node, end.Iface)
			}
		}
		// The /31 pairs exactly the two ends.
		sub := netip.MustParsePrefix(l.Subnet)
		a, b := netip.MustParsePrefix(l.A.Address), netip.MustParsePrefix(l.B.Address)
		if sub.Bits() != 31 || a.Bits() != 31 || b.Bits() != 31 || !sub.Contains(a.Addr()) || !sub.Contains(b.Addr()) || a.Addr() == b.Addr() {
			t.Fatalf("link %d: subnet %s does not pair %s and %s", i, l.Subnet, l.A.Address, l.B.Address)
		}
		if l.SpeedGbps != l.MemberSpeedGbps*l.Merged || l.Merged < 1 {
			t.Fatalf("link %d: speed %d != %d x %d", i, l.SpeedGbps, l.MemberSpeedGbps, l.Merged)
		}
	}
	// No address repeats (ports and loopbacks).
	seen := map[netip.Addr]string{}
	for _, n := range g.Nodes {
		addrs := []string{}
		for _, port := range n.Ports {
			addrs = append(addrs, port.Address)
		}
		if n.Loopback != "" {
			addrs = append(addrs, n.Loopback)
		}
		for _, a := range addrs {
			ip := netip.MustParsePrefix(a).Addr()
			if prev, dup := seen[ip]; dup {
				t.Fatalf("address %s on %s and %s", ip, prev, n.Name)
			}
			seen[ip] = n.Name
		}
	}
	// Link counts equal the plan's, counting merged members.
	count := map[LinkKind]int{}
	merged := false
	for _, l := range g.Links {
		count[l.Kind] += l.Merged
		merged = merged || l.Merged > 1
	}
	nics := 0
	for _, sp := range p.Placement {
		nics += len(sp.Leaves)
	}
	if count[KindHostLeaf] != nics {
		t.Errorf("host-leaf links %d, plan has %d NICs", count[KindHostLeaf], nics)
	}
	spinePerPod := p.Spine.PerPod
	if p.Tiers != 3 {
		spinePerPod = p.Spine.Count
	}
	if want := p.Leaf.Count * spinePerPod * p.Leaf.LinksPerSpine; count[KindLeafSpine] != want {
		t.Errorf("leaf-spine plan links %d, want %d", count[KindLeafSpine], want)
	}
	if p.Cables.LeafSpine > 0 && count[KindLeafSpine] != p.Cables.LeafSpine {
		t.Errorf("leaf-spine plan links %d, plan cables %d", count[KindLeafSpine], p.Cables.LeafSpine)
	}
	if p.Tiers == 3 {
		if want := p.Spine.Count * p.SuperSpine.PerPlane * p.Spine.LinksPerSuperSpine; count[KindSpineSuperSpine] != want {
			t.Errorf("spine-superspine plan links %d, want %d", count[KindSpineSuperSpine], want)
		}
	}
	if merged && len(g.ScaleDown) == 0 {
		t.Errorf("links were merged but ScaleDown is empty")
	}
	// Every switch fits its budget or is reported.
	over := map[string]bool{}
	for _, n := range g.OverBudget {
		over[n] = true
	}
	for _, n := range g.Switches() {
		if (len(n.Ports) > g.PortBudget.MaxDataPorts) != over[n.Name] {
			t.Errorf("%s has %d ports (budget %d) but over-budget=%v", n.Name, len(n.Ports), g.PortBudget.MaxDataPorts, over[n.Name])
		}
	}
	if len(g.OverBudget) > 0 != (g.CheckLabBudget() != nil) {
		t.Errorf("CheckLabBudget disagrees with OverBudget %v", g.OverBudget)
	}
	// Host ports are NICs in order, each to the leaf the plan names.
	for _, sp := range p.Placement {
		h := g.Node(HostName(sp.Server))
		if h == nil || len(h.Ports) != len(sp.Leaves) {
			t.Fatalf("host %d missing or has the wrong NIC count", sp.Server)
		}
		for nic, leaf := range sp.Leaves {
			if h.Ports[nic].Peer != LeafName(leaf) {
				t.Errorf("%s NIC %d on %s, plan says leaf%d", h.Name, nic, h.Ports[nic].Peer, leaf)
			}
		}
	}
}

func schemaPath(t *testing.T) string {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "reference", "containerlab-0.79.schema.json")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("containerlab schema not found at %s: CI must provide it", path)
		}
		t.Skipf("containerlab schema not found at %s; skipping schema validation", path)
	}
	return path
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := schemaPath(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("schema %s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://containerlab.dev/clab.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://containerlab.dev/clab.schema.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

// validateClab checks a topology against the schema and the things the
// schema (draft-07, so no prefixItems) does not check.
func validateClab(t *testing.T, sch *jsonschema.Schema, g *Graph) {
	t.Helper()
	var buf bytes.Buffer
	if err := g.WriteClab(&buf); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%s: generated YAML does not parse: %v", g.Name, err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s (nos %s): topology fails the containerlab schema: %v", g.Name, g.NOS, err)
	}
	var topo struct {
		Name     string `json:"name"`
		Topology struct {
			Defaults map[string]any            `json:"defaults"`
			Nodes    map[string]map[string]any `json:"nodes"`
			Links    []struct {
				Endpoints []string `json:"endpoints"`
			} `json:"links"`
		} `json:"topology"`
	}
	if err := json.Unmarshal(js, &topo); err != nil {
		t.Fatal(err)
	}
	if topo.Topology.Defaults["privileged"] != false {
		t.Errorf("topology.defaults.privileged must be false")
	}
	if len(topo.Topology.Nodes) != len(g.Nodes) || len(topo.Topology.Links) != len(g.Links) {
		t.Fatalf("topology has %d nodes and %d links, graph %d and %d", len(topo.Topology.Nodes), len(topo.Topology.Links), len(g.Nodes), len(g.Links))
	}
	used := map[string]bool{}
	for _, l := range topo.Topology.Links {
		if len(l.Endpoints) != 2 {
			t.Fatalf("link %v must have two endpoints", l.Endpoints)
		}
		for _, ep := range l.Endpoints {
			node, iface, ok := strings.Cut(ep, ":")
			if !ok || !strings.HasPrefix(iface, "eth") || topo.Topology.Nodes[node] == nil {
				t.Fatalf("endpoint %q does not name an existing node and an ethN interface", ep)
			}
			if used[ep] {
				t.Fatalf("endpoint %q used twice", ep)
			}
			used[ep] = true
		}
	}
	for name, n := range topo.Topology.Nodes {
		if n["kind"] == "ceos" {
			t.Fatalf("%s: kind ceos is rejected by containerlab; use arista_ceos", name)
		}
	}
}

func TestCatalogLabs(t *testing.T) {
	sch := compileSchema(t)
	for _, name := range catalogLabs {
		for _, nos := range []string{NOSSonic, NOSEOS} {
			t.Run(name+"/"+nos, func(t *testing.T) {
				g, p := catalogGraph(t, name, nos)
				checkGraph(t, g, p)
				validateClab(t, sch, g)
			})
		}
	}
}

func TestOtherShapes(t *testing.T) {
	sch := compileSchema(t)
	rail := sizing.Input{GPUs: 128, Layout: sizing.LayoutRail}
	big := sizing.Input{GPUs: 2048, Tiers: 3}
	one := sizing.Input{GPUs: 9, GPUsPerServer: 1, NICSpeedGbps: 100, LeafSpeedGbps: 100, Tiers: 1}
	cases := []struct {
		name string
		nos  string
		plan func(t *testing.T) *sizing.Plan
	}{
		{"rail-computed", NOSSonic, func(t *testing.T) *sizing.Plan { _, p := computedGraph(t, spec("rail", NOSSonic), rail); return p }},
		{"rail-computed", NOSEOS, func(t *testing.T) *sizing.Plan { _, p := computedGraph(t, spec("rail", NOSEOS), rail); return p }},
		{"three-tier-computed", NOSEOS, func(t *testing.T) *sizing.Plan { _, p := computedGraph(t, spec("big", NOSEOS), big); return p }},
		{"three-tier-hand", NOSSonic, func(*testing.T) *sizing.Plan { return threeTier() }},
		{"three-tier-hand", NOSEOS, func(*testing.T) *sizing.Plan { return threeTier() }},
		{"rail-hand", NOSSonic, func(*testing.T) *sizing.Plan { return twoTierRail() }},
		{"one-tier", NOSSonic, func(t *testing.T) *sizing.Plan { _, p := computedGraph(t, spec("one", NOSSonic), one); return p }},
		{"one-tier", NOSEOS, func(t *testing.T) *sizing.Plan { _, p := computedGraph(t, spec("one", NOSEOS), one); return p }},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.nos, func(t *testing.T) {
			p := c.plan(t)
			g, err := Build(spec(c.name, c.nos), p)
			if err != nil {
				t.Fatal(err)
			}
			checkGraph(t, g, p)
			validateClab(t, sch, g)
		})
	}
}

func TestThreeTierStructure(t *testing.T) {
	g, err := Build(spec("t3", NOSEOS), threeTier())
	if err != nil {
		t.Fatal(err)
	}
	// spine j of every pod connects to every super-spine of plane j.
	for _, s := range g.NodesByRole(RoleSpine) {
		var supers []string
		for _, p := range s.Ports {
			if peer := g.Node(p.Peer); peer.Role == RoleSuperSpine {
				if peer.Plane != s.Plane {
					t.Errorf("%s (plane %d) linked to %s of plane %d", s.Name, s.Plane, peer.Name, peer.Plane)
				}
				supers = append(supers, peer.Name)
			}
		}
		if len(supers) != 2 {
			t.Errorf("%s has super-spines %v, want the 2 of plane %d", s.Name, supers, s.Plane)
		}
	}
	// ASNs: super-spines 65000, pod spines 65000+pod, leaves 65100+i.
	for _, n := range g.Switches() {
		var want uint32
		switch n.Role {
		case RoleSuperSpine:
			want = 65000
		case RoleSpine:
			want = 65000 + uint32(n.Pod)
		case RoleLeaf:
			want = 65100 + uint32(n.Index)
		}
		if n.ASN != want {
			t.Errorf("%s ASN %d, want %d", n.Name, n.ASN, want)
		}
	}
	if got := g.Node("leaf3").Pod; got != 2 {
		t.Errorf("leaf3 pod %d, want 2", got)
	}
}

func TestScaleDown(t *testing.T) {
	// Every catalog lab fits a sonic-vs switch of labctl's 64-port SKU
	// without merging: the lab is the plan. (On the image's default
	// 32-port SKU, 64gpu and 128gpu leaves needed 48 ports and did not.)
	for _, name := range []string{"16gpu", "64gpu", "128gpu", "1024gpu"} {
		g, p := catalogGraph(t, name, NOSSonic)
		if len(g.ScaleDown) != 0 || len(g.OverBudget) != 0 || g.CheckLabBudget() != nil {
			t.Errorf("%s: scale-down %q, over budget %v", name, g.ScaleDown, g.OverBudget)
		}
		most := 0
		for _, n := range g.Switches() {
			most = max(most, len(n.Ports))
		}
		if most > SonicSKUPorts || g.PortBudget.MaxDataPorts != SonicSKUPorts {
			t.Errorf("%s: busiest switch has %d ports, budget %d", name, most, g.PortBudget.MaxDataPorts)
		}
		for _, l := range g.Links {
			if l.Merged != 1 {
				t.Fatalf("%s: link %d merged", name, l.ID)
			}
		}
		if name == "16gpu" && len(g.Links) != 16+p.Leaf.LinksPerSpine {
			t.Errorf("16gpu: %d links", len(g.Links))
		}
	}

	// A 64-port leaf with 48 NICs and 24 uplinks to one spine needs 72
	// ports: the uplinks merge into one and the leaf fits in 49.
	merged, _ := computedGraph(t, spec("m48", NOSSonic), sizing.Input{GPUs: 48, LeafPorts: 64})
	if len(merged.ScaleDown) != 1 || !strings.Contains(merged.ScaleDown[0], "merged=24") || len(merged.OverBudget) != 0 {
		t.Errorf("48 GPUs on 64-port leaves: scale-down %q, over %v", merged.ScaleDown, merged.OverBudget)
	}
	var buf bytes.Buffer
	if err := merged.WriteClab(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"labctl.scale-down:", "leaf-spine links merged 24:1"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("topology lacks %q", want)
		}
	}

	// 64 NICs on one leaf fill every SKU port before any uplink: over
	// budget even merged, and up refuses it.
	over, _ := computedGraph(t, spec("o64", NOSSonic), sizing.Input{GPUs: 64, LeafPorts: 64})
	if len(over.ScaleDown) != 2 || !strings.Contains(over.ScaleDown[1], "over budget") || strings.Join(over.OverBudget, ",") != "leaf1" {
		t.Errorf("64 NICs per leaf: scale-down %q, over %v", over.ScaleDown, over.OverBudget)
	}
	err := over.CheckLabBudget()
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "--runtime sim") || !strings.Contains(err.Error(), SonicHWSKU) {
		t.Errorf("CheckLabBudget: %v", err)
	}
	// The over-budget switch's startup config still lists every port.
	var db bytes.Buffer
	if err := over.WriteSonicStartup(&db, over.Node("leaf1")); err != nil {
		t.Fatalf("startup of an over-budget switch: %v", err)
	}
	// The same lab fits on EOS (128 ports).
	eos, _ := computedGraph(t, spec("o64", NOSEOS), sizing.Input{GPUs: 64, LeafPorts: 64})
	if len(eos.OverBudget) != 0 {
		t.Errorf("64 NICs per leaf on eos: over %v", eos.OverBudget)
	}
}

// The SKU table is SONiC's port_config.ini of Mellanox-SN4700-V64, and a
// switch's startup CONFIG_DB carries it for every port it wires.
func TestSonicSKUAndStartup(t *testing.T) {
	for _, c := range []struct {
		n                  int
		name, lanes, alias string
		index              int
	}{
		{1, "Ethernet0", "0,1,2,3", "etp1a", 1},
		{2, "Ethernet4", "4,5,6,7", "etp1b", 1},
		{3, "Ethernet8", "8,9,10,11", "etp2a", 2},
		{64, "Ethernet252", "252,253,254,255", "etp32b", 32},
	} {
		p, err := SonicSKUPort(c.n)
		if err != nil || p.Name != c.name || p.Lanes != c.lanes || p.Alias != c.alias || p.Index != c.index || p.Speed != 200000 {
			t.Errorf("port %d = %+v, %v", c.n, p, err)
		}
		if PortName(KindSonicVS, c.n) != p.Name {
			t.Errorf("PortName(eth%d) = %s, SKU says %s", c.n, PortName(KindSonicVS, c.n), p.Name)
		}
	}
	for _, n := range []int{0, 65} {
		if _, err := SonicSKUPort(n); err == nil {
			t.Errorf("port %d accepted", n)
		}
	}

	g, _ := catalogGraph(t, "64gpu", NOSSonic)
	leaf := g.Node("leaf1")
	var b bytes.Buffer
	if err := g.WriteSonicStartup(&b, leaf); err != nil {
		t.Fatal(err)
	}
	var db map[string]map[string]map[string]string
	if err := json.Unmarshal(b.Bytes(), &db); err != nil {
		t.Fatal(err)
	}
	if md := db["DEVICE_METADATA"]["localhost"]; md["hwsku"] != SonicHWSKU || md["platform"] != SonicPlatform || md["hostname"] != "leaf1" {
		t.Errorf("DEVICE_METADATA %v", md)
	}
	if len(db["PORT"]) != len(leaf.Ports) || len(leaf.Ports) != 48 {
		t.Fatalf("leaf1: %d PORT rows for %d ports", len(db["PORT"]), len(leaf.Ports))
	}
	for i, p := range leaf.Ports {
		sku, err := SonicSKUPort(i + 1)
		if err != nil {
			t.Fatal(err)
		}
		row := db["PORT"][p.Name]
		want := strconv.Itoa(p.SpeedGbps * 1000)
		if row["lanes"] != sku.Lanes || row["alias"] != sku.Alias || row["index"] != strconv.Itoa(sku.Index) || row["speed"] != want || row["mtu"] != "9100" {
			t.Errorf("%s (%s): %v", p.Name, p.Iface, row)
		}
	}
	// Host links are 200G and uplinks 400G, as planned.
	if db["PORT"]["Ethernet0"]["speed"] != "200000" || db["PORT"]["Ethernet128"]["speed"] != "400000" {
		t.Errorf("speeds: host %s, uplink %s", db["PORT"]["Ethernet0"]["speed"], db["PORT"]["Ethernet128"]["speed"])
	}

	// The topology selects the SKU, binds each switch's file and installs
	// it before SONiC starts.
	b.Reset()
	if err := g.WriteClab(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"HWSKU: \"Mellanox-SN4700-V64\"",
		`cp /labctl/config_db.json /etc/sonic/config_db.json && exec /bin/bash`,
		`- "startup/leaf1.json:/labctl/config_db.json:ro"`,
		`- "startup/spine1.json:/labctl/config_db.json:ro"`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("topology lacks %q", want)
		}
	}
	mapping := strings.Join(g.PortMapping(), "\n")
	for _, want := range []string{SonicHWSKU, "eth<n> is Ethernet<4(n-1)>", "eth48=Ethernet188", "48 of 64 ports", "rxe-host<k>-<i>"} {
		if !strings.Contains(mapping, want) {
			t.Errorf("mapping %q lacks %q", mapping, want)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	good := threeTier
	cases := []struct {
		name   string
		spec   *lab.Spec
		mutate func(*sizing.Plan)
		want   string
	}{
		{"bad nos", spec("x", "junos"), nil, `nos "junos" is not supported`},
		{"bad name", spec("X Y", NOSSonic), nil, "not a valid name"},
		{"no super-spines", spec("x", NOSSonic), func(p *sizing.Plan) { p.SuperSpine = nil }, "needs super_spine"},
		{"planes", spec("x", NOSSonic), func(p *sizing.Plan) { p.SuperSpine.Planes = 3 }, "planes"},
		{"leaf out of range", spec("x", NOSSonic), func(p *sizing.Plan) { p.Placement[0].Leaves[1] = 99 }, "leaf 99"},
		{"no links", spec("x", NOSSonic), func(p *sizing.Plan) { p.Leaf.LinksPerSpine = 0 }, "links_per_spine"},
		{"order", spec("x", NOSSonic), func(p *sizing.Plan) { p.Placement[1].Server = 7 }, "in order"},
		{"no placement", spec("x", NOSSonic), func(p *sizing.Plan) { p.Placement = nil }, "no placement"},
		{"tiers", spec("x", NOSSonic), func(p *sizing.Plan) { p.Tiers = 4 }, "2 or 3 tiers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := good()
			if c.mutate != nil {
				c.mutate(p)
			}
			_, err := Build(c.spec, p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
	if _, err := Build(nil, nil); err == nil {
		t.Fatal("Build(nil, nil) must fail")
	}
}

func TestNOSPortNames(t *testing.T) {
	cases := []struct {
		kind string
		n    int
		want string
	}{
		{KindSonicVS, 1, "Ethernet0"}, {KindSonicVS, 2, "Ethernet4"}, {KindSonicVS, 32, "Ethernet124"},
		{KindCEOS, 1, "Ethernet1"}, {KindCEOS, 48, "Ethernet48"},
		{KindLinux, 3, "eth3"},
	}
	for _, c := range cases {
		if got := PortName(c.kind, c.n); got != c.want {
			t.Errorf("PortName(%s, %d) = %s, want %s", c.kind, c.n, got, c.want)
		}
	}
}

func TestGPUMapping(t *testing.T) {
	g, _ := catalogGraph(t, "64gpu", "")
	for _, c := range []struct {
		gpu  int
		want string
	}{{0, "host1:0"}, {7, "host1:7"}, {8, "host2:0"}, {31, "host4:7"}, {63, "host8:7"}} {
		ep, err := g.GPU(c.gpu)
		if err != nil || ep.String() != c.want {
			t.Errorf("GPU(%d) = %v, %v; want %s", c.gpu, ep, err, c.want)
		}
		back, err := g.GPUOf(ep)
		if err != nil || back != c.gpu {
			t.Errorf("GPUOf(%s) = %d, %v", ep, back, err)
		}
	}
	if _, err := g.GPU(64); err == nil || !strings.Contains(err.Error(), "0..63") {
		t.Errorf("GPU(64) error %v must name the valid range", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	g, _ := catalogGraph(t, "64gpu", "")
	cases := []struct {
		in, want, err string
	}{
		{in: "0", want: "host1:0"},
		{in: "32", want: "host5:0"},
		{in: "host3", want: "host3:0"},
		{in: "host3:5", want: "host3:5"},
		{in: " host2:1 ", want: "host2:1"},
		{in: "64", err: "0..63"},
		{in: "-1", err: "0..63"},
		{in: "host9", err: "host1..host8"},
		{in: "host1:8", err: "NICs 0..7"},
		{in: "host1:x", err: "not a number"},
		{in: "leaf1", err: "not a host"},
		{in: "", err: "not a host"},
	}
	for _, c := range cases {
		ep, err := g.ParseEndpoint(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseEndpoint(%q) error %v, want %q", c.in, err, c.err)
			}
		case err != nil || ep.String() != c.want:
			t.Errorf("ParseEndpoint(%q) = %v, %v; want %s", c.in, ep, err, c.want)
		}
	}
}

func FuzzParseEndpoint(f *testing.F) {
	g, _ := catalogGraph(f, "64gpu", "")
	for _, s := range []string{"0", "63", "host1", "host8:7", "host1:", ":3", "host0", "host01:1", "9999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ep, err := g.ParseEndpoint(s)
		if err != nil {
			return
		}
		if _, err := g.port(ep); err != nil {
			t.Fatalf("ParseEndpoint(%q) = %v, which is not a NIC: %v", s, ep, err)
		}
	})
}

func TestTraceHops(t *testing.T) {
	g64, _ := catalogGraph(t, "64gpu", NOSEOS)
	g3, err := Build(spec("t3", NOSSonic), threeTier())
	if err != nil {
		t.Fatal(err)
	}
	rail, err := Build(spec("rail", NOSSonic), twoTierRail())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name           string
		g              *Graph
		src, dst       string
		switches, e2e  int
		path           string
		candidatesLeaf int
	}{
		// The seed's path_trace examples (64 GPUs, 2 leaves, 1 spine).
		{"seed same leaf", g64, "0", "31", 1, 2, "host1 leaf1 host4", 1},
		{"seed cross leaf", g64, "0", "32", 3, 4, "host1 leaf1 spine1 leaf2 host5", 16},
		{"seed cross leaf 2", g64, "7", "56", 3, 4, "host1 leaf1 spine1 leaf2 host8", 16},
		{"same host other NIC same leaf", g64, "host1:0", "host1:1", 1, 2, "host1 leaf1 host1", 1},
		{"3-tier same pod", g3, "host1", "host2", 3, 4, "", 4},
		{"3-tier cross pod", g3, "host1:0", "host3:2", 5, 6, "", 4},
		{"rail same rail", rail, "host1:2", "host4:2", 1, 2, "host1 leaf3 host4", 1},
		{"rail cross rail", rail, "host1:0", "host2:3", 3, 4, "", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, err := c.g.ParseEndpoint(c.src)
			if err != nil {
				t.Fatal(err)
			}
			dst, err := c.g.ParseEndpoint(c.dst)
			if err != nil {
				t.Fatal(err)
			}
			k, err := c.g.FlowKeyFor(src, dst, 0)
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.g.Trace(src, dst, k)
			if err != nil {
				t.Fatal(err)
			}
			if p.SwitchHops != c.switches || p.EndToEndHops != c.e2e || len(p.Links) != c.e2e {
				t.Errorf("hops %d/%d (links %d), want %d/%d", p.SwitchHops, p.EndToEndHops, len(p.Links), c.switches, c.e2e)
			}
			if c.path != "" && strings.Join(p.Nodes(), " ") != c.path {
				t.Errorf("path %v, want %s", p.Nodes(), c.path)
			}
			if got := len(p.Hops[0].Candidates); got != c.candidatesLeaf {
				t.Errorf("first hop has %d candidates, want %d", got, c.candidatesLeaf)
			}
			// Consecutive links share a node: the path is connected.
			prev := src.Host
			for i, id := range p.Links {
				l := c.g.Links[id]
				switch prev {
				case l.A.Node:
					prev = l.B.Node
				case l.B.Node:
					prev = l.A.Node
				default:
					t.Fatalf("link %d of the path (%d) does not touch %s", i, id, prev)
				}
			}
			if prev != dst.Host {
				t.Fatalf("path ends at %s, not %s", prev, dst.Host)
			}
			// Deterministic.
			p2, _ := c.g.Trace(src, dst, k)
			if fmt.Sprint(p2.Links) != fmt.Sprint(p.Links) {
				t.Errorf("trace is not deterministic")
			}
		})
	}
	// A cross-pod 3-tier path goes leaf, spine, super-spine, spine, leaf,
	// and the super-spine is in the first spine's plane.
	src, _ := g3.ParseEndpoint("host1")
	dst, _ := g3.ParseEndpoint("host4")
	k, _ := g3.FlowKeyFor(src, dst, 0)
	p, err := g3.Trace(src, dst, k)
	if err != nil {
		t.Fatal(err)
	}
	roles := []Role{}
	for _, h := range p.Hops {
		roles = append(roles, h.Role)
	}
	if fmt.Sprint(roles) != "[leaf spine super-spine spine leaf]" {
		t.Fatalf("roles %v", roles)
	}
	if g3.Node(p.Hops[1].Node).Plane != g3.Node(p.Hops[2].Node).Plane || g3.Node(p.Hops[3].Node).Plane != g3.Node(p.Hops[1].Node).Plane {
		t.Errorf("cross-pod path leaves its plane: %v", p.Nodes())
	}
	if _, err := g3.Trace(src, src, k); err == nil {
		t.Error("tracing a NIC to itself must fail")
	}
}

// TestECMPSpread checks that the flow hash spreads flows over equal-cost
// candidates: over 16000 source ports each of the 16 uplinks of a 64gpu
// leaf gets within 20% of the mean.
func TestECMPSpread(t *testing.T) {
	g, _ := catalogGraph(t, "64gpu", NOSEOS)
	src, _ := g.GPU(0)
	dst, _ := g.GPU(40)
	const flows = 16000
	hits := map[int]int{}
	for i := range flows {
		k, err := g.FlowKeyFor(src, dst, uint16(10000+i))
		if err != nil {
			t.Fatal(err)
		}
		p, err := g.Trace(src, dst, k)
		if err != nil {
			t.Fatal(err)
		}
		hits[p.Hops[0].Chosen]++
	}
	if len(hits) != 16 {
		t.Fatalf("flows used %d of 16 uplinks", len(hits))
	}
	mean := flows / 16
	for c, n := range hits {
		if n < mean*8/10 || n > mean*12/10 {
			t.Errorf("uplink %d got %d flows, mean %d", c, n, mean)
		}
	}
}

// TestECMPSeeds checks that one flow lands on different uplinks under
// different fabric seeds, and that seed 0 is Trace.
func TestECMPSeeds(t *testing.T) {
	g, _ := catalogGraph(t, "128gpu", NOSEOS)
	src, _ := g.GPU(0)
	dst, _ := g.GPU(127)
	k, _ := g.FlowKeyFor(src, dst, 0)
	p0, _ := g.Trace(src, dst, k)
	s0, _ := g.TraceWithSeed(src, dst, k, 0)
	if fmt.Sprint(p0.Links) != fmt.Sprint(s0.Links) {
		t.Fatal("TraceWithSeed(0) differs from Trace")
	}
	hits := map[int]int{}
	const seeds = 3200
	for seed := range uint64(seeds) {
		p, err := g.TraceWithSeed(src, dst, k, seed)
		if err != nil {
			t.Fatal(err)
		}
		hits[p.Hops[0].Chosen]++
	}
	n := len(p0.Hops[0].Candidates)
	if len(hits) != n {
		t.Fatalf("seeds used %d of %d uplinks", len(hits), n)
	}
	for c, h := range hits {
		if mean := seeds / n; h < mean*7/10 || h > mean*13/10 {
			t.Errorf("uplink %d chosen under %d seeds, mean %d", c, h, mean)
		}
	}
}

func TestEmitters(t *testing.T) {
	small, _ := catalogGraph(t, "16gpu", NOSEOS)
	big, _ := catalogGraph(t, "1024gpu", NOSSonic)
	t3, err := Build(spec("t3", NOSEOS), threeTier())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Graph{small, big, t3} {
		var m, d, j bytes.Buffer
		if err := g.WriteMermaid(&m); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.String(), "graph TD\n") {
			t.Errorf("%s: mermaid lacks graph TD", g.Name)
		}
		if lines := strings.Count(m.String(), "\n"); lines > 80 {
			t.Errorf("%s: mermaid has %d lines; big labs must be summarised", g.Name, lines)
		}
		if err := g.WriteDot(&d); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(d.String(), " -- "); got != len(g.Links) {
			t.Errorf("%s: dot has %d edges, graph %d links", g.Name, got, len(g.Links))
		}
		if err := g.WriteJSON(&j); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(bytes.NewReader(j.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var j2 bytes.Buffer
		if err := back.WriteJSON(&j2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(j.Bytes(), j2.Bytes()) {
			t.Errorf("%s: JSON does not round-trip", g.Name)
		}
		var probe map[string]any
		if err := json.Unmarshal(j.Bytes(), &probe); err != nil || probe["schema_version"] != float64(SchemaVersion) {
			t.Errorf("%s: JSON lacks schema_version", g.Name)
		}
	}
	if _, err := ReadJSON(strings.NewReader(`{"schema_version": 9}`)); err == nil || !strings.Contains(err.Error(), "schema_version 9") {
		t.Errorf("ReadJSON of a newer schema: %v", err)
	}
	if _, err := ReadJSON(strings.NewReader(`{"schema_version": 1, "nodes": [], "links": [{"id": 0, "a": {"node": "x"}, "b": {"node": "y"}}]}`)); err == nil {
		t.Error("ReadJSON must reject links to unknown nodes")
	}
	// Big 3-tier fabrics stay readable: planes and middle pods collapse.
	for _, in := range []sizing.Input{{GPUs: 2048, Tiers: 3}, {GPUs: 65536, LeafPorts: 64, SpinePorts: 64}} {
		g, _ := computedGraph(t, spec("big", NOSEOS), in)
		var m bytes.Buffer
		if err := g.WriteMermaid(&m); err != nil {
			t.Fatal(err)
		}
		if lines := strings.Count(m.String(), "\n"); lines > 60 {
			t.Errorf("%d GPUs: mermaid has %d lines:\n%s", in.GPUs, lines, m.String())
		}
	}
	// EOS startup configs carry the BGP sessions of every fabric port.
	var cfg bytes.Buffer
	leaf := t3.Node("leaf1")
	if err := t3.WriteEOSStartup(&cfg, leaf); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(cfg.String(), " remote-as 65001\n"); got != 4 {
		t.Errorf("leaf1 has %d sessions to its pod's spines (AS65001), want 4:\n%s", got, cfg.String())
	}
	for _, want := range []string{"hostname leaf1\n", "router bgp 65101\n", "interface Loopback0\n   ip address 10.255.0.", "no switchport"} {
		if !strings.Contains(cfg.String(), want) {
			t.Errorf("leaf1 startup-config lacks %q", want)
		}
	}
	// SONiC config_db fragment is valid JSON with string values.
	var db map[string]map[string]map[string]string
	var sb bytes.Buffer
	if err := small.WriteSonicStartup(&sb, small.Node("leaf1")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sb.Bytes(), &db); err != nil {
		t.Fatalf("config_db fragment: %v", err)
	}
	if db["DEVICE_METADATA"]["localhost"]["bgp_asn"] != "65101" {
		t.Errorf("config_db bgp_asn = %q", db["DEVICE_METADATA"]["localhost"]["bgp_asn"])
	}
}

func FuzzReadJSON(f *testing.F) {
	g, err := Build(spec("t3", NOSEOS), threeTier())
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"schema_version": 1, "nodes": [null]}`))
	f.Add([]byte(`{"schema_version": 1, "nodes": [{"name": "host1", "role": "host", "ports": [{"link": 0}]}], "links": [null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		// A graph that validates can be traced without panics.
		hosts := g.Hosts()
		if len(hosts) < 2 || len(hosts[0].Ports) == 0 || len(hosts[1].Ports) == 0 {
			return
		}
		src, dst := Endpoint{Host: hosts[0].Name}, Endpoint{Host: hosts[1].Name}
		_, _ = g.Trace(src, dst, FlowKey{})
	})
}

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(g *Graph)
		want   string
	}{
		{"duplicate node", func(g *Graph) { g.Nodes[1].Name = g.Nodes[0].Name }, "twice"},
		{"port link out of range", func(g *Graph) { g.Nodes[0].Ports[0].Link = 9999 }, "no valid link"},
		{"link end unknown", func(g *Graph) { g.Links[0].A.Node = "nobody" }, "unknown node"},
		{"link end wrong iface", func(g *Graph) { g.Links[0].A.Iface = "eth99" }, "no port eth99"},
		{"merged zero", func(g *Graph) { g.Links[3].Merged = 0 }, "merged=0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Build(spec("t3", NOSEOS), threeTier())
			if err != nil {
				t.Fatal(err)
			}
			c.mutate(g)
			if err := g.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate = %v, want %q", err, c.want)
			}
		})
	}
}

func TestHostCommands(t *testing.T) {
	g, _ := catalogGraph(t, "16gpu", "")
	h := g.Node("host2")
	cmds := g.HostCommands(h)
	joined := strings.Join(cmds, "\n")
	for _, want := range []string{
		"ip link set eth1 mtu 4200",
		"ip addr add " + h.Ports[0].Address + " dev eth1",
		"rdma link add rxe-host2-0 type rxe netdev eth1",
		"rdma link add rxe-host2-7 type rxe netdev eth8",
		"ip rule add from " + trimLen(h.Ports[7].Address) + " table 108",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("host2 commands lack %q", want)
		}
	}
	// Device names are unique across the lab.
	seen := map[string]bool{}
	for _, host := range g.Hosts() {
		for i := range host.Ports {
			n := RXEName(host.Name, i)
			if seen[n] {
				t.Fatalf("rxe device %s twice", n)
			}
			seen[n] = true
		}
	}
}

func TestMemAvailable(t *testing.T) {
	cases := []struct {
		in   string
		want int
		err  string
	}{
		{"MemTotal:       24683520 kB\nMemFree:        22966320 kB\nMemAvailable:   24288960 kB\n", 23719, ""},
		{"MemAvailable: 1024 kB\n", 1, ""},
		{"MemTotal: 1 kB\n", 0, "no MemAvailable"},
		{"MemAvailable: lots kB\n", 0, "line 1"},
		{"MemAvailable:\n", 0, "no value"},
		{"MemAvailable: 10 MB\n", 0, "unit"},
	}
	for _, c := range cases {
		got, err := ParseMemAvailable(strings.NewReader(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func FuzzParseMemAvailable(f *testing.F) {
	f.Add("MemTotal:       24683520 kB\nMemAvailable:   24288960 kB\n")
	f.Add("MemAvailable: -5 kB\n")
	f.Add("MemAvailable 5\n")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseMemAvailable(strings.NewReader(s))
		if err == nil && n < 0 {
			t.Fatalf("negative memory %d from %q", n, s)
		}
	})
}

func TestCapacity(t *testing.T) {
	g, _ := catalogGraph(t, "64gpu", NOSEOS)
	est := g.Estimate()
	// 3 cEOS + 8 hosts.
	if want := 3*1740 + 8*64; est.MemoryMiB != want {
		t.Errorf("estimate %d MiB, want %d", est.MemoryMiB, want)
	}
	if w, err := CheckCapacity(est, est.MemoryMiB, 64, false); err != nil || len(w) != 0 {
		t.Errorf("exact fit must pass silently: %q, %v", w, err)
	}

	// Memory refuses, naming the estimate, the machine and the way out.
	w, err := CheckCapacity(est, 1000, 64, false)
	var ee *exitcode.Error
	if !errors.As(err, &ee) || ee.Code != exitcode.Environment {
		t.Fatalf("CheckCapacity error %v must be an environment error", err)
	}
	for _, want := range []string{fmt.Sprint(est.MemoryMiB), "1000 MiB", "--runtime sim", "--force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("capacity error %q lacks %q", err, want)
		}
	}
	if len(w) != 0 {
		t.Errorf("warnings %q with enough CPUs", w)
	}

	// CPU is shared: 16gpu with cEOS wants 2.2 CPUs; on 2 it warns and
	// runs.
	small, _ := catalogGraph(t, "16gpu", NOSEOS)
	sest := small.Estimate()
	w, err = CheckCapacity(sest, 20000, 2, false)
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "2.2 CPUs") || !strings.Contains(w[0], "has 2") {
		t.Errorf("CPU over on 2 cores: warnings %q, error %v; want one warning and no error", w, err)
	}

	// --force turns the memory refusal into a warning.
	w, err = CheckCapacity(est, 1000, 1, true)
	if err != nil || len(w) != 2 || !strings.Contains(w[1], "--force") || !strings.Contains(w[1], "1000 MiB") {
		t.Errorf("forced: warnings %q, error %v", w, err)
	}
}

// TestCommittedTopologies fails when the committed topologies/<lab>/ files
// drift from the generator; go test ./orchestrator/fabric -update rewrites
// them.
func TestCommittedTopologies(t *testing.T) {
	root := filepath.Join("..", "..", "topologies")
	for _, name := range catalogLabs {
		t.Run(name, func(t *testing.T) {
			g, _ := catalogGraph(t, name, "")
			dir := filepath.Join(root, name)
			if *update {
				if _, err := g.WriteLab(dir); err != nil {
					t.Fatal(err)
				}
			}
			files, err := g.Files()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, f := range files {
				path := filepath.Join(dir, filepath.FromSlash(f.Path))
				want[path] = true
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./orchestrator/fabric -update)", err)
				}
				if !bytes.Equal(got, f.Data) {
					t.Errorf("%s differs from the generator output (run go test ./orchestrator/fabric -update and review the diff)", path)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(dir, StartupDir))
			for _, e := range entries {
				if p := filepath.Join(dir, StartupDir, e.Name()); !want[p] {
					t.Errorf("stale file %s (run -update)", p)
				}
			}
		})
	}
}

func TestWriteLabRemovesStale(t *testing.T) {
	dir := t.TempDir()
	g, _ := catalogGraph(t, "16gpu", NOSEOS)
	if _, err := g.WriteLab(dir); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "configs")
	if err := os.MkdirAll(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keep, "leaf1.cfg"), []byte("qos"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _ = catalogGraph(t, "16gpu", NOSSonic)
	written, err := g.WriteLab(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2+len(g.Switches()) {
		t.Errorf("wrote %d files", len(written))
	}
	if _, err := os.Stat(filepath.Join(dir, "startup", "leaf1.cfg")); !os.IsNotExist(err) {
		t.Errorf("stale EOS startup config survived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "startup", "leaf1.json")); err != nil {
		t.Errorf("SONiC startup missing: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(keep, "leaf1.cfg")); err != nil || string(b) != "qos" {
		t.Errorf("configs/ was touched: %q %v", b, err)
	}
}

// BenchmarkBuild65536 builds the graph of a 65536-GPU fabric.
func BenchmarkBuild65536(b *testing.B) {
	p, err := sizing.Compute(sizing.Input{GPUs: 65536, LeafPorts: 64, SpinePorts: 64}.Normalize())
	if err != nil {
		b.Fatalf("size 65536 GPUs: %v", err)
	}
	s := spec("gpu65536", NOSEOS)
	b.ReportAllocs()
	for b.Loop() {
		g, err := Build(s, p)
		if err != nil {
			b.Fatal(err)
		}
		if len(g.Hosts()) != p.Servers {
			b.Fatalf("%d hosts", len(g.Hosts()))
		}
	}
}

// TestValidNameLimits: a lab or node name of maxNodeName bytes is taken,
// one more, capitals, a leading dash or nothing are refused, each with a
// message that states naming's rule and the limit.
func TestValidNameLimits(t *testing.T) {
	ok := strings.Repeat("a", maxNodeName)
	if err := ValidName(ok); err != nil {
		t.Errorf("a name of %d bytes: %v", maxNodeName, err)
	}
	if err := ValidName("leaf-1"); err != nil {
		t.Errorf("leaf-1: %v", err)
	}
	for _, bad := range []string{ok + "a", "Leaf1", "-leaf", "", "leaf_1"} {
		err := ValidName(bad)
		if err == nil {
			t.Errorf("%q taken", bad)
			continue
		}
		if !strings.Contains(err.Error(), "at most 64 characters") {
			t.Errorf("%q: %v does not state the limit", bad, err)
		}
	}
}
