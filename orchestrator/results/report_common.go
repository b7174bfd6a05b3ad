package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/jsonindent"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
)

// Report file names inside a run folder.
const (
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
	ReportJUnit    = "junit.xml"
)

// WriteReports writes run.json, report.md, report.html and junit.xml into
// dir, each atomically. topo is the lab's topology as mermaid flowchart text
// (what the fabric emitter writes to <lab>.mmd) or an empty string; the HTML
// report draws it as an SVG.
func WriteReports(dir string, run *Run, topo string) error {
	return writeReports(dir, run, topo, true)
}

// WriteRunReports is WriteReports beside a record that Store.SaveRun has
// just saved: run.json holds the run as it is, so only report.md,
// report.html and junit.xml are written.
func WriteRunReports(dir string, run *Run, topo string) error {
	return writeReports(dir, run, topo, false)
}

func writeReports(dir string, run *Run, topo string, record bool) error {
	if run == nil {
		return fmt.Errorf("write reports: nil run")
	}
	opts := HTMLOptions{TopologyMermaid: topo}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write reports for run %s: %w", run.RunID, exitcode.WriteFailed(dir, err))
	}
	// The record is synced to disk (WriteFileAtomic); the views rendered
	// from it are not, and are rendered straight into their files
	// (writeView).
	type renderer struct {
		name   string
		render func(io.Writer) error
	}
	if record {
		var b strings.Builder
		if err := RenderJSON(run, &b); err != nil {
			return fmt.Errorf("write %s for run %s: %w", RunFile, run.RunID, err)
		}
		if err := WriteFileAtomic(filepath.Join(dir, RunFile), []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("write reports for run %s: %w", run.RunID, exitcode.WriteFailed(filepath.Join(dir, RunFile), err))
		}
	}
	for _, r := range []renderer{
		{ReportMarkdown, func(w io.Writer) error { return RenderMarkdown(run, w) }},
		{ReportHTML, func(w io.Writer) error { return RenderHTML(run, w, opts) }},
		{ReportJUnit, func(w io.Writer) error { return RenderJUnit(run, w) }},
	} {
		path := filepath.Join(dir, r.name)
		err := writeView(path, 0o644, r.render)
		var re *renderError
		switch {
		case errors.As(err, &re):
			return fmt.Errorf("write %s for run %s: %w", r.name, run.RunID, re.err)
		case err != nil:
			return fmt.Errorf("write reports for run %s: %w", run.RunID, exitcode.WriteFailed(path, err))
		}
	}
	return nil
}

