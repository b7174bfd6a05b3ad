package hostimage

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// fakeTools answers by the argv's first words and records every call.
type fakeTools struct {
	calls    [][]string
	fail     map[string]error // key: argv joined with spaces, prefix match
	missing  map[string]bool
	notRoot  bool
	pipeFrom []string
	pipeTo   []string
}

func (f *fakeTools) Run(_ context.Context, _ io.Writer, argv []string) error {
	f.calls = append(f.calls, argv)
	line := strings.Join(argv, " ")
	for k, err := range f.fail {
		if strings.HasPrefix(line, k) {
			return err
		}
	}
	return nil
}

func (f *fakeTools) Pipe(_ context.Context, _ io.Writer, from, to []string) error {
	f.pipeFrom, f.pipeTo = from, to
	return nil
}

func (f *fakeTools) LookPath(name string) (string, error) {
	if f.missing[name] {
		return "", errors.New("executable file not found in $PATH")
	}
	return "/usr/bin/" + name, nil
}

func (f *fakeTools) IsRoot() bool { return !f.notRoot }

func TestArgs(t *testing.T) {
	tests := []struct {
		got, want []string
	}{
		{DockerfileArgs("labctl/rdma-host:latest", "debian:bookworm", "/tmp/ctx"),
			[]string{"docker", "build", "--build-arg", "BASE=debian:bookworm", "-t", "labctl/rdma-host:latest", "-f", "/tmp/ctx/Dockerfile", "/tmp/ctx"}},
		{DebootstrapArgs("bookworm", "/tmp/root", "http://deb.debian.org/debian", []string{"rdma-core", "perftest"}),
			[]string{"debootstrap", "--variant=minbase", "--include=rdma-core,perftest", "bookworm", "/tmp/root", "http://deb.debian.org/debian"}},
		{TarArgs("/tmp/root"), []string{"tar", "-C", "/tmp/root", "-c", "."}},
		{ImportArgs("x/y:1"), []string{"docker", "import", "-c", `CMD ["sleep", "infinity"]`, "-", "x/y:1"}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("argv = %q\nwant   %q", tt.got, tt.want)
		}
	}
}

func TestSelect(t *testing.T) {
	pullErr := errors.New("Error response from daemon: Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io: no such host")
	tests := []struct {
		name     string
		tools    *fakeTools
		method   Method
		want     Method
		wantCode int
	}{
		{"explicit", &fakeTools{}, Debootstrap, Debootstrap, 0},
		{"base present", &fakeTools{}, Auto, Dockerfile, 0},
		{"pull works", &fakeTools{fail: map[string]error{"docker image inspect": errors.New("No such image")}}, Auto, Dockerfile, 0},
		{"no registry", &fakeTools{fail: map[string]error{"docker image inspect": errors.New("No such image"), "docker pull": pullErr}}, Auto, Debootstrap, 0},
		{"no registry, no debootstrap", &fakeTools{fail: map[string]error{"docker image inspect": errors.New("No such image"), "docker pull": pullErr}, missing: map[string]bool{"debootstrap": true}}, Auto, "", exitcode.Environment},
		{"no docker", &fakeTools{missing: map[string]bool{"docker": true}}, Auto, "", exitcode.Environment},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, why, err := Select(context.Background(), tt.tools, Options{Method: tt.method})
			if tt.wantCode != 0 {
				if exitcode.Code(err) != tt.wantCode {
					t.Fatalf("error %v has code %d, want %d", err, exitcode.Code(err), tt.wantCode)
				}
				return
			}
			if err != nil || m != tt.want || why == "" {
				t.Fatalf("Select = %q, %q, %v; want %q", m, why, err, tt.want)
			}
		})
	}
}

func TestBuildDebootstrap(t *testing.T) {
	tools := &fakeTools{}
	m, err := Build(context.Background(), tools, Options{Method: Debootstrap, Tag: "labctl/rdma-host:test", TempDir: t.TempDir()})
	if err != nil || m != Debootstrap {
		t.Fatalf("Build = %q, %v", m, err)
	}
	if len(tools.calls) != 2 || strings.Join(tools.calls[0][:2], " ") != "docker version" || tools.calls[1][0] != "debootstrap" || !strings.Contains(strings.Join(tools.calls[1], " "), "--include=rdma-core,ibverbs-utils,perftest,iproute2,ethtool,lldpd,iputils-ping bookworm") {
		t.Errorf("calls = %q", tools.calls)
	}
	if tools.pipeFrom[0] != "tar" || tools.pipeFrom[2] != tools.calls[1][4] || !reflect.DeepEqual(tools.pipeTo, ImportArgs("labctl/rdma-host:test")) {
		t.Errorf("pipe = %q | %q", tools.pipeFrom, tools.pipeTo)
	}
}

