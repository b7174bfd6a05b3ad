package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/hugepage"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
	"github.com/labctl/labctl/orchestrator/runtime/clab/dockerapi"
)

// SystemEnv is the real machine: the Docker engine, PATH, /proc, /sys and
// /lib/modules.
type SystemEnv struct {
	// HostImage is the image the soft-RoCE experiment runs in (it needs
	// iproute2's rdma tool).
	HostImage string

	docker    *clab.Docker
	dockerErr error
	connected bool
}

// Close releases the Docker connection.
func (e *SystemEnv) Close() error {
	if e.docker != nil {
		return e.docker.Close()
	}
	return nil
}

func (e *SystemEnv) client(ctx context.Context) (*clab.Docker, error) {
	if !e.connected {
		e.connected = true
		e.docker, e.dockerErr = clab.NewDocker(ctx)
	}
	return e.docker, e.dockerErr
}

// Docker implements Env.
func (e *SystemEnv) Docker(ctx context.Context) (string, string, error) {
	d, err := e.client(ctx)
	if err != nil {
		return "", "", err
	}
	v, err := d.API().ServerVersion(ctx)
	if err != nil {
		return "", "", fmt.Errorf("docker version: %w", err)
	}
	return v.Version, d.APIVersion(), nil
}

// Containerlab implements Env.
func (e *SystemEnv) Containerlab(ctx context.Context) (string, string, error) {
	path, err := exec.LookPath("containerlab")
	if err != nil {
		return "", "", nil
	}
	vctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := clab.CLI{Binary: path}.Version(vctx)
	return path, v, err
}

// ImagePresent implements Env.
func (e *SystemEnv) ImagePresent(ctx context.Context, ref string) (bool, error) {
	d, err := e.client(ctx)
	if err != nil {
		return false, err
	}
	return d.ImagePresent(ctx, ref)
}

// TryPrivileged implements Env. It uses a local image only: pulling would
// make the check depend on a registry.
func (e *SystemEnv) TryPrivileged(ctx context.Context) error {
	d, err := e.client(ctx)
	if err != nil {
		return err
	}
	ref, err := e.anyLocalImage(ctx)
	if err != nil {
		return err
	}
	return runThrowaway(ctx, d, dockerapi.ContainerConfig{Image: ref, Privileged: true}, "labctl-doctor-priv", nil)
}

// ImageHasFile implements Env. The container is created only (nothing in
// the image runs) and removed again.
func (e *SystemEnv) ImageHasFile(ctx context.Context, ref, path string) (bool, error) {
	d, err := e.client(ctx)
	if err != nil {
		return false, err
	}
	c := d.API()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	id, err := c.ContainerCreate(cctx, "labctl-doctor-look-"+strconv.Itoa(os.Getpid()), dockerapi.ContainerConfig{Image: ref, Entrypoint: []string{"true"}})
	if err != nil {
		return false, fmt.Errorf("create a container from %s: %w", ref, err)
	}
	defer func() {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer rcancel()
		_ = c.ContainerRemove(rctx, id, dockerapi.RemoveOptions{Force: true})
	}()
	if err := c.ContainerStatPath(cctx, id, path); err != nil {
		if dockerapi.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("look for %s in %s: %w", path, ref, err)
	}
	return true, nil
}

// anyLocalImage picks an image to start a test container from: the host
// image when present, else any tagged image.
func (e *SystemEnv) anyLocalImage(ctx context.Context) (string, error) {
	d, err := e.client(ctx)
	if err != nil {
		return "", err
	}
	if e.HostImage != "" {
		if ok, _ := d.ImagePresent(ctx, e.HostImage); ok {
			return e.HostImage, nil
		}
	}
	list, err := d.API().ImageList(ctx)
	if err != nil {
		return "", fmt.Errorf("list images: %w", err)
	}
	for _, im := range list {
		for _, tag := range im.RepoTags {
			if tag != "<none>:<none>" {
				return tag, nil
			}
		}
	}
	return "", fmt.Errorf("%w: no local image to start a container from (labctl image build makes one)", ErrCannotTest)
}

