package qos

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// ClassRow is what a switch does with one traffic class on a group of
// ports that treat it alike: the answer of `show pfc priority`, `show
// buffer configuration` and `show queue wred` in one line, from the
// resolved model (Class, Admit). `labctl config show` prints these rows,
// and run records and reports keep them for the classes RoCE uses.
type ClassRow struct {
	Device string `json:"device"`
	// Ports are the port ranges ("Ethernet0-60") the row holds for;
	// PortCount how many ports that is.
	Ports     string `json:"ports"`
	PortCount int    `json:"port_count"`
	TC        int    `json:"tc"`
	// DSCPs are the DSCPs classified into the class ("26", "0-25,27-45";
	// "cos N" when the port does not trust DSCP), Trust the port's mode.
	DSCPs string `json:"dscps"`
	Trust string `json:"trust"`
	// PFC, Lossless and PG as Class gives them; Headroom the bytes the PG
	// absorbs after XOFF, XOFF where it pauses ("alpha 1", "static 50000
	// B"), Reserved its guaranteed bytes.
	PFC      bool   `json:"pfc"`
	Lossless bool   `json:"lossless"`
	PG       int    `json:"pg"`
	Profile  string `json:"pg_profile,omitempty"`
	Headroom int64  `json:"headroom_bytes,omitempty"`
	XOFF     string `json:"xoff,omitempty"`
	Reserved int64  `json:"reserved_bytes,omitempty"`
	// Queue is the egress queue, PausedQueue the one a PFC frame for the
	// priority stops, Scheduler "strict" or "dwrr N" (", shaped 40 Gb/s"
	// with a shaper, ", port shaped 100 Gb/s" on a shaped port), ECN the
	// marking
	// thresholds ("-" none), Drop WRED's early drop.
	Queue       int    `json:"queue"`
	PausedQueue int    `json:"paused_queue"`
	Scheduler   string `json:"scheduler"`
	ECN         string `json:"ecn"`
	Drop        string `json:"wred_drop,omitempty"`
	Egress      string `json:"egress_limit,omitempty"`
	Watchdog    string `json:"pfc_watchdog,omitempty"`
}

// ClassTable is a device's classes, ports grouped where every field of the
// row is the same. With classes nil every class is listed; otherwise only
// those. Only data ports are listed, unless port names one port.
func ClassTable(d *DeviceConfig, port string, classes []int) []ClassRow {
	type group struct {
		row   ClassRow
		ports []string
	}
	var order []string
	var groups []*group
	at := map[ClassRow]int{} // a row's fields are its key: all comparable
	for i := range d.Ports {
		p := &d.Ports[i]
		order = append(order, p.Name)
		if port != "" && p.Name != port || port == "" && !p.Fabric {
			continue
		}
		for tc := range NumTC {
			if classes != nil && !slices.Contains(classes, tc) {
				continue
			}
			r := classRow(d, p, tc)
			j, ok := at[r]
			if !ok {
				j = len(groups)
				at[r] = j
				groups = append(groups, &group{row: r})
			}
			groups[j].ports = append(groups[j].ports, p.Name)
		}
	}
	out := make([]ClassRow, 0, len(groups))
	for _, g := range groups {
		r := g.row
		r.Ports, r.PortCount = PortRanges(g.ports, order), len(g.ports)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b ClassRow) int {
		if a.TC != b.TC {
			return a.TC - b.TC
		}
		return ComparePorts(a.Ports, b.Ports)
	})
	return out
}

