package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/labctl/labctl/orchestrator/configset"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/readlimit"
)

// NOSCodec renders and parses one NOS's QoS config files: the part of a
// NOS plug-in (nos.NOS) the runtimes need.
type NOSCodec interface {
	Name() string
	ConfigExt() string
	RenderQoS(dc qos.DeviceConfig) ([]byte, error)
	ParseQoS(device string, srcs ...qos.Source) (qos.DeviceConfig, error)
}

// Codec returns the config codec of a NOS by name ("" is sonic, the
// default NOS of lab specs).
func Codec(nosName string) (NOSCodec, error) {
	if nosName == "" {
		nosName = "sonic"
	}
	n, err := nos.Lookup(nosName)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Devices adapts the fabric graph's switches to the QoS layer's devices
// (qos.DevicesFromGraph: a merged lab port keeps one member's speed).
func Devices(g *fabric.Graph) []qos.Device { return qos.DevicesFromGraph(g) }

// LintOptions are the lint options of a lab: its QoS intent, its switches
// (lint checks each port's RoCE classes against what the intent renders,
// and each switch against the others of its role), what its routing
// design risks (valley paths after failures: QOS019) and the DSCP its
// NICs give CNPs (spec's nic section; none without a spec).
func LintOptions(g *fabric.Graph, in qos.Intent, spec *lab.Spec) qos.LintOptions {
	opt := qos.LintOptions{Intent: &in, Devices: Devices(g), Routing: g.ValleyPathRisk()}
	if spec != nil {
		// The spec was checked when it was read: its NIC settings resolve.
		if st, err := spec.NICSettings(); err == nil {
			opt.NICCNPDSCP = &st.CNPDSCP
		}
	}
	return opt
}

// Intent resolves the lab's QoS intent from its spec.
func (l *Lab) Intent() (qos.Intent, error) {
	if l.Spec == nil {
		return qos.Profile("")
	}
	in, err := qos.FromSpec(l.Spec.QoS)
	if err != nil {
		return qos.Intent{}, fmt.Errorf("qos of lab %s: %w", l.Name, err)
	}
	return in, nil
}

// ConfigPath is the vendor config file of one switch.
func (l *Lab) ConfigPath(codec NOSCodec, switchName string) string {
	return filepath.Join(l.ConfigsDir(), switchName+codec.ConfigExt())
}

// RenderStep renders the lab's files (RenderLab) as Up's prepare step,
// for callers that report nothing of what was written or kept.
func RenderStep(_ context.Context, l *Lab) error {
	_, _, err := RenderLab(l)
	return err
}

// RenderLab brings the lab's generated files in line with its spec:
// the topology (generated, never edited by users) is rewritten when it
// differs, and each switch's vendor config is written when it is absent or
// when labctl wrote it and the lab has changed since (a new port, a new
// speed). A config the user edited is never touched: it is returned in the
// kept list, because the lab uses it as it is; written are the files
// written. Everything is rendered and checked before the first file is written. The
// configs folder holds the lab NOS's files only: another NOS's that labctl
// wrote are removed (the lab was brought up with another --nos before), and
// one the user edited or dropped in refuses the render.
func RenderLab(l *Lab) (written, kept []string, err error) {
	if l.Graph == nil {
		return nil, nil, fmt.Errorf("render lab %s: no fabric graph", l.Name)
	}
	if l.InfiniBand() {
		return renderInfiniBand(l)
	}
	codec, err := Codec(l.NOS)
	if err != nil {
		return nil, nil, err
	}
	if err := configset.CheckNOS(l.ConfigsDir(), codec.Name(), false); err != nil {
		return nil, nil, fmt.Errorf("lab %s: %w", l.Name, err)
	}
	stale, err := staleTopology(l)
	if err != nil {
		return nil, nil, err
	}
	in, err := l.Intent()
	if err != nil {
		return nil, nil, err
	}
	configs := map[string][]byte{}
	for _, dev := range Devices(l.Graph) {
		dc, err := qos.Apply(in, dev)
		if err != nil {
			return nil, nil, fmt.Errorf("qos of %s: %w", dev.Name, err)
		}
		dc.NOS = codec.Name()
		data, err := codec.RenderQoS(dc)
		if err != nil {
			return nil, nil, err // the renderer's error names the NOS and device
		}
		configs[filepath.Base(l.ConfigPath(codec, dev.Name))] = data
	}
	// Edited files stay as the user left them; the rest are written
	// through configset, which records them in the directory's manifest so
	// that 'labctl config render' can tell them from edited ones later.
	edited, err := configset.Edited(l.ConfigsDir(), configs)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range edited {
		delete(configs, name)
		kept = append(kept, filepath.Join(l.ConfigsDir(), name))
	}

	if stale != nil {
		w, err := l.Graph.WriteFiles(l.Dir, stale)
		if err != nil {
			return nil, nil, err
		}
		written = append(written, w...)
	}
	if err := os.MkdirAll(l.ConfigsDir(), 0o755); err != nil {
		return written, nil, exitcode.Env(fmt.Errorf("create %s: %w (fix: use a writable --dir)", l.ConfigsDir(), err))
	}
	if len(configs) > 0 {
		res, err := configset.Write(l.ConfigsDir(), configs, false)
		if err != nil {
			return written, kept, err
		}
		for _, name := range res.Written {
			written = append(written, filepath.Join(l.ConfigsDir(), name))
		}
	}
	removed, err := configset.PruneOtherNOS(l.ConfigsDir(), codec.Name(), false)
	if err != nil {
		return written, kept, fmt.Errorf("lab %s: %w", l.Name, err)
	}
	for _, name := range removed {
		l.Logger().Info("removed "+filepath.Join(l.ConfigsDir(), name), "why", "the lab's NOS is now "+codec.Name())
	}
	return written, kept, nil
}

// staleTopology returns the lab's generated files (Graph.Files) when one
// on disk differs from what the fabric gives (unreadable or over the cap
// counts as differing: it is rewritten), for the caller to write
// (Graph.WriteFiles) without generating them again; nil when every one is
// up to date.
func staleTopology(l *Lab) ([]fabric.File, error) {
	files, err := l.Graph.Files()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		old, err := readlimit.ReadFile(filepath.Join(l.Dir, filepath.FromSlash(f.Path)), readlimit.Generated)
		if err != nil || !bytes.Equal(old, f.Data) {
			return files, nil
		}
	}
	return nil, nil
}