func TestBuildDockerfile(t *testing.T) {
	tools := &fakeTools{}
	m, err := Build(context.Background(), tools, Options{TempDir: t.TempDir()})
	if err != nil || m != Dockerfile {
		t.Fatalf("Build = %q, %v", m, err)
	}
	last := tools.calls[len(tools.calls)-1]
	if last[0] != "docker" || last[1] != "build" || last[5] != DefaultTag {
		t.Errorf("last call = %q", last)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name  string
		tools *fakeTools
		opt   Options
		code  int
		want  string
	}{
		{"bad method", &fakeTools{}, Options{Method: "magic"}, exitcode.BadInput, "not one of auto"},
		{"bad tag", &fakeTools{}, Options{Tag: "Bad Tag;rm"}, exitcode.BadInput, "not a valid image reference"},
		{"bad mirror", &fakeTools{}, Options{Mirror: "deb.debian.org"}, exitcode.BadInput, "not an http"},
		{"not root", &fakeTools{notRoot: true}, Options{Method: Debootstrap}, exitcode.Environment, "must run as root"},
		{"docker build fails", &fakeTools{fail: map[string]error{"docker build": errors.New("exit status 1")}}, Options{Method: Dockerfile}, exitcode.CheckFailed, "--method debootstrap"},
		{"debootstrap fails", &fakeTools{fail: map[string]error{"debootstrap": errors.New("E: Failed getting release file")}}, Options{Method: Debootstrap}, exitcode.CheckFailed, "Failed getting release file"},
		{"no docker CLI", &fakeTools{missing: map[string]bool{"docker": true}}, Options{Method: Debootstrap}, exitcode.Environment, "docker CLI is not on PATH"},
		// The pull fails as well without an engine: Auto must not take
		// that for a missing registry and debootstrap for minutes.
		{"engine not reachable", &fakeTools{fail: map[string]error{
			"docker version":       errors.New("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"),
			"docker image inspect": errors.New("Cannot connect to the Docker daemon"),
			"docker pull":          errors.New("Cannot connect to the Docker daemon"),
		}}, Options{}, exitcode.Environment, "fix: start dockerd, or set DOCKER_HOST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.TempDir = t.TempDir()
			_, err := Build(context.Background(), tt.tools, tt.opt)
			if err == nil || exitcode.Code(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v (code %d), want code %d mentioning %q", err, exitcode.Code(err), tt.code, tt.want)
			}
			if tt.code == exitcode.Environment {
				for _, c := range tt.tools.calls {
					if c[0] == "debootstrap" {
						t.Errorf("debootstrap ran although the build cannot end: %q", tt.tools.calls)
					}
				}
			}
		})
	}
}

func TestExecTools(t *testing.T) {
	var out strings.Builder
	if err := (ExecTools{}).Pipe(context.Background(), &out, []string{"printf", "abc"}, []string{"tr", "a-z", "A-Z"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "ABC" {
		t.Errorf("pipe output %q", out.String())
	}
	err := (ExecTools{}).Run(context.Background(), io.Discard, []string{"sh", "-c", "echo nope >&2; exit 4"})
	if err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("Run error = %v", err)
	}
	err = (ExecTools{}).Run(context.Background(), io.Discard, []string{"labctl-no-such-tool"})
	if exitcode.Code(err) != exitcode.Environment {
		t.Errorf("missing tool error = %v", err)
	}
}

// TestExecToolsPipeReaderFails: when the reading side of a pipeline exits
// early (docker import without a reachable engine), the writer is stopped
// and the reader's error returned, where labctl kept the pipe's read end
// open and the writer (tar) blocked on it for ever.
func TestExecToolsPipeReaderFails(t *testing.T) {
	done := make(chan error, 1)
	go func() {
		done <- (ExecTools{}).Pipe(context.Background(), io.Discard, []string{"yes"},
			[]string{"sh", "-c", "echo Cannot connect to the Docker daemon >&2; exit 1"})
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "Cannot connect to the Docker daemon") || !strings.Contains(err.Error(), "exit status 1") {
			t.Errorf("Pipe error = %v, want the reader's", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Pipe still blocked 20 s after its reader exited")
	}
}
