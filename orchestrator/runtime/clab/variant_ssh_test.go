package clab

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab/sshtest"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
)

// variantFakeSONiC is a SONiC admin shell with a CONFIG_DB: the commands a
// push uses (file copy by base64 chunks, `config load`, `config
// apply-patch`, `sonic-cfggen -d --print-data`).
type variantFakeSONiC struct {
	mu    sync.Mutex
	files map[string][]byte
	db    configDB
	cmds  []string
}

func (d *variantFakeSONiC) Prompt() string { return "admin@leaf1:~$ " }

func (d *variantFakeSONiC) Run(line string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cmd, ok := strings.CutSuffix(strings.TrimSpace(line), "; echo labctl-rc=$?")
	if !ok {
		return "", false
	}
	d.cmds = append(d.cmds, cmd)
	out, rc := d.exec(cmd)
	if out != "" {
		out += "\n"
	}
	return out + "labctl-rc=" + string(rune('0'+rc)), false
}

func (d *variantFakeSONiC) exec(cmd string) (string, int) {
	f := strings.Fields(cmd)
	switch {
	case f[0] == "rm":
		for _, p := range f[2:] {
			delete(d.files, p)
		}
		return "", 0
	case f[0] == "printf" && len(f) == 5 && f[3] == ">>":
		d.files[f[4]] = append(d.files[f[4]], strings.Trim(f[2], "'")...)
		return "", 0
	case f[0] == "base64" && len(f) == 5:
		b, err := base64.StdEncoding.DecodeString(string(d.files[f[2]]))
		if err != nil {
			return "base64: invalid input", 1
		}
		d.files[f[4]] = b
		return "", 0
	case f[0] == "sha256sum":
		sum := sha256.Sum256(d.files[f[1]])
		return hex.EncodeToString(sum[:]) + "  " + f[1], 0
	case cmd == "sudo -n sonic-cfggen -d --print-data":
		b, _ := json.MarshalIndent(d.db, "", "    ")
		return string(b), 0
	case strings.HasPrefix(cmd, "sudo -n config apply-patch "):
		// All or nothing, like SONiC's patcher.
		cp, _ := json.Marshal(d.db)
		var trial configDB
		_ = json.Unmarshal(cp, &trial)
		if err := patchConfigDB(trial, d.files[f[len(f)-1]]); err != nil {
			return "Error: " + err.Error(), 1
		}
		d.db = trial
		return "Patch Applier: localhost: Patch application starting.\nPatch applied successfully.", 0
	case strings.HasPrefix(cmd, "sudo -n config load -y "):
		var doc configDB
		if err := json.Unmarshal(d.files[f[len(f)-1]], &doc); err != nil {
			return "Error: " + err.Error(), 1
		}
		d.db = merge(d.db, doc)
		return "Running command: /usr/local/bin/sonic-cfggen -j " + f[len(f)-1] + " --write-to-db", 0
	}
	return "-bash: " + f[0] + ": command not found", 1
}

// The variant push over SSH, against a SONiC shell on loopback: the switch
// starts as `labctl up` left it (its own tables plus the lab's config
// merged), each variant leaves exactly the variant's QoS, and the restore
// brings back the state `up` left.
// firstSwitchConfig is the test lab's first switch: its name, the lab's
// codec, its config file and the config parsed.
func firstSwitchConfig(t *testing.T) (l *runtime.Lab, sw string, codec runtime.NOSCodec, file []byte, dc qos.DeviceConfig) {
	t.Helper()
	l = testLab(t)
	sw = l.Graph.Switches()[0].Name
	codec, _ = runtime.Codec(l.NOS)
	file, err := os.ReadFile(l.ConfigPath(codec, sw))
	if err != nil {
		t.Fatal(err)
	}
	if dc, err = codec.ParseQoS(sw, qos.Source{Name: "lab", Data: file}); err != nil {
		t.Fatal(err)
	}
	return l, sw, codec, file, dc
}

