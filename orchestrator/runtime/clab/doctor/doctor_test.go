package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// fakeEnv is a machine described by its fields.
type fakeEnv struct {
	dockerErr   error
	clabPath    string
	clabErr     error
	images      map[string]bool
	imageErr    error
	privErr     error
	rxe         string
	red         string
	rxeErr      error
	netnsDetail string
	netnsErr    error
	memlock     int64
	sysctl      map[string]int64
	memAvail    int
	files       map[string]bool // image + ":" + path
	filesErr    error
	thp         string
}

func (f *fakeEnv) Docker(context.Context) (string, string, error) {
	return "20.10.24+dfsg1", "1.41", f.dockerErr
}
func (f *fakeEnv) Containerlab(context.Context) (string, string, error) {
	return f.clabPath, "0.79.0", f.clabErr
}
func (f *fakeEnv) ImagePresent(_ context.Context, ref string) (bool, error) {
	return f.images[ref], f.imageErr
}
func (f *fakeEnv) TryPrivileged(context.Context) error { return f.privErr }
func (f *fakeEnv) ImageHasFile(_ context.Context, ref, path string) (bool, error) {
	return f.files[ref+":"+path], f.filesErr
}
func (f *fakeEnv) KernelRelease() string                      { return "6.18.44-test" }
func (f *fakeEnv) RXEModule() (string, error)                 { return f.rxe, f.rxeErr }
func (f *fakeEnv) REDQdisc() (string, error)                  { return f.red, nil }
func (f *fakeEnv) RXEInNetns(context.Context) (string, error) { return f.netnsDetail, f.netnsErr }
func (f *fakeEnv) MemlockKiB() (int64, error)                 { return f.memlock, nil }
func (f *fakeEnv) Sysctl(name string) (int64, error)          { return f.sysctl[name], nil }
func (f *fakeEnv) MemAvailableMiB() (int, error)              { return f.memAvail, nil }
func (f *fakeEnv) HugePageMode() string                       { return f.thp }

// goodEnv passes every check.
func goodEnv() *fakeEnv {
	return &fakeEnv{
		clabPath:    "/usr/bin/containerlab",
		images:      map[string]bool{"docker-sonic-vs:latest": true, "labctl/rdma-host:latest": true},
		rxe:         "module /lib/modules/6.1.0/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz",
		red:         "module /lib/modules/6.1.0/kernel/net/sched/sch_red.ko.xz",
		netnsDetail: "rxedoctor0 on eth0, state ACTIVE",
		memlock:     -1,
		sysctl:      map[string]int64{"fs/inotify/max_user_instances": 1024, "fs/inotify/max_user_watches": 1048576},
		memAvail:    32000,
		files:       map[string]bool{"docker-sonic-vs:latest:" + SonicSKUFile: true},
	}
}

func labImages() []Image {
	return []Image{{Role: "sonic", Ref: "docker-sonic-vs:latest", Required: true}, {Role: "host", Ref: "labctl/rdma-host:latest", Required: true}}
}

func find(t *testing.T, r *Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return Check{}
}

