package fabric

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
)

// MemberPort names member m (0-based) of a lab port that stands for
// several parallel plan links (Port.Merged > 1): the port itself for the
// first, "<port>.<m>" for the others, so that "Ethernet0" < "Ethernet0.1"
// < "Ethernet4" in port order. The simulator names the members of a merged
// link so, `labctl trace` and the routing graph too, and LinkByName reads
// the name back.
func MemberPort(port string, m int) string {
	if m == 0 {
		return port
	}
	return port + "." + strconv.Itoa(m)
}

// LinkMember is one plan link of a lab link: the lab link and, for a
// merged one, which member (0-based, as MemberPort numbers them).
type LinkMember struct {
	Link   int `json:"link"`
	Member int `json:"member"`
}

// Members is the number of plan links a lab link stands for (1 unless
// merged).
func (l *Link) Members() int { return max(l.Merged, 1) }

// MemberSpeed is the speed in Gb/s of one member: the plan link's.
func (l *Link) MemberSpeed() int {
	if l.MemberSpeedGbps > 0 {
		return l.MemberSpeedGbps
	}
	return l.SpeedGbps / l.Members()
}

// LinksBetween lists every lab link between nodes a and b.
func (g *Graph) LinksBetween(a, b string) []*Link {
	var out []*Link
	for _, lk := range g.Links {
		if lk.A.Node == a && lk.B.Node == b || lk.A.Node == b && lk.B.Node == a {
			out = append(out, lk)
		}
	}
	return out
}

// LinkByName finds the lab link a name gives: "node:port" (port as the
// configs name it, ".m" for member m of a merged link) or "nodeA-nodeB"
// (their first link). It returns the link and the member.
func (g *Graph) LinkByName(name string) (*Link, int, error) {
	if node, port, ok := strings.Cut(name, ":"); ok {
		base, member := port, 0
		if b, m, ok := strings.Cut(port, "."); ok {
			n, err := strconv.Atoi(m)
			if err != nil || n < 0 {
				return nil, 0, fmt.Errorf("link %q: member %q is not a number", name, m)
			}
			base, member = b, n
		}
		for i := range g.Links {
			lk := g.Links[i]
			if (lk.A.Node == node && lk.A.Port == base) || (lk.B.Node == node && lk.B.Port == base) {
				if member >= lk.Members() {
					return nil, 0, fmt.Errorf("link %q: the lab link has %s, numbered from 0", name, plural.N(lk.Members(), "member"))
				}
				return lk, member, nil
			}
		}
		return nil, 0, fmt.Errorf("the lab has no port %s on %s (see its configs, or labctl trace, for port names)", port, node)
	}
	for i := range g.Links {
		lk := g.Links[i]
		if lk.A.Node+"-"+lk.B.Node == name || lk.B.Node+"-"+lk.A.Node == name {
			return lk, 0, nil
		}
	}
	if n := g.Node(name); n != nil {
		return nil, 0, g.nodeNotLink(n)
	}
	return nil, 0, fmt.Errorf("link %q: no link between those nodes (name it node:port, e.g. leaf1:Ethernet128, or node-node, e.g. leaf1-spine1)", name)
}

// nodeNotLink is the error for a node's name given where a link is
// expected ("--down leaf1"): a link is <node>-<node>, and the node's own
// links are listed by their other end, switches first (a leaf's spines
// before its servers), the first few when many.
func (g *Graph) nodeNotLink(n *Node) error {
	var sw, hosts []string
	seen := map[string]bool{}
	for _, lk := range g.Links {
		other := ""
		switch n.Name {
		case lk.A.Node:
			other = lk.B.Node
		case lk.B.Node:
			other = lk.A.Node
		default:
			continue
		}
		if seen[other] {
			continue
		}
		seen[other] = true
		if o := g.Node(other); o != nil && o.Role == RoleHost {
			hosts = append(hosts, n.Name+"-"+other)
		} else {
			sw = append(sw, n.Name+"-"+other)
		}
	}
	links := append(sw, hosts...)
	if len(links) == 0 {
		return fmt.Errorf("%s is a node, where a link is wanted as <node>-<node> (or <node>:<port>), and has no links", n.Name)
	}
	list := plural.Some(links, 4, ", ")
	return fmt.Errorf("%s is a node, where a link is wanted as <node>-<node> (or <node>:<port>) (fix: name one of %s's links: %s)", n.Name, n.Name, list)
}

// LinkMembers is the plan links a link fault takes down: the one a name
// gives (LinkByName), or with all every member of every lab link between
// its two nodes. The simulator's faults and `labctl trace --down` both
// read names through it.
func (g *Graph) LinkMembers(name string, all bool) ([]LinkMember, error) {
	lk, m, err := g.LinkByName(name)
	if err != nil {
		return nil, err
	}
	if !all {
		return []LinkMember{{Link: lk.ID, Member: m}}, nil
	}
	var out []LinkMember
	for _, l := range g.LinksBetween(lk.A.Node, lk.B.Node) {
		for m := range l.Members() {
			out = append(out, LinkMember{Link: l.ID, Member: m})
		}
	}
	return out, nil
}

// MemberName is a plan link's name as faults give it: its lower end's
// node and member port ("leaf1:Ethernet128", "leaf1:Ethernet128.2").
func (g *Graph) MemberName(lm LinkMember) string {
	if lm.Link < 0 || lm.Link >= len(g.Links) {
		return fmt.Sprintf("link %d", lm.Link)
	}
	lk := g.Links[lm.Link]
	return lk.A.Node + ":" + MemberPort(lk.A.Port, lm.Member)
}
