// Package kubetest runs a real Kubernetes API server for tests: Debian's
// etcd and a kube-apiserver built from the Kubernetes Go module (once per
// machine, cached under the user's cache directory by version), with token
// authentication, RBAC and the clabernetes CRDs of the pinned clabernetes
// release installed. No kubelet and no controllers run: pods are accepted
// but never start, and a test plays the clabernetes controller by writing
// a Topology's status itself.
package kubetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// Versions the harness uses: the API server's, and the clabernetes
// release whose CRDs it installs.
const (
	KubeVersion          = "v1.37.2"
	StagingVersion       = "v0.37.2"
	ClabernetesModule    = "github.com/srl-labs/clabernetes"
	ClabernetesVersion   = "v0.6.0"
	clabernetesCRDSubdir = "charts/clabernetes/crds"
)

// BuildEnv, set to 1, lets the harness build kube-apiserver when it is not
// cached (about 7 minutes on 2 cores). CI sets it through 'make
// kube-apiserver'.
const BuildEnv = "LABCTL_BUILD_KUBE_APISERVER"

// Tokens of the two users the API server knows: an administrator
// (system:masters) and a user with no role at all, for RBAC tests.
const (
	AdminToken   = "labctl-test-admin-token"
	LimitedToken = "labctl-test-limited-token"
	LimitedUser  = "limited"
)

// BinaryPath is where the built kube-apiserver of KubeVersion is cached.
func BinaryPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "labctl", "kube-apiserver", KubeVersion, "kube-apiserver"), nil
}

// goEnv runs the go command with a clean module environment.
func goCmd(ctx context.Context, dir string, log io.Writer, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = log, log
	return cmd
}

// moduleDir downloads a module version (through the Go module proxy, into
// the module cache) and returns its directory and go.mod path.
func moduleDir(ctx context.Context, path, version string) (dir, gomod string, err error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", path+"@"+version)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var info struct{ Dir, GoMod, Error string }
	if jerr := json.Unmarshal(out.Bytes(), &info); jerr == nil && info.Error != "" {
		return "", "", fmt.Errorf("go mod download %s@%s: %s", path, version, info.Error)
	}
	if err != nil {
		return "", "", fmt.Errorf("go mod download %s@%s: %v: %s", path, version, err, strings.TrimSpace(errb.String()))
	}
	return info.Dir, info.GoMod, nil
}

var stagingRE = regexp.MustCompile(`(?m)^\s*(k8s\.io/[a-z0-9-]+)\s+=>\s+\./staging/`)

// scratchGoMod is the go.mod of a module that builds kube-apiserver:
// k8s.io/kubernetes replaces its staging modules by local folders, which a
// dependent module cannot see, so each is replaced by its published
// version instead.
func scratchGoMod(kubernetesGoMod []byte) (string, error) {
	var b strings.Builder
	b.WriteString("module labctl.test/kube-apiserver\n\ngo 1.26\n\nrequire k8s.io/kubernetes " + KubeVersion + "\n\nreplace (\n")
	ms := stagingRE.FindAllSubmatch(kubernetesGoMod, -1)
	if len(ms) == 0 {
		return "", errors.New("the k8s.io/kubernetes go.mod lists no staging modules")
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "\t%s => %s %s\n", m[1], m[1], StagingVersion)
	}
	b.WriteString(")\n")
	return b.String(), nil
}

