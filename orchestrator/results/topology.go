package results

import (
	"bufio"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
)

// Topology is a small node and link list, enough to draw the lab in a
// report. ParseMermaid builds one from the fabric's mermaid diagram.
type Topology struct {
	Nodes []TopoNode
	Links []TopoLink
}

// TopoNode is one device. Tier 0 is drawn at the top (super-spines or
// spines), hosts at the bottom.
type TopoNode struct {
	ID    string
	Label string
	Tier  int
}

// TopoLink is one cable between two nodes.
type TopoLink struct {
	A, B  string
	Label string
}

var (
	mermaidSkip = lazyregexp.New(`^(?:(?:graph|flowchart|subgraph|classDef|class|style|linkStyle|click|direction)(?:\s|$)|end\s*$|%%)`)
	// A link operator: ---, -->, <-->, ==>, ===, -.-, -.->, optionally with
	// a |label|.
	mermaidOp = lazyregexp.New(`^\s*<?(?:-{2,}|={2,}|-\.+-)>?\s*(?:\|([^|]*)\|)?\s*`)
	// The "A -- label --- B" form.
	mermaidTextOp = lazyregexp.New(`^\s*--\s+([^-<>|]+?)\s+-{2,}>?\s*`)
	mermaidBreak  = lazyregexp.New(`(?i)<br\s*/?>`)
	mermaidID     = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.:/-]*`)
)

// ParseMermaid reads a mermaid flowchart's nodes and links: node shapes
// (id[label], id((label)), …), link operators and chains (a --- b --- c).
// Directives, subgraphs and styles are skipped. Tiers come from node names
// (super-spine, spine, leaf, host), or from distance to the first node when
// names give no hint.
func ParseMermaid(text string) (*Topology, error) {
	t := &Topology{}
	idx := map[string]int{}
	addNode := func(id, label string) {
		if i, ok := idx[id]; ok {
			if label != "" && t.Nodes[i].Label == id {
				t.Nodes[i].Label = label
			}
			return
		}
		if label == "" {
			label = id
		}
		idx[id] = len(t.Nodes)
		t.Nodes = append(t.Nodes, TopoNode{ID: id, Label: label})
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	lineNo := 0
	pendingLabel := ""
	for sc.Scan() {
		lineNo++
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), "%%") {
			continue
		}
		for _, stmt := range splitStatements(sc.Text()) {
			s := strings.TrimSpace(stmt)
			if s == "" || mermaidSkip().MatchString(s) {
				continue
			}
			prev := ""
			for s != "" {
				id, label, rest, err := parseMermaidNode(s)
				if err != nil {
					return nil, fmt.Errorf("mermaid line %d: %w", lineNo, err)
				}
				addNode(id, label)
				if prev != "" {
					t.Links = append(t.Links, TopoLink{A: prev, B: id, Label: pendingLabel})
				}
				prev = id
				s = strings.TrimSpace(rest)
				if s == "" {
					break
				}
				if m := mermaidTextOp().FindStringSubmatch(s); m != nil {
					pendingLabel = strings.TrimSpace(m[1])
					s = s[len(m[0]):]
				} else if m := mermaidOp().FindStringSubmatch(s); m != nil {
					pendingLabel = strings.Trim(m[1], "\" ")
					s = s[len(m[0]):]
				} else {
					return nil, fmt.Errorf("mermaid line %d: expected a link operator (---, -->) after %q, found %q", lineNo, id, truncate(s, 20))
				}
				if strings.TrimSpace(s) == "" {
					return nil, fmt.Errorf("mermaid line %d: link from %q has no target node", lineNo, id)
				}
			}
			pendingLabel = ""
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mermaid: %w", err)
	}
	assignTiers(t)
	return t, nil
}

func parseMermaidNode(s string) (id, label, rest string, err error) {
	id = mermaidID().FindString(s)
	if id == "" {
		return "", "", "", fmt.Errorf("expected a node id at %q", truncate(s, 20))
	}
	// An operator written without spaces ("a---b", "a-.-b") is not part
	// of the id, nor is a trailing "-" before one ("a-->b").
	for _, op := range []string{"--", "-.", "=="} {
		if i := strings.Index(id, op); i >= 0 {
			id = id[:i]
		}
	}
	for strings.HasSuffix(id, "-") {
		id = id[:len(id)-1]
	}
	if id == "" {
		return "", "", "", fmt.Errorf("expected a node id at %q", truncate(s, 20))
	}
	rest = s[len(id):]
	if rest == "" || !strings.ContainsRune("[({>", rune(rest[0])) {
		return id, "", rest, nil
	}
	depth := 0
	inQuote := false
	for i := 0; i < len(rest); i++ {
		ch := rest[i]
		switch {
		case ch == '"':
			inQuote = !inQuote
		case inQuote:
		case ch == '[' || ch == '(' || ch == '{' || (i == 0 && ch == '>'):
			depth++
		case ch == ']' || ch == ')' || ch == '}':
			depth--
			if depth == 0 {
				label = strings.Trim(rest[:i+1], "[](){}>\" ")
				label = mermaidBreak().ReplaceAllString(label, "\n")
				return id, label, rest[i+1:], nil
			}
		}
	}
	return "", "", "", fmt.Errorf("node %q: shape opened with %q is not closed", id, rest[:1])
}

var hostName = lazyregexp.New(`(^|[_-])(hosts?|servers?|srv|gpus?|nics?)([0-9_-]|$)|^h[0-9]`)

func tierFromName(s string) int {
	s = strings.ToLower(s)
	switch {
	case strings.Contains(s, "super") || strings.HasPrefix(s, "ss"):
		return 0
	case hostName().MatchString(s): // before leaf: "hosts_leaf1" is hosts
		return 3
	case strings.Contains(s, "spine"):
		return 1
	case strings.Contains(s, "leaf") || strings.Contains(s, "leaves") || strings.Contains(s, "tor"):
		return 2
	}
	return -1
}

func assignTiers(t *Topology) {
	hinted := false
	for i := range t.Nodes {
		t.Nodes[i].Tier = tierFromName(t.Nodes[i].ID)
		if t.Nodes[i].Tier >= 0 {
			hinted = true
		}
	}
	if !hinted && len(t.Nodes) > 0 {
		// No naming hints: breadth-first distance from the first node.
		adj := map[string][]string{}
		for _, l := range t.Links {
			adj[l.A] = append(adj[l.A], l.B)
			adj[l.B] = append(adj[l.B], l.A)
		}
		dist := map[string]int{t.Nodes[0].ID: 0}
		queue := []string{t.Nodes[0].ID}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			for _, m := range adj[n] {
				if _, ok := dist[m]; !ok {
					dist[m] = dist[n] + 1
					queue = append(queue, m)
				}
			}
		}
		for i := range t.Nodes {
			if d, ok := dist[t.Nodes[i].ID]; ok {
				t.Nodes[i].Tier = d
			}
		}
	}
	// Unknown nodes go below the rest; then tiers are renumbered 0..n.
	maxTier := 0
	for _, n := range t.Nodes {
		maxTier = max(maxTier, n.Tier)
	}
	used := map[int]bool{}
	for i := range t.Nodes {
		if t.Nodes[i].Tier < 0 {
			t.Nodes[i].Tier = maxTier + 1
		}
		used[t.Nodes[i].Tier] = true
	}
	var tiers []int
	for k := range used {
		tiers = append(tiers, k)
	}
	sort.Ints(tiers)
	renum := map[int]int{}
	for i, k := range tiers {
		renum[k] = i
	}
	for i := range t.Nodes {
		t.Nodes[i].Tier = renum[t.Nodes[i].Tier]
	}
}

// maxRowNodes bounds the nodes drawn per tier; a 1024-GPU lab's hosts
// are summarised as "+N more".
const maxRowNodes = 32

// topologySVG draws the tiers as rows of boxes and the links as lines.
func topologySVG(t *Topology) template.HTML {
	rows := map[int][]TopoNode{}
	nTiers := 0
	for _, n := range t.Nodes {
		rows[n.Tier] = append(rows[n.Tier], n)
		nTiers = max(nTiers, n.Tier+1)
	}
	widest := 0
	for _, r := range rows {
		widest = max(widest, min(len(r), maxRowNodes))
	}
	const boxW, boxH, gapX, rowH = 84.0, 26.0, 12.0, 90.0
	w := math.Max(600, float64(widest)*(boxW+gapX)+40)
	h := float64(nTiers)*rowH + 30
	pos := map[string][2]float64{}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="topology" data-chart="topology" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="lab topology">`, w, h, w, h)
	b.WriteString(`<title>lab topology</title>`)
	var boxes strings.Builder
	for tier := 0; tier < nTiers; tier++ {
		r := rows[tier]
		shown := r
		more := 0
		if len(r) > maxRowNodes {
			shown, more = r[:maxRowNodes-1], len(r)-(maxRowNodes-1)
		}
		cells := len(shown)
		if more > 0 {
			cells++
		}
		rowW := float64(cells)*(boxW+gapX) - gapX
		x0 := (w - rowW) / 2
		y := 20 + float64(tier)*rowH
		for i, n := range shown {
			x := x0 + float64(i)*(boxW+gapX)
			pos[n.ID] = [2]float64{x + boxW/2, y + boxH/2}
			fmt.Fprintf(&boxes, `<g class="node tier%d"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="4"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text><title>%s</title></g>`,
				min(tier, 3), x, y, boxW, boxH, x+boxW/2, y+17, esc(truncate(firstLine(n.Label), 13)), esc(strings.ReplaceAll(n.Label, "\n", " / ")))
		}
		if more > 0 {
			x := x0 + float64(len(shown))*(boxW+gapX)
			fmt.Fprintf(&boxes, `<g class="node more"><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="4"/><text x="%.1f" y="%.1f" text-anchor="middle">+%d more</text></g>`,
				x, y, boxW, boxH, x+boxW/2, y+17, more)
		}
	}
	// Links first so boxes cover their ends.
	for _, l := range t.Links {
		a, okA := pos[l.A]
		c, okB := pos[l.B]
		if !okA || !okB {
			continue
		}
		title := l.A + " — " + l.B
		if l.Label != "" {
			title += " (" + l.Label + ")"
		}
		fmt.Fprintf(&b, `<line class="link" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"><title>%s</title></line>`, a[0], a[1], c[0], c[1], esc(title))
	}
	b.WriteString(boxes.String())
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// splitStatements splits a line at ";" outside quoted labels.
func splitStatements(line string) []string {
	var out []string
	inQuote := false
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			inQuote = !inQuote
		case ';':
			if !inQuote {
				out = append(out, line[start:i])
				start = i + 1
			}
		}
	}
	return append(out, line[start:])
}
