package clab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// SwitchVariant is what one live switch gets for a variant of a scenario.
type SwitchVariant struct {
	Device string
	// Full is the lab's QoS config parsed from the config file and
	// rendered again, and Variant the same with ECN or PFC removed, both by
	// the NOS renderer, so that they differ only by the variant. A push
	// goes from Full to Variant; the restore goes from Full to Full, which
	// puts back what the variant removed. What the QoS parser does not read
	// from the file (user additions) is in neither and is never touched.
	Full, Variant []byte
}

// VariantConfigs renders every switch's config of a variant: the lab's
// configs with the variant's swept QoS values on top and ECN or PFC
// removed (runtime.VariantConfigs), rendered by the NOS package.
func VariantConfigs(l *runtime.Lab, v runtime.VariantSpec) ([]SwitchVariant, error) {
	codec, err := runtime.Codec(l.NOS)
	if err != nil {
		return nil, err
	}
	full, variant, err := runtime.VariantConfigs(l, v)
	if err != nil {
		return nil, err
	}
	out := make([]SwitchVariant, 0, len(full))
	for i := range full {
		sv := SwitchVariant{Device: full[i].Device}
		// The renderer's errors name the NOS and the device.
		if sv.Full, err = codec.RenderQoS(full[i]); err != nil {
			return nil, err
		}
		if sv.Variant, err = codec.RenderQoS(variant[i]); err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		if !v.ChangesConfigs() {
			out = append(out, sv)
			continue
		}
		missing, err := runtime.Uncarried(codec, full[i], variant[i], sv.Full, sv.Variant)
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		if len(missing) > 0 {
			return nil, exitcode.Usagef("variant %s on lab %s: the %s config labctl writes for %s cannot carry these changes of the variant: %s; the live switch would run without them while the record says it ran them (fix: run this sweep on a lab brought up with --runtime sim, whose simulator takes them)",
				v.Name, l.Name, codec.Name(), sv.Device, strings.Join(missing, ", "))
		}
		out = append(out, sv)
	}
	return out, nil
}

// PushVariantOverSSH moves a switch from the lab's config (full) to a
// variant's (variant) and returns the running config read back.
//
// Neither NOS replaces a configuration by loading a partial one: SONiC's
// `config load` merges into CONFIG_DB and an EOS configuration session adds
// lines. So the removal is explicit:
//   - SONiC: CONFIG_DB is read, SONiCVariantPatch turns the difference into
//     a JSON patch (add what the variant has, remove the fields and entries
//     only the lab's config has, leave what labctl does not manage), and
//     `config apply-patch` applies it all or nothing after YANG validation.
//     `config qos clear` was not used: it also drops the buffer and QoS
//     tables SONiC generated for ports labctl does not configure.
//   - EOS: EOSNegations prefixes the variant's lines with a "no" of every
//     line only the lab's config has, in its mode, all in one
//     configuration session.
func PushVariantOverSSH(ctx context.Context, nos, node, host string, port int, cred Credentials, full, variant []byte) (string, error) {
	if nos == eos.Name {
		t := eos.PushTarget{Name: node, Host: host, Port: port, Username: cred.Username, Password: cred.Password}
		out, err := eos.PushConfig(ctx, t, EOSNegations(string(full), string(variant))+string(variant))
		if err != nil {
			return "", err
		}
		return out.Running, nil
	}
	t := sonic.PushTarget{Name: node, Host: host, Port: port, Username: cred.Username, Password: cred.Password}
	running, err := sonic.ReadRunningConfig(ctx, t)
	if err != nil {
		return "", err
	}
	patch, err := SONiCVariantPatch([]byte(running), full, variant)
	if err != nil {
		return "", fmt.Errorf("push variant to %s: %w", node, err)
	}
	out, err := sonic.PushConfigDB(ctx, t, patch, sonic.PushPatch)
	if err != nil {
		return "", err
	}
	return out.Running, nil
}

// PatchOp is one RFC 6902 operation.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

