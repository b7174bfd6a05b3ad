package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
)

func catalogLab(t *testing.T, name, nos string) *Lab {
	t.Helper()
	spec, err := lab.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLab(spec, t.TempDir(), nos)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRenderLabNeverOverwrites(t *testing.T) {
	for _, nos := range []string{"sonic", "eos"} {
		t.Run(nos, func(t *testing.T) {
			l := catalogLab(t, "16gpu", nos)
			written, _, err := RenderLab(l)
			if err != nil {
				t.Fatal(err)
			}
			codec, _ := Codec(nos)
			leaf := l.ConfigPath(codec, "leaf1")
			if !containsPath(written, leaf) {
				t.Fatalf("leaf1 config not written: %v", written)
			}
			if _, err := os.Stat(l.Dir + "/" + l.Graph.TopologyFile()); err != nil {
				t.Errorf("topology not written: %v", err)
			}
			cfgs, err := LoadConfigs(l)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfgs) != len(l.Graph.Switches()) {
				t.Errorf("%d configs for %d switches", len(cfgs), len(l.Graph.Switches()))
			}
			// An edited file survives a second render.
			edited := []byte("! edited by hand\n")
			if nos == "sonic" {
				edited = []byte("{}\n")
			}
			if err := os.WriteFile(leaf, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			written, _, err = RenderLab(l)
			if err != nil {
				t.Fatal(err)
			}
			if len(written) != 0 {
				t.Errorf("second render wrote %v", written)
			}
			got, _ := os.ReadFile(leaf)
			if string(got) != string(edited) {
				t.Errorf("edited config overwritten: %q", got)
			}
		})
	}
}

func TestLoadConfigsErrors(t *testing.T) {
	l := catalogLab(t, "16gpu", "sonic")
	_, err := LoadConfigs(l)
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "labctl up 16gpu") {
		t.Errorf("missing configs: %v", err)
	}
	if _, _, err := RenderLab(l); err != nil {
		t.Fatal(err)
	}
	codec, _ := Codec("sonic")
	if err := os.WriteFile(l.ConfigPath(codec, "spine1"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfigs(l)
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "spine1.json") {
		t.Errorf("broken config: %v", err)
	}
}

func TestApplyVariantAndDigest(t *testing.T) {
	l := catalogLab(t, "16gpu", "sonic")
	if _, _, err := RenderLab(l); err != nil {
		t.Fatal(err)
	}
	d1, err := ConfigDigest(l)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	pfcPorts, ecnQueues := count(cfgs)
	if pfcPorts == 0 || ecnQueues == 0 {
		t.Fatalf("rendered configs lack PFC (%d) or ECN (%d)", pfcPorts, ecnQueues)
	}
	ApplyVariant(cfgs, true, false)
	if p, e := count(cfgs); p != 0 || e != ecnQueues {
		t.Errorf("pfc=off: %d PFC ports, %d ECN queues", p, e)
	}
	ApplyVariant(cfgs, false, false)
	if _, e := count(cfgs); e != 0 {
		t.Errorf("ecn=off: %d ECN queues", e)
	}
	codec, _ := Codec("sonic")
	data, _ := os.ReadFile(l.ConfigPath(codec, "leaf1"))
	if err := os.WriteFile(l.ConfigPath(codec, "leaf1"), append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	if d2, _ := ConfigDigest(l); d2 == d1 || !strings.HasPrefix(d2, "sha256:") {
		t.Errorf("digest did not change: %s %s", d1, d2)
	}
}

// TestConfigDigestFormat: the digest is sha256 over each file's name, NUL,
// size, NUL and bytes, in name order, hidden files and folders left out,
// as records have always carried it (regress compares a run's digest
// with its baseline's, so a new way of computing it must give the same
// value).
func TestConfigDigestFormat(t *testing.T) {
	dir := t.TempDir()
	l := &Lab{Name: "x", Dir: dir}
	files := map[string][]byte{
		"spine1.json":        bytes.Repeat([]byte("{\"a\": 1}\n"), 20000), // larger than the buffer
		"leaf1.json":         []byte("{}"),
		"leaf1.buffers.json": {},
		".labctl-manifest":   []byte("not digested"),
	}
	if err := os.MkdirAll(l.ConfigsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(l.ConfigsDir(), n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(l.ConfigsDir(), "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, n := range []string{"leaf1.buffers.json", "leaf1.json", "spine1.json"} {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	want := "sha256:" + hex.EncodeToString(h.Sum(nil))
	got, err := ConfigDigest(l)
	if err != nil || got != want {
		t.Fatalf("ConfigDigest = %s, %v; want %s", got, err, want)
	}
}

func count(cfgs []qos.DeviceConfig) (pfcPorts, ecnQueues int) {
	for _, c := range cfgs {
		for _, p := range c.Ports {
			if len(p.PFCPriorities) > 0 {
				pfcPorts++
			}
			for _, q := range p.Queues {
				if q.ECN != nil {
					ecnQueues++
				}
			}
		}
	}
	return
}

func containsPath(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

// LoadConfigs keeps the configs it parsed for the next call on the same
// files: that call gets an equal copy, one it may change without changing
// what a third call gets, and an edited file is parsed again.
func TestLoadConfigsReusesParse(t *testing.T) {
	l := catalogLab(t, "16gpu", "sonic")
	if _, _, err := RenderLab(l); err != nil {
		t.Fatal(err)
	}
	first, err := LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	want := cloneConfigs(first)
	second, err := LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(qos.Diff(want, second), []qos.Difference(nil)) || len(second) != len(want) {
		t.Fatalf("second load differs: %v", qos.Diff(want, second))
	}
	// Changing what a load returned (as an off variant does) does not
	// reach the configs kept.
	ApplyVariant(second, false, false)
	ApplyVariant(first, false, false)
	third, err := LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	if d := qos.Diff(want, third); len(d) != 0 {
		t.Fatalf("a load's caller changed the kept configs: %v", d)
	}
	if p, e := count(third); p == 0 || e == 0 {
		t.Fatalf("third load lacks PFC (%d) or ECN (%d)", p, e)
	}
	// An edit on disk is read: leaf1 without PFC.
	codec, _ := Codec("sonic")
	third[0] = third[0].WithoutPFC()
	edited, err := RenderConfigs(l, third[:1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.ConfigPath(codec, third[0].Device), edited[third[0].Device+codec.ConfigExt()], 0o644); err != nil {
		t.Fatal(err)
	}
	fourth, err := LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	if d := qos.Diff(want, fourth); len(d) == 0 || d[0].Device != third[0].Device {
		t.Fatalf("the edit of %s was not read: %v", third[0].Device, d)
	}
	// So is an edit that keeps the file's size: the key is of the bytes.
	path := l.ConfigPath(codec, third[0].Device)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const was, is = `"green_min_threshold": "1638400"`, `"green_min_threshold": "1638401"`
	if !bytes.Contains(data, []byte(was)) {
		t.Fatalf("%s has no %s to edit", path, was)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(was), []byte(is), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	fifth, err := LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	if d := qos.Diff(fourth, fifth); len(d) == 0 {
		t.Fatalf("the same-size edit of %s was not read", path)
	}
	// A lab with another intent (which can fill in what the files leave
	// out) is parsed again: the configs kept are then its.
	other := *l
	spec := *l.Spec
	spec.QoS.MTU = new(9000)
	other.Spec = &spec
	if _, err := LoadConfigs(&other); err != nil {
		t.Fatal(err)
	}
	if lastLoad.intent.MTU != 9000 {
		t.Errorf("the configs kept are of the intent with MTU %d, want 9000", lastLoad.intent.MTU)
	}
}

// VariantOnlyConfigs gives the variant configs of VariantConfigs, for
// every ECN x PFC variant and a swept value, without changing what a later
// load gets.
func TestVariantOnlyConfigs(t *testing.T) {
	l := catalogLab(t, "16gpu", "sonic")
	if _, _, err := RenderLab(l); err != nil {
		t.Fatal(err)
	}
	kmin := 200
	for _, vs := range []VariantSpec{
		{Name: "ecn=on,pfc=on", ECN: true, PFC: true},
		{Name: "ecn=off,pfc=on", PFC: true},
		{Name: "ecn=on,pfc=off", ECN: true},
		{Name: "ecn=off,pfc=off"},
		{Name: "ecn=on,pfc=on,qos.ecn.kmin_kb=200", ECN: true, PFC: true, QoS: lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &kmin}}},
	} {
		labCfgs, want, err := VariantConfigs(l, vs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := VariantOnlyConfigs(l, vs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: VariantOnlyConfigs differs from VariantConfigs: %v", vs.Name, qos.Diff(want, got))
		}
		again, err := LoadConfigs(l)
		if err != nil {
			t.Fatal(err)
		}
		if d := qos.Diff(labCfgs, again); len(d) != 0 {
			t.Errorf("%s: the variant changed the lab's configs: %v", vs.Name, d)
		}
	}
}

// ApplyQoS and ApplyVariant change the configs LoadConfigs hands out in
// place, which must come to what the copying forms (WithOverrides,
// WithoutECN, WithoutPFC) give, and must never reach the configs
// LoadConfigs keeps for the next caller or another caller's copy.
func TestApplyInPlaceMatchesCopies(t *testing.T) {
	kmin, kmax, det, pool := 300, 1200, 400, int64(16<<20)
	action := "forward"
	overrides := map[string]lab.QoSSpec{
		"none":     {},
		"ecn":      {ECN: &lab.ECNSpec{KminKB: &kmin, KmaxKB: &kmax}},
		"watchdog": {PFCWatchdog: &lab.WatchdogSpec{DetectionMs: &det, Action: &action}},
		"pool":     {BufferPoolBytes: &pool},
	}
	for _, nos := range []string{"sonic", "eos"} {
		l := catalogLab(t, "16gpu", nos)
		if _, _, err := RenderLab(l); err != nil {
			t.Fatal(err)
		}
		// The first load parses; what it hands out is changed at once.
		forgetLoadedConfigs()
		first, err := LoadConfigs(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ApplyQoS(first, overrides["ecn"]); err != nil {
			t.Fatal(err)
		}
		ApplyVariant(first, false, false)
		pristine, _ := LoadConfigs(l) // kept
		forgetLoadedConfigs()
		if parsed, _ := LoadConfigs(l); !reflect.DeepEqual(pristine, parsed) {
			t.Fatalf("%s: the configs kept from the first parse changed with what it handed out", nos)
		}
		for name, o := range overrides {
			for _, ecn := range []bool{true, false} {
				for _, pfc := range []bool{true, false} {
					inPlace, err := LoadConfigs(l)
					if err != nil {
						t.Fatal(err)
					}
					other, _ := LoadConfigs(l)
					nIn, err := ApplyQoS(inPlace, o)
					if err != nil {
						t.Fatalf("%s %s: %v", nos, name, err)
					}
					ApplyVariant(inPlace, ecn, pfc)

					copied, _ := LoadConfigs(l)
					nCopied := 0
					for i := range copied {
						dc, n, err := copied[i].WithOverrides(o)
						if err != nil {
							t.Fatal(err)
						}
						if !ecn {
							dc = dc.WithoutECN()
						}
						if !pfc {
							dc = dc.WithoutPFC()
						}
						copied[i], nCopied = dc, nCopied+n
					}
					if nIn != nCopied || !reflect.DeepEqual(inPlace, copied) {
						t.Errorf("%s %s ecn=%v pfc=%v: in place (%d reached) differs from the copies (%d)", nos, name, ecn, pfc, nIn, nCopied)
					}
					if name == "none" && ecn && pfc && !reflect.DeepEqual(inPlace, pristine) {
						t.Errorf("%s: a variant that changes nothing changed the configs", nos)
					}
					if !reflect.DeepEqual(other, pristine) {
						t.Errorf("%s %s ecn=%v pfc=%v: another caller's configs changed", nos, name, ecn, pfc)
					}
				}
			}
		}
		if again, _ := LoadConfigs(l); !reflect.DeepEqual(again, pristine) {
			t.Errorf("%s: the kept configs changed under the callers' edits", nos)
		}
	}
}
