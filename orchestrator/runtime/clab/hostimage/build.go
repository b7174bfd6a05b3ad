// Package hostimage builds labctl's RDMA host image: from images/host's
// Dockerfile where a registry serves the Debian base image, and from Debian
// packages alone (debootstrap, then docker import) where none can be
// reached.
package hostimage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/labctl/labctl/images/host"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lazyregexp"
)

// Method is how the image is built.
type Method string

const (
	Auto        Method = "auto"
	Dockerfile  Method = "dockerfile"
	Debootstrap Method = "debootstrap"
)

// Defaults.
const (
	DefaultTag    = "labctl/rdma-host:latest"
	DefaultBase   = "debian:bookworm"
	DefaultSuite  = "bookworm"
	DefaultMirror = "http://deb.debian.org/debian"
)

// Options of a build. Zero values take the defaults.
type Options struct {
	Method Method
	Tag    string
	Base   string // base image of the Dockerfile method
	Suite  string // Debian suite of the debootstrap method
	Mirror string // Debian mirror of the debootstrap method
	// PullTimeout bounds the registry probe of Auto; 0 means 30s.
	PullTimeout time.Duration
	// Progress receives the tools' output and labctl's step lines.
	Progress io.Writer
	// TempDir holds the debootstrap root and the Dockerfile context; ""
	// means os.TempDir().
	TempDir string
}

