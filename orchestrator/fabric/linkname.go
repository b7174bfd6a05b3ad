package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

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
				if member >= max(lk.Merged, 1) {
					return nil, 0, fmt.Errorf("link %q: the lab link has %d member(s), numbered from 0", name, max(lk.Merged, 1))
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
	return nil, 0, fmt.Errorf("link %q: no link between those nodes (name it node:port, e.g. leaf1:Ethernet128, or node-node, e.g. leaf1-spine1)", name)
}
