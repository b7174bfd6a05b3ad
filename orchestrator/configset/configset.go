// Package configset reads and writes a lab's vendor config files
// (topologies/<lab>/configs/). Users edit these files or drop in their own,
// and labctl never overwrites an edited file without being forced: a
// manifest records the sha256 of every file as labctl last wrote it, and a
// file whose content no longer matches is left alone unless force is set.
package configset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/readlimit"
)

// ManifestName is the manifest file in a configs directory.
const ManifestName = ".labctl-manifest.json"

// Manifest records what labctl last wrote.
type Manifest struct {
	SchemaVersion int `json:"schema_version"`
	// Files maps a file name (relative to the directory) to the sha256
	// (hex) of the content labctl wrote.
	Files map[string]string `json:"files"`
}

// Result says what Write did, by file name.
type Result struct {
	Written   []string `json:"written"`
	Unchanged []string `json:"unchanged"`
	// Overwritten are edited files replaced because force was set.
	Overwritten []string `json:"overwritten,omitempty"`
}

// ReadManifest reads dir's manifest; a missing one is empty.
func ReadManifest(dir string) (Manifest, error) {
	m := Manifest{SchemaVersion: 1, Files: map[string]string{}}
	data, err := readlimit.ReadFile(filepath.Join(dir, ManifestName), readlimit.Manifest)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if exitcode.Code(err) == exitcode.BadInput {
		return m, err
	}
	if err != nil {
		return m, exitcode.Env(fmt.Errorf("read config manifest: %w", err))
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, exitcode.Usagef("config manifest %s is not valid JSON (%v): delete it and re-run with --force to let labctl rewrite every file", filepath.Join(dir, ManifestName), err)
	}
	if m.Files == nil {
		m.Files = map[string]string{}
	}
	return m, nil
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// Edited returns the files in dir (among names) that differ from what
// labctl last wrote: changed since, or present without labctl having
// written them. Files that are absent, or equal to want[name], are not
// edited.
func Edited(dir string, want map[string][]byte) ([]string, error) {
	_, _, edited, err := scan(dir, want)
	return edited, err
}

// scan reads dir's manifest and the sha256 of each of want's files on disk
// (absent files have none), and lists the edited ones (see Edited), so that
// Write reads each file once.
func scan(dir string, want map[string][]byte) (m Manifest, onDisk map[string]string, edited []string, err error) {
	m, err = ReadManifest(dir)
	if err != nil {
		return m, nil, nil, err
	}
	onDisk = map[string]string{}
	for _, name := range sortedNames(want) {
		data, err := readlimit.ReadFile(filepath.Join(dir, name), readlimit.Config)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if exitcode.Code(err) == exitcode.BadInput {
			return m, nil, nil, err
		}
		if err != nil {
			return m, nil, nil, exitcode.Env(fmt.Errorf("read %s: %w", filepath.Join(dir, name), err))
		}
		s := sum(data)
		onDisk[name] = s
		if s != sum(want[name]) && m.Files[name] != s {
			edited = append(edited, name)
		}
	}
	return m, onDisk, edited, nil
}

// Write writes files (name -> content) into dir atomically (temp file and
// rename, so a reader never sees half a file) and updates the manifest. If
// any file on disk differs from what labctl last wrote (the user edited it
// or dropped it in), nothing is written and the error, a usage error (exit
// 2), names the files and suggests --force; with force they are replaced.
func Write(dir string, files map[string][]byte, force bool) (*Result, error) {
	for name := range files {
		if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
			return nil, fmt.Errorf("write configs: %q is not a plain file name", name)
		}
	}
	m, onDisk, edited, err := scan(dir, files)
	if err != nil {
		return nil, err
	}
	if len(edited) > 0 && !force {
		return nil, exitcode.Usagef("not overwriting %s in %s: edited since labctl wrote them (or not written by labctl); keep your edits, move the files away, or re-run with --force to overwrite them",
			strings.Join(edited, ", "), dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, exitcode.WriteFailed(dir, err)
	}
	res := &Result{Overwritten: edited}
	for _, name := range sortedNames(files) {
		data := files[name]
		m.Files[name] = sum(data)
		if onDisk[name] == m.Files[name] {
			res.Unchanged = append(res.Unchanged, name)
			continue
		}
		if err := WriteFileAtomic(filepath.Join(dir, name), data, 0o644); err != nil {
			return res, exitcode.WriteFailed(filepath.Join(dir, name), err)
		}
		res.Written = append(res.Written, name)
	}
	mdata, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return res, fmt.Errorf("encode config manifest: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, ManifestName), append(mdata, '\n'), 0o644); err != nil {
		return res, exitcode.WriteFailed(filepath.Join(dir, ManifestName), err)
	}
	return res, nil
}

// WriteFileAtomic writes data to a temp file next to path and renames it
// over path.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return exitcode.Env(fmt.Errorf("write %s: %w", path, err))
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, perm)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return exitcode.Env(fmt.Errorf("write %s: %w", path, werr))
	}
	return nil
}