// Build builds kube-apiserver into BinaryPath unless it is there, and
// returns its path. Only cmd/kube-apiserver is built, without cgo, debug
// information, optimisation or inlining: compiling without them takes half
// the time (422 s against 818 s from a cold build cache on 2 cores), and
// the tests only start the server a few seconds slower. The version is
// stamped so clients can parse it.
func Build(ctx context.Context, log io.Writer) (string, error) {
	dst, err := BinaryPath()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	_, gomod, err := moduleDir(ctx, "k8s.io/kubernetes", KubeVersion)
	if err != nil {
		return "", err
	}
	kgm, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	mod, err := scratchGoMod(kgm)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "labctl-kube-apiserver-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(mod), 0o644); err != nil {
		return "", err
	}
	if err := goCmd(ctx, tmp, log, "get", "k8s.io/kubernetes/cmd/kube-apiserver@"+KubeVersion).Run(); err != nil {
		return "", fmt.Errorf("resolve kube-apiserver's modules: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	major, minor, _ := strings.Cut(strings.TrimPrefix(KubeVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	ld := "-s -w -X k8s.io/component-base/version.gitVersion=" + KubeVersion +
		" -X k8s.io/component-base/version.gitMajor=" + major + " -X k8s.io/component-base/version.gitMinor=" + minor
	part := dst + ".part"
	if err := goCmd(ctx, tmp, log, "build", "-trimpath", "-gcflags=all=-N -l", "-ldflags", ld, "-o", part, "k8s.io/kubernetes/cmd/kube-apiserver").Run(); err != nil {
		return "", fmt.Errorf("build kube-apiserver %s: %w", KubeVersion, err)
	}
	return dst, os.Rename(part, dst)
}

// CRDFiles returns the clabernetes CRD manifests of ClabernetesVersion
// from the module cache (downloading the module when needed).
func CRDFiles(ctx context.Context) ([]string, error) {
	dir, _, err := moduleDir(ctx, ClabernetesModule, ClabernetesVersion)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, clabernetesCRDSubdir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no CRDs under %s in %s@%s", clabernetesCRDSubdir, ClabernetesModule, ClabernetesVersion)
	}
	return files, nil
}

// Server is a running etcd and kube-apiserver.
type Server struct {
	// URL is the API server's address; Kubeconfig a file with two
	// contexts, "admin" (the default) and "limited".
	URL        string
	Kubeconfig string
	Dir        string
	procs      []*exec.Cmd
	logs       []*os.File
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start(name string, argv ...string) error {
	logf, err := os.Create(filepath.Join(s.Dir, name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	s.procs = append(s.procs, cmd)
	s.logs = append(s.logs, logf)
	return nil
}

// logTail is the end of a process's log, for a failure message.
func (s *Server) logTail(name string) string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, name+".log"))
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// Start runs etcd (found on PATH) and the kube-apiserver at apiserver with
// its files under dir, and returns once /readyz answers.
func Start(ctx context.Context, apiserver, dir string) (*Server, error) {
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		return nil, fmt.Errorf("etcd is not installed (Debian: apt-get install etcd-server): %w", err)
	}
	s := &Server{Dir: dir}
	ok := false
	defer func() {
		if !ok {
			s.Stop()
		}
	}()
	cport, err1 := freePort()
	pport, err2 := freePort()
	aport, err3 := freePort()
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", cport)
	peer := fmt.Sprintf("http://127.0.0.1:%d", pport)
	if err := s.start("etcd", etcd, "--name", "default", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "default="+peer, "--log-level", "error"); err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saKey := filepath.Join(dir, "sa.key")
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	tokens := filepath.Join(dir, "tokens.csv")
	err = errors.Join(
		os.WriteFile(saKey, keyPEM, 0o600),
		os.WriteFile(tokens, []byte(fmt.Sprintf("%s,admin,admin,system:masters\n%s,%s,%s\n", AdminToken, LimitedToken, LimitedUser, LimitedUser)), 0o600),
	)
	if err != nil {
		return nil, err
	}
	certs := filepath.Join(dir, "certs")
	if err := s.start("kube-apiserver", apiserver,
		"--etcd-servers", client,
		"--bind-address", "127.0.0.1", "--secure-port", fmt.Sprint(aport), "--advertise-address", "127.0.0.1",
		"--cert-dir", certs,
		"--token-auth-file", tokens,
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", saKey, "--service-account-signing-key-file", saKey,
		"--service-cluster-ip-range", "10.96.0.0/16",
		// No kube-controller-manager keeps the kubernetes Service's
		// endpoints, and none makes the namespaces' default service
		// accounts that this admission plugin requires of pods.
		"--endpoint-reconciler-type", "none",
		"--disable-admission-plugins", "ServiceAccount",
		"--enable-priority-and-fairness=false",
	); err != nil {
		return nil, err
	}
	s.URL = fmt.Sprintf("https://127.0.0.1:%d", aport)
	if err := s.waitReady(ctx); err != nil {
		return nil, err
	}
	if err := s.writeKubeconfig(certs); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

func (s *Server) waitReady(ctx context.Context) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(90 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		for _, p := range s.procs {
			if p.ProcessState != nil {
				return fmt.Errorf("%s exited: %s", p.Path, s.logTail(filepath.Base(p.Path)))
			}
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+AdminToken)
		resp, err := hc.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, b)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("kube-apiserver not ready after 90s (last: %s): %s", last, s.logTail("kube-apiserver"))
}

