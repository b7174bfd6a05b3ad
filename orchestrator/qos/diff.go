package qos

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Difference is one intent-level difference between two config sets.
// A and B are "" when the field is absent on that side.
type Difference struct {
	Device string `json:"device"`
	Field  string `json:"field"`
	A      string `json:"a"`
	B      string `json:"b"`
}

// Diff compares two config sets device by device (matched by name) and
// field by field, in the intent's terms (a DSCP mapping, a port's PFC
// priorities, a queue's ECN thresholds), not as text. A device present on
// one side only is one difference with field "device".
func Diff(a, b []DeviceConfig) []Difference {
	am := map[string]*DeviceConfig{}
	bm := map[string]*DeviceConfig{}
	for i := range a {
		am[a[i].Device] = &a[i]
	}
	for i := range b {
		bm[b[i].Device] = &b[i]
	}
	names := map[string]bool{}
	for n := range am {
		names[n] = true
	}
	for n := range bm {
		names[n] = true
	}
	var out []Difference
	for _, n := range slices.Sorted(maps.Keys(names)) {
		da, db := am[n], bm[n]
		switch {
		case da == nil:
			out = append(out, Difference{Device: n, Field: "device", B: "present"})
			continue
		case db == nil:
			out = append(out, Difference{Device: n, Field: "device", A: "present"})
			continue
		}
		fa, fb := Flatten(da), Flatten(db)
		keys := map[string]bool{}
		for k := range fa {
			keys[k] = true
		}
		for k := range fb {
			keys[k] = true
		}
		ks := slices.Collect(maps.Keys(keys))
		slices.SortFunc(ks, func(x, y string) int {
			if PortLess(x, y) {
				return -1
			}
			if PortLess(y, x) {
				return 1
			}
			return 0
		})
		for _, k := range ks {
			if fa[k] != fb[k] {
				out = append(out, Difference{Device: n, Field: k, A: fa[k], B: fb[k]})
			}
		}
	}
	return out
}

// Flatten turns a device config into field -> value, with field names such
// as "dscp_to_tc.26", "port.Ethernet0.pfc_priorities" and
// "port.Ethernet0.queue.3.ecn.min_bytes". Unknown (zero) values are left
// out so that a file that does not say something does not differ from one
// that says it is unknown.
func Flatten(d *DeviceConfig) map[string]string {
	f := map[string]string{}
	put := func(k string, v string) {
		if v != "" {
			f[k] = v
		}
	}
	num := func(k string, v int64) {
		if v != 0 {
			f[k] = strconv.FormatInt(v, 10)
		}
	}
	for k, v := range d.DSCPToTC {
		put(fmt.Sprintf("dscp_to_tc.%d", k), strconv.Itoa(v))
	}
	for k, v := range d.TCToQueue {
		put(fmt.Sprintf("tc_to_queue.%d", k), strconv.Itoa(v))
	}
	for k, v := range d.TCToPG {
		put(fmt.Sprintf("tc_to_pg.%d", k), strconv.Itoa(v))
	}
	num("shared_pool_bytes", d.SharedPoolBytes)
	num("watchdog_poll_ms", int64(d.WatchdogPollMs))
	for _, p := range d.Ports {
		pre := "port." + p.Name + "."
		f[pre+"pfc_priorities"] = "[" + FormatInts(p.PFCPriorities) + "]"
		num(pre+"speed_gbps", int64(p.SpeedGbps))
		num(pre+"cable_m", int64(p.CableM))
		num(pre+"mtu", int64(p.MTU))
		for k, v := range p.DSCPToTC {
			put(fmt.Sprintf("%sdscp_to_tc.%d", pre, k), strconv.Itoa(v))
		}
		if w := p.Watchdog; w != nil {
			put(pre+"pfc_watchdog", fmt.Sprintf("detection=%dms restoration=%dms action=%s", w.DetectionMs, w.RestorationMs, w.Action))
		} else {
			put(pre+"pfc_watchdog", "off")
		}
		for _, q := range p.Queues {
			qp := fmt.Sprintf("%squeue.%d.", pre, q.Queue)
			if q.Strict {
				put(qp+"scheduler", "strict")
			} else {
				put(qp+"scheduler", fmt.Sprintf("weight %d", q.Weight))
			}
			if e := q.ECN; e != nil {
				unit := e.Unit
				if unit == "" {
					unit = "bytes"
				}
				put(qp+"ecn", fmt.Sprintf("min=%d max=%d %s pmax=%s", e.MinBytes, e.MaxBytes, unit, strconv.FormatFloat(e.Pmax, 'g', -1, 64)))
			} else {
				put(qp+"ecn", "off")
			}
		}
		for _, pg := range p.PGs {
			pp := fmt.Sprintf("%spg.%d.", pre, pg.PG)
			put(pp+"lossless", strconv.FormatBool(pg.Lossless))
			profileFields(pp, pg.BufferProfile, put)
		}
		for _, q := range p.Queues {
			if q.Buffer != nil {
				profileFields(fmt.Sprintf("%squeue.%d.buffer.", pre, q.Queue), *q.Buffer, put)
			}
		}
	}
	for _, pl := range d.Pools {
		pp := "pool." + pl.Name + "."
		put(pp+"type", pl.Type)
		put(pp+"mode", pl.Mode)
		put(pp+"size_bytes", strconv.FormatInt(pl.SizeBytes, 10))
		optNum(pp+"headroom_pool_bytes", pl.HeadroomPoolBytes, put)
	}
	return f
}

// profileFields flattens a buffer profile; a field the config sets to 0
// shows as 0, one it leaves out not at all.
func profileFields(pre string, b BufferProfile, put func(k, v string)) {
	put(pre+"pool", b.Pool)
	optNum(pre+"size_bytes", b.SizeBytes, put)
	optNum(pre+"static_th_bytes", b.StaticThBytes, put)
	optNum(pre+"xoff_bytes", b.XoffBytes, put)
	optNum(pre+"xon_bytes", b.XonBytes, put)
	optNum(pre+"xon_offset_bytes", b.XonOffsetBytes, put)
	if b.DynamicTh != nil {
		put(pre+"dynamic_th", strconv.Itoa(*b.DynamicTh))
	}
}

func optNum(k string, v *int64, put func(k, v string)) {
	if v != nil {
		put(k, strconv.FormatInt(*v, 10))
	}
}

// DiffGroup is one change found on several ports or devices: the same
// field (ports named "*") going from the same A to the same B.
type DiffGroup struct {
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
	// Count is how many ports (for a port field) or devices it is on.
	Count   int      `json:"count"`
	Devices []string `json:"devices"`
}

// GroupDiff summarises differences: a change made on every port of a
// fabric (a swept Kmin) is one line, not one per port. Groups keep the
// order of their first difference.
func GroupDiff(ds []Difference) []DiffGroup {
	var out []DiffGroup
	at := map[[3]string]int{}
	for _, d := range ds {
		field := d.Field
		if rest, ok := strings.CutPrefix(field, "port."); ok {
			if _, after, ok := strings.Cut(rest, "."); ok {
				field = "port.*." + after
			}
		}
		key := [3]string{field, d.A, d.B}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, DiffGroup{Field: field, A: d.A, B: d.B})
		}
		g := &out[i]
		g.Count++
		if !slices.Contains(g.Devices, d.Device) {
			g.Devices = append(g.Devices, d.Device)
		}
	}
	return out
}

// FormatDiff renders differences as aligned text lines.
func FormatDiff(ds []Difference) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", d.Device, d.Field, orDash(d.A), orDash(d.B))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
