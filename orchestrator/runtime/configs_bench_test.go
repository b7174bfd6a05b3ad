package runtime

import (
	"path/filepath"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
)

// benchLab is the 4096-GPU lab of docs/labs (320 SONiC switches) with its
// configs rendered into a temporary folder by RenderLab, as 'labctl up'
// renders them.
func benchLab(b *testing.B) (*Lab, qos.Intent) {
	b.Helper()
	spec, err := lab.Resolve(filepath.Join("..", "..", "docs", "labs", "4096gpu.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	l, err := NewLab(spec, b.TempDir(), "sonic")
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := RenderLab(l); err != nil {
		b.Fatal(err)
	}
	in, err := l.Intent()
	if err != nil {
		b.Fatal(err)
	}
	return l, in
}

// reportCPU reports the process's CPU time per iteration (cpu-ns/op,
// every goroutine's) when the returned function is called.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if used := processCPU() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// forgetLoadedConfigs drops what LoadConfigs kept, so that an iteration
// starts as a new labctl process does.
func forgetLoadedConfigs() {
	lastLoad.Lock()
	defer lastLoad.Unlock()
	lastLoad.key, lastLoad.devs, lastLoad.intent, lastLoad.cfgs = loadKey{}, nil, qos.Intent{}, nil
}

// BenchmarkLabSetup is the set-up of a run of one variant on the 4096-GPU
// lab, without the simulation: the configs parsed and resolved, the
// record's QoS (settings, class table, lint, as labctl run's labQoSRecord
// has them) and the variant's configs. Parse is the parse and resolve
// alone.
func BenchmarkLabSetup(b *testing.B) {
	l, in := benchLab(b)
	b.Run("parse", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			forgetLoadedConfigs()
			if _, err := LoadConfigs(l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("run", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			forgetLoadedConfigs()
			cfgs, err := LoadConfigsToRead(l)
			if err != nil {
				b.Fatal(err)
			}
			for i := range cfgs {
				qos.Summarize(&cfgs[i])
				qos.ClassTable(&cfgs[i], "", qos.ClassesOf(&cfgs[i], in.RoCEDSCP, in.CNPDSCP))
			}
			if fs := qos.Lint(cfgs, LintOptions(l.Graph, in, l.Spec)); len(fs) == 0 {
				b.Fatal("no lint findings (QOS011 at least is expected)")
			}
			if _, _, err := VariantConfigs(l, VariantSpec{Name: "ecn=on,pfc=on", ECN: true, PFC: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
