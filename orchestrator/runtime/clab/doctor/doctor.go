// Package doctor checks whether this machine can run labs with the
// containerlab runtime and says, for each thing missing, how to fix it. The
// environment is reached only through the Env interface, so every check is
// tested for each of its outcomes.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
)

// Status of one check.
type Status string

const (
	Pass Status = "PASS"
	Warn Status = "WARN"
	Fail Status = "FAIL"
)

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
	// Blocks says a FAIL stops `--runtime clab`.
	Blocks bool `json:"blocks_clab,omitempty"`
}

// Report is the outcome of all checks.
type Report struct {
	Runtime string  `json:"runtime"`
	Checks  []Check `json:"checks"`
	// Blocked is true when a failed check stops the runtime.
	Blocked bool `json:"blocked"`
	// Summary is one line for the end of the text output.
	Summary string `json:"summary"`
	// Note, when set, says why this runtime was checked (the lab's own,
	// when no --runtime was given); it follows the summary.
	Note string `json:"note,omitempty"`
}

// Image is a container image a lab needs.
type Image struct {
	Role     string // sonic, eos, host
	Ref      string
	Required bool // the lab uses it; false: only some labs do
}

// Options says what to check against.
type Options struct {
	Images []Image
	// NeedMemMiB is the lab's memory estimate; 0 means no lab was given.
	NeedMemMiB int
}

// ErrCannotTest is returned by a probe that could not run its experiment
// (no image to start a container from, for instance).
var ErrCannotTest = errors.New("cannot test")

// Env is the machine as the checks see it.
type Env interface {
	// Docker returns the engine's version and the negotiated API version.
	Docker(ctx context.Context) (engine, api string, err error)
	// Containerlab returns the path and version of containerlab on PATH;
	// path is "" when it is not found.
	Containerlab(ctx context.Context) (path, version string, err error)
	ImagePresent(ctx context.Context, ref string) (bool, error)
	// TryPrivileged creates and starts a privileged container from a local
	// image, then removes it; ErrCannotTest when there is no image to use.
	TryPrivileged(ctx context.Context) error
	// ImageHasFile reports whether path exists in a local image (a
	// container is created from it, never started, and removed).
	ImageHasFile(ctx context.Context, ref, path string) (bool, error)
	// KernelRelease is uname -r.
	KernelRelease() string
	// RXEModule says where rdma_rxe was found ("" when it was not):
	// loaded, built in, or a module file.
	RXEModule() (where string, err error)
	// REDQdisc says where the RED queueing discipline (sch_red, the
	// kernel's ECN marking on a queue) was found ("" when it was not).
	REDQdisc() (where string, err error)
	// RXEInNetns creates a soft-RoCE device inside a throwaway container's
	// network namespace and reports what `rdma link` showed there;
	// ErrCannotTest when there is no image to use.
	RXEInNetns(ctx context.Context) (detail string, err error)
	// MemlockKiB is RLIMIT_MEMLOCK's soft limit in KiB; -1 is unlimited.
	MemlockKiB() (int64, error)
	// Sysctl reads an integer under /proc/sys, e.g. "fs/inotify/max_user_watches".
	Sysctl(name string) (int64, error)
	// MemAvailableMiB is MemAvailable from /proc/meminfo.
	MemAvailableMiB() (int, error)
	// HugePageMode is the kernel's transparent huge page mode (always,
	// madvise, never; "" where it cannot be read): hugepage.Mode.
	HugePageMode() string
}

// checkHugePages says whether the simulator's memory can come in huge
// pages (orchestrator/hugepage): only a matter of speed, so never worse
// than WARN.
func checkHugePages(env Env) Check {
	c := Check{Name: "huge pages", Status: Pass}
	switch mode := env.HugePageMode(); mode {
	case "madvise", "always":
		c.Detail = "transparent huge pages (" + mode + "): a run's heap and packet pools come in 2 MiB pages, a page fault each instead of one per 4 KiB"
	case "never":
		c.Status = Warn
		c.Detail = "transparent huge pages are off (never): a run takes a page fault per 4 KiB it allocates, a tenth to a third of its CPU on virtual machines where faults are dear"
		c.Fix = "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled (as root; the usual default)"
	default:
		c.Status = Warn
		c.Detail = "no transparent huge pages here (/sys/kernel/mm/transparent_hugepage/enabled unreadable): a run takes a page fault per 4 KiB it allocates"
		c.Fix = "nothing needed to run; a Linux kernel with transparent huge pages (most distributions' default) runs faster"
	}
	return c
}

