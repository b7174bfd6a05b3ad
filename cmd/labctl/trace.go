package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
)

// maxListedCandidates bounds the ECMP candidates printed per switch.
const maxListedCandidates = 16

func newTraceCmd(app *App) *cobra.Command {
	var (
		nos   string
		sport uint16
		seed  uint64
		down  []string
	)
	cmd := &cobra.Command{
		Use:   "trace <lab> <src> <dst>",
		Short: "Show the path, hop counts and ECMP choice of a flow between two GPUs or hosts",
		Long: `trace follows one RoCE v2 flow (UDP, destination port 4791) through the lab's
fabric. src and dst are GPU numbers (0-based: GPU g is NIC g%gpus_per_server
of server g/gpus_per_server+1), hosts (host3 = its NIC 0) or host NICs
(host3:2). Routes are those the lab's eBGP underlay converges to (RFC 7938:
shortest AS path, ECMP over every equal one, no path holding a switch's own
ASN), the routes the simulator forwards on. The AS path shown is the first
switch's route as its RIB holds it: the next AS first, the destination
leaf's last, not the switch's own ASN (a router adds it only when it
advertises the route), and none when the destination is on that switch. At every switch with several
equal-cost next hops it shows the candidates and the one the flow hash
picks. The hash is seeded fabric-wide with --hash-seed: a simulated run
with --seed N routes its flows and collectives exactly as a trace with
--hash-seed N shows (both default to 1), and other seeds sample other ECMP
collisions. Hop counts are given both ways: switches crossed (Leaf ->
Spine -> Leaf = 3) and end to end (NIC -> Leaf -> Spine -> Leaf -> NIC = 4).

-o json carries schema_version 1. Its hop counts are null for an
unreachable destination, and a hop's hash is there only where the switch
chose among several next hops, its chosen index only where it has a route.

--down takes links out first, as a scenario's link faults name them:
node:port is one link (node:port.m member m of a merged one), node-node
every link between the two nodes. The trace then shows the path once
routes have converged without them, or says that the destination is
unreachable and why (exit 1): under eBGP a failure can partition a fabric
that still has a path of links, when every such path crosses one ASN
twice.`,
		Example: `  labctl trace 64gpu 0 31
  labctl trace 64gpu 0 32 --sport 50000
  labctl trace 128gpu host1:3 host9:3 -o json
  labctl trace 128gpu 0 32 --down leaf1-spine1
  labctl trace 64gpu 0 32 --down leaf1:Ethernet128`,
		Args: exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			g, _, err := labGraph(app, args[0], nos)
			if err != nil {
				return err
			}
			src, err := g.ParseEndpoint(args[1])
			if err != nil {
				return exitcode.Usagef("source: %v", err)
			}
			dst, err := g.ParseEndpoint(args[2])
			if err != nil {
				return exitcode.Usagef("destination: %v", err)
			}
			if src == dst {
				return exitcode.Usagef("source and destination are the same NIC %s: give two different GPUs or NICs", src)
			}
			flow, err := g.FlowKeyFor(src, dst, sport)
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			var members []fabric.LinkMember
			for _, d := range down {
				lms, err := g.DownByName([]string{d})
				if err != nil {
					return exitcode.Usagef("--down %s: %v", d, err)
				}
				members = append(members, lms...)
			}
			path, err := g.TraceDown(src, dst, flow, seed, members)
			partial, unreachable := fabric.IsUnreachable(err)
			if err != nil && !unreachable {
				return fmt.Errorf("trace %s: %w", g.Name, err)
			}
			if unreachable {
				path = partial
			}
			if format == "json" {
				err = writeJSON(app.Out, traceJSONOf(path))
			} else {
				err = writeTrace(app.Out, g, path)
			}
			if err == nil && unreachable {
				// What was checked (can the flow get there?) failed.
				return exitcode.Failedf("trace %s: %s -> %s is unreachable with %s down", g.Name, src, dst, strings.Join(down, ", "))
			}
			return err
		},
	}
	cmd.Flags().StringVar(&nos, "nos", "", "switch NOS: sonic or eos (default: the lab's; changes port names only)")
	cmd.Flags().Uint64Var(&seed, "hash-seed", 1, "fabric-wide ECMP hash seed; labctl run --seed N routes its flows as --hash-seed N shows")
	cmd.Flags().Uint16Var(&sport, "sport", fabric.DefaultSourcePort, "UDP source port of the flow (RoCE v2 varies it per QP; it changes the ECMP choice)")
	cmd.Flags().StringArrayVar(&down, "down", nil, "a link to take down first (repeatable): node:port for one link, node-node for every link between two nodes")
	return cmd
}