type configDB map[string]map[string]map[string]any

func parseConfigDB(what string, data []byte) (configDB, error) {
	var db configDB
	if err := json.Unmarshal(data, &db); err != nil {
		return nil, fmt.Errorf("%s is not a config_db document (tables of keys of fields): %w", what, err)
	}
	return db, nil
}

// SONiCVariantPatch is the JSON patch that takes a switch whose CONFIG_DB
// is running from the lab's config (full) to the variant's: every field the
// variant sets is added (an add on an existing member replaces it), every
// field or entry only full has is removed where running has it, and
// everything neither document mentions stays. Operations come in table,
// key, field order so the patch is stable.
func SONiCVariantPatch(running, full, variant []byte) ([]byte, error) {
	// Only the tables labctl manages are decoded from the running
	// CONFIG_DB: others may not have the table/key/field shape.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(running, &raw); err != nil {
		return nil, fmt.Errorf("the running CONFIG_DB is not a JSON object of tables: %w", err)
	}
	fl, err := parseConfigDB("the lab's config", full)
	if err != nil {
		return nil, err
	}
	vr, err := parseConfigDB("the variant's config", variant)
	if err != nil {
		return nil, err
	}
	ops := []PatchOp{}
	for _, table := range unionKeys(fl, vr) {
		var rt map[string]map[string]any
		msg, inRun := raw[table]
		if inRun {
			if err := json.Unmarshal(msg, &rt); err != nil {
				return nil, fmt.Errorf("table %s of the running CONFIG_DB is not keys of fields: %w", table, err)
			}
		}
		vt := vr[table]
		if !inRun {
			if len(vt) > 0 {
				ops = append(ops, PatchOp{Op: "add", Path: pointer(table), Value: vt})
			}
			continue
		}
		keys := unionKeys(fl[table], vt)
		if portIndexed[table] {
			keys = unionKeys(fl[table], vt, ownedByPort(rt, fl[table], vt))
		}
		for _, key := range keys {
			re, inRun := rt[key]
			ve, inVar := vt[key]
			switch {
			case !inRun && inVar:
				ops = append(ops, PatchOp{Op: "add", Path: pointer(table, key), Value: ve})
			case !inRun:
			case !inVar:
				ops = append(ops, PatchOp{Op: "remove", Path: pointer(table, key)})
			default:
				for _, field := range unionKeys(fl[table][key], ve) {
					v, set := ve[field]
					_, had := re[field]
					switch {
					case set:
						ops = append(ops, PatchOp{Op: "add", Path: pointer(table, key, field), Value: v})
					case had:
						ops = append(ops, PatchOp{Op: "remove", Path: pointer(table, key, field)})
					}
				}
			}
		}
	}
	out, err := json.MarshalIndent(ops, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// portIndexed are the tables keyed "<port>|<index range>" whose entries
// for a port labctl's config defines in full: ranges may be cut
// differently in the variant ("Ethernet0|0-7" against "Ethernet0|0-2",
// "|3", "|4-7"), so a key of such a port that neither document has is a
// leftover of an earlier push and goes.
var portIndexed = map[string]bool{"BUFFER_PG": true, "BUFFER_QUEUE": true}

// ownedByPort returns the running keys of a port-indexed table whose port
// the lab's or the variant's config covers.
func ownedByPort[V any](running map[string]V, docs ...map[string]map[string]any) map[string]V {
	ports := map[string]bool{}
	for _, d := range docs {
		for k := range d {
			if port, _, ok := strings.Cut(k, "|"); ok {
				ports[port] = true
			}
		}
	}
	out := map[string]V{}
	for k, v := range running {
		if port, _, ok := strings.Cut(k, "|"); ok && ports[port] {
			out[k] = v
		}
	}
	return out
}

func unionKeys[V any](maps ...map[string]V) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// pointer is an RFC 6901 JSON pointer.
func pointer(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return b.String()
}

// eosLine is one configuration line with the mode headers above it.
type eosLine struct {
	modes []string // enclosing mode lines, outermost first, trimmed
	text  string   // trimmed
	depth int
}

func (e eosLine) key() string { return strings.Join(append(slices.Clone(e.modes), e.text), "\x00") }

// parseEOSLines reads an EOS CLI config into lines with their modes, from
// the indentation. Comments ("!"), blank lines and "end" are skipped.
func parseEOSLines(cfg string) []eosLine {
	type open struct {
		indent int
		text   string
	}
	var stack []open
	var out []eosLine
	for _, raw := range strings.Split(cfg, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "!") || t == "end" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		modes := make([]string, len(stack))
		for i, o := range stack {
			modes[i] = o.text
		}
		out = append(out, eosLine{modes: modes, text: t, depth: len(stack)})
		stack = append(stack, open{indent, t})
	}
	return out
}