// LoadConfigs parses the vendor config of every switch of the lab from
// topologies/<lab>/configs/ (none for an InfiniBand lab, whose switches
// take none) and adds what the files do not say (peers,
// speeds, cable lengths) from the fabric. A missing or unparsable file is
// an error naming it and the fix.
//
// A run loads the same configs several times (the record's lint, each
// variant): the last configs parsed are kept (lastLoad) and a later call
// whose files, fabric and intent are the same gets a copy of them instead
// of a parse. The caller owns what it gets and may change it in place: it
// is always a copy (qos.DeviceConfig.Clone), so nothing in it is shared
// with the kept configs, another caller's, or between its own ports (a
// parse may let ports share a profile).
func LoadConfigs(l *Lab) ([]qos.DeviceConfig, error) {
	cfgs, err := loadConfigs(l)
	if err != nil {
		return nil, err
	}
	return cloneConfigs(cfgs), nil
}

// LoadConfigsToRead is LoadConfigs for a caller that only reads the
// configs (summaries, class tables, lint): it gets the configs
// LoadConfigs keeps for later calls, not a copy of them, which on a
// 320-switch lab saves a fifth of a run's set-up. The caller must not
// change them or anything they point to (ports of one config may share a
// map). It may keep them: a later parse replaces what is kept, it does
// not change it.
func LoadConfigsToRead(l *Lab) ([]qos.DeviceConfig, error) {
	return loadConfigs(l)
}