func classRow(d *DeviceConfig, p *PortConfig, tc int) ClassRow {
	c := p.Class(tc)
	r := ClassRow{Device: d.Device, TC: tc, Trust: p.Trust, PFC: c.PFC, Lossless: c.Lossless, PG: c.PG, Queue: c.Queue, PausedQueue: c.PausedQueue, ECN: "-"}
	// The DSCPs the class gets: by the trust mode (the DSCP map, or every
	// DSCP by the default CoS), and those an ingress policy gives it.
	byDSCP := p.TrustsDSCP()
	var mapped, policed []int
	for dscp := range 64 {
		if _, ok := p.PolicyTC[dscp]; ok {
			if p.PolicyTC[dscp] == tc {
				policed = append(policed, dscp)
			}
		} else if byDSCP && p.DSCPToTC[dscp] == tc {
			mapped = append(mapped, dscp)
		}
	}
	var parts []string
	switch {
	case len(mapped) > 0:
		parts = append(parts, intRanges(mapped))
	case !byDSCP && p.CoSToTC[p.DefaultCoS] == tc && len(p.PolicyTC) < 64:
		all := "all"
		if len(p.PolicyTC) > 0 {
			all = "all others"
		}
		parts = append(parts, all+" (cos "+strconv.Itoa(p.DefaultCoS)+")")
	}
	if len(policed) > 0 {
		parts = append(parts, intRanges(policed)+" by policy-map")
	}
	r.DSCPs = strings.Join(parts, ", ")
	// What the class's packets leave the port with (egress remarking).
	if to, ok := p.TCToDSCP[tc]; ok {
		if r.DSCPs != "" {
			r.DSCPs += ", "
		}
		r.DSCPs += "sent as " + strconv.Itoa(to)
	}
	if g := c.PGConfig; g != nil {
		a := d.Admit(&g.BufferProfile)
		r.Profile, r.Reserved, r.Headroom = g.Profile, a.ReservedBytes, a.HeadroomBytes
		r.XOFF = thresholdText(a)
	} else if p.BufferUnknown {
		r.Profile = "(not in the files read)"
	}
	if q := c.QueueConfig; q != nil {
		r.Scheduler = "dwrr " + strconv.Itoa(q.Weight)
		if q.Strict {
			r.Scheduler = "strict"
		}
		if q.Shaper != nil {
			r.Scheduler += ", shaped " + shaperText(q.Shaper)
		}
		if p.Shaper != nil {
			r.Scheduler += ", port shaped " + shaperText(p.Shaper)
		}
		if q.ECN != nil {
			r.ECN = wredShort(q.ECN)
		}
		if q.Drop != nil {
			r.Drop = wredShort(q.Drop)
		}
		if q.Buffer != nil {
			r.Egress = thresholdText(d.Admit(q.Buffer))
		} else if !p.BufferUnknown {
			r.Egress = "none"
		}
	}
	if w := c.Watchdog; w != nil {
		r.Watchdog = fmt.Sprintf("%d/%d ms %s", w.DetectionMs, w.RestorationMs, w.Action)
	}
	return r
}

// thresholdText says where an admission stops the shared use.
func thresholdText(a Admission) string {
	switch {
	case a.NoShared:
		return "no shared buffer"
	case a.StaticBytes > 0:
		return fmt.Sprintf("static %d B", a.StaticBytes)
	case a.Alpha > 0:
		return "alpha " + strconv.FormatFloat(a.Alpha, 'g', 4, 64)
	}
	return "none"
}

func wredShort(e *ECNConfig) string {
	unit := " B"
	if e.Unit != "" {
		unit = " " + e.Unit
	}
	return fmt.Sprintf("%d-%d%s p%s", e.MinBytes, e.MaxBytes, unit, strconv.FormatFloat(e.Pmax, 'g', -1, 64))
}

// intRanges writes sorted ints as "0-25,27-45,47".
func intRanges(v []int) string {
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(v[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", v[i], v[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ClassesOf are the traffic classes the DSCPs are classified into on a
// device's fabric ports, and every PFC priority (with the RoCE and CNP
// DSCPs: the classes RoCE uses; with a scenario's other traffic's too).
func ClassesOf(d *DeviceConfig, dscps ...int) []int {
	set := map[int]bool{}
	for i := range d.Ports {
		p := &d.Ports[i]
		if !p.Fabric {
			continue
		}
		for _, dscp := range dscps {
			if dscp >= 0 && dscp < 64 {
				set[p.TCOf(dscp)] = true
			}
		}
		for _, pr := range p.PFCPriorities {
			set[pr] = true
		}
	}
	var out []int
	for tc := range NumTC {
		if set[tc] {
			out = append(out, tc)
		}
	}
	return out
}

// WriteClassTable writes rows as an aligned table.
func WriteClassTable(w io.Writer, rows []ClassRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tPORTS\tTC\tDSCP\tPFC\tLOSSLESS\tPG\tHEADROOM\tXOFF AT\tQUEUE\tPAUSES\tSCHEDULER\tECN\tWRED DROP\tWATCHDOG")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", r.Device, r.Ports, r.TC, orDash(r.DSCPs), onOff(r.PFC), yesNo(r.Lossless),
			r.PG, bytesOrDash(r.Headroom), orDash(r.XOFF), r.Queue, r.PausedQueue, orDash(r.Scheduler), r.ECN, orDash(r.Drop), orDash(r.Watchdog))
	}
	return tw.Flush()
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func bytesOrDash(n int64) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}