func sortedNames(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// otherNOS lists the files in dir that are configs of another NOS than
// nosName (by extension, companions included: leaf1.buffers.json is a
// SONiC file), split into those labctl wrote and nobody changed since
// (stale) and the rest (edited, or dropped in by the user).
func otherNOS(dir, nosName string) (m Manifest, stale, edited []string, err error) {
	own, err := nos.Lookup(nosName)
	if err != nil {
		return m, nil, nil, err
	}
	m, err = ReadManifest(dir)
	if err != nil {
		return m, nil, nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil, nil, nil
	}
	if err != nil {
		return m, nil, nil, exitcode.Env(fmt.Errorf("read %s: %w", dir, err))
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, ".") {
			continue
		}
		if n, ok := nos.ForExt(filepath.Ext(name)); !ok || n.Name() == own.Name() {
			continue
		}
		data, err := readlimit.ReadFile(filepath.Join(dir, name), readlimit.Config)
		switch {
		case exitcode.Code(err) == exitcode.BadInput:
			// Over the size limit: not a file labctl wrote.
			edited = append(edited, name)
		case err != nil:
			return m, nil, nil, exitcode.Env(fmt.Errorf("read %s: %w", filepath.Join(dir, name), err))
		case m.Files[name] == sum(data):
			stale = append(stale, name)
		default:
			edited = append(edited, name)
		}
	}
	return m, stale, edited, nil
}

// CheckNOS refuses (exit 2) a configs directory that is to hold nosName's
// files while it holds another NOS's configs that labctl did not write or
// that were edited since: a lab's configs are one NOS's, and labctl does
// not remove a user's file unasked. Callers check before they write
// anything; PruneOtherNOS then removes the other NOS's files labctl wrote.
// forceFix adds --force to the fix, for a command whose --force removes
// them.
func CheckNOS(dir, nosName string, forceFix bool) error {
	_, _, edited, err := otherNOS(dir, nosName)
	if err != nil || len(edited) == 0 {
		return err
	}
	other, _ := nos.ForExt(filepath.Ext(edited[0]))
	fix := fmt.Sprintf("move those files out of %s to keep them, or keep the NOS they are for with --nos %s", dir, other.Name())
	if forceFix {
		fix = fmt.Sprintf("move those files out of %s to keep them, keep the NOS they are for with --nos %s, or re-run with --force to remove them", dir, other.Name())
	}
	return exitcode.Usagef("%s holds %s configs that were edited or not written by labctl (%s), and its configs are to be %s ones: a lab's configs folder holds one NOS's files (fix: %s)",
		dir, other.Name(), strings.Join(edited, ", "), nosName, fix)
}

// PruneOtherNOS removes from dir the configs of NOSes other than nosName
// that labctl wrote and nobody changed since, and drops them from the
// manifest, so that the folder holds one NOS's files. Edited ones stop it
// as CheckNOS does, before anything is removed, unless force, which
// removes them too. It returns the names removed.
func PruneOtherNOS(dir, nosName string, force bool) ([]string, error) {
	m, stale, edited, err := otherNOS(dir, nosName)
	if err != nil {
		return nil, err
	}
	if len(edited) > 0 && !force {
		return nil, CheckNOS(dir, nosName, false)
	}
	remove := slices.Concat(stale, edited)
	if len(remove) == 0 {
		return nil, nil
	}
	slices.Sort(remove)
	for _, name := range remove {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.WriteFailed(filepath.Join(dir, name), err)
		}
		delete(m.Files, name)
	}
	mdata, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return remove, fmt.Errorf("encode config manifest: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, ManifestName), append(mdata, '\n'), 0o644); err != nil {
		return remove, exitcode.WriteFailed(filepath.Join(dir, ManifestName), err)
	}
	return remove, nil
}