// loadConfigs is LoadConfigs's parse or reuse, without the copy: the
// configs it returns may be the ones lastLoad keeps.
func loadConfigs(l *Lab) ([]qos.DeviceConfig, error) {
	if l.Graph == nil {
		return nil, fmt.Errorf("load configs of lab %s: no fabric graph", l.Name)
	}
	if l.InfiniBand() {
		return nil, nil // its switches take none (infiniband.go)
	}
	codec, err := Codec(l.NOS)
	if err != nil {
		return nil, err
	}
	in, err := l.Intent()
	if err != nil {
		return nil, err
	}
	devs := Devices(l.Graph)
	for _, dev := range devs {
		path := l.ConfigPath(codec, dev.Name)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Usagef("lab %s: %s is missing (fix: run 'labctl up %s' to render it, or put %s's %s config there)", l.Name, path, l.Name, dev.Name, codec.Name())
		}
	}
	key := loadKey{dir: l.ConfigsDir(), nos: codec.Name()}
	// Without a key (a file unreadable) nothing is reused: the parse
	// below reports the file.
	key.files, _ = configsKey(l)
	lastLoad.Lock()
	defer lastLoad.Unlock()
	if key.files != "" && lastLoad.key == key && reflect.DeepEqual(lastLoad.devs, devs) && reflect.DeepEqual(lastLoad.intent, in) {
		return lastLoad.cfgs, nil
	}
	// The lab's configs are what lint reads too: each switch's one file
	// (what a live lab pushes to it; LoadLab refuses any other file of the
	// NOS there), resolved, with the fabric's peers, speeds and the
	// intent's defaults attached.
	cfgs, err := configset.LoadLab(l.Name, l.ConfigsDir(), codec.Name(), devs, in)
	if err != nil {
		var stray *configset.NotSwitchFileError
		if exitcode.Code(err) == exitcode.BadInput && !errors.As(err, &stray) {
			// The file's error may say how to correct it already.
			fix := "fix: correct the file, or delete"
			if strings.Contains(err.Error(), "(fix: ") {
				fix = "or delete"
			}
			return nil, exitcode.Usage(fmt.Errorf("lab %s: %w (%s it and run 'labctl up %s' to render it again)", l.Name, err, fix, l.Name))
		}
		return nil, fmt.Errorf("lab %s: %w", l.Name, err)
	}
	// Kept only if the files did not change while they were parsed, so
	// the configs kept are those of the key they are kept under.
	if after, _ := configsKey(l); key.files != "" && after == key.files {
		lastLoad.key, lastLoad.devs, lastLoad.intent, lastLoad.cfgs = key, devs, in, cfgs
	} else {
		lastLoad.key, lastLoad.devs, lastLoad.intent, lastLoad.cfgs = loadKey{}, nil, qos.Intent{}, nil
	}
	return cfgs, nil
}

// loadKey names the configs LoadConfigs parsed: the folder, the NOS and
// the key of the folder's files (configsKey).
type loadKey struct{ dir, nos, files string }

// lastLoad holds the configs LoadConfigs parsed last, with what they were
// parsed from (the fabric's devices and the intent go into the configs
// too). One lab's only: a process runs one lab at a time, and a server
// switching labs parses again. The mutex also keeps concurrent variants of
// one run from parsing the same files side by side.
var lastLoad struct {
	sync.Mutex
	key    loadKey
	devs   []qos.Device
	intent qos.Intent
	cfgs   []qos.DeviceConfig
}

func cloneConfigs(cfgs []qos.DeviceConfig) []qos.DeviceConfig {
	out := make([]qos.DeviceConfig, len(cfgs))
	for i := range cfgs {
		out[i] = cfgs[i].Clone()
	}
	return out
}

