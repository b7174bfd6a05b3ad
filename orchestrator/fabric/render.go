package fabric

import (
	"fmt"
	"io"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
)

// detailLimit is the number of switches up to which the mermaid diagram
// draws every switch and every leaf-spine pair; bigger fabrics are drawn one
// box per tier and pod so the diagram stays readable.
const detailLimit = 24

// WriteMermaid writes a `graph TD` diagram. Hosts are always collapsed to
// one box per leaf (which servers, how many NICs); pods are subgraphs.
func (g *Graph) WriteMermaid(w io.Writer) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	sw := g.Switches()
	leaves := plural.N(len(g.NodesByRole(RoleLeaf)), "leaf")
	p("%%%% lab %s: %d GPUs, %s, %s, %s", g.Name, g.GPUs, plural.N(len(g.Hosts()), "server"), leaves, plural.N(len(g.NodesByRole(RoleSpine)), "spine"))
	if n := len(g.NodesByRole(RoleSuperSpine)); n > 0 {
		p(", %d super-spines", n)
	}
	p(", nos %s\n", g.NOS)
	for _, s := range g.ScaleDown {
		p("%%%% scale-down: %s\n", s)
	}
	p("graph TD\n")
	if len(sw) <= detailLimit {
		g.mermaidDetailed(p)
	} else {
		g.mermaidSummary(p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pairs aggregates lab links between two nodes.
type pairKey struct{ a, b string }

type pairAgg struct {
	links, members, memberSpeed int
}

func (g *Graph) linkPairs(kind LinkKind) ([]pairKey, map[pairKey]*pairAgg) {
	var order []pairKey
	agg := map[pairKey]*pairAgg{}
	for _, l := range g.Links {
		if l.Kind != kind {
			continue
		}
		k := pairKey{l.A.Node, l.B.Node}
		a := agg[k]
		if a == nil {
			a = &pairAgg{memberSpeed: l.MemberSpeedGbps}
			agg[k] = a
			order = append(order, k)
		}
		a.links++
		a.members += l.Merged
	}
	return order, agg
}

func edgeLabel(a *pairAgg) string {
	if a.members != a.links {
		return fmt.Sprintf("%dx%dG as %d lab link", a.members, a.memberSpeed, a.links)
	}
	return fmt.Sprintf("%dx%dG", a.members, a.memberSpeed)
}

// hostBoxes describes, per leaf, the servers with NICs on it.
func (g *Graph) hostBoxes() map[string]string {
	type box struct {
		first, last string
		servers     int
		nics        int
		seen        map[string]bool
		nicIdx      map[int]bool
	}
	boxes := map[string]*box{}
	for _, l := range g.Links {
		if l.Kind != KindHostLeaf {
			continue
		}
		bx := boxes[l.B.Node]
		if bx == nil {
			bx = &box{first: l.A.Node, seen: map[string]bool{}, nicIdx: map[int]bool{}}
			boxes[l.B.Node] = bx
		}
		bx.nics++
		if n, err := nameIndex(l.A.Iface, "eth"); err == nil {
			bx.nicIdx[n-1] = true
		}
		if !bx.seen[l.A.Node] {
			bx.seen[l.A.Node] = true
			bx.servers++
			bx.last = l.A.Node
		}
	}
	out := map[string]string{}
	for leaf, bx := range boxes {
		names := bx.first
		if bx.servers > 1 {
			names += ".." + bx.last
		}
		if len(bx.nicIdx) == 1 && bx.servers > 1 {
			// Rail layout: the same NIC of every server.
			for nic := range bx.nicIdx {
				names = fmt.Sprintf("NIC %d of %s", nic, names)
			}
		}
		out[leaf] = fmt.Sprintf("%s<br/>%s, %d NICs x %dG", names, plural.N(bx.servers, "server"), bx.nics, g.NICSpeedGbps)
	}
	return out
}

func (g *Graph) mermaidDetailed(p func(string, ...any)) {
	boxes := g.hostBoxes()
	for _, n := range g.NodesByRole(RoleSuperSpine) {
		p("  %s[\"%s<br/>AS%d\"]\n", n.Name, n.Name, n.ASN)
	}
	for pod := 1; pod <= g.Pods; pod++ {
		if g.Pods > 1 {
			p("  subgraph pod%d[\"pod %d\"]\n", pod, pod)
		}
		for _, role := range []Role{RoleSpine, RoleLeaf} {
			for _, n := range g.NodesByRole(role) {
				if n.Pod != pod {
					continue
				}
				p("    %s[\"%s<br/>AS%d\"]\n", n.Name, n.Name, n.ASN)
				if role == RoleLeaf && boxes[n.Name] != "" {
					p("    hosts_%s([\"%s\"])\n", n.Name, boxes[n.Name])
				}
			}
		}
		if g.Pods > 1 {
			p("  end\n")
		}
	}
	for _, kind := range []LinkKind{KindSpineSuperSpine, KindLeafSpine} {
		order, agg := g.linkPairs(kind)
		for _, k := range order {
			p("  %s ---|\"%s\"| %s\n", k.b, edgeLabel(agg[k]), k.a)
		}
	}
	for _, n := range g.NodesByRole(RoleLeaf) {
		if boxes[n.Name] != "" {
			p("  %s --- hosts_%s\n", n.Name, n.Name)
		}
	}
}

func nameRange(nodes []*Node) string {
	if len(nodes) == 1 {
		return nodes[0].Name
	}
	return nodes[0].Name + ".." + nodes[len(nodes)-1].Name
}

func (g *Graph) mermaidSummary(p func(string, ...any)) {
	p("  %%%% %s: drawn one box per tier and pod; see labctl topo -o dot for every link\n", plural.N(len(g.Switches()), "switch"))
	supers := g.NodesByRole(RoleSuperSpine)
	planes := map[int][]*Node{}
	maxPlane := 0
	for _, n := range supers {
		planes[n.Plane] = append(planes[n.Plane], n)
		maxPlane = max(maxPlane, n.Plane)
	}
	// Few planes get a box each; many are one box, or the diagram drowns in
	// planes x pods edges.
	collapsePlanes := maxPlane > 4
	if collapsePlanes {
		p("  planes[\"%d super-spines in %d planes<br/>%s<br/>spine j of every pod to every super-spine of plane j\"]\n", len(supers), maxPlane, nameRange(supers))
	} else {
		for pl := 1; pl <= maxPlane; pl++ {
			p("  plane%d[\"super-spine plane %d<br/>%s\"]\n", pl, pl, nameRange(planes[pl]))
		}
	}
	_, lsAgg := g.linkPairs(KindLeafSpine)
	var lsEdge *pairAgg
	for _, a := range lsAgg {
		lsEdge = a
		break
	}
	for pod := 1; pod <= g.Pods; pod++ {
		// Many pods: draw the first two and the last; the others are alike.
		if g.Pods > 6 && pod > 2 && pod < g.Pods {
			if pod == 3 {
				p("  pods_more([\"pods 3..%d: built like pod 1\"])\n", g.Pods-1)
				if collapsePlanes {
					p("  planes --- pods_more\n")
				}
			}
			continue
		}
		var spines, leaves, hosts []*Node
		for _, n := range g.Nodes {
			if n.Pod != pod {
				continue
			}
			switch n.Role {
			case RoleSpine:
				spines = append(spines, n)
			case RoleLeaf:
				leaves = append(leaves, n)
			case RoleHost:
				hosts = append(hosts, n)
			}
		}
		if len(leaves) == 0 {
			continue
		}
		p("  subgraph pod%d[\"pod %d\"]\n", pod, pod)
		p("    pod%d_spines[\"%s<br/>%s\"]\n", pod, plural.N(len(spines), "spine"), nameRange(spines))
		p("    pod%d_leaves[\"%s<br/>%s<br/>AS%d..AS%d\"]\n", pod, plural.N(len(leaves), "leaf"), nameRange(leaves), leaves[0].ASN, leaves[len(leaves)-1].ASN)
		nics := 0
		for _, h := range hosts {
			nics += len(h.Ports)
		}
		if len(hosts) > 0 {
			p("    pod%d_hosts([\"%s<br/>%s<br/>%d NICs x %dG\"])\n", pod, plural.N(len(hosts), "server"), nameRange(hosts), nics, g.NICSpeedGbps)
		}
		p("  end\n")
		if lsEdge != nil {
			p("  pod%d_spines ---|\"every leaf to every spine: %s\"| pod%d_leaves\n", pod, edgeLabel(lsEdge), pod)
		}
		if len(hosts) > 0 {
			p("  pod%d_leaves --- pod%d_hosts\n", pod, pod)
		}
		if collapsePlanes {
			p("  planes --- pod%d_spines\n", pod)
			continue
		}
		for pl := 1; pl <= maxPlane; pl++ {
			p("  plane%d --- pod%d_spines\n", pl, pod)
		}
	}
}

// WriteDot writes the whole graph, every lab link, as Graphviz dot.
func (g *Graph) WriteDot(w io.Writer) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("// lab %s, nos %s; generated by labctl topo -o dot\n", g.Name, g.NOS)
	p("graph %q {\n", g.Name)
	p("  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n")
	for _, role := range []Role{RoleSuperSpine, RoleSpine, RoleLeaf, RoleHost} {
		ns := g.NodesByRole(role)
		if len(ns) == 0 {
			continue
		}
		p("  { rank=same;")
		for _, n := range ns {
			p(" %q;", n.Name)
		}
		p(" }\n")
		for _, n := range ns {
			label := n.Name
			if n.ASN > 0 {
				label += fmt.Sprintf("\\nAS%d %s", n.ASN, n.Loopback)
			}
			shape := "box"
			if role == RoleHost {
				shape = "ellipse"
			}
			p("  %q [label=\"%s\", shape=%s];\n", n.Name, label, shape)
		}
	}
	for _, l := range g.Links {
		label := fmt.Sprintf("%dG", l.SpeedGbps)
		if l.Merged > 1 {
			label = fmt.Sprintf("%dx%dG merged", l.Merged, l.MemberSpeedGbps)
		}
		p("  %q -- %q [taillabel=%q, headlabel=%q, label=%q];\n", l.B.Node, l.A.Node, l.B.Port, l.A.Port, label)
	}
	p("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