// traceSchemaVersion is the version of trace -o json's shape.
const traceSchemaVersion = 1

// traceJSON is trace -o json: fabric.Path with schema_version, and without
// the figures a path that does not arrive has not got. The hop counts of
// an unreachable destination are null (the partial path's lengths would
// read as a path's), and a hop's ECMP hash and choice are absent where
// the switch made no choice: hash 0 or chosen 0 would read as computed.
type traceJSON struct {
	SchemaVersion int             `json:"schema_version"`
	Src           fabric.Endpoint `json:"src"`
	Dst           fabric.Endpoint `json:"dst"`
	Flow          fabric.FlowKey  `json:"flow"`
	Hops          []traceHopJSON  `json:"hops"`
	Links         []int           `json:"links"`
	SwitchHops    *int            `json:"switch_hops"`
	EndToEndHops  *int            `json:"end_to_end_hops"`
	Down          []string        `json:"down,omitempty"`
	Unreachable   string          `json:"unreachable,omitempty"`
}

type traceHopJSON struct {
	Node string      `json:"node"`
	Role fabric.Role `json:"role"`
	In   string      `json:"in"`
	// Out is absent on a switch with no route.
	Out string `json:"out,omitempty"`
	// Candidates is empty on a switch with no route: it has no next hop.
	Candidates []fabric.Candidate `json:"candidates"`
	// Chosen is absent without a route, Hash with fewer than two
	// candidates (the switch hashes only to choose).
	Chosen *int    `json:"chosen,omitempty"`
	Hash   *uint64 `json:"hash,omitempty"`
	// ASPath is [] on the destination's own leaf (a connected route has
	// none), null on a switch with no route.
	ASPath []uint32 `json:"as_path"`
}

func traceJSONOf(p fabric.Path) traceJSON {
	// Lists are [] when empty (a source NIC whose link is down crosses
	// nothing): null is for what was not computed.
	out := traceJSON{SchemaVersion: traceSchemaVersion, Src: p.Src, Dst: p.Dst, Flow: p.Flow, Hops: []traceHopJSON{}, Links: p.Links, Down: p.Down, Unreachable: p.Unreachable}
	if out.Links == nil {
		out.Links = []int{}
	}
	if p.Unreachable == "" {
		out.SwitchHops, out.EndToEndHops = &p.SwitchHops, &p.EndToEndHops
	}
	for _, h := range p.Hops {
		j := traceHopJSON{Node: h.Node, Role: h.Role, In: h.In, Out: h.Out, Candidates: h.Candidates, ASPath: h.ASPath}
		if j.Candidates == nil {
			j.Candidates = []fabric.Candidate{}
		}
		if len(h.Candidates) > 0 {
			j.Chosen = &h.Chosen
		}
		if len(h.Candidates) > 1 {
			j.Hash = &h.Hash
		}
		out.Hops = append(out.Hops, j)
	}
	return out
}

func describeEndpoint(g *fabric.Graph, ep fabric.Endpoint) string {
	s := ep.String()
	if gpu, err := g.GPUOf(ep); err == nil {
		s = fmt.Sprintf("GPU%d (%s)", gpu, s)
	}
	return s
}