// Thresholds containerlab's docs and experience suggest: each container's
// systemd/inotify users take instances, and SONiC-VS watches many files.
const (
	minInotifyInstances = 512
	minInotifyWatches   = 524288
)

// SimWorks is the sentence every blocked report ends with.
const SimWorks = "the sim runtime works"

// NoRXE is the finding on a kernel without soft-RoCE.
const NoRXE = "no RDMA (rxe) support in this kernel, so soft-RoCE traffic cannot run; " + SimWorks

// Run checks runtime ("clab" or "sim") and returns the report.
func Run(ctx context.Context, env Env, runtime string, opt Options) *Report {
	r := &Report{Runtime: runtime}
	if runtime == "sim" {
		r.Checks = append(r.Checks, Check{Name: "sim", Status: Pass, Detail: "the sim runtime is built into labctl and needs nothing else"})
		r.Checks = append(r.Checks, checkHugePages(env))
		r.Summary = "ready for --runtime sim"
		return r
	}
	r.Checks = append(r.Checks, checkDocker(ctx, env))
	dockerOK := r.Checks[0].Status == Pass
	r.Checks = append(r.Checks, checkContainerlab(ctx, env))
	if dockerOK {
		r.Checks = append(r.Checks, checkImages(ctx, env, opt.Images)...)
		r.Checks = append(r.Checks, checkSonicSKU(ctx, env, opt.Images)...)
		r.Checks = append(r.Checks, checkPrivileged(ctx, env))
	} else {
		r.Checks = append(r.Checks, Check{Name: "images", Status: Warn, Detail: "cannot check images without a reachable Docker engine", Fix: "fix the docker check first"})
	}
	r.Checks = append(r.Checks, hostChecks(ctx, env, dockerOK)...)
	r.Checks = append(r.Checks, checkMemory(env, opt.NeedMemMiB))

	var blocking []string
	for _, c := range r.Checks {
		if c.Status == Fail && c.Blocks {
			r.Blocked = true
			blocking = append(blocking, c.Name)
		}
	}
	if r.Blocked {
		r.Summary = fmt.Sprintf("--runtime clab cannot run here (failed: %s); %s: labctl up <lab> --runtime sim", strings.Join(blocking, ", "), SimWorks)
	} else {
		r.Summary = "ready for --runtime clab"
	}
	return r
}

// hostChecks are the checks of the machine's kernel and limits: soft-RoCE
// (and, when the driver is there and Docker answers, soft-RoCE inside a
// container), memlock and inotify.
func hostChecks(ctx context.Context, env Env, dockerOK bool) []Check {
	rxe := checkRXE(env)
	out := []Check{rxe}
	if rxe.Status == Pass {
		if dockerOK {
			out = append(out, checkRXENetns(ctx, env))
		} else {
			out = append(out, Check{Name: "soft-roce-netns", Status: Warn, Detail: "cannot test soft-RoCE in a container without a reachable Docker engine", Fix: "fix the docker check first"})
		}
	}
	return append(out, checkRED(env), checkMemlock(env), checkInotify(env))
}