// RenderJSON writes the run record as indented JSON (the run.json shape).
func RenderJSON(run *Run, w io.Writer) error {
	data, err := jsonindent.Marshal(run)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// fmtFloat prints a metric compactly: integers without decimals, others
// with up to three significant decimals.
// idleTail says when the fabric of a packet-level variant stopped
// changing, where that is well before the end of its run: "nothing
// changed the fabric after 5866.7 µs" (Variant.LastEventUs), beside a
// record's "N µs simulated", which is the run's duration however soon
// its work ended; "" when the record has no last event (flow-level,
// older records) or it came in the run's last hundredth (a long-lived
// flow's last ACK lands just before the end: saying so tells a reader
// nothing).
func idleTail(v *Variant) string {
	if v.LastEventUs == nil || v.Model() == ModelFlow || *v.LastEventUs >= 0.99*v.SimulatedUs {
		return ""
	}
	return fmt.Sprintf("nothing changed the fabric after %s µs", fmtFloat(*v.LastEventUs))
}

func fmtFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	a := math.Abs(v)
	prec := 2
	switch {
	case a < 0.01:
		prec = 4
	case a < 1:
		prec = 3
	case a >= 1000:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func fmtInt(v int64) string { return strconv.FormatInt(v, 10) }

// maxFlowRows is how many flows a variant's flow table in the readable
// reports (markdown, HTML) shows: a lab of 1,024 GPUs records a flow per
// rank, more rows than anyone reads. run.json and the JSON report keep
// every flow (JUnit lists none).
const maxFlowRows = 32

// shownFlows are the flows of v's table in the readable reports, in the
// record's order, and the line saying which were left out ("" when none
// were). A variant of up to maxFlowRows flows shows them all; a larger one
// those a reader looks for, so that a regression stays in view: every
// failed flow first (the first maxFlowRows of them, if more failed), then
// every flow whose record says why it has no figures (Reason) and every
// latency probe without latency figures, then the worst flow of each role
// (so the victim at 40 Gb/s beside 63 incast senders at 6 is in), then,
// taking one from each ranking in turn until the table is full, the
// slowest (throughput), the longest to complete (FCT), the highest p99
// latency and the most retransmits (a flow's record counts no drops of
// its own: retransmits are what they cost it); flows none of these
// ranks, the first in the record. Ties keep the record's order. The note
// names only the ways that chose a row.
func shownFlows(runID string, v *Variant) ([]Flow, string) {
	fs := v.Flows
	if len(fs) <= maxFlowRows {
		return fs, ""
	}
	// Each ranking holds the indexes of the flows it orders, worst first.
	rank := func(has func(Flow) bool, worse func(a, b Flow) bool) []int {
		var idx []int
		for i, f := range fs {
			if has(f) {
				idx = append(idx, i)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return worse(fs[idx[a]], fs[idx[b]]) })
		return idx
	}
	none := func(a, b Flow) bool { return false }
	failed := rank(func(f Flow) bool { return f.State == FlowFailed }, none)
	noFigures := rank(func(f Flow) bool {
		return f.State != FlowFailed && (f.Reason != "" || (f.Pattern == PatternLatency && f.LatencyUs == nil))
	}, none)
	slowest := func(a, b Flow) bool { return a.ThroughputGbps < b.ThroughputGbps }
	highestP99 := func(a, b Flow) bool { return a.LatencyUs.P99 > b.LatencyUs.P99 }
	// A role's worst: its slowest flow, or for a role of latency probes
	// the one with no figures, else the highest p99.
	var roleWorst []int
	var roles []string
	byRole := map[string][]int{}
	for i, f := range fs {
		if f.Role == "" {
			continue
		}
		if _, ok := byRole[f.Role]; !ok {
			roles = append(roles, f.Role)
		}
		byRole[f.Role] = append(byRole[f.Role], i)
	}
	for _, role := range roles {
		worst := -1
		for _, i := range byRole[role] {
			f := fs[i]
			switch {
			case worst < 0:
				worst = i
			case f.HasThroughput() != fs[worst].HasThroughput():
				if f.HasThroughput() {
					worst = i // throughput ranks a mixed role
				}
			case f.HasThroughput():
				if slowest(f, fs[worst]) {
					worst = i
				}
			case fs[worst].LatencyUs == nil:
			case f.LatencyUs == nil || highestP99(f, fs[worst]):
				worst = i
			}
		}
		roleWorst = append(roleWorst, worst)
	}
	rankings := [][]int{
		rank(Flow.HasThroughput, slowest),
		rank(func(f Flow) bool { return f.FCTUs != nil }, func(a, b Flow) bool { return *a.FCTUs > *b.FCTUs }),
		rank(func(f Flow) bool { return f.LatencyUs != nil }, highestP99),
		rank(func(f Flow) bool { return f.Retransmits != nil && *f.Retransmits > 0 }, func(a, b Flow) bool { return *a.Retransmits > *b.Retransmits }),
	}
	keep := make(map[int]bool, maxFlowRows)
	// took says whether a way of choosing added a row, for the note.
	take := func(idx []int) (took bool) {
		for _, i := range idx {
			if len(keep) == maxFlowRows {
				break
			}
			if !keep[i] {
				keep[i], took = true, true
			}
		}
		return took
	}
	tookFailed, tookNoFigures, tookRoles := take(failed), take(noFigures), take(roleWorst)
	tookRanked := false
	for next := make([]int, len(rankings)); len(keep) < maxFlowRows; {
		took := false
		for r, idx := range rankings {
			for next[r] < len(idx) && keep[idx[next[r]]] {
				next[r]++
			}
			if next[r] < len(idx) && len(keep) < maxFlowRows {
				keep[idx[next[r]]] = true
				took = true
			}
		}
		if !took {
			break // no ranking orders the rest: the first in the record fill up
		}
		tookRanked = true
	}
	tookFirst := false
	for i := 0; len(keep) < maxFlowRows; i++ {
		if !keep[i] {
			keep[i], tookFirst = true, true
		}
	}
	shown := make([]Flow, 0, maxFlowRows)
	for i, f := range fs {
		if keep[i] {
			shown = append(shown, f)
		}
	}
	var ways []string
	if len(failed) > maxFlowRows {
		ways = append(ways, fmt.Sprintf("the first %d failed flows (of %d)", maxFlowRows, len(failed)))
	} else {
		if tookFailed {
			ways = append(ways, "every failed flow")
		}
		if tookNoFigures {
			ways = append(ways, "every flow with a reason noted or a latency probe without figures")
		}
		if tookRoles {
			ways = append(ways, "the worst flow of each role")
		}
		if tookRanked {
			ways = append(ways, "in turn the slowest, the longest to complete, the highest p99 latency and the most retransmits")
		}
		if tookFirst {
			ways = append(ways, "the first others in the record")
		}
	}
	note := fmt.Sprintf("%d of the %d flows are left out of this table, which shows %s: %s, in the record's order. %s beside this report holds every flow ('labctl report %s -o json').",
		len(fs)-len(shown), len(fs), plural.N(len(shown), "flow"), strings.Join(ways, ", then "), RunFile, runID)
	return shown, note
}

// flowState is a flow's State column: "failed: <reason>", the reason a
// flow that did not fail gives for figures it lacks or took in part (a
// latency probe that posted none of its writes before the run ended), or
// "ok".
func flowState(f Flow) string {
	switch {
	case f.State == FlowFailed:
		return "failed: " + f.Reason
	case f.Reason != "":
		return f.Reason
	}
	return "ok"
}

// hasStateColumn says whether a flow table of these rows has a State
// column: where a flow failed (its figures are what it did before, which
// would read as a slow flow without it) or gives a reason for its figures
// (without it the table would show a probe's dashes and not say why).
func hasStateColumn(rows []Flow) bool {
	return slices.ContainsFunc(rows, func(f Flow) bool { return f.State == FlowFailed || f.Reason != "" })
}

// fmtIntOpt formats a figure that may be absent (nil): "–", never 0.
func fmtIntOpt(v *int64) string {
	if v == nil {
		return "–"
	}
	return fmtInt(*v)
}

// SourceLabel is how every output names where a variant's figures came
// from, by their source and the variant's model (Variant.Model): measured,
// simulated (packet by packet), or "estimated, flow-level" (the
// flow-level model estimates steady rates; it simulates no packet).
func SourceLabel(s Source, model string) string {
	if Origin(s, model) == Estimated {
		return flowLevelLabel
	}
	return string(s)
}

// flowLevelLabel is SourceLabel's name for the flow-level model's figures.
const flowLevelLabel = "estimated, flow-level"

// sourceWords says in words what SourceLabel names, for a reader who
// meets the label for the first time.
var sourceWords = map[string]string{
	string(Measured):  "measured on the live lab",
	string(Simulated): "simulated packet by packet",
	flowLevelLabel:    "estimated by the flow-level model",
}

// FiguresText says how the figures of a run's variants were obtained, in
// words, each way once in the variants' order: "simulated packet by
// packet", "measured on the live lab, estimated by ...". labctl run's
// summary prints it under the table.
func FiguresText(run *Run) string {
	var out []string
	for _, v := range run.Variants {
		if v.Error != "" || v.Summary.Source == "" {
			continue
		}
		l := v.SourceLabel()
		if w, ok := sourceWords[l]; ok {
			l = w
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, ", ")
}

// sourcesOf lists the distinct sources of a variant's numbers, so a report
// can say "measured", "simulated" or "measured + simulated".
func sourcesOf(v Variant) string {
	seen := map[string]bool{}
	add := func(s Source) {
		if s != "" {
			seen[SourceLabel(s, v.Model())] = true
		}
	}
	add(v.Summary.Source)
	for _, f := range v.Flows {
		add(f.Source)
	}
	for _, c := range v.Counters {
		add(c.Source)
	}
	if v.NCCL != nil && v.NCCL.Source != "" {
		// A simulated nccl-tests table is packet-level whatever model
		// ran the variant's other traffic.
		seen[ncclSourceLabel(v.NCCL)] = true
	}
	return joinSources(seen)
}

// runSources names the sources of a run's figures; a flow-level run says
// what its model leaves out.
func runSources(run *Run) string {
	seen := map[string]bool{}
	flow := false
	for _, v := range run.Variants {
		flow = flow || v.Model() == ModelFlow
		for _, s := range strings.Split(sourcesOf(v), " + ") {
			if s != "" && s != "unknown" {
				seen[s] = true
			}
		}
	}
	out := joinSources(seen)
	if flow {
		out += " (" + FlowModelCaveat + ")"
	}
	return out
}

func joinSources(seen map[string]bool) string {
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "unknown"
	}
	return strings.Join(out, " + ")
}

// sourceClass turns a source label into a CSS class suffix.
func sourceClass(label string) string { return sourceClassReplacer.Replace(label) }

var sourceClassReplacer = strings.NewReplacer(", ", "-", " + ", "-", " ", "-")

func assertionCounts(run *Run) (total, failed int) {
	for _, v := range run.Variants {
		for _, a := range v.Assertions {
			total++
			if !a.Passed {
				failed++
			}
		}
	}
	return total, failed
}

// erroredVariants counts the variants that could not run to completion.
func erroredVariants(run *Run) int {
	n := 0
	for _, v := range run.Variants {
		if v.Error != "" {
			n++
		}
	}
	return n
}

func fmtTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func duration(run *Run) string {
	if run.Finished == nil {
		return ""
	}
	return run.Finished.Sub(run.Started).Round(time.Second).String()
}

// latencyStats is a variant's median flow p50 latency, its p99 (the
// summary's, else the highest of its flows') and the highest flow
// maximum; ok false without any latency. The median and the maximum are
// NaN where no flow has a latency of its own, as a packet-level ring
// allreduce's flows have none beside the summary's p99: a figure not
// computed is no bar, where the median read 0 µs and the maximum the p99.
func latencyStats(v Variant) (p50, p99, max float64, ok bool) {
	var p50s []float64
	for _, f := range v.Flows {
		if f.LatencyUs == nil {
			continue
		}
		p50s = append(p50s, f.LatencyUs.P50)
		p99 = math.Max(p99, f.LatencyUs.P99)
		max = math.Max(max, f.LatencyUs.Max)
	}
	if v.Summary.LatencyUsP99 > 0 {
		p99 = v.Summary.LatencyUsP99
	}
	if len(p50s) == 0 && p99 == 0 {
		return 0, 0, 0, false
	}
	if len(p50s) == 0 {
		return math.NaN(), p99, math.NaN(), true
	}
	sort.Float64s(p50s)
	n := len(p50s)
	p50 = p50s[n/2]
	if n%2 == 0 {
		p50 = (p50s[n/2-1] + p50s[n/2]) / 2
	}
	if max < p99 {
		max = p99
	}
	return p50, p99, max, true
}

// fmtJain prints a fairness index with three decimals: 0.9996 must not
// read as a perfect 1.
func fmtJain(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// extraOrigin says how the scenario details (Run.Extra, which the
// scenario runner fills before any variant runs: the lab's facts and a
// ring allreduce's closed-form model) were obtained, which the reports
// said of every other figure and not of these.
const extraOrigin = "Computed from the lab and the scenario before any variant ran (the lab's MTU, NIC speed and ideal goodput; a ring allreduce's theoretical times: closed-form), neither computed by the simulator nor measured on a live lab."

// extraJSON renders the scenario-specific results readably: indented,
// an array of numbers or strings on one line as run.json has it
// (jsonindent: 1024gpu's allreduce crossing_spine_per_round, 2,046 rounds,
// was 2,046 lines of the report), and without escaping "->" in flow ids
// (the renderers escape for their format).
func extraJSON(run *Run) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(run.Extra); err != nil {
		return "", err
	}
	return string(jsonindent.Append(nil, []byte(strings.TrimSuffix(b.String(), "\n")))), nil
}

// nicSettings describes the NIC settings of a run's variants for the
// reports: one table when every variant ran with the same parameters (the
// usual case: only DCQCN's on/off follows ECN), else one per variant
// group. Runs recorded before NIC settings were kept have none.
type nicSettings struct {
	// Label says which variants the table is for and the DCQCN preset.
	Label  string
	Params []nic.Param
}

func runNICSettings(run *Run) []nicSettings {
	type group struct {
		preset   string
		variants []string
		params   []nic.Param
	}
	var groups []*group
	for _, v := range run.Variants {
		if v.NIC == nil {
			continue
		}
		preset := v.NIC.DCQCN
		var g *group
		for _, x := range groups {
			if slices.Equal(x.params, v.NIC.Params) {
				g = x
				break
			}
		}
		if g == nil {
			g = &group{params: v.NIC.Params}
			groups = append(groups, g)
		}
		if preset != "off" {
			g.preset = preset
		}
		if !slices.Contains(g.variants, v.Name) {
			g.variants = append(g.variants, v.Name)
		}
	}
	out := make([]nicSettings, 0, len(groups))
	for _, g := range groups {
		label := "DCQCN preset " + g.preset + " with these parameters (variants without ECN get no CNPs, so their NICs stay at line rate)"
		if g.preset == "" {
			label = "no variant had ECN, so DCQCN never acted; the NICs' parameters were"
		}
		if len(groups) > 1 {
			label = "variants " + strings.Join(g.variants, "; ") + ": " + label
		}
		out = append(out, nicSettings{Label: label, Params: g.params})
	}
	return out
}

// dropsCell is a counter's drops, with the parts lost to a link going
// down, for want of a route and in a routing loop, the part a PFC watchdog
// dropped, and the watchdog's storms.
func dropsCell(c Counter) string {
	out := fmtInt(c.Drops)
	var parts []string
	if c.LinkDrops > 0 {
		parts = append(parts, "link down "+fmtInt(c.LinkDrops))
	}
	if c.RouteDrops > 0 {
		parts = append(parts, "no route "+fmtInt(c.RouteDrops))
	}
	if c.LoopDrops > 0 {
		parts = append(parts, "routing loop "+fmtInt(c.LoopDrops))
	}
	if c.MTUDrops > 0 {
		parts = append(parts, "over the port's MTU "+fmtInt(c.MTUDrops))
	}
	if c.WatchdogDrops > 0 {
		parts = append(parts, "watchdog "+fmtInt(c.WatchdogDrops))
	}
	if c.WatchdogStorms > 0 {
		parts = append(parts, fmt.Sprintf("watchdog storms %d, restored %d", c.WatchdogStorms, c.WatchdogRestores))
	}
	if len(parts) > 0 {
		out += " (" + strings.Join(parts, "; ") + ")"
	}
	return out
}

// qosView is the report's section on the switches' QoS: what each switch
// did with the classes RoCE uses (from the run's resolved configs), what
// each kind of variant changed, and what lint said.
type qosView struct {
	Note string
	// Buffers are the switches' buffer pools, one line a set of switches
	// with the same: what bounds the lossy classes' queues and when PFC
	// pauses, which the class table does not say.
	Buffers []string
	Headers []string
	Rows    [][]string
	Lint    string
	Issues  []string
}

// runQoSView builds the section; nil for a record without the switches'
// QoS (made before it was kept, or configs that did not load).
func runQoSView(run *Run) *qosView {
	if len(run.Classes) == 0 {
		return nil
	}
	v := &qosView{
		Note: "What each switch did with the classes RoCE and the scenario's traffic use, from its configs as the run found them (resolved with the NOS's defaults: `labctl config show` prints the same). " +
			"Variants with ECN and PFC on ran these; ecn=off removed ECN marking from every queue, pfc=off removed PFC, the PFC watchdog and the lossless PG profiles; a sweep's points add their values (see Configs per point).",
		Headers: []string{"Switch", "Ports", "TC", "DSCP", "PFC", "Lossless", "PG headroom (B)", "XOFF at", "Queue", "Pause stops queue", "Scheduler", "ECN", "WRED drop", "PFC watchdog"},
	}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	// Switches whose row is the same but for its switch share one row
	// naming them (1024gpu: 5 rows, where 48 switches had 128), at the
	// place of the first: one set otherwise stands out in its own.
	at := map[string]int{}
	var switches [][]string
	for _, r := range run.Classes {
		hr := "-"
		if r.Headroom > 0 {
			hr = fmtFloat(float64(r.Headroom))
		}
		row := []string{r.Device, r.Ports, fmt.Sprint(r.TC), dash(r.DSCPs), yes(r.PFC), yes(r.Lossless), hr, dash(r.XOFF),
			fmt.Sprint(r.Queue), fmt.Sprint(r.PausedQueue), dash(r.Scheduler), dash(r.ECN), dash(r.Drop), dash(r.Watchdog)}
		k := strings.Join(row[1:], "\x00")
		if i, ok := at[k]; ok && !slices.Contains(switches[i], r.Device) {
			switches[i] = append(switches[i], r.Device)
			continue
		}
		at[k] = len(v.Rows)
		v.Rows = append(v.Rows, row)
		switches = append(switches, []string{r.Device})
	}
	for i, sw := range switches {
		v.Rows[i][0] = qos.DeviceRanges(sw, 0)
	}
	v.Buffers = bufferLines(run.QoS)
	if l := run.Lint; l != nil {
		v.Lint = fmt.Sprintf("`labctl config lint` found %s and %s in these configs.", plural.N(l.Errors, "error"), plural.N(l.Warnings, "warning"))
		// A cause on many switches is one issue (qos.GroupDevices).
		for _, g := range qos.GroupDevices(l.Findings) {
			v.Issues = append(v.Issues, fmt.Sprintf("%s %s %s: %s", g.Severity, g.Rule, g.ShortPlace(), g.Message))
		}
	}
	return v
}

// movedFlow is a flow that link faults sent elsewhere: its route at the
// start and at the end of the run, as routeText writes them.
type movedFlow struct {
	ID, Before, After string
}

// movedFlows lists the variant's flows whose routes faults changed.
func movedFlows(v Variant) []movedFlow {
	var out []movedFlow
	for _, f := range v.Flows {
		if f.PathAfterFaults == nil && f.RouteAfterFaults == nil && !f.UnreachableAfterFaults {
			continue
		}
		out = append(out, movedFlow{ID: f.ID, Before: routeText(f.Path, f.Route, false), After: routeText(f.PathAfterFaults, f.RouteAfterFaults, f.UnreachableAfterFaults)})
	}
	return out
}

// routeText writes a flow's way as its source host, each switch's egress
// port, and its destination host ("host1 > leaf1:Ethernet128 >
// spine1:Ethernet4 > leaf2:Ethernet0 > host5"); a way that does not
// arrive ends at the switch without a route. Without routes (older
// records) it is the path's nodes.
func routeText(path, route []string, unreachable bool) string {
	if len(path) == 0 {
		return "–"
	}
	if len(route) == 0 && !unreachable {
		return strings.Join(path, " > ")
	}
	parts := append([]string{path[0]}, route...)
	switch {
	case unreachable && len(path) > len(route)+1:
		parts = append(parts, path[len(route)+1]+" (no route)")
	case unreachable:
		parts[len(parts)-1] += " (loop)"
	default:
		parts = append(parts, path[len(path)-1])
	}
	return strings.Join(parts, " > ")
}

// SizedFlowsNote says how the summary's throughput total reads where flows
// have sizes, and what the completion columns are: every output with
// those columns prints it (labctl run's summary, Markdown, HTML).
const SizedFlowsNote = "Throughput total sums each flow's goodput; a sized flow's is its bytes over its own completion time, so flows finishing at different times can sum to more than a port. Done and aggregate: once every sized flow completed, the last completion and all bytes x 8 over it."

// AnySized says whether a variant of the run (or its simulated twin) has
// a completion time: every flow had a size and completed. The summaries
// then carry the completion columns.
func AnySized(run *Run) bool {
	for _, v := range run.Variants {
		if v.Summary.CompletionUs != nil || v.Simulated != nil && v.Simulated.Summary.CompletionUs != nil {
			return true
		}
	}
	return false
}

// withCompletion adds a summary row's completion time and aggregate
// goodput to its cells (summaryCells), "–" where the variant has none.
func withCompletion(cells []string, s Summary, failed bool) []string {
	done, agg := "–", "–"
	switch {
	case failed:
		done, agg = "—", "—"
	case s.CompletionUs != nil && s.GoodputGbpsAggregate != nil:
		done, agg = fmtFloat(*s.CompletionUs), fmtFloat(*s.GoodputGbpsAggregate)
	}
	return append(cells, done, agg)
}

// RepetitionSeeds says, for the outputs that show repetitions, how a
// repetition's number, label and seed go together: the record's
// repetition r (from 0) is labelled #r+1 from the second on and ran at
// the run's seed + r.
func RepetitionSeeds(seed int64) string {
	return fmt.Sprintf("repetition r, labelled #r+1 from the second, at seed %d + r", seed)
}

// bufferLines names each set of switches with the same buffer pools, as
// their ranges (qos.DeviceRanges), and the pools: "leaf1-32, spine1:
// ingress_lossless_pool 20627456 B (ingress, dynamic), ...". A switch whose config sets none has those its
// NOS assumes (EOS: a platform's, see 'labctl config show'), so two runs
// of one lab on two NOSes show here the buffer each stood on.
func bufferLines(settings []qos.Settings) []string {
	var order []string
	devices := map[string][]string{}
	for _, st := range settings {
		pools := st.Pools()
		if len(pools) == 0 {
			continue
		}
		var parts []string
		for _, pl := range pools {
			desc := pl.Name + " " + orDashB(pl.SizeBytes)
			var attrs []string
			for _, a := range []string{pl.Type, pl.Mode} {
				if a != "" {
					attrs = append(attrs, a)
				}
			}
			if pl.HeadroomPoolBytes != "" {
				attrs = append(attrs, "shared headroom "+pl.HeadroomPoolBytes+" B")
			}
			if len(attrs) > 0 {
				desc += " (" + strings.Join(attrs, ", ") + ")"
			}
			parts = append(parts, desc)
		}
		key := strings.Join(parts, "; ")
		if _, ok := devices[key]; !ok {
			order = append(order, key)
		}
		devices[key] = append(devices[key], st.Device)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, "Buffer pools of "+qos.DeviceRanges(devices[k], 0)+": "+k+".")
	}
	return out
}

// orDashB is a byte count, or "-" where the config gives none.
func orDashB(s string) string {
	if s == "" {
		return "-"
	}
	return s + " B"
}