func TestPushVariantOverSSHSONiC(t *testing.T) {
	l, sw, codec, file, cfg := firstSwitchConfig(t)
	own := mustDB(t, []byte(`{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "Force10-S6000"}}, "FEATURE": {"lldp": {"state": "enabled"}}}`))
	// The switch's own PORT table, as a SONiC switch has one: every port's
	// MTU and the speed it runs (the lab's), which labctl does not write.
	ports := map[string]map[string]any{}
	for _, p := range cfg.Ports {
		ports[p.Name] = map[string]any{"admin_status": "up", "mtu": "9100", "speed": strconv.Itoa(p.SpeedGbps * 1000)}
	}
	own["PORT"] = ports
	upState := merge(own, mustDB(t, file))
	for _, tc := range variantCases() {
		t.Run(tc.Name, func(t *testing.T) {
			dev := &variantFakeSONiC{files: map[string][]byte{}, db: merge(configDB{}, upState)}
			srv := sshtest.Start(t, "admin", "YourPaSsWoRd", "Debian GNU/Linux 11\n", func() sshtest.Device { return dev })
			plan, err := VariantConfigs(l, tc)
			if err != nil {
				t.Fatal(err)
			}
			var sv SwitchVariant
			for _, p := range plan {
				if p.Device == sw {
					sv = p
				}
			}
			rb, err := PushVariantOverSSH(context.Background(), "sonic", sw, srv.Host, srv.Port, DefaultSONiCLogin, sv.Full, sv.Variant)
			if err != nil {
				t.Fatal(err)
			}
			if diff, err := CompareReadbackData(codec, sw, "variant", sv.Variant, rb); err != nil || diff != "" {
				t.Errorf("read-back differs from the variant (%v):\n%s", err, diff)
			}
			got, err := codec.ParseQoS(sw, qos.Source{Name: "read-back", Data: []byte(rb)})
			if err != nil {
				t.Fatal(err)
			}
			if (len(got.LosslessPriorities()) > 0) != tc.PFC || hasECN(got) != tc.ECN {
				t.Errorf("after the push: PFC %v, ECN %t", got.LosslessPriorities(), hasECN(got))
			}
			checkSweptKmin(t, got, tc)
			if !reflect.DeepEqual(dev.db["FEATURE"], own["FEATURE"]) || !reflect.DeepEqual(dev.db["DEVICE_METADATA"], own["DEVICE_METADATA"]) {
				t.Error("the push touched tables labctl does not manage")
			}
			if !slicesContainsPrefix(dev.cmds, "sudo -n config apply-patch /tmp/labctl-") {
				t.Errorf("no apply-patch in %q", dev.cmds)
			}
			if _, err := PushVariantOverSSH(context.Background(), "sonic", sw, srv.Host, srv.Port, DefaultSONiCLogin, sv.Variant, sv.Full); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(dev.db, upState) {
				g, _ := json.MarshalIndent(dev.db, "", " ")
				t.Errorf("restore did not bring back the state up left:\n%s", g)
			}
		})
	}
}

// variantCases are the variants pushed: ECN and PFC each on and off, and a
// swept Kmin on top of the lab's config.
func variantCases() []runtime.VariantSpec {
	kmin := 123
	out := []runtime.VariantSpec{}
	for _, c := range []struct{ ecn, pfc bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		out = append(out, runtime.VariantSpec{Name: "ecn=" + onOff(c.ecn) + ",pfc=" + onOff(c.pfc), ECN: c.ecn, PFC: c.pfc})
	}
	return append(out, runtime.VariantSpec{Name: "ecn=on,pfc=on,qos.ecn.kmin_kb=123", ECN: true, PFC: true,
		QoS: lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &kmin}}})
}

// checkSweptKmin checks that every marking queue read back has the swept
// Kmin, when the variant sweeps one.
func checkSweptKmin(t *testing.T, got qos.DeviceConfig, v runtime.VariantSpec) {
	t.Helper()
	if v.QoS.ECN == nil || v.QoS.ECN.KminKB == nil {
		return
	}
	marks := 0
	for _, p := range got.Ports {
		for _, q := range p.Queues {
			if q.ECN != nil {
				marks++
				if q.ECN.MinBytes != int64(*v.QoS.ECN.KminKB)*1024 {
					t.Errorf("%s queue %d reads back Kmin %d bytes, want %d KiB", p.Name, q.Queue, q.ECN.MinBytes, *v.QoS.ECN.KminKB)
				}
			}
		}
	}
	if marks == 0 {
		t.Error("no marking queue read back")
	}
}

func slicesContainsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// variantFakeEOS is a cEOS privileged exec with configuration sessions
// over a hierarchical running config: a line enters the mode of the line
// above it with less indentation, "exit" leaves a mode, "no <line>"
// removes a line and everything under it (or, when there is no such line,
// is kept as a setting of its own).
type variantFakeEOS struct {
	mu      sync.Mutex
	running []eosLine
	pending []eosLine
	session bool
	modes   []string
	lines   []string
}

func (d *variantFakeEOS) Prompt() string {
	if d.session {
		return "leaf1(config-s-labctl)#"
	}
	return "leaf1#"
}