func TestAllPass(t *testing.T) {
	r := Run(context.Background(), goodEnv(), "clab", Options{Images: labImages(), NeedMemMiB: 8000})
	for _, c := range r.Checks {
		if c.Status != Pass {
			t.Errorf("%s: %s %s", c.Name, c.Status, c.Detail)
		}
	}
	if r.Blocked || r.Summary != "ready for --runtime clab" {
		t.Errorf("report = %+v", r)
	}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*fakeEnv, *Options)
		check  string
		status Status
		blocks bool
		inText string
	}{
		{"docker down", func(e *fakeEnv, _ *Options) {
			e.dockerErr = errors.New("dial unix /var/run/docker.sock: connect: no such file")
		}, "docker", Fail, true, "no such file"},
		// The engine's error as other commands see it sends the user to
		// doctor; doctor leaves that out.
		{"engine refused, as the runtime words it", func(e *fakeEnv, _ *Options) {
			e.dockerErr = errors.New("docker engine at unix:///var/run/docker.sock is not reachable: connection refused (start dockerd, or set DOCKER_HOST" + clab.DoctorHint + ")")
		}, "docker", Fail, true, "connection refused (start dockerd, or set DOCKER_HOST)"},
		{"no containerlab", func(e *fakeEnv, _ *Options) { e.clabPath = "" }, "containerlab", Fail, true, "not found on PATH"},
		{"broken containerlab", func(e *fakeEnv, _ *Options) { e.clabErr = errors.New("exit status 2") }, "containerlab", Fail, true, "does not run"},
		{"required image missing", func(e *fakeEnv, _ *Options) { delete(e.images, "labctl/rdma-host:latest") }, "image host", Fail, true, "labctl/rdma-host:latest is not in the local image store"},
		{"optional image missing", func(_ *fakeEnv, o *Options) { o.Images = append(o.Images, Image{Role: "eos", Ref: "ceos:4.32.0F"}) }, "image eos", Warn, false, "needed only by labs with nos: eos"},
		{"image inspect error", func(e *fakeEnv, _ *Options) { e.imageErr = errors.New("engine busy") }, "image host", Warn, false, "engine busy"},
		{"privileged refused", func(e *fakeEnv, _ *Options) { e.privErr = errors.New("operation not permitted") }, "privileged", Warn, false, "cannot start"},
		{"privileged untestable", func(e *fakeEnv, _ *Options) { e.privErr = fmt.Errorf("%w: no local image", ErrCannotTest) }, "privileged", Warn, false, "cannot test"},
		{"no rxe", func(e *fakeEnv, _ *Options) { e.rxe = "" }, "rdma_rxe", Fail, true, NoRXE},
		// Where doctor looked, said as what is absent: not a list that
		// reads as what is present.
		{"no rxe, where looked", func(e *fakeEnv, _ *Options) { e.rxe = "" }, "rdma_rxe", Fail, true, "rdma_rxe not loaded, not built in, not under /lib/modules)"},
		{"rxe builtin", func(e *fakeEnv, _ *Options) { e.rxe = "built in" }, "rdma_rxe", Pass, false, "built in"},
		{"no red qdisc", func(e *fakeEnv, _ *Options) { e.red = "" }, "red qdisc", Warn, false, "no RED qdisc (sch_red) in this kernel"},
		{"rxe not in netns", func(e *fakeEnv, _ *Options) { e.netnsErr = errors.New("rdma link add: Operation not supported") }, "soft-roce-netns", Fail, true, "Operation not supported"},
		{"rxe netns untestable", func(e *fakeEnv, _ *Options) { e.netnsErr = fmt.Errorf("%w: host image missing", ErrCannotTest) }, "soft-roce-netns", Warn, false, "cannot test"},
		{"memlock small", func(e *fakeEnv, _ *Options) { e.memlock = 8192 }, "memlock", Warn, false, "8192 KiB"},
		{"inotify low", func(e *fakeEnv, _ *Options) { e.sysctl["fs/inotify/max_user_instances"] = 128 }, "inotify", Warn, false, "max_user_instances 128"},
		{"memory short", func(e *fakeEnv, o *Options) { e.memAvail = 4000; o.NeedMemMiB = 9000 }, "memory", Fail, true, "needs about 9000 MiB, 4000 MiB available"},
		{"memory tight", func(e *fakeEnv, o *Options) { e.memAvail = 10000; o.NeedMemMiB = 9000 }, "memory", Warn, false, "less than 20% spare"},
		{"memory no lab", func(e *fakeEnv, o *Options) { o.NeedMemMiB = 0 }, "memory", Pass, false, "--lab"},
		{"sonic image without the SKU", func(e *fakeEnv, _ *Options) { e.files = nil }, "sonic sku", Fail, true, "lacks HWSKU Mellanox-SN4700-V64"},
		{"sonic image unreadable", func(e *fakeEnv, _ *Options) { e.filesErr = errors.New("engine busy") }, "sonic sku", Warn, false, "cannot look into docker-sonic-vs:latest"},
		{"optional sonic image without the SKU", func(e *fakeEnv, o *Options) { e.files = nil; o.Images[0].Required = false }, "sonic sku", Warn, false, "lacks HWSKU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := goodEnv()
			opt := Options{Images: labImages(), NeedMemMiB: 8000}
			tt.mutate(env, &opt)
			r := Run(context.Background(), env, "clab", opt)
			c := find(t, r, tt.check)
			if c.Status != tt.status || (c.Status == Fail && c.Blocks != tt.blocks) {
				t.Errorf("%s = %s (blocks %v), want %s (blocks %v): %s", tt.check, c.Status, c.Blocks, tt.status, tt.blocks, c.Detail)
			}
			if !strings.Contains(c.Detail, tt.inText) {
				t.Errorf("detail %q does not contain %q", c.Detail, tt.inText)
			}
			if c.Status != Pass && c.Fix == "" && !strings.Contains(c.Detail, "cannot inspect") {
				t.Errorf("%s: %s without a fix", tt.check, c.Status)
			}
			if r.Blocked != (tt.status == Fail && tt.blocks) {
				t.Errorf("Blocked = %v", r.Blocked)
			}
			if r.Blocked && !strings.Contains(r.Summary, SimWorks) {
				t.Errorf("blocked summary %q does not point to sim", r.Summary)
			}
		})
	}
}