// runThrowaway creates and starts a container of cfg (its image and host
// settings) that runs `sleep 30`, calls inside (if any) while it runs, and
// removes it.
func runThrowaway(ctx context.Context, d *clab.Docker, cfg dockerapi.ContainerConfig, prefix string, inside func(name string) error) error {
	name := prefix + "-" + strconv.Itoa(os.Getpid())
	c := d.API()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cfg.Entrypoint, cfg.Cmd = []string{"sleep"}, []string{"30"}
	if _, err := c.ContainerCreate(cctx, name, cfg); err != nil {
		return fmt.Errorf("create container from %s: %w", cfg.Image, err)
	}
	defer func() {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer rcancel()
		_ = c.ContainerRemove(rctx, name, dockerapi.RemoveOptions{Force: true})
	}()
	if err := c.ContainerStart(cctx, name); err != nil {
		return fmt.Errorf("start container from %s: %w", cfg.Image, err)
	}
	if inside != nil {
		return inside(name)
	}
	return nil
}

// KernelRelease implements Env.
func (e *SystemEnv) KernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}

// RXEModule implements Env.
func (e *SystemEnv) RXEModule() (string, error) {
	return FindRXE(os.DirFS("/"), e.KernelRelease())
}

// REDQdisc implements Env.
func (e *SystemEnv) REDQdisc() (string, error) {
	return FindModule(os.DirFS("/"), e.KernelRelease(), "sch_red")
}

// RXEInNetns implements Env: in an unprivileged container with NET_ADMIN
// (as labctl runs hosts), add an rxe device on eth0 and read `rdma link`.
func (e *SystemEnv) RXEInNetns(ctx context.Context) (string, error) {
	d, err := e.client(ctx)
	if err != nil {
		return "", err
	}
	if e.HostImage == "" {
		return "", fmt.Errorf("%w: no host image configured", ErrCannotTest)
	}
	if ok, err := d.ImagePresent(ctx, e.HostImage); err != nil || !ok {
		return "", fmt.Errorf("%w: host image %s is not present (labctl image build)", ErrCannotTest, e.HostImage)
	}
	var detail string
	cfg := dockerapi.ContainerConfig{Image: e.HostImage, CapAdd: []string{"NET_ADMIN", "IPC_LOCK"}}
	err = runThrowaway(ctx, d, cfg, "labctl-doctor-rxe", func(name string) error {
		if _, err := clab.ExecOK(ctx, d, name, []string{"rdma", "link", "add", "rxedoctor0", "type", "rxe", "netdev", "eth0"}, clab.ExecOptions{Timeout: 30 * time.Second}); err != nil {
			return err
		}
		links, err := clab.RDMALinks(ctx, d, name)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.Dev == "rxedoctor0" {
				detail = fmt.Sprintf("%s on %s, state %s", l.Dev, l.Netdev, l.State)
				return nil
			}
		}
		return errors.New("rxedoctor0 missing from 'rdma link' after it was added")
	})
	return detail, err
}

// MemlockKiB implements Env.
func (e *SystemEnv) MemlockKiB() (int64, error) {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &r); err != nil {
		return 0, err
	}
	if r.Cur == unix.RLIM_INFINITY {
		return -1, nil
	}
	return int64(r.Cur / 1024), nil
}

// Sysctl implements Env.
func (e *SystemEnv) Sysctl(name string) (int64, error) {
	b, err := os.ReadFile(filepath.Join("/proc/sys", filepath.Clean("/"+name)))
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// HugePageMode implements Env.
func (e *SystemEnv) HugePageMode() string { return hugepage.Mode() }

// MemAvailableMiB implements Env.
func (e *SystemEnv) MemAvailableMiB() (int, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	// The one parser of that file is fabric's, which up's memory check
	// reads too: doctor and up agree on what the machine has.
	n, err := fabric.ParseMemAvailable(bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("/proc/meminfo: %w", err)
	}
	return n, nil
}