// checkRED says whether the kernel has the RED queueing discipline, the
// only thing in a Linux data plane that ECN-marks a queue. labctl's live
// labs do not depend on it (SONiC-VS and cEOS-lab neither mark nor pause,
// and a live run's ECN marks, CNPs and pauses come from its simulated
// twin), so its absence is a warning: it says what this kernel cannot do
// beside soft-RoCE.
func checkRED(env Env) Check {
	where, err := env.REDQdisc()
	if err != nil || where == "" {
		d := "no RED qdisc (sch_red) in this kernel (kernel " + env.KernelRelease() + "): no queue on this machine can ECN-mark, so a live run's ECN marks, CNPs and pauses come from its simulated twin only"
		if err != nil {
			d += ": " + err.Error()
		}
		return Check{Name: "red qdisc", Status: Warn, Detail: d,
			Fix: "run on a kernel with CONFIG_NET_SCH_RED (Debian's stock kernel has it: modprobe sch_red), or use --runtime sim, which models ECN marking packet by packet"}
	}
	return Check{Name: "red qdisc", Status: Pass, Detail: "sch_red " + where + " (kernel " + env.KernelRelease() + "); SONiC-VS and cEOS-lab still neither mark nor pause: a live run's congestion figures come from its simulated twin"}
}

// PreDeploy runs, before a containerlab deploy, the checks the clab
// runtime does not make itself (it checks containerlab, the engine and the
// images; `up` checks memory against the lab's estimate): the SONiC image's
// SKU, soft-RoCE in the kernel and in a container, memlock and inotify. It
// returns each blocking failure as one line with its fix, and the
// warnings. Without a reachable engine (engineUp false) it makes the
// kernel's and the limits' checks only, so that a refused up names every
// problem the machine has, not only the engine (the runtime reports the
// engine itself).
func PreDeploy(ctx context.Context, env Env, opt Options, engineUp bool) (problems, warnings []string) {
	var checks []Check
	if engineUp {
		checks = checkSonicSKU(ctx, env, opt.Images)
	}
	for _, c := range hostChecks(ctx, env, engineUp) {
		if !engineUp && c.Name == "soft-roce-netns" {
			continue // it needs the engine, whose failure is reported already
		}
		checks = append(checks, c)
	}
	for _, c := range checks {
		line := c.Name + ": " + c.Detail
		switch {
		case c.Status == Fail && c.Blocks:
			problems = append(problems, line+" (fix: "+c.Fix+")")
		case c.Status != Pass:
			warnings = append(warnings, line)
		}
	}
	return problems, warnings
}

func checkDocker(ctx context.Context, env Env) Check {
	engine, api, err := env.Docker(ctx)
	if err != nil {
		// The engine's error says to run doctor; this is doctor.
		detail := strings.Replace(err.Error(), clab.DoctorHint, "", 1)
		return Check{Name: "docker", Status: Fail, Blocks: true,
			Detail: "Docker engine not reachable: " + detail,
			Fix:    "install and start Docker (Debian: apt-get install -y docker.io && dockerd &), or set DOCKER_HOST"}
	}
	return Check{Name: "docker", Status: Pass, Detail: fmt.Sprintf("Docker engine %s reachable, API %s", engine, api)}
}

func checkContainerlab(ctx context.Context, env Env) Check {
	path, version, err := env.Containerlab(ctx)
	switch {
	case path == "":
		return Check{Name: "containerlab", Status: Fail, Blocks: true,
			Detail: "containerlab not found on PATH",
			Fix:    "install containerlab (a release package, or 'go build' from its source) and put it on PATH"}
	case err != nil:
		return Check{Name: "containerlab", Status: Fail, Blocks: true,
			Detail: fmt.Sprintf("containerlab at %s does not run: %v", path, err),
			Fix:    "reinstall containerlab"}
	}
	return Check{Name: "containerlab", Status: Pass, Detail: fmt.Sprintf("containerlab %s at %s", version, path)}
}

func checkImages(ctx context.Context, env Env, images []Image) []Check {
	var out []Check
	for _, im := range images {
		name := "image " + im.Role
		ok, err := env.ImagePresent(ctx, im.Ref)
		switch {
		case err != nil:
			out = append(out, Check{Name: name, Status: Warn, Detail: fmt.Sprintf("cannot inspect %s: %v", im.Ref, err), Fix: "check the Docker engine"})
		case ok:
			out = append(out, Check{Name: name, Status: Pass, Detail: im.Ref + " is present"})
		default:
			c := Check{Name: name, Status: Fail, Blocks: true, Detail: im.Ref + " is not in the local image store", Fix: imageFix(im)}
			if !im.Required {
				c.Status, c.Blocks = Warn, false
				c.Detail += " (needed only by labs with nos: " + im.Role + ")"
			}
			out = append(out, c)
		}
	}
	return out
}