// writeKubeconfig writes a kubeconfig whose cluster is verified by the
// certificate the API server generated for itself.
func (s *Server) writeKubeconfig(certs string) error {
	ca, err := os.ReadFile(filepath.Join(certs, "apiserver.crt"))
	if err != nil {
		return err
	}
	cfg := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "admin",
		"clusters": []any{map[string]any{"name": "test", "cluster": map[string]any{"server": s.URL, "certificate-authority-data": ca}}},
		"users": []any{
			map[string]any{"name": "admin", "user": map[string]any{"token": AdminToken}},
			map[string]any{"name": LimitedUser, "user": map[string]any{"token": LimitedToken}},
		},
		"contexts": []any{
			map[string]any{"name": "admin", "context": map[string]any{"cluster": "test", "user": "admin", "namespace": "default"}},
			map[string]any{"name": "limited", "context": map[string]any{"cluster": "test", "user": LimitedUser, "namespace": "default"}},
		},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	s.Kubeconfig = filepath.Join(s.Dir, "kubeconfig")
	return os.WriteFile(s.Kubeconfig, b, 0o600)
}

// Stop ends the API server and etcd.
func (s *Server) Stop() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		if p.Process != nil && p.ProcessState == nil {
			_ = p.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { _ = p.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = p.Process.Kill()
				<-done
			}
		}
	}
	for _, f := range s.logs {
		f.Close()
	}
	s.procs, s.logs = nil, nil
}

// Availability says whether tests can run against a real API server here,
// and why not: the kube-apiserver binary (built when BuildEnv=1), etcd
// and the clabernetes CRDs. Under CI=true what is missing is an error,
// elsewhere a reason to skip.
func Availability(ctx context.Context, log io.Writer) (apiserver string, crds []string, skip string, err error) {
	ci := os.Getenv("CI") == "true"
	miss := func(reason string) (string, []string, string, error) {
		if ci {
			return "", nil, "", errors.New("CI=true, but the tests against a real Kubernetes API server cannot run: " + reason)
		}
		return "", nil, "skipping the tests against a real Kubernetes API server: " + reason, nil
	}
	if runtime.GOOS != "linux" {
		return miss("they run on Linux only")
	}
	path, err := BinaryPath()
	if err != nil {
		return miss(err.Error())
	}
	if _, serr := os.Stat(path); serr != nil {
		if os.Getenv(BuildEnv) != "1" {
			return miss(fmt.Sprintf("kube-apiserver %s is not built at %s (run 'make kube-apiserver' once: about 7 minutes on 2 cores)", KubeVersion, path))
		}
		if path, err = Build(ctx, log); err != nil {
			return miss(err.Error())
		}
	}
	if _, err := exec.LookPath("etcd"); err != nil {
		return miss("etcd is not installed (Debian: apt-get install etcd-server)")
	}
	crds, err = CRDFiles(ctx)
	if err != nil {
		return miss(err.Error())
	}
	return path, crds, "", nil
}