// DeviceName is the device a config file belongs to: its base name up to
// the first dot, so leaf1.json and leaf1.buffers.json are both leaf1.
func DeviceName(path string) string {
	base := filepath.Base(path)
	if i := strings.IndexByte(base, '.'); i > 0 {
		return base[:i]
	}
	return base
}

// group is one device's files, of one NOS.
type group struct {
	n    nos.NOS
	srcs []qos.Source
}

// Load parses config files into device configs. Each path is a file or a
// directory (its non-hidden files with a known extension). Files are
// grouped by DeviceName, merged main file first (leaf1.json, then
// leaf1.buffers.json, … overriding it), and parsed by the NOS named nosName, or, when it is
// empty, the NOS whose config extension the file has (.json SONiC, .cfg
// EOS); with nosName set, a directory contributes only files with that
// NOS's extension. Devices come back sorted by name.
func Load(paths []string, nosName string) ([]qos.DeviceConfig, error) {
	return load(paths, nosName, nil)
}

// load is Load for the switches of a lab (lab, by name; nil: bare files),
// whose ports the lab knows: a NOS that reads them (nos.DeviceParser)
// parses each switch's files for it.
func load(paths []string, nosName string, lab map[string]*qos.Device) ([]qos.DeviceConfig, error) {
	var forced nos.NOS
	if nosName != "" {
		n, err := nos.Lookup(nosName)
		if err != nil {
			return nil, err
		}
		forced = n
	}
	groups := map[string]*group{}
	add := func(path string, explicit bool) error {
		n := forced
		if n != nil && !explicit && filepath.Ext(path) != n.ConfigExt() {
			// In a directory, only the NOS's own files: a configs folder
			// may hold both leaf1.json and leaf1.cfg after a NOS change.
			return nil
		}
		if n == nil {
			var ok bool
			n, ok = nos.ForExt(filepath.Ext(path))
			if !ok {
				if !explicit {
					return nil
				}
				return exitcode.Usagef("%s: cannot tell the NOS from the extension %q: pass --nos sonic|eos", path, filepath.Ext(path))
			}
		}
		data, err := readlimit.ReadFile(path, readlimit.Config)
		if exitcode.Code(err) == exitcode.BadInput {
			return err
		}
		if err != nil {
			return exitcode.Usagef("read config %s: %v", path, err)
		}
		dev := DeviceName(path)
		g := groups[dev]
		if g == nil {
			g = &group{n: n}
			groups[dev] = g
		}
		if g.n.Name() != n.Name() {
			return exitcode.Usagef("%s: device %s has both %s and %s files", path, dev, g.n.Name(), n.Name())
		}
		g.srcs = append(g.srcs, qos.Source{Name: path, Data: data})
		return nil
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Usagef("config path %s: no such file or directory (fix: check the path; a lab's configs are in topologies/<lab>/configs/)", p)
		}
		if err != nil {
			return nil, exitcode.Usagef("config path %s: %v", p, err)
		}
		if !st.IsDir() {
			if err := add(p, true); err != nil {
				return nil, err
			}
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, exitcode.Usagef("read config directory %s: %v", p, err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if e.IsDir() {
				// A folder named as a config (leaf1.json/) stands where
				// the device's file goes: skipping it would run or lint
				// the fabric without that switch's QoS.
				if n, ok := nos.ForExt(filepath.Ext(e.Name())); ok && (forced == nil || n.Name() == forced.Name()) {
					return nil, exitcode.Usagef("%s is a directory where %s's %s config file goes (fix: remove the directory and put the device's config file there)", filepath.Join(p, e.Name()), DeviceName(e.Name()), n.Name())
				}
				continue
			}
			if err := add(filepath.Join(p, e.Name()), false); err != nil {
				return nil, err
			}
		}
	}
	devs := slices.Sorted(maps.Keys(groups))
	for _, dev := range devs {
		g := groups[dev]
		// The device's main file (leaf1.json) first, then the others
		// (leaf1.buffers.json, …) in name order, later ones overriding.
		slices.SortStableFunc(g.srcs, func(a, b qos.Source) int {
			am := filepath.Base(a.Name) == dev+g.n.ConfigExt()
			bm := filepath.Base(b.Name) == dev+g.n.ConfigExt()
			switch {
			case am && !bm:
				return -1
			case bm && !am:
				return 1
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	// Devices parse independently, so a large lab's hundreds of files
	// parse on every CPU; each result lands at its device's index and the
	// first error in device order is the one returned, as a parse one by
	// one would.
	if len(devs) == 0 {
		return nil, nil
	}
	// A device whose files hold the same bytes as an earlier device's
	// (same NOS, same files in the same order) takes a copy of its parse
	// when the NOS's parse reads only the bytes (nos.DataOnlyParser): a
	// rendered lab's leaves are one parse, its spines another.
	same := make([]int, len(devs))
	seed := maphash.MakeSeed()
	firsts := map[uint64][]int{} // devices parsed, by filesHash
	for i, dev := range devs {
		same[i] = i
		g := groups[dev]
		if _, ok := g.n.(nos.DataOnlyParser); !ok {
			continue
		}
		h := filesHash(seed, g)
		for _, j := range firsts[h] {
			if sameFiles(g, groups[devs[j]]) && lab[dev].SameFrontPanel(lab[devs[j]]) {
				same[i] = j
				break
			}
		}
		if same[i] == i {
			firsts[h] = append(firsts[h], i)
		}
	}
	out := make([]qos.DeviceConfig, len(devs))
	errs := make([]error, len(devs))
	parallel(len(devs), func(i int) {
		if same[i] != i {
			return
		}
		g := groups[devs[i]]
		out[i], errs[i] = nos.ParseQoSOf(g.n, devs[i], lab[devs[i]], g.srcs...)
	})
	for i, err := range errs {
		// The first device of a set of identical ones comes first, so the
		// error returned is the one a parse of every device would return.
		if err != nil {
			return nil, exitcode.Usage(err)
		}
		if j := same[i]; j != i {
			out[i] = out[j].Clone()
			out[i].Device = devs[i]
		}
		// The parse places what it reports by the index of a file; the
		// names are the device's own, also where it shares a parse.
		srcs := groups[devs[i]].srcs
		out[i].Sources = make([]string, len(srcs))
		for k, src := range srcs {
			out[i].Sources[k] = src.Name
		}
	}
	return out, nil
}

// filesHash is a hash of what sameFiles compares.
func filesHash(seed maphash.Seed, g *group) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(g.n.Name())
	for _, src := range g.srcs {
		h.WriteByte(0)
		h.WriteString(strconv.Itoa(len(src.Data)))
		h.WriteByte(0)
		h.Write(src.Data)
	}
	return h.Sum64()
}

// sameFiles says whether two devices have the same NOS and files of the
// same bytes in the same order (the order they merge in); the files'
// names do not matter to a nos.DataOnlyParser.
func sameFiles(ga, gb *group) bool {
	if ga.n.Name() != gb.n.Name() || len(ga.srcs) != len(gb.srcs) {
		return false
	}
	for k := range ga.srcs {
		if !bytes.Equal(ga.srcs[k].Data, gb.srcs[k].Data) {
			return false
		}
	}
	return true
}

// parallel calls f(0) … f(n-1) on up to GOMAXPROCS goroutines and
// returns when all have returned.
func parallel(n int, f func(i int)) {
	workers := min(n, goruntime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// NotSwitchFileError is LoadLab's refusal of a file in a lab's configs
// directory that is no switch's config. Its message is whole: the fix is
// to move the file, not to render the lab again.
type NotSwitchFileError struct{ msg string }

func (e *NotSwitchFileError) Error() string { return e.msg }

// onlySwitchFiles refuses a file of the lab's NOS in its configs
// directory that is not one switch's config (<switch>.json): a lab pushes
// each switch its one file, so anything else there (a backup leaf1.old.json,
// a companion leaf1.buffers.json, a stray leaf9.json) would be merged into
// what lint and the simulator read (Load groups by DeviceName, later files
// overriding) but never reach a switch: an edit of leaf1.json masked by its
// backup's old values passed lint, run and regress.
func onlySwitchFiles(lab, dir, nosName string, devs []qos.Device) error {
	n, err := nos.Lookup(nosName)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // Load reports the directory
	}
	switches := map[string]bool{}
	var names []string
	for _, d := range devs {
		if d.Role != "host" {
			switches[d.Name+n.ConfigExt()] = true
			names = append(names, d.Name+n.ConfigExt())
		}
	}
	slices.Sort(names)
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() || filepath.Ext(name) != n.ConfigExt() || switches[name] {
			continue
		}
		fix := "move it out of " + dir + " (a backup belongs elsewhere), or delete it"
		if dev := DeviceName(name); switches[dev+n.ConfigExt()] {
			fix = fmt.Sprintf("move it out of %s (a backup belongs elsewhere), or merge the entries you want into %s", dir, dev+n.ConfigExt())
		}
		return exitcode.Usage(&NotSwitchFileError{fmt.Sprintf("%s is not a switch's config of lab %s: a lab's switches each get one file (%s), so this one's settings would be read by lint and the simulator but never reach a switch (fix: %s)",
			filepath.Join(dir, name), lab, summarizeNames(names), fix)})
	}
	return nil
}

// summarizeNames lists names, or the first few and how many more.
func summarizeNames(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, ... %d in all", strings.Join(names[:3], ", "), len(names))
}

// LoadLab reads lab's configs directory (only the lab NOS's files) and
// adds the fabric's peers, speeds and the intent's MTU (qos.AttachTopology):
// the device configs lint, the simulator and scenario variants work from.
// A missing or empty directory is a usage error that gives the command
// that renders the lab's configs.
func LoadLab(lab, dir, nosName string, devs []qos.Device, in qos.Intent) ([]qos.DeviceConfig, error) {
	render := "labctl config render " + lab
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, exitcode.Usagef("no configs: %s does not exist (fix: run '%s' to write the lab's configs)", dir, render)
	}
	if err := onlySwitchFiles(lab, dir, nosName, devs); err != nil {
		return nil, err
	}
	byName := map[string]*qos.Device{}
	for i := range devs {
		byName[devs[i].Name] = &devs[i]
	}
	cfgs, err := load([]string{dir}, nosName, byName)
	if err != nil {
		return nil, err
	}
	if len(cfgs) == 0 {
		// Configs of the other NOS may be there (rendered with --nos).
		for _, other := range []string{"sonic", "eos"} {
			if other == nosName {
				continue
			}
			if oc, err := Load([]string{dir}, other); err == nil && len(oc) > 0 {
				return nil, exitcode.Usagef("no %s config files in %s, but %d %s ones (fix: add --nos %s, or run '%s --nos %s')", nosName, dir, len(oc), other, other, render, nosName)
			}
		}
		return nil, exitcode.Usagef("no %s config files in %s (fix: run '%s' to write the lab's configs)", nosName, dir, render)
	}
	// Every switch of the fabric has its file: lint without one would pass
	// a fabric that a run refuses (and a live lab runs with the switch's
	// own QoS).
	have := map[string]bool{}
	for _, c := range cfgs {
		have[c.Device] = true
	}
	for _, d := range devs {
		if d.Role != "host" && !have[d.Name] {
			n, _ := nos.Lookup(nosName)
			file := d.Name
			if n != nil {
				file += n.ConfigExt()
			}
			return nil, exitcode.Usagef("%s has no config file: %s is missing (fix: run '%s' to render it, or put %s's %s config there)", d.Name, filepath.Join(dir, file), render, d.Name, nosName)
		}
	}
	qos.AttachTopology(cfgs, devs, in)
	return cfgs, nil
}