func TestDockerDownSkipsContainerChecks(t *testing.T) {
	env := goodEnv()
	env.dockerErr = errors.New("refused")
	r := Run(context.Background(), env, "clab", Options{Images: labImages()})
	if c := find(t, r, "images"); c.Status != Warn {
		t.Errorf("images = %+v", c)
	}
	if c := find(t, r, "soft-roce-netns"); c.Status != Warn {
		t.Errorf("soft-roce-netns = %+v", c)
	}
}

// TestSimNeedsNothing: the sim runtime is ready on any machine; its
// report says besides whether a run's memory can come in huge pages, a
// WARN with a fix where it cannot.
func TestSimNeedsNothing(t *testing.T) {
	for mode, want := range map[string]Status{"madvise": Pass, "always": Pass, "never": Warn, "": Warn} {
		r := Run(context.Background(), &fakeEnv{dockerErr: errors.New("x"), thp: mode}, "sim", Options{})
		if r.Blocked || len(r.Checks) != 2 || r.Checks[0].Name != "sim" || r.Checks[0].Status != Pass || r.Summary != "ready for --runtime sim" {
			t.Errorf("mode %q: sim report = %+v", mode, r)
			continue
		}
		c := find(t, r, "huge pages")
		if c.Status != want || (want == Warn) != (c.Fix != "") {
			t.Errorf("mode %q: huge pages check %+v, want %s with a fix only on WARN", mode, c, want)
		}
		if mode != "" && !strings.Contains(c.Detail, mode) {
			t.Errorf("mode %q: the detail %q does not name the mode", mode, c.Detail)
		}
	}
}

// TestGoldenThisKindOfMachine renders the report of a machine like the one
// labctl is developed on: Docker but no containerlab, no rxe, no RED
// qdisc, a small memlock limit and low inotify limits.
func TestGoldenThisKindOfMachine(t *testing.T) {
	env := goodEnv()
	env.clabPath = ""
	env.rxe = ""
	env.red = ""
	env.privErr = errors.New("Error response from daemon: privileged mode is incompatible with user namespaces")
	env.memlock = 8192
	env.sysctl = map[string]int64{"fs/inotify/max_user_instances": 128, "fs/inotify/max_user_watches": 192536}
	env.memAvail = 23154
	r := Run(context.Background(), env, "clab", Options{Images: labImages(), NeedMemMiB: 3600})
	var text, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back["blocked"] != true || back["schema_version"] != float64(1) {
		t.Errorf("JSON = %s (%v)", js.Bytes(), err)
	}
	if !strings.Contains(text.String(), NoRXE) || !strings.Contains(text.String(), "no RED qdisc (sch_red) in this kernel") {
		t.Errorf("text lacks %q or the RED qdisc's absence", NoRXE)
	}
	golden(t, "testdata/no-rxe.txt", text.Bytes())
	golden(t, "testdata/no-rxe.json", js.Bytes())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it):\n%s", path, got)
	}
}