// ApplyVariant removes ECN marking (ecn false) and PFC (pfc false) from
// every switch of cfgs, in place (qos.DeviceConfig.RemoveECN and
// RemovePFC). With both true the configs stay as the files have them: the
// "on" variants are the lab's configs, edits included. cfgs must be the
// caller's own, as LoadConfigs and cloneConfigs hand them out: changed in
// place, not copied at each step (a copy of every port's maps per step
// was most of a 128-NIC run's set-up memory).
func ApplyVariant(cfgs []qos.DeviceConfig, ecn, pfc bool) {
	for i := range cfgs {
		if !ecn {
			cfgs[i].RemoveECN()
		}
		if !pfc {
			cfgs[i].RemovePFC()
		}
	}
}

// ApplyQoS applies a variant's swept QoS values on top of every switch's
// config, in place (qos.DeviceConfig.ApplyOverrides: the configs' edits
// stay; cfgs the caller's own, as for ApplyVariant). It returns how many
// queues or ports the values reached, so that a sweep no config can carry
// (Kmin on a lab whose queues do not mark) is told from one that changes
// something. On an error some configs may hold some of the values.
func ApplyQoS(cfgs []qos.DeviceConfig, o lab.QoSSpec) (int, error) {
	total := 0
	for i := range cfgs {
		n, err := cfgs[i].ApplyOverrides(o)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// VariantIntent is the lab's intent as a variant's traffic sees it: a
// swept qos.mtu is the MTU the NICs send (the switch configs keep the MTU
// the lab's give them).
func VariantIntent(in qos.Intent, vs VariantSpec) qos.Intent {
	if vs.QoS.MTU != nil {
		in.MTU = *vs.QoS.MTU
	}
	return in
}

// ChangesConfigs says whether the variant's switch configs differ from
// the lab's: ECN or PFC removed, or swept QoS values on top of them.
func (vs VariantSpec) ChangesConfigs() bool {
	return !vs.ECN || !vs.PFC || !reflect.ValueOf(vs.switchQoS()).IsZero()
}

// switchQoS is the part of the variant's swept QoS values that reaches
// the switches' configs: all of it but the MTU, which is the NICs'.
func (vs VariantSpec) switchQoS() lab.QoSSpec {
	o := vs.QoS
	o.MTU = nil
	return o
}

// ConfigsKey is what decides the variant's configs, as applyVariantSpec
// reads it (the swept QoS values but the NICs' MTU, ECN and PFC): variants
// of one key run the same configs, so a caller that derives something from
// them (their changes from the lab's, their rendered files) does it once
// per key. TestConfigsKey keeps the two in step.
func (vs VariantSpec) ConfigsKey() string {
	b, err := json.Marshal(struct {
		QoS      lab.QoSSpec
		ECN, PFC bool
	}{vs.switchQoS(), vs.ECN, vs.PFC})
	if err != nil {
		// A QoSSpec is plain data; should it ever fail to marshal, the
		// variant's name keeps the key unique (no sharing, no error).
		return "name:" + vs.Name
	}
	return string(b)
}

// VariantConfigs loads the lab's configs (LoadConfigs) and returns them
// with the variant's configs: the swept QoS values applied on top of them
// (ApplyQoS), then ECN or PFC removed for the off variants (ApplyVariant).
// Every runtime runs a variant on these, and the scenario runner writes
// them into the run's folder.
func VariantConfigs(l *Lab, vs VariantSpec) (labCfgs, variant []qos.DeviceConfig, err error) {
	labCfgs, err = LoadConfigs(l)
	if err != nil {
		return nil, nil, err
	}
	variant = cloneConfigs(labCfgs)
	if err := applyVariantSpec(l, vs, variant); err != nil {
		return nil, nil, err
	}
	return labCfgs, variant, nil
}

// VariantOnlyConfigs is VariantConfigs for a caller that needs the
// variant's configs alone and only reads them (a simulated variant): the
// lab's, as LoadConfigs hands them, changed in place rather than copied
// first. A variant that changes none of them (ChangesConfigs) gets the
// configs LoadConfigsToRead keeps, not a copy: on the
// 4096-GPU lab the copy was 130 MB allocated and, held beside the kept
// configs for the whole simulation, a sixth of `run allreduce`'s peak
// memory. Callers must not change what they get (the sim runtime's
// TestVariantLeavesConfigsAlone).
func VariantOnlyConfigs(l *Lab, vs VariantSpec) ([]qos.DeviceConfig, error) {
	if !vs.ChangesConfigs() {
		return LoadConfigsToRead(l)
	}
	cfgs, err := LoadConfigs(l)
	if err != nil {
		return nil, err
	}
	if err := applyVariantSpec(l, vs, cfgs); err != nil {
		return nil, err
	}
	return cfgs, nil
}

// applyVariantSpec applies a variant's swept QoS values (ApplyQoS), then
// removes ECN or PFC for the off variants (ApplyVariant), in place.
func applyVariantSpec(l *Lab, vs VariantSpec, cfgs []qos.DeviceConfig) error {
	if _, err := ApplyQoS(cfgs, vs.QoS); err != nil {
		return exitcode.Usagef("variant %s on lab %s: %v (fix: sweep values the configs in %s can take)", vs.Name, l.Name, err, l.ConfigsDir())
	}
	ApplyVariant(cfgs, vs.ECN, vs.PFC)
	return nil
}

// VariantDir is a file-name form of a variant's name, for the folders that
// hold its configs: "ecn=on,pfc=off" is "ecn-on_pfc-off" and
// "traffic[0].senders=8" "traffic0.senders-8".
func VariantDir(name string) string { return variantDirReplacer.Replace(name) }

var variantDirReplacer = strings.NewReplacer("=", "-", ",", "_", "/", "-", " ", "-", "[", "", "]", "")

// RenderConfigs renders configs with the lab's NOS: file name
// (<switch>.json or .cfg) to contents.
func RenderConfigs(l *Lab, cfgs []qos.DeviceConfig) (map[string][]byte, error) {
	codec, err := Codec(l.NOS)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(cfgs))
	for _, dc := range cfgs {
		data, err := codec.RenderQoS(dc)
		if err != nil {
			return nil, err // the renderer's error names the NOS and device
		}
		out[dc.Device+codec.ConfigExt()] = data
	}
	return out, nil
}

// ConfigDigest is sha256 over the names and contents of the lab's config
// files, so two runs can tell whether the configs changed between them:
// for each file in name order, its name, a NUL, its size in decimal, a
// NUL, then its bytes.
func ConfigDigest(l *Lab) (string, error) {
	h := sha256.New()
	if err := hashConfigs(l, h); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// configsKey is what loadConfigs keeps its configs under: the stream
// ConfigDigest hashes, through a 64-bit maphash. A run takes it before and
// after each parse and for each variant, where ConfigDigest's sha256 (once
// a run, for the record) ran at 0.4 GB/s here: 3.4 MB of 1024gpu's configs
// four times a run. An accidental collision of 64 bits between two
// versions of a lab's configs within one process is not a concern.
func configsKey(l *Lab) (string, error) {
	var h maphash.Hash
	h.SetSeed(configsKeySeed)
	if err := hashConfigs(l, &h); err != nil {
		return "", err
	}
	return strconv.FormatUint(h.Sum64(), 16), nil
}

// configsKeySeed seeds configsKey: a key lives only as long as the
// process.
var configsKeySeed = maphash.MakeSeed()

// hashConfigs writes ConfigDigest's stream into h: each regular file of
// the lab's configs folder (not the hidden ones) in name order. The files
// are streamed through one buffer rather than read whole: on a large lab
// whole reads were tens of MiB of fresh memory.
//
// An InfiniBand lab's switches take no configs: what configures its
// fabric is the subnet manager's settings, written at up, so its digest is
// that file's.
func hashConfigs(l *Lab, h io.Writer) error {
	if l.InfiniBand() {
		if err := digestFile(h, l.SubnetManagerPath(), SubnetManagerFile, make([]byte, 64<<10)); err != nil {
			return fmt.Errorf("digest the subnet manager settings of lab %s: %w", l.Name, err)
		}
		return nil
	}
	entries, err := os.ReadDir(l.ConfigsDir())
	if err != nil {
		return fmt.Errorf("digest configs of lab %s: %w", l.Name, err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	buf := make([]byte, 64<<10)
	for _, n := range names {
		if err := digestFile(h, filepath.Join(l.ConfigsDir(), n), n, buf); err != nil {
			return fmt.Errorf("digest configs of lab %s: %w", l.Name, err)
		}
	}
	return nil
}

// digestFile writes one file's part of ConfigDigest into h, under the
// limit and refusals of readlimit.ReadFile. A file whose size changes
// while it is read is an error (the digest would not be of any one
// version of it), as is one that is no longer a regular file.
func digestFile(h io.Writer, path, name string, buf []byte) error {
	f, size, err := readlimit.OpenSized(path, readlimit.Config)
	if err != nil {
		return err
	}
	defer f.Close()
	if size < 0 {
		return fmt.Errorf("%s is not a regular file", path)
	}
	fmt.Fprintf(h, "%s\x00%d\x00", name, size)
	n, err := io.CopyBuffer(h, io.LimitReader(f, size+1), buf)
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("%s changed while it was read (%d bytes, then %d)", path, size, n)
	}
	return nil
}

// Uncarried lists the changes a variant makes to a switch's config, in
// the model (qos.Diff of the lab's config and the variant's), that the
// rendered configs do not make (the same Diff of the two rendered files
// read back): what pushing the variant would not change on the switch,
// such as an EOS buffer pool (EOS configures none): a live lab refuses
// such a variant, and a simulated run's kept configs say they lack it. Each is "<ports>
// <field> -> <value>". Only the model's changes are looked up: what the
// rendered configs change besides them (a SONiC port's speed, which only a
// lossless PG's profile states, gone from a variant without PFC) is the
// switch's own and does not count.
func Uncarried(codec NOSCodec, full, variant qos.DeviceConfig, fullOut, variantOut []byte) ([]string, error) {
	read := func(data []byte) (qos.DeviceConfig, error) {
		return codec.ParseQoS(full.Device, qos.Source{Name: full.Device + codec.ConfigExt(), Data: data})
	}
	rf, err := read(fullOut)
	if err != nil {
		return nil, fmt.Errorf("read the rendered config of %s back: %w", full.Device, err)
	}
	rv, err := read(variantOut)
	if err != nil {
		return nil, fmt.Errorf("read the rendered variant config of %s back: %w", full.Device, err)
	}
	made := map[string]bool{}
	for _, d := range qos.Diff([]qos.DeviceConfig{rf}, []qos.DeviceConfig{rv}) {
		for _, p := range diffPorts(d) {
			made[changeKey(p, d)] = true
		}
	}
	var missing []string
	for _, d := range qos.Diff([]qos.DeviceConfig{full}, []qos.DeviceConfig{variant}) {
		var lost []string
		for _, p := range diffPorts(d) {
			if !made[changeKey(p, d)] {
				lost = append(lost, p)
			}
		}
		switch {
		case len(lost) == 0:
		case len(lost) == len(diffPorts(d)):
			// All of them: the difference's own port ranges.
			missing = append(missing, d.Landing())
		default:
			d.Port = strings.Join(lost, ", ")
			missing = append(missing, d.Landing())
		}
	}
	return missing, nil
}

// diffPorts are the ports a Difference is on ("" for a device field).
func diffPorts(d qos.Difference) []string {
	if len(d.Ports) > 0 {
		return d.Ports
	}
	return []string{d.Port}
}

// changeKey names one port's change of a Difference by where it lands,
// not where it came from: the port, the field and the new value.
func changeKey(port string, d qos.Difference) string {
	return port + "\x00" + d.Field + "\x00" + d.B
}
