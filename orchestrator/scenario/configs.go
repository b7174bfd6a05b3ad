package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// variantConfigs checks a QoS sweep against the lab's configs and writes
// every variant's switch configs into r.ConfigsDir/<variant>/: the lab's
// configs as they are on disk, edits included, with the point's swept
// values on top and ECN or PFC removed for the off variants
// (runtime.VariantConfigs, which the runtimes run on too). The lab's own
// files are only read. It returns what each variant's configs change,
// by variant name.
//
// A value no config can take (a Kmin above a port's Kmax) or a swept key
// that reaches no switch (Kmin on a lab whose queues do not mark) is bad
// input, placed at the value or key in the scenario file.
func (r *Runner) variantConfigs(s *Spec, points []Point, specs []runtime.VariantSpec) (map[string]*results.VariantConfigs, error) {
	l := r.Lab
	if l == nil || l.Graph == nil {
		return nil, fmt.Errorf("scenario %s sweeps QoS values, which needs the lab's fabric and configs", s.Name)
	}
	labCfgs, err := runtime.LoadConfigs(l)
	if err != nil {
		return nil, err
	}
	// Each value alone first, so a problem is placed at its value.
	for k, sw := range s.Matrix.Sweeps {
		if sw.family != famQoS || sw.Path == "qos.mtu" {
			continue // the MTU is the NICs', no switch setting
		}
		reached := 0
		for i, val := range sw.Values {
			idx := make([]int, len(s.Matrix.Sweeps))
			for j := range idx {
				idx[j] = -1
			}
			idx[k] = i
			cfgs := cloneConfigs(labCfgs)
			n, err := runtime.ApplyQoS(cfgs, s.overlay(famQoS, idx).(lab.QoSSpec))
			if err != nil {
				return nil, s.SweepError(sw.Path, val, fmt.Sprintf("%s=%s on lab %s: %v", sw.Path, val, l.Name, err),
					fmt.Sprintf("sweep values the lab's configs in %s can take", l.ConfigsDir()))
			}
			reached += n
		}
		if reached == 0 {
			return nil, s.SweepError(sw.Path, "", fmt.Sprintf("%s changes nothing on lab %s: no switch config in %s has %s", sw.Path, l.Name, l.ConfigsDir(), sweepTarget(sw.Path)),
				"sweep a key the lab's configs use, or fix the configs (labctl config lint "+l.Name+")")
		}
	}
	out := map[string]*results.VariantConfigs{}
	// Points that run the same configs (runtime.VariantSpec.ConfigsKey:
	// the transports scenario's 30 points on a few) share their changes
	// and rendered files: on 1024gpu each diff and render of 48 switches
	// took a fifth of a second, most of the run's 9 s.
	type derived struct {
		changes []results.ConfigChange
		files   map[string][]byte
		// notInFiles: changes the rendered files cannot carry.
		notInFiles []string
		// dir is where the first point of the key wrote its files: the
		// others link to them (the transports scenario on 1024gpu wrote
		// 30 copies of 48 switches' configs, 102 MB a run).
		dir string
	}
	byKey := map[string]*derived{}
	var labSettings []qos.Settings // summarized once, for every key's diff
	for i, pt := range points {
		if pt.Repetition > 0 {
			continue // repetitions run the same configs
		}
		key := specs[i].ConfigsKey()
		d := byKey[key]
		if d == nil {
			_, cfgs, err := runtime.VariantConfigs(l, specs[i])
			if err != nil {
				last := ""
				for _, p := range pt.Params {
					if strings.HasPrefix(p.Path, "qos.") {
						last = p.Path
					}
				}
				return nil, s.SweepError(last, s.paramValue(pt, last), fmt.Sprintf("point %s: %v", pt.Name, err), "sweep values the lab's configs can take together")
			}
			d = &derived{changes: []results.ConfigChange{}}
			if labSettings == nil {
				labSettings = qos.SummarizeAll(labCfgs)
			}
			diffs := qos.DiffSettings(labSettings, qos.SummarizeAll(cfgs))
			for _, g := range qos.GroupDiff(diffs) {
				d.changes = append(d.changes, results.ConfigChange{Field: g.Field, From: g.A, To: g.B, Count: g.Count, Devices: g.Devices})
			}
			d.notInFiles = notInFiles(cfgs, diffs)
			if r.ConfigsDir != "" {
				if d.files, err = runtime.RenderConfigs(l, cfgs); err != nil {
					return nil, err
				}
			}
			byKey[key] = d
		}
		vc := &results.VariantConfigs{Changes: slices.Clone(d.changes), NotInFiles: slices.Clone(d.notInFiles)}
		if r.ConfigsDir != "" {
			name := runtime.VariantDir(pt.Name)
			dir := filepath.Join(r.ConfigsDir, name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, exitcode.WriteFailed(dir, err)
			}
			for f, data := range d.files {
				// A link is made whole or not at all, as the atomic write
				// is; where links cannot be made (another file system),
				// the file is written.
				if d.dir != "" && os.Link(filepath.Join(d.dir, f), filepath.Join(dir, f)) == nil {
					continue
				}
				if err := results.WriteFileAtomic(filepath.Join(dir, f), data, 0o644); err != nil {
					return nil, exitcode.WriteFailed(filepath.Join(dir, f), err)
				}
			}
			if d.dir == "" {
				d.dir = dir
			}
			vc.Dir = filepath.ToSlash(filepath.Join(filepath.Base(r.ConfigsDir), name))
		}
		out[pt.Name] = vc
	}
	return out, nil
}

// notInFiles lists the changes of a point's configs (diffs, against the
// lab's) that no config file shows: those of the buffer of a switch whose
// buffer is the platform's (qos.BufferField, DeviceConfig.PlatformBuffer:
// a swept pool on EOS, which configures none), "<switch> <ports> <field>
// -> <value>". The round-trip tests hold the renderers to write every
// other change (orchestrator/nos, FuzzVariantRendersAsSimulated).
func notInFiles(cfgs []qos.DeviceConfig, diffs []qos.Difference) []string {
	platform := map[string]bool{}
	for i := range cfgs {
		platform[cfgs[i].Device] = cfgs[i].PlatformBuffer
	}
	var out []string
	for _, d := range diffs {
		if platform[d.Device] && qos.BufferField(d.Field) {
			out = append(out, d.Device+" "+d.Landing())
		}
	}
	return out
}

// sweepTarget says what a swept qos key changes, for a sweep that finds
// nothing to change.
func sweepTarget(path string) string {
	if strings.HasPrefix(path, "qos.pfc_watchdog.") {
		return "a port with a PFC watchdog"
	}
	if path == "qos.buffer_pool_bytes" {
		return "a buffer pool"
	}
	return "a queue that marks ECN"
}

// paramValue is a point's value of a swept path ("" without one).
func (s *Spec) paramValue(pt Point, path string) string {
	for _, p := range pt.Params {
		if p.Path == path {
			return p.Value
		}
	}
	return ""
}

func cloneConfigs(cfgs []qos.DeviceConfig) []qos.DeviceConfig {
	out := make([]qos.DeviceConfig, len(cfgs))
	for i := range cfgs {
		out[i] = cfgs[i].Clone()
	}
	return out
}