func TestFindRXE(t *testing.T) {
	const rel = "6.1.0-18-amd64"
	tests := []struct {
		name string
		fs   fstest.MapFS
		want string
	}{
		{"nothing", fstest.MapFS{"proc/version": {}}, ""},
		{"loaded", fstest.MapFS{"sys/module/rdma_rxe/refcnt": {Data: []byte("0")}}, "loaded"},
		{"builtin", fstest.MapFS{"lib/modules/" + rel + "/modules.builtin": {Data: []byte("kernel/fs/ext4/ext4.ko\nkernel/drivers/infiniband/sw/rxe/rdma_rxe.ko\n")}}, "built in"},
		{"module", fstest.MapFS{"lib/modules/" + rel + "/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz": {}}, "module /lib/modules/" + rel + "/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz"},
		{"other kernel's module", fstest.MapFS{"lib/modules/5.10.0/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko": {}}, ""},
	}
	for _, tt := range tests {
		got, err := FindRXE(tt.fs, rel)
		if err != nil || got != tt.want {
			t.Errorf("%s: FindRXE = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	// The RED qdisc is found the same way, by its own name only.
	red := fstest.MapFS{"lib/modules/" + rel + "/kernel/net/sched/sch_red.ko.xz": {}, "sys/module/rdma_rxe/refcnt": {Data: []byte("0")}}
	if got, err := FindModule(red, rel, "sch_red"); err != nil || got != "module /lib/modules/"+rel+"/kernel/net/sched/sch_red.ko.xz" {
		t.Errorf("FindModule(sch_red) = %q, %v", got, err)
	}
	if got, _ := FindModule(fstest.MapFS{"sys/module/rdma_rxe/refcnt": {}}, rel, "sch_red"); got != "" {
		t.Errorf("FindModule(sch_red) found %q where only rdma_rxe is", got)
	}
}

// PreDeploy reports what stops a deploy beyond containerlab, the engine,
// the images and memory (which the runtime and up check themselves): one
// line per blocking problem, with its fix.
func TestPreDeploy(t *testing.T) {
	env := goodEnv()
	if p, w := PreDeploy(context.Background(), env, Options{Images: labImages()}, true); len(p) != 0 || len(w) != 0 {
		t.Errorf("good machine: problems %q, warnings %q", p, w)
	}
	env.rxe = ""
	env.files = nil
	env.memlock = 8192
	env.clabPath = ""  // the runtime's own check, not PreDeploy's
	env.memAvail = 100 // likewise up's
	p, w := PreDeploy(context.Background(), env, Options{Images: labImages(), NeedMemMiB: 9000}, true)
	if len(p) != 2 || !strings.HasPrefix(p[0], "sonic sku: ") || !strings.HasPrefix(p[1], "rdma_rxe: "+NoRXE) || !strings.Contains(p[1], "(fix: run on a kernel with CONFIG_RDMA_RXE") {
		t.Errorf("problems %q", p)
	}
	if len(w) != 1 || !strings.HasPrefix(w[0], "memlock: ") {
		t.Errorf("warnings %q", w)
	}
	// Without an engine: the kernel's and the limits' checks still run
	// (a refused up names them with the engine's failure), the image's
	// and the container's do not.
	p, w = PreDeploy(context.Background(), env, Options{Images: labImages()}, false)
	if len(p) != 1 || !strings.HasPrefix(p[0], "rdma_rxe: "+NoRXE) || len(w) != 1 || !strings.HasPrefix(w[0], "memlock: ") {
		t.Errorf("no engine: problems %q, warnings %q", p, w)
	}
}

// The machine's available memory as doctor reads it: /proc/meminfo through
// fabric's parser, the one `labctl up` checks a lab's estimate against.
func TestSystemMemAvailable(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo on this system")
	}
	n, err := (&SystemEnv{}).MemAvailableMiB()
	if err != nil || n <= 0 {
		t.Fatalf("MemAvailableMiB = %d, %v; want a positive size", n, err)
	}
}