func imageFix(im Image) string {
	switch im.Role {
	case "host":
		return "labctl image build --tag " + im.Ref
	case "sonic":
		return "docker load -i docker-sonic-vs.gz (a sonic-buildimage artifact), tagged " + im.Ref
	case "eos":
		return "import cEOS-lab from arista.com: docker import cEOS-lab-<version>.tar.xz " + im.Ref
	}
	return "docker pull or docker load " + im.Ref
}

// SonicSKUFile is a file every docker-sonic-vs that ships labctl's SKU
// has: the lanemap sonic-device-data writes for it on the virtual platform.
var SonicSKUFile = "/usr/share/sonic/device/" + fabric.SonicPlatform + "/" + fabric.SonicHWSKU + "/lanemap.ini"

// checkSonicSKU looks into each present SONiC image for labctl's SKU: an
// image without it boots with no front-panel ports under HWSKU=<it>.
func checkSonicSKU(ctx context.Context, env Env, images []Image) []Check {
	var out []Check
	for _, im := range images {
		if im.Role != "sonic" {
			continue
		}
		if ok, err := env.ImagePresent(ctx, im.Ref); err != nil || !ok {
			continue // the image check says so
		}
		name := "sonic sku"
		ok, err := env.ImageHasFile(ctx, im.Ref, SonicSKUFile)
		switch {
		case err != nil:
			out = append(out, Check{Name: name, Status: Warn, Detail: fmt.Sprintf("cannot look into %s for HWSKU %s: %v", im.Ref, fabric.SonicHWSKU, err), Fix: "check the Docker engine"})
		case !ok:
			c := Check{Name: name, Status: Fail, Blocks: im.Required,
				Detail: fmt.Sprintf("%s lacks HWSKU %s (no %s): labctl's SONiC switches boot that 64-port SKU, and with this image their ports would not come up", im.Ref, fabric.SonicHWSKU, SonicSKUFile),
				Fix:    "use a docker-sonic-vs built from sonic-buildimage 202411 or later (the SKU was added in August 2024), tagged " + im.Ref}
			if !im.Required {
				c.Status = Warn
			}
			out = append(out, c)
		default:
			out = append(out, Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s ships HWSKU %s", im.Ref, fabric.SonicHWSKU)})
		}
	}
	return out
}

func checkPrivileged(ctx context.Context, env Env) Check {
	err := env.TryPrivileged(ctx)
	switch {
	case errors.Is(err, ErrCannotTest):
		return Check{Name: "privileged", Status: Warn, Detail: "cannot test privileged containers: " + err.Error(),
			Fix: "labctl topologies set privileged: false, so this only matters for kinds that need it"}
	case err != nil:
		return Check{Name: "privileged", Status: Warn, Detail: "privileged containers cannot start here: " + err.Error(),
			Fix: "labctl topologies run unprivileged (privileged: false with NET_ADMIN, IPC_LOCK); keep it so in edited topologies"}
	}
	return Check{Name: "privileged", Status: Pass, Detail: "privileged containers start"}
}

func checkRXE(env Env) Check {
	where, err := env.RXEModule()
	if err != nil || where == "" {
		d := NoRXE + " (kernel " + env.KernelRelease() + ": rdma_rxe not loaded, not built in, not under /lib/modules)"
		if err != nil {
			d += ": " + err.Error()
		}
		return Check{Name: "rdma_rxe", Status: Fail, Blocks: true, Detail: d,
			Fix: "run on a kernel with CONFIG_RDMA_RXE (Debian's stock kernel has it: modprobe rdma_rxe), or use --runtime sim"}
	}
	return Check{Name: "rdma_rxe", Status: Pass, Detail: "rdma_rxe " + where + " (kernel " + env.KernelRelease() + ")"}
}

func checkRXENetns(ctx context.Context, env Env) Check {
	detail, err := env.RXEInNetns(ctx)
	switch {
	case errors.Is(err, ErrCannotTest):
		return Check{Name: "soft-roce-netns", Status: Warn, Detail: "cannot test soft-RoCE in a container: " + err.Error(),
			Fix: "labctl image build, then run labctl doctor again"}
	case err != nil:
		return Check{Name: "soft-roce-netns", Status: Fail, Blocks: true,
			Detail: "soft-RoCE does not work in a container's network namespace on kernel " + env.KernelRelease() + ": " + err.Error() + "; " + SimWorks,
			Fix:    "use a newer kernel (RDMA netns support for rxe), or --runtime sim"}
	}
	return Check{Name: "soft-roce-netns", Status: Pass, Detail: "soft-RoCE device created in a container: " + detail}
}

func checkMemlock(env Env) Check {
	kib, err := env.MemlockKiB()
	if err != nil {
		return Check{Name: "memlock", Status: Warn, Detail: "cannot read RLIMIT_MEMLOCK: " + err.Error()}
	}
	if kib < 0 {
		return Check{Name: "memlock", Status: Pass, Detail: "memlock limit unlimited"}
	}
	return Check{Name: "memlock", Status: Warn,
		Detail: fmt.Sprintf("memlock limit is %d KiB; RDMA pins buffers and perftest fails with 'Couldn't allocate MR' under a small limit", kib),
		Fix:    "labctl's host nodes get IPC_LOCK, which lifts the limit inside them; for containers started otherwise: ulimit -l unlimited before dockerd, or default-ulimits memlock in /etc/docker/daemon.json"}
}

func checkInotify(env Env) Check {
	inst, err1 := env.Sysctl("fs/inotify/max_user_instances")
	watches, err2 := env.Sysctl("fs/inotify/max_user_watches")
	if err := errors.Join(err1, err2); err != nil {
		return Check{Name: "inotify", Status: Warn, Detail: "cannot read inotify limits: " + err.Error()}
	}
	detail := fmt.Sprintf("max_user_instances %d, max_user_watches %d", inst, watches)
	if inst < minInotifyInstances || watches < minInotifyWatches {
		return Check{Name: "inotify", Status: Warn,
			Detail: detail + fmt.Sprintf("; labs of many containers need at least %d and %d ('too many open files' otherwise)", minInotifyInstances, minInotifyWatches),
			Fix:    "sysctl -w fs.inotify.max_user_instances=" + strconv.Itoa(minInotifyInstances*2) + " fs.inotify.max_user_watches=" + strconv.Itoa(minInotifyWatches*2)}
	}
	return Check{Name: "inotify", Status: Pass, Detail: detail}
}

func checkMemory(env Env, need int) Check {
	avail, err := env.MemAvailableMiB()
	if err != nil {
		return Check{Name: "memory", Status: Warn, Detail: "cannot read MemAvailable: " + err.Error()}
	}
	if need <= 0 {
		return Check{Name: "memory", Status: Pass, Detail: fmt.Sprintf("%d MiB available (name a lab with --lab to compare with its estimate)", avail)}
	}
	switch {
	case avail < need:
		return Check{Name: "memory", Status: Fail, Blocks: true,
			Detail: fmt.Sprintf("the lab needs about %d MiB, %d MiB available", need, avail),
			Fix:    "free memory, pick a smaller lab, or use --runtime sim"}
	case avail < need+need/5:
		return Check{Name: "memory", Status: Warn,
			Detail: fmt.Sprintf("the lab needs about %d MiB, %d MiB available: less than 20%% spare", need, avail),
			Fix:    "close other workloads before 'labctl up'"}
	}
	return Check{Name: "memory", Status: Pass, Detail: fmt.Sprintf("the lab needs about %d MiB, %d MiB available", need, avail)}
}
