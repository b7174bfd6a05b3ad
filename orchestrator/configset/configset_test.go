package configset

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/qos"
)

func TestWriteRefusesEditedFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "configs")
	files := map[string][]byte{"leaf1.json": []byte("{}\n"), "spine1.json": []byte("{\"a\":1}\n")}

	res, err := Write(dir, files, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Written, []string{"leaf1.json", "spine1.json"}) {
		t.Errorf("written = %v", res.Written)
	}
	// Same content again: nothing rewritten.
	res, err = Write(dir, files, false)
	if err != nil || len(res.Written) != 0 || len(res.Unchanged) != 2 {
		t.Fatalf("second write: %+v, %v", res, err)
	}
	// New content for an unedited file: written.
	files["spine1.json"] = []byte("{\"a\":2}\n")
	if res, err = Write(dir, files, false); err != nil || !reflect.DeepEqual(res.Written, []string{"spine1.json"}) {
		t.Fatalf("update: %+v, %v", res, err)
	}
	// The user edits leaf1.json and drops in a file labctl never wrote.
	if err := os.WriteFile(filepath.Join(dir, "leaf1.json"), []byte("{\"edited\":true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "leaf2.json"), []byte("{\"mine\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files["leaf1.json"] = []byte("{\"new\":1}\n")
	files["leaf2.json"] = []byte("{\"new\":2}\n")
	_, err = Write(dir, files, false)
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "leaf1.json, leaf2.json") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("edited files: err = %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "leaf1.json")); string(data) != "{\"edited\":true}\n" {
		t.Error("edited file was overwritten without force")
	}
	res, err = Write(dir, files, true)
	if err != nil || !reflect.DeepEqual(res.Overwritten, []string{"leaf1.json", "leaf2.json"}) {
		t.Fatalf("force: %+v, %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "leaf1.json")); string(data) != "{\"new\":1}\n" {
		t.Error("force did not overwrite")
	}
	// After a forced write the files are labctl's again.
	if ed, err := Edited(dir, map[string][]byte{"leaf1.json": []byte("other")}); err != nil || len(ed) != 0 {
		t.Errorf("Edited after force = %v, %v", ed, err)
	}
	// No temp files left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
	if _, err := Write(dir, map[string][]byte{"../x": nil}, false); err == nil {
		t.Error("path outside the directory accepted")
	}
}

func TestLoad(t *testing.T) {
	in, _ := qos.Profile("")
	leaf, err := qos.Apply(in, qos.Device{Name: "leaf1", Ports: []qos.Port{{Name: "Ethernet0", SpeedGbps: 100, Fabric: true}}})
	if err != nil {
		t.Fatal(err)
	}
	sj, _ := sonic.Render(leaf)
	leaf.Device = "leaf2"
	ec, _ := eos.Render(leaf)
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"leaf1.json": sj,
		// A second file of the same device: merged (buffers usually).
		"leaf1.buffers.json": []byte(`{"BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000"}}}`),
		"leaf2.cfg":          ec,
		"README.md":          []byte("ignored in a directory"),
		ManifestName:         []byte("{}"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfgs, err := Load([]string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != 2 || cfgs[0].Device != "leaf1" || cfgs[0].NOS != "sonic" || cfgs[1].Device != "leaf2" || cfgs[1].NOS != "eos" {
		t.Fatalf("loaded %+v", cfgs)
	}
	if cfgs[0].IngressPoolBytes() != 1000 {
		t.Errorf("pool = %d", cfgs[0].IngressPoolBytes())
	}
	// With a NOS given, a directory yields only that NOS's files.
	if only, err := Load([]string{dir}, "eos"); err != nil || len(only) != 1 || only[0].Device != "leaf2" {
		t.Errorf("Load(dir, eos) = %+v, %v", only, err)
	}
	_, err = Load([]string{filepath.Join(dir, "README.md")}, "")
	if err == nil || !strings.Contains(err.Error(), "--nos") {
		t.Errorf("unknown extension: %v", err)
	}
	_, err = Load([]string{filepath.Join(dir, "nope.json")}, "")
	if err == nil || exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load([]string{filepath.Join(dir, "bad.json")}, "")
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad json: %v", err)
	}
	if got := DeviceName("/x/leaf1.qos.json"); got != "leaf1" {
		t.Errorf("DeviceName = %s", got)
	}
}

func TestLoadLab(t *testing.T) {
	in, _ := qos.Profile("")
	devs := qos.TestDevices()
	cfgs, err := qos.ApplyAll(in, devs)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, dc := range cfgs {
		data, err := sonic.Render(dc)
		if err != nil {
			t.Fatal(err)
		}
		files[dc.Device+".json"] = data
	}
	dir := filepath.Join(t.TempDir(), "configs")
	// A missing folder: the command that renders this lab's configs, not a
	// placeholder, and no raw stat error.
	_, err = LoadLab("lab1", dir, "sonic", devs, in)
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "fix: run 'labctl config render lab1'") ||
		strings.Contains(err.Error(), "<lab>") || strings.Contains(err.Error(), "stat ") {
		t.Errorf("missing dir: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLab("lab1", dir, "sonic", devs, in); err == nil || !strings.Contains(err.Error(), "fix: run 'labctl config render lab1'") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := Write(dir, files, false); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLab("lab1", dir, "eos", devs, in); err == nil || !strings.Contains(err.Error(), "run 'labctl config render lab1 --nos eos'") {
		t.Errorf("other NOS's files: %v", err)
	}
	got, err := LoadLab("lab1", dir, "sonic", devs, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[0].PeersKnown || got[0].Port("Ethernet4").Peer != "spine1:Ethernet0" {
		t.Fatalf("loaded %+v", got)
	}
	// A switch without its file, or a folder where its file goes, is
	// refused at the path: lint and the simulator would run the fabric
	// without that switch's QoS.
	spine := filepath.Join(dir, "spine1.json")
	if err := os.Rename(spine, spine+".kept"); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLab("lab1", dir, "sonic", devs, in); exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "spine1.json is missing") {
		t.Errorf("a switch without its file: %v", err)
	}
	if err := os.Mkdir(spine, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLab("lab1", dir, "sonic", devs, in); exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "spine1.json is a directory where spine1's sonic config file goes") {
		t.Errorf("a folder where the file goes: %v", err)
	}
	if err := os.Remove(spine); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(spine+".kept", spine); err != nil {
		t.Fatal(err)
	}
	// A lab's switches each get their one file: another file of the NOS
	// there (a backup, a companion, a stray device) is refused at its
	// path, for lint and the simulator would merge or read what no switch
	// gets. A backup with another extension is not the NOS's: left alone.
	for _, c := range []struct{ name, want string }{
		{"leaf1.old.json", "or merge the entries you want into leaf1.json"},
		{"leaf1.buffers.json", "or merge the entries you want into leaf1.json"},
		{"leaf1-old.json", "or delete it"},
	} {
		extra := filepath.Join(dir, c.name)
		if err := os.WriteFile(extra, files["leaf1.json"], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadLab("lab1", dir, "sonic", devs, in)
		if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), extra+" is not a switch's config of lab lab1") ||
			!strings.Contains(err.Error(), "(leaf1.json, spine1.json)") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s beside the switches' files: %v", c.name, err)
		}
		if err := os.Rename(extra, extra+".bak"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadLab("lab1", dir, "sonic", devs, in); err != nil {
		t.Errorf("backups with another extension: %v", err)
	}
	// QOS011 (what the simulator does not model) is information, not a
	// problem of the config.
	fs := slices.DeleteFunc(qos.Lint(got, qos.LintOptions{Intent: &in}), func(f qos.Finding) bool { return f.Rule == qos.RuleSimIgnores })
	if len(fs) != 0 {
		t.Errorf("lint of a fresh lab: %+v", fs)
	}
}

// A configs folder holds one NOS's files: switching NOS removes the other
// NOS's files labctl wrote, and refuses (exit 2, before removing anything)
// while one of them is the user's, unless forced.
func TestOneNOSPerFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "configs")
	sonicFiles := map[string][]byte{"leaf1.json": []byte("{}\n"), "spine1.json": []byte("{\"a\":1}\n")}
	if _, err := Write(dir, sonicFiles, false); err != nil {
		t.Fatal(err)
	}
	// Nothing to do for the NOS the folder holds.
	if err := CheckNOS(dir, sonic.Name, false); err != nil {
		t.Fatalf("CheckNOS sonic: %v", err)
	}
	if removed, err := PruneOtherNOS(dir, sonic.Name, false); err != nil || len(removed) != 0 {
		t.Fatalf("PruneOtherNOS sonic = %v, %v", removed, err)
	}

	// The user edits one SONiC file: switching to EOS is refused, naming
	// it and the fix, and nothing is removed.
	if err := os.WriteFile(filepath.Join(dir, "leaf1.json"), []byte("{\"mine\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		err := CheckNOS(dir, eos.Name, force)
		if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "leaf1.json") || strings.Contains(err.Error(), "spine1.json") ||
			!strings.Contains(err.Error(), "fix: move those files out of "+dir) || strings.Contains(err.Error(), "--force") != force {
			t.Errorf("CheckNOS eos (force fix %v): exit %d, %v", force, exitcode.Code(err), err)
		}
	}
	if _, err := PruneOtherNOS(dir, eos.Name, false); exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("PruneOtherNOS with an edited file: %v", err)
	}
	for name := range sonicFiles {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("a refused prune removed %s", name)
		}
	}

	// Without the edit, the EOS files replace the SONiC ones, and the
	// manifest forgets them.
	if err := os.WriteFile(filepath.Join(dir, "leaf1.json"), sonicFiles["leaf1.json"], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, map[string][]byte{"leaf1.cfg": []byte("!\n"), "spine1.cfg": []byte("!\n")}, false); err != nil {
		t.Fatal(err)
	}
	removed, err := PruneOtherNOS(dir, eos.Name, false)
	if err != nil || !reflect.DeepEqual(removed, []string{"leaf1.json", "spine1.json"}) {
		t.Fatalf("PruneOtherNOS eos = %v, %v", removed, err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{ManifestName, "leaf1.cfg", "spine1.cfg"}; !reflect.DeepEqual(names, want) {
		t.Errorf("folder holds %v, want %v", names, want)
	}
	m, _ := ReadManifest(dir)
	if _, ok := m.Files["leaf1.json"]; ok || len(m.Files) != 2 {
		t.Errorf("manifest after the prune: %v", m.Files)
	}

	// A file the user dropped in is removed only by force.
	if err := os.WriteFile(filepath.Join(dir, "leaf1.buffers.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckNOS(dir, eos.Name, false); err == nil || !strings.Contains(err.Error(), "leaf1.buffers.json") {
		t.Errorf("CheckNOS with a dropped-in SONiC companion: %v", err)
	}
	if removed, err := PruneOtherNOS(dir, eos.Name, true); err != nil || !reflect.DeepEqual(removed, []string{"leaf1.buffers.json"}) {
		t.Errorf("forced PruneOtherNOS = %v, %v", removed, err)
	}
}

// Load parses devices concurrently: the configs still come back in device
// order, each parsed from its own files, and with several broken files the
// error is the first device's in name order, whichever parse ends first.
func TestLoadManyDevicesInOrder(t *testing.T) {
	in, _ := qos.Profile("")
	dir := t.TempDir()
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("leaf%02d", i)
		names = append(names, name)
		dc, err := qos.Apply(in, qos.Device{Name: name, Ports: []qos.Port{{Name: fmt.Sprintf("Ethernet%d", 4*i), SpeedGbps: 100, Fabric: true}}})
		if err != nil {
			t.Fatal(err)
		}
		data, err := sonic.Render(dc)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfgs, err := Load([]string{dir}, "sonic")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != len(names) {
		t.Fatalf("loaded %d devices, want %d", len(cfgs), len(names))
	}
	for i, dc := range cfgs {
		if port := fmt.Sprintf("Ethernet%d", 4*i); dc.Device != names[i] || len(dc.Ports) != 1 || dc.Ports[0].Name != port {
			t.Fatalf("device %d is %s with ports %+v, want %s with %s", i, dc.Device, dc.Ports, names[i], port)
		}
	}
	for _, bad := range []string{"leaf07", "leaf31", "leaf38"} {
		if err := os.WriteFile(filepath.Join(dir, bad+".json"), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		_, err := Load([]string{dir}, "sonic")
		if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "leaf07.json") {
			t.Fatalf("error = %v, want leaf07.json's", err)
		}
	}
}

// Devices whose files hold the same bytes share one parse, each with its
// own copy: every device's config is what its own files parse to, and
// only devices with the same files (a companion file included) share.
func TestLoadIdenticalFilesParseOnce(t *testing.T) {
	in, _ := qos.Profile("")
	render := func(speed int) []byte {
		dev := qos.Device{Name: "x"}
		for i := range 4 {
			dev.Ports = append(dev.Ports, qos.Port{Name: fmt.Sprintf("Ethernet%d", 4*i), SpeedGbps: speed, Fabric: true})
		}
		dc, err := qos.Apply(in, dev)
		if err != nil {
			t.Fatal(err)
		}
		data, err := sonic.Render(dc)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	leaf, spine := render(100), render(400)
	buffers := []byte(`{"PORT": {"Ethernet0": {"mtu": "9100"}}}`)
	files := map[string][]byte{
		"leaf1.json": leaf, "leaf1.buffers.json": buffers,
		"leaf2.json": leaf, "leaf2.buffers.json": buffers,
		"leaf3.json":  leaf, // no companion: other files
		"spine1.json": spine,
		"spine2.json": spine,
	}
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfgs, err := Load([]string{dir}, "sonic")
	if err != nil {
		t.Fatal(err)
	}
	own := func(dev string) qos.DeviceConfig {
		srcs := []qos.Source{{Name: filepath.Join(dir, dev+".json"), Data: files[dev+".json"]}}
		if b, ok := files[dev+".buffers.json"]; ok {
			srcs = append(srcs, qos.Source{Name: filepath.Join(dir, dev+".buffers.json"), Data: b})
		}
		dc, err := sonic.Plugin{}.ParseQoS(dev, srcs...)
		if err != nil {
			t.Fatal(err)
		}
		// The loader names the device's own files, also for a copy.
		for _, src := range srcs {
			dc.Sources = append(dc.Sources, src.Name)
		}
		return dc
	}
	byName := map[string]*qos.DeviceConfig{}
	for i := range cfgs {
		byName[cfgs[i].Device] = &cfgs[i]
		if want := own(cfgs[i].Device); !reflect.DeepEqual(cfgs[i], want) {
			t.Errorf("%s differs from the parse of its own files", cfgs[i].Device)
		}
	}
	if len(cfgs) != 5 || cfgs[0].Ports[0].MTU != 9100 || cfgs[2].Ports[0].MTU != 0 {
		t.Fatalf("loaded %d devices, leaf1's MTU %d, leaf3's %d; want 5, 9100 and 0", len(cfgs), cfgs[0].Ports[0].MTU, cfgs[2].Ports[0].MTU)
	}
	// A parse gives the ports that name one map the same map; a copy
	// (DeviceConfig.Clone) gives each port its own. So a device whose
	// ports share their DSCP map was parsed, the others copied.
	parsed := func(dev string) bool {
		p := byName[dev].Ports
		return reflect.ValueOf(p[0].DSCPToTC).UnsafePointer() == reflect.ValueOf(p[1].DSCPToTC).UnsafePointer()
	}
	for dev, want := range map[string]bool{"leaf1": true, "leaf2": false, "leaf3": true, "spine1": true, "spine2": false} {
		if got := parsed(dev); got != want {
			t.Errorf("%s parsed itself: %v, want %v", dev, got, want)
		}
	}
	// Copies are the device's own: changing one changes no other.
	byName["leaf2"].Ports[0].Name = "changed"
	byName["leaf2"].Ports[0].PFCPriorities[0] = 7
	if byName["leaf1"].Ports[0].Name != "Ethernet0" || byName["leaf1"].Ports[0].PFCPriorities[0] == 7 {
		t.Error("changing leaf2's copy changed leaf1")
	}
}