func writeTrace(w io.Writer, g *fabric.Graph, p fabric.Path) error {
	var b strings.Builder
	pf := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	pf("%s -> %s in lab %s\n", describeEndpoint(g, p.Src), describeEndpoint(g, p.Dst), g.Name)
	pf("flow: udp %s:%d -> %s:%d\n", p.Flow.SrcIP, p.Flow.SrcPort, p.Flow.DstIP, p.Flow.DstPort)
	if len(p.Down) > 0 {
		pf("down: %s\n", summarizeDown(p.Down))
	}
	pf("path: %s\n", strings.Join(p.Nodes(), " -> "))
	if p.Src.Host == p.Dst.Host {
		// The trace answers for the NICs; a collective library carries
		// this pair over the server's scale-up domain instead.
		pf("note: both NICs are on server %s: this is the fabric's path between them, which NCCL and the like do not take for its GPUs (they use the server's scale-up domain, NVLink)\n", p.Src.Host)
	}
	// The first switch's route as its RIB holds it: without its own ASN
	// (a router adds that only when it advertises), and no AS path at all
	// when the destination hangs off the switch itself.
	if len(p.Hops) > 0 && p.Hops[0].ASPath != nil {
		if h := p.Hops[0]; len(h.ASPath) == 0 {
			pf("as path: none (%s's route is connected: the destination is on %s)\n", h.Node, h.Node)
		} else {
			pf("as path: %s (%s's BGP route, as its RIB holds it)\n", asPath(h.ASPath), h.Node)
		}
	}
	for _, h := range p.Hops {
		if len(h.Candidates) == 0 {
			pf("  %-12s in %-12s no route\n", h.Node, h.In)
			continue
		}
		pf("  %-12s in %-12s out %-12s", h.Node, h.In, h.Out)
		if len(h.Candidates) == 1 {
			pf(" (only path)\n")
			continue
		}
		pf(" ECMP: candidate %d of %d (hash %#016x)\n", h.Chosen+1, len(h.Candidates), h.Hash)
		if c0 := h.Candidates[0]; c0.Merged == len(h.Candidates) && sameLabPort(h.Candidates) {
			// The lab merged these parallel plan links into one; the plan
			// still hashes over each of them.
			pf("      all %d are parallel %s-%s links of the plan, merged into lab port %s; the hash picks link %d\n",
				len(h.Candidates), h.Node, c0.Peer, c0.Port, h.Candidates[h.Chosen].Member)
			continue
		}
		shown := 0
		for i, c := range h.Candidates {
			if i >= maxListedCandidates && i != h.Chosen {
				continue
			}
			mark := " "
			if i == h.Chosen {
				mark = "*"
			}
			pf("    %s %2d. %s\n", mark, i+1, c)
			shown++
		}
		if shown < len(h.Candidates) {
			pf("      (%d more not shown)\n", len(h.Candidates)-shown)
		}
	}
	if p.Unreachable != "" {
		pf("unreachable: %s\n", p.Unreachable)
		_, err := io.WriteString(w, b.String())
		return err
	}
	roles := []string{"NIC"}
	for _, h := range p.Hops {
		roles = append(roles, roleTitle(h.Role))
	}
	roles = append(roles, "NIC")
	kind := "cross leaf"
	if p.SwitchHops == 1 {
		kind = "same leaf"
	}
	hops := "switch hops"
	if p.SwitchHops == 1 {
		hops = "switch hop"
	}
	pf("hops: %d %s (%s), %d end to end (%s); %s\n",
		p.SwitchHops, hops, strings.Join(roles[1:len(roles)-1], " -> "), p.EndToEndHops, strings.Join(roles, " -> "), kind)
	_, err := io.WriteString(w, b.String())
	return err
}

func roleTitle(r fabric.Role) string {
	switch r {
	case fabric.RoleLeaf:
		return "Leaf"
	case fabric.RoleSpine:
		return "Spine"
	case fabric.RoleSuperSpine:
		return "SuperSpine"
	}
	return string(r)
}

func sameLabPort(cs []fabric.Candidate) bool {
	for _, c := range cs {
		if c.Port != cs[0].Port || c.Peer != cs[0].Peer {
			return false
		}
	}
	return true
}

// asPath prints an AS path as BGP shows it.
func asPath(asns []uint32) string {
	parts := make([]string, len(asns))
	for i, a := range asns {
		parts[i] = strconv.FormatUint(uint64(a), 10)
	}
	return strings.Join(parts, " ")
}

// summarizeDown lists the links a trace took down, shortened when many.
func summarizeDown(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, ... %s (%d links)", strings.Join(names[:2], ", "), names[len(names)-1], len(names))
}