func (d *variantFakeEOS) Run(line string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cmd := strings.TrimSpace(line)
	d.lines = append(d.lines, line)
	switch {
	case cmd == "", cmd == "terminal width 32767", cmd == "terminal length 0":
		return "", false
	case strings.HasPrefix(cmd, "configure session "):
		d.session, d.modes = true, nil
		d.pending = append([]eosLine(nil), d.running...)
		return "", false
	case cmd == "commit" && d.session:
		d.running, d.session = d.pending, false
		return "", false
	case cmd == "abort" && d.session:
		d.session = false
		return "", false
	case cmd == "show running-config":
		var b strings.Builder
		b.WriteString("! Command: show running-config\n!\n")
		for _, l := range d.running {
			b.WriteString(strings.Repeat("   ", len(l.modes)) + l.text + "\n")
		}
		b.WriteString("end")
		return b.String(), false
	case !d.session:
		return "% Invalid input", false
	case cmd == "exit":
		if len(d.modes) > 0 {
			d.modes = d.modes[:len(d.modes)-1]
		}
		return "", false
	}
	depth := (len(line) - len(strings.TrimLeft(line, " "))) / 3
	if depth < len(d.modes) {
		d.modes = d.modes[:depth]
	}
	modes := append([]string(nil), d.modes...)
	if rest, ok := strings.CutPrefix(cmd, "no "); ok {
		k := eosLine{modes: modes, text: rest}.key()
		found := false
		kept := d.pending[:0]
		for _, l := range d.pending {
			if l.key() == k || strings.HasPrefix(l.key(), k+"\x00") {
				found = true
				continue
			}
			kept = append(kept, l)
		}
		d.pending = kept
		if found {
			return "", false
		}
		// Nothing to remove: the negative form is itself a setting (for
		// example "no priority" under a tx-queue), kept as a line.
	}
	nl := eosLine{modes: modes, text: cmd, depth: len(modes)}
	present := false
	insert := len(d.pending)
	for i, l := range d.pending {
		if l.key() == nl.key() {
			present = true
		}
		// A new line goes after the last line of its mode.
		if len(modes) > 0 && strings.HasPrefix(l.key(), eosLine{modes: modes[:len(modes)-1], text: modes[len(modes)-1]}.key()) {
			insert = i + 1
		}
	}
	if !present {
		d.pending = append(d.pending[:insert], append([]eosLine{nl}, d.pending[insert:]...)...)
	}
	d.modes = append(modes, cmd)
	return "", false
}

func TestPushVariantOverSSHEOS(t *testing.T) {
	l := runtimetest.RenderedLab(t, "16gpu", "eos")
	sw := l.Graph.Switches()[0].Name
	codec, _ := runtime.Codec(l.NOS)
	file, err := os.ReadFile(l.ConfigPath(codec, sw))
	if err != nil {
		t.Fatal(err)
	}
	upState := append([]eosLine{{text: "hostname " + sw}}, parseEOSLines(string(file))...)
	keys := func(ls []eosLine) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.key())
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range variantCases() {
		t.Run(tc.Name, func(t *testing.T) {
			dev := &variantFakeEOS{running: slices.Clone(upState)}
			srv := sshtest.Start(t, "admin", "admin", "", func() sshtest.Device { return dev })
			plan, err := VariantConfigs(l, tc)
			if err != nil {
				t.Fatal(err)
			}
			sv := plan[slices.IndexFunc(plan, func(p SwitchVariant) bool { return p.Device == sw })]
			rb, err := PushVariantOverSSH(context.Background(), "eos", sw, srv.Host, srv.Port, DefaultEOSLogin, sv.Full, sv.Variant)
			if err != nil {
				t.Fatal(err)
			}
			if diff, err := CompareReadbackData(codec, sw, "variant", sv.Variant, rb); err != nil || diff != "" {
				t.Errorf("read-back differs from the variant (%v):\n%s", err, diff)
			}
			got, err := codec.ParseQoS(sw, qos.Source{Name: "read-back", Data: []byte(rb)})
			if err != nil {
				t.Fatal(err)
			}
			if (len(got.LosslessPriorities()) > 0) != tc.PFC || hasECN(got) != tc.ECN {
				t.Errorf("after the push: PFC %v, ECN %t", got.LosslessPriorities(), hasECN(got))
			}
			checkSweptKmin(t, got, tc)
			if !strings.Contains(rb, "hostname "+sw) {
				t.Error("the push removed a line labctl does not manage")
			}
			if _, err := PushVariantOverSSH(context.Background(), "eos", sw, srv.Host, srv.Port, DefaultEOSLogin, sv.Variant, sv.Full); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys(dev.running), keys(upState)) {
				t.Errorf("restore did not bring back the state up left:\n%q\nwant\n%q", keys(dev.running), keys(upState))
			}
		})
	}
}

// A read-back holds the switch's own MTU and speed, which labctl's configs
// leave to it: no difference of the push, but a speed the pushed config
// states (in its lossless PGs' profiles) and the switch does not run is.
func TestCompareReadbackLeavesTheSwitchsOwn(t *testing.T) {
	_, sw, codec, file, pushed := firstSwitchConfig(t)
	readback := func(speedMbps func(gbps int) int) string {
		db := mustDB(t, file)
		ports := map[string]map[string]any{}
		for _, p := range pushed.Ports {
			ports[p.Name] = map[string]any{"mtu": "9100", "speed": strconv.Itoa(speedMbps(p.SpeedGbps))}
		}
		db["PORT"] = ports
		out, err := json.Marshal(db)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if diff, err := CompareReadbackData(codec, sw, "pushed", file, readback(func(g int) int { return g * 1000 })); err != nil || diff != "" {
		t.Errorf("the switch's own MTU and the lab's speed read back: %v\n%s", err, diff)
	}
	diff, err := CompareReadbackData(codec, sw, "pushed", file, readback(func(int) int { return 40000 }))
	if err != nil || !strings.Contains(diff, "speed_gbps: 400 -> 40") || strings.Contains(diff, "mtu") {
		t.Errorf("a port running 40G where the config says 400G: %v\n%s", err, diff)
	}
}