func (o Options) withDefaults() Options {
	if o.Method == "" {
		o.Method = Auto
	}
	if o.Tag == "" {
		o.Tag = DefaultTag
	}
	if o.Base == "" {
		o.Base = DefaultBase
	}
	if o.Suite == "" {
		o.Suite = DefaultSuite
	}
	if o.Mirror == "" {
		o.Mirror = DefaultMirror
	}
	if o.PullTimeout <= 0 {
		o.PullTimeout = 30 * time.Second
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

var (
	tagRE    = lazyregexp.New(`^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$`)
	suiteRE  = lazyregexp.New(`^[a-z][a-z0-9-]*$`)
	mirrorRE = lazyregexp.New(`^(https?|file)://[^\s]+$`)
)

// Validate checks the values that reach command lines.
func (o Options) Validate() error {
	o = o.withDefaults()
	switch o.Method {
	case Auto, Dockerfile, Debootstrap:
	default:
		return exitcode.Usagef("image build: method %q is not one of auto, dockerfile, debootstrap", o.Method)
	}
	if !tagRE().MatchString(o.Tag) {
		return exitcode.Usagef("image build: tag %q is not a valid image reference (e.g. %s)", o.Tag, DefaultTag)
	}
	if !tagRE().MatchString(o.Base) {
		return exitcode.Usagef("image build: base %q is not a valid image reference (e.g. %s)", o.Base, DefaultBase)
	}
	if !suiteRE().MatchString(o.Suite) {
		return exitcode.Usagef("image build: suite %q is not a Debian suite name (e.g. %s)", o.Suite, DefaultSuite)
	}
	if !mirrorRE().MatchString(o.Mirror) {
		return exitcode.Usagef("image build: mirror %q is not an http(s):// or file:// URL", o.Mirror)
	}
	return nil
}

// Tools runs the external programs. The real one uses os/exec; tests
// record the argv.
type Tools interface {
	// Run runs argv with its output going to out.
	Run(ctx context.Context, out io.Writer, argv []string) error
	// Pipe runs from | to, as a shell pipeline would, output going to out.
	Pipe(ctx context.Context, out io.Writer, from, to []string) error
	LookPath(name string) (string, error)
	IsRoot() bool
}

// DockerfileArgs is the argv of the Dockerfile build.
func DockerfileArgs(tag, base, contextDir string) []string {
	return []string{"docker", "build", "--build-arg", "BASE=" + base, "-t", tag, "-f", filepath.Join(contextDir, "Dockerfile"), contextDir}
}

// DebootstrapArgs is the argv that makes a minimal Debian root with the
// image's packages.
func DebootstrapArgs(suite, rootDir, mirror string, packages []string) []string {
	return []string{"debootstrap", "--variant=minbase", "--include=" + strings.Join(packages, ","), suite, rootDir, mirror}
}

// TarArgs and ImportArgs are the two sides of `tar -C root -c . | docker
// import - tag`; import sets the command the Dockerfile sets.
func TarArgs(rootDir string) []string { return []string{"tar", "-C", rootDir, "-c", "."} }

// ImportArgs is the docker import side of the pipeline.
func ImportArgs(tag string) []string {
	return []string{"docker", "import", "-c", `CMD ["` + strings.Join(host.Cmd, `", "`) + `"]`, "-", tag}
}

// Select decides the method for Auto: Dockerfile when the base image is
// present or can be pulled, debootstrap when it cannot and debootstrap is
// installed. It returns the method and why.
func Select(ctx context.Context, t Tools, o Options) (Method, string, error) {
	o = o.withDefaults()
	if o.Method != Auto {
		return o.Method, "asked for with --method", nil
	}
	if _, err := t.LookPath("docker"); err != nil {
		return "", "", exitcode.Envf("image build: the docker CLI is not on PATH (Debian: apt-get install -y docker.io); run 'labctl doctor'")
	}
	if err := t.Run(ctx, io.Discard, []string{"docker", "image", "inspect", "--format", "{{.Id}}", o.Base}); err == nil {
		return Dockerfile, "base image " + o.Base + " is present locally", nil
	} else if ctx.Err() != nil {
		return "", "", ctx.Err()
	}
	pctx, cancel := context.WithTimeout(ctx, o.PullTimeout)
	pullErr := t.Run(pctx, o.Progress, []string{"docker", "pull", o.Base})
	cancel()
	if pullErr == nil {
		return Dockerfile, "pulled base image " + o.Base, nil
	}
	if ctx.Err() != nil {
		return "", "", ctx.Err()
	}
	if _, err := t.LookPath("debootstrap"); err != nil {
		return "", "", exitcode.Envf("image build: no registry serves %s (pull: %v) and debootstrap is not installed: apt-get install -y debootstrap, or docker load a %s image", o.Base, pullErr, o.Base)
	}
	return Debootstrap, fmt.Sprintf("no registry serves %s (pull: %v); building from Debian packages", o.Base, pullErr), nil
}

// Build builds the image and returns the method it used.
func Build(ctx context.Context, t Tools, o Options) (Method, error) {
	if err := o.Validate(); err != nil {
		return "", err
	}
	o = o.withDefaults()
	if err := checkEngine(ctx, t); err != nil {
		return "", err
	}
	m, why, err := Select(ctx, t, o)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(o.Progress, "labctl: building %s with %s: %s\n", o.Tag, m, why)
	switch m {
	case Dockerfile:
		err = buildDockerfile(ctx, t, o)
	case Debootstrap:
		err = buildDebootstrap(ctx, t, o)
	}
	if err != nil {
		return m, err
	}
	fmt.Fprintf(o.Progress, "labctl: built %s\n", o.Tag)
	return m, nil
}

// checkEngine makes sure the Docker engine answers before anything is
// built: either method ends in it (docker build, docker import), and
// without it Auto took the failed pull for a missing registry and spent
// minutes on debootstrap before the import failed.
func checkEngine(ctx context.Context, t Tools) error {
	if _, err := t.LookPath("docker"); err != nil {
		return exitcode.Envf("image build: the docker CLI is not on PATH (Debian: apt-get install -y docker.io); run 'labctl doctor --runtime clab'")
	}
	if err := t.Run(ctx, io.Discard, []string{"docker", "version", "--format", "{{.Server.Version}}"}); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return exitcode.Envf("image build: the Docker engine does not answer, and the image is built into it: %v (fix: start dockerd, or set DOCKER_HOST; 'labctl doctor --runtime clab' checks it)", err)
	}
	return nil
}

func buildDockerfile(ctx context.Context, t Tools, o Options) error {
	dir, err := os.MkdirTemp(o.TempDir, "labctl-host-image-")
	if err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), host.Dockerfile, 0o644); err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	if err := t.Run(ctx, o.Progress, DockerfileArgs(o.Tag, o.Base, dir)); err != nil {
		return fmt.Errorf("image build: docker build of %s failed: %w (try --method debootstrap where no registry is reachable)", o.Tag, err)
	}
	return nil
}