// EOSNegations returns the commands that remove from a switch running the
// lab's config (full) every line the variant's config lacks: "no <line>"
// entered in the line's mode. A missing mode line is negated as a whole,
// without its sub-lines. The result ends with a newline, or is "" when the
// variant lacks nothing.
func EOSNegations(full, variant string) string {
	have := map[string]bool{}
	for _, l := range parseEOSLines(variant) {
		have[l.key()] = true
	}
	var b bytes.Buffer
	var cur []string // modes entered
	var gone []string
	leave := func(keep int) {
		for len(cur) > keep {
			cur = cur[:len(cur)-1]
			fmt.Fprintf(&b, "%sexit\n", strings.Repeat("   ", len(cur)+1))
		}
	}
	for _, l := range parseEOSLines(full) {
		if have[l.key()] {
			continue
		}
		if slices.ContainsFunc(gone, func(g string) bool { return strings.HasPrefix(l.key(), g+"\x00") }) {
			continue // inside a mode negated as a whole
		}
		if strings.HasPrefix(l.text, "no ") || strings.HasPrefix(l.text, "default ") {
			continue // a negative default is not undone by adding one more "no"
		}
		common := 0
		for common < len(cur) && common < len(l.modes) && cur[common] == l.modes[common] {
			common++
		}
		leave(common)
		for _, m := range l.modes[common:] {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat("   ", len(cur)), m)
			cur = append(cur, m)
		}
		fmt.Fprintf(&b, "%sno %s\n", strings.Repeat("   ", len(cur)), l.text)
		gone = append(gone, l.key())
	}
	leave(0)
	return b.String()
}

// CompareReadbackData parses the config pushed (pushed, named name) and the
// read-back with the NOS's QoS parser and returns their differences (""
// when equal).
func CompareReadbackData(codec runtime.NOSCodec, device, name string, pushed []byte, readback string) (string, error) {
	want, err := codec.ParseQoS(device, qos.Source{Name: name, Data: pushed})
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", name, err)
	}
	got, err := codec.ParseQoS(device, qos.Source{Name: device + " read-back", Data: []byte(readback)})
	if err != nil {
		return "", fmt.Errorf("parse read-back: %w", err)
	}
	ds := slices.DeleteFunc(qos.Diff([]qos.DeviceConfig{want}, []qos.DeviceConfig{got}), switchOwned)
	if len(ds) == 0 {
		return "", nil
	}
	return qos.FormatDiff(ds), nil
}

// switchOwned says whether a difference between a pushed config and its
// read-back is a port's own setting that the pushed config leaves to the
// switch: its MTU and its speed, which labctl writes only where the lab's
// configs state them (a SONiC switch's PORT table is its own, and its
// config states a port's speed only in a lossless PG's profile name, so
// a variant without PFC states none). Every SONiC port reads back an MTU
// (9100 by default), which was reported as a difference of every push.
// A speed or MTU the pushed config states and the switch does not run is
// still a difference.
func switchOwned(d qos.Difference) bool {
	return d.A == "" && (d.Field == "mtu" || d.Field == "speed_gbps")
}