// AddNodes registers n Ready nodes (node-1, ...) with the given
// allocatable memory and CPU, as kubelets would: the API server takes Node
// objects without a kubelet behind them, and pods are never scheduled.
func AddNodes(ctx context.Context, dyn dynamic.Interface, n int, memory, cpu string) error {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	for i := 1; i <= n; i++ {
		node := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": fmt.Sprintf("node-%d", i)}}}
		got, err := dyn.Resource(gvr).Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		got.Object["status"] = map[string]any{
			"capacity":    map[string]any{"memory": memory, "cpu": cpu, "pods": "110"},
			"allocatable": map[string]any{"memory": memory, "cpu": cpu, "pods": "110"},
			"conditions":  []any{map[string]any{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "played by the test"}},
			"nodeInfo":    map[string]any{"kernelVersion": "6.1.0-test", "kubeletVersion": KubeVersion, "operatingSystem": "linux", "architecture": "amd64"},
		}
		if _, err := dyn.Resource(gvr).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// InstallCRDs creates the CRDs in files (YAML streams) and waits until
// each is established.
func InstallCRDs(ctx context.Context, dyn dynamic.Interface, files []string) error {
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var obj unstructured.Unstructured
			if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			if _, err := dyn.Resource(gvr).Create(ctx, &obj, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create CRD %s from %s: %w", obj.GetName(), f, err)
			}
			names = append(names, obj.GetName())
		}
	}
	for _, name := range names {
		for {
			crd, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			established := false
			for _, c := range conds {
				m, _ := c.(map[string]any)
				established = established || (m["type"] == "Established" && m["status"] == "True")
			}
			if established {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s not established: %w", name, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

// The cluster Shared sets up: nodes enough for every catalog lab but
// 1024gpu (an estimated 100 GiB of launcher pods).
const (
	SharedNodes      = 3
	SharedNodeMemory = "32Gi"
	SharedNodeCPU    = "16"
)

// Shared is one API server for the tests of a package, started by the
// first test that asks for it, with the clabernetes CRDs installed and
// SharedNodes nodes registered. Stop it from TestMain.
type Shared struct {
	once sync.Once
	srv  *Server
	skip string
	err  error
}

// Get returns the running server, skipping the test when none can run
// here (failing it under CI=true).
func (sh *Shared) Get(tb testing.TB) *Server {
	tb.Helper()
	sh.once.Do(func() { sh.srv, sh.skip, sh.err = startShared() })
	if sh.err != nil {
		tb.Fatal(sh.err)
	}
	if sh.skip != "" {
		tb.Skip(sh.skip)
	}
	return sh.srv
}

func startShared() (*Server, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin, crds, skip, err := Availability(ctx, os.Stderr)
	if err != nil || skip != "" {
		return nil, skip, err
	}
	dir, err := os.MkdirTemp("", "labctl-apiserver-")
	if err != nil {
		return nil, "", err
	}
	srv, err := Start(ctx, bin, dir)
	if err != nil {
		return nil, "", err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", srv.Kubeconfig)
	var dyn dynamic.Interface
	if err == nil {
		dyn, err = dynamic.NewForConfig(cfg)
	}
	if err == nil {
		err = InstallCRDs(ctx, dyn, crds)
	}
	if err == nil {
		err = AddNodes(ctx, dyn, SharedNodes, SharedNodeMemory, SharedNodeCPU)
	}
	if err != nil {
		srv.Stop()
		return nil, "", err
	}
	return srv, "", nil
}

// Stop stops the server if it was started, and removes its files.
func (sh *Shared) Stop() {
	if sh.srv != nil {
		sh.srv.Stop()
		os.RemoveAll(sh.srv.Dir)
	}
}