func buildDebootstrap(ctx context.Context, t Tools, o Options) error {
	if !t.IsRoot() {
		return exitcode.Envf("image build: debootstrap must run as root (it creates device nodes and sets owners): run labctl image build with sudo")
	}
	if _, err := t.LookPath("debootstrap"); err != nil {
		return exitcode.Envf("image build: debootstrap is not installed: apt-get install -y debootstrap")
	}
	dir, err := os.MkdirTemp(o.TempDir, "labctl-host-rootfs-")
	if err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(o.Progress, "labctl: debootstrap %s into %s (a few minutes)\n", o.Suite, dir)
	if err := t.Run(ctx, o.Progress, DebootstrapArgs(o.Suite, dir, o.Mirror, host.Packages())); err != nil {
		return fmt.Errorf("image build: debootstrap from %s failed: %w (check the mirror with --mirror)", o.Mirror, err)
	}
	// apt's lists are not needed in the image.
	_ = os.RemoveAll(filepath.Join(dir, "var/lib/apt/lists"))
	_ = os.RemoveAll(filepath.Join(dir, "var/cache/apt/archives"))
	fmt.Fprintf(o.Progress, "labctl: importing %s\n", o.Tag)
	if err := t.Pipe(ctx, o.Progress, TarArgs(dir), ImportArgs(o.Tag)); err != nil {
		return fmt.Errorf("image build: import of %s failed: %w", o.Tag, err)
	}
	return nil
}

// ExecTools runs the real programs.
type ExecTools struct{}

// Run implements Tools.
func (ExecTools) Run(ctx context.Context, out io.Writer, argv []string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var tail tailWriter
	cmd.Stdout = io.MultiWriter(out, &tail)
	cmd.Stderr = io.MultiWriter(out, &tail)
	if err := cmd.Run(); err != nil {
		return commandError(argv, err, tail.String())
	}
	return nil
}

// Pipe implements Tools. The pipe's ends belong to the two programs
// alone: were labctl to keep the read end open, a reader that exits early
// (docker import without a reachable engine) would leave the writer (tar)
// blocked on a full pipe for ever instead of stopped by SIGPIPE. When the
// reader fails, its error is the one returned: the writer's broken pipe
// follows from it.
func (ExecTools) Pipe(ctx context.Context, out io.Writer, from, to []string) error {
	src := exec.CommandContext(ctx, from[0], from[1:]...)
	dst := exec.CommandContext(ctx, to[0], to[1:]...)
	var srcTail, dstTail tailWriter
	src.Stderr = io.MultiWriter(out, &srcTail)
	dst.Stdout = io.MultiWriter(out, &dstTail)
	dst.Stderr = io.MultiWriter(out, &dstTail)
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	src.Stdout, dst.Stdin = w, r
	if err := dst.Start(); err != nil {
		r.Close()
		w.Close()
		return commandError(to, err, "")
	}
	srcErr := src.Start()
	// The children hold their ends now; labctl's copies go.
	r.Close()
	w.Close()
	if srcErr != nil {
		_ = dst.Wait()
		return commandError(from, srcErr, "")
	}
	srcErr = src.Wait()
	dstErr := dst.Wait()
	if dstErr != nil {
		return commandError(to, dstErr, dstTail.String())
	}
	if srcErr != nil {
		return commandError(from, srcErr, srcTail.String())
	}
	return nil
}

// LookPath implements Tools.
func (ExecTools) LookPath(name string) (string, error) { return exec.LookPath(name) }

// IsRoot implements Tools.
func (ExecTools) IsRoot() bool { return os.Geteuid() == 0 }

func commandError(argv []string, err error, output string) error {
	if errors.Is(err, exec.ErrNotFound) {
		return exitcode.Envf("%s: not installed (%v)", argv[0], err)
	}
	msg := fmt.Sprintf("%s: %v", strings.Join(argv, " "), err)
	if output = strings.TrimSpace(output); output != "" {
		msg += ": " + output
	}
	return errors.New(msg)
}

// tailWriter keeps the last 2 KB written, for error messages.
type tailWriter struct{ b []byte }

func (w *tailWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	if len(w.b) > 2048 {
		w.b = w.b[len(w.b)-2048:]
	}
	return len(p), nil
}

func (w *tailWriter) String() string { return string(w.b) }
