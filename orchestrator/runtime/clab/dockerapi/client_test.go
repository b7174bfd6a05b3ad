package dockerapi

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeEngine serves handler on a unix socket, as dockerd does, and returns
// a client of it that has negotiated its version.
func fakeEngine(t *testing.T, apiVersion string, handler http.HandlerFunc) *Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/_ping", func(w http.ResponseWriter, _ *http.Request) {
		if apiVersion != "" {
			w.Header().Set("API-Version", apiVersion)
		}
		_, _ = io.WriteString(w, "OK")
	})
	mux.HandleFunc("/", handler)
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	c, err := New("unix://"+sock, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Negotiate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		host, base, err string
	}{
		{"", "http://docker", ""},
		{"unix:///run/docker.sock", "http://docker", ""},
		{"tcp://10.0.0.1:2375", "http://10.0.0.1:2375", ""},
		{"tcp://engine:2376/prefix/", "http://engine:2376/prefix", ""},
		{"unix://", "", "names no socket path"},
		{"tcp://", "", "names no host:port"},
		{"ssh://me@engine", "", `scheme "ssh" is not supported`},
		{"npipe:////./pipe/docker_engine", "", `scheme "npipe" is not supported`},
		{"://bad", "", "missing protocol scheme"},
	} {
		c, err := New(tc.host, "", nil)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("New(%q) error = %v, want %q", tc.host, err, tc.err)
			}
		case err != nil:
			t.Errorf("New(%q): %v", tc.host, err)
		case c.base != tc.base:
			t.Errorf("New(%q) calls %q, want %q", tc.host, c.base, tc.base)
		}
	}
	c, err := New("", "", nil)
	if err != nil || c.Host() != DefaultHost {
		t.Errorf("no DOCKER_HOST: host %q, %v; want %s", c.Host(), err, DefaultHost)
	}
}

// The API version is the engine's, but never newer than MaxAPIVersion; an
// engine that names none speaks the oldest the calls need; a fixed
// DOCKER_API_VERSION is kept.
func TestNegotiate(t *testing.T) {
	for engine, want := range map[string]string{"1.41": "1.41", "1.9": "1.9", "1.99": MaxAPIVersion, "2.0": MaxAPIVersion, "": fallbackAPIVersion} {
		c := fakeEngine(t, engine, http.NotFound)
		if c.APIVersion() != want {
			t.Errorf("engine speaks %q: client uses %q, want %q", engine, c.APIVersion(), want)
		}
	}
	var asked string
	c := fakeEngine(t, "1.45", func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.Path
		_, _ = io.WriteString(w, `{"Version":"28.0.0","ApiVersion":"1.48"}`)
	})
	if _, err := c.ServerVersion(context.Background()); err != nil || asked != "/v1.45/version" {
		t.Errorf("ServerVersion asked %q (%v), want /v1.45/version", asked, err)
	}
	fixed, err := New("unix:///nonexistent.sock", "v1.40", nil)
	if err != nil || fixed.APIVersion() != "1.40" {
		t.Errorf("DOCKER_API_VERSION=v1.40: %q, %v", fixed.APIVersion(), err)
	}
	if err := fixed.Negotiate(context.Background()); err == nil {
		t.Error("Negotiate with no engine on the socket: no error")
	}
	if _, err := (&Client{base: "http://docker", http: http.DefaultClient}).ImageList(context.Background()); err == nil || !strings.Contains(err.Error(), "before Negotiate") {
		t.Errorf("a call before Negotiate: %v", err)
	}
}

func TestVersionLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		less bool
	}{{"1.9", "1.41", true}, {"1.41", "1.9", false}, {"1.41", "1.41", false}, {"1.51", "2.0", true}, {"1", "1.0", false}, {"1.4", "1.40", true}} {
		if got := versionLess(tc.a, tc.b); got != tc.less {
			t.Errorf("VersionLess(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

// The engine's errors keep its message; a 404 is ErrNotFound, nothing
// else is.
func TestErrors(t *testing.T) {
	c := fakeEngine(t, "1.41", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1.41/containers/gone/json":
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"No such container: gone"}`)
		case "/v1.41/containers/busy":
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"message":"removal of container busy is already in progress"}`)
		case "/v1.41/networks/plain":
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, "not JSON\n")
		case "/v1.41/images/json":
			_, _ = io.WriteString(w, `[{"Id":"sha256:1", "RepoTags"`)
		}
	})
	ctx := context.Background()
	_, err := c.ContainerInspect(ctx, "gone")
	if !IsNotFound(err) || err.Error() != "Error response from daemon: No such container: gone" {
		t.Errorf("404: %v (not found %v)", err, IsNotFound(err))
	}
	var e *Error
	if !errors.As(err, &e) || e.Status != 404 {
		t.Errorf("404 is not an *Error with its status: %#v", err)
	}
	err = c.ContainerRemove(ctx, "busy", RemoveOptions{Force: true, Volumes: true})
	if err == nil || IsNotFound(err) || !strings.Contains(err.Error(), "already in progress") {
		t.Errorf("409: %v", err)
	}
	if _, err := c.NetworkInspect(ctx, "plain"); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("500 with a plain body: %v", err)
	}
	if _, err := c.ImageList(ctx); err == nil || !strings.Contains(err.Error(), "decode the engine's answer") {
		t.Errorf("truncated JSON: %v", err)
	}
}

// What each call sends: method, path, query and body, as the engine's API
// reference has them.
func TestRequests(t *testing.T) {
	type seen struct{ method, path, query, body string }
	var got []seen
	c := fakeEngine(t, "1.41", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, strings.TrimSpace(string(b))})
		switch {
		case strings.HasSuffix(r.URL.Path, "/containers/json"):
			_, _ = io.WriteString(w, `[{"Id":"abc","Names":["/leaf1"]}]`)
		case strings.HasSuffix(r.URL.Path, "/create"), strings.HasSuffix(r.URL.Path, "/exec"):
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"Id":"id1"}`)
		case strings.HasSuffix(r.URL.Path, "/exec/id1/json"):
			_, _ = io.WriteString(w, `{"Running":false,"ExitCode":3,"Pid":42}`)
		case strings.HasPrefix(r.URL.Path, "/v1.41/networks/"):
			_, _ = io.WriteString(w, `{"Id":"n1","Name":"clab","Containers":{"abc":{"Name":"leaf1"}}}`)
		case strings.HasPrefix(r.URL.Path, "/v1.41/images/"):
			_, _ = io.WriteString(w, `{"Id":"sha256:feed"}`)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	ctx := context.Background()
	list, err := c.ContainerList(ctx, true, map[string][]string{"label": {"containerlab=64gpu"}})
	if err != nil || len(list) != 1 || list[0].Names[0] != "/leaf1" {
		t.Fatalf("ContainerList = %+v, %v", list, err)
	}
	if _, err := c.ContainerCreate(ctx, "doctor-1", ContainerConfig{Image: "debian:12", Entrypoint: []string{"sleep"}, Cmd: []string{"30"}, CapAdd: []string{"NET_ADMIN"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.ContainerStart(ctx, "doctor-1"); err != nil {
		t.Fatal(err)
	}
	if err := c.ContainerStatPath(ctx, "doctor-1", "/etc/sonic/x y"); err != nil {
		t.Fatal(err)
	}
	if err := c.ContainerRemove(ctx, "doctor-1", RemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	id, err := c.ExecCreate(ctx, "leaf1", ExecConfig{Cmd: []string{"show", "version"}, AttachStdout: true, AttachStderr: true})
	if err != nil || id != "id1" {
		t.Fatalf("ExecCreate = %q, %v", id, err)
	}
	if err := c.ExecStartDetached(ctx, id); err != nil {
		t.Fatal(err)
	}
	if ins, err := c.ExecInspect(ctx, id); err != nil || ins.Running || ins.ExitCode != 3 || ins.Pid != 42 {
		t.Errorf("ExecInspect = %+v, %v", ins, err)
	}
	if n, err := c.NetworkInspect(ctx, "clab"); err != nil || len(n.Containers) != 1 {
		t.Errorf("NetworkInspect = %+v, %v", n, err)
	}
	if id, err := c.ImageInspect(ctx, "labctl/host:1.0"); err != nil || id != "sha256:feed" {
		t.Errorf("ImageInspect = %q, %v", id, err)
	}
	want := []seen{
		{"GET", "/v1.41/containers/json", `all=1&filters=%7B%22label%22%3A%7B%22containerlab%3D64gpu%22%3Atrue%7D%7D`, ""},
		{"POST", "/v1.41/containers/create", "name=doctor-1", `{"Image":"debian:12","Entrypoint":["sleep"],"Cmd":["30"],"HostConfig":{"CapAdd":["NET_ADMIN"]}}`},
		{"POST", "/v1.41/containers/doctor-1/start", "", ""},
		{"HEAD", "/v1.41/containers/doctor-1/archive", "path=%2Fetc%2Fsonic%2Fx+y", ""},
		{"DELETE", "/v1.41/containers/doctor-1", "force=1", ""},
		{"POST", "/v1.41/containers/leaf1/exec", "", `{"Cmd":["show","version"],"AttachStdout":true,"AttachStderr":true}`},
		{"POST", "/v1.41/exec/id1/start", "", `{"Detach":true,"Tty":false}`},
		{"GET", "/v1.41/exec/id1/json", "", ""},
		{"GET", "/v1.41/networks/clab", "", ""},
		{"GET", "/v1.41/images/labctl/host:1.0/json", "", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d calls, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// frame is one frame of a multiplexed exec stream.
func frame(stream byte, payload string) []byte {
	b := make([]byte, 8, 8+len(payload))
	b[0] = stream
	binary.BigEndian.PutUint32(b[4:], uint32(len(payload)))
	return append(b, payload...)
}

func TestDemux(t *testing.T) {
	in := bytes.Join([][]byte{frame(1, "out 1\n"), frame(2, "err 1\n"), frame(1, ""), frame(1, "out 2")}, nil)
	var out, errb bytes.Buffer
	if err := Demux(&out, &errb, bytes.NewReader(in)); err != nil || out.String() != "out 1\nout 2" || errb.String() != "err 1\n" {
		t.Errorf("Demux = %q / %q, %v", out.String(), errb.String(), err)
	}
	for name, bad := range map[string][]byte{
		"cut in a header":  in[:3],
		"cut in a payload": frame(1, "abcdef")[:10],
		"unknown stream":   frame(7, "x"),
		"engine error":     frame(3, "exec failed"),
	} {
		if err := Demux(io.Discard, io.Discard, bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The engine answers an attached exec start by taking the connection over:
// a bare 200, the frames, then the connection closes. The client reads that
// as a body to the connection's end.
func TestExecAttach(t *testing.T) {
	c := fakeEngine(t, "1.41", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]bool
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["Detach"] {
			t.Errorf("attached start sent %v, %v", body, err)
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n")
		_, _ = buf.Write(frame(1, "to stdout"))
		_, _ = buf.Write(frame(2, "to stderr"))
		_ = buf.Flush()
	})
	rc, err := c.ExecAttach(context.Background(), "id1")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var out, errb bytes.Buffer
	if err := Demux(&out, &errb, rc); err != nil || out.String() != "to stdout" || errb.String() != "to stderr" {
		t.Errorf("attached exec = %q / %q, %v", out.String(), errb.String(), err)
	}
}

// writeCerts writes a self-signed CA (ca.pem) and a client certificate and
// key signed by it (cert.pem, key.pem) into dir, as DOCKER_CERT_PATH holds
// them.
func writeCerts(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "labctl test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for name, data := range map[string][]byte{
		"ca.pem": cert, "cert.pem": cert,
		"key.pem": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TLS as the docker CLI reads it from the environment: none without
// DOCKER_CERT_PATH and DOCKER_TLS_VERIFY; the client certificate from
// DOCKER_CERT_PATH; the engine's verified against ca.pem only with
// DOCKER_TLS_VERIFY; a tcp:// engine then spoken to over https.
func TestTLSFromEnv(t *testing.T) {
	t.Setenv("DOCKER_CERT_PATH", "")
	t.Setenv("DOCKER_TLS_VERIFY", "")
	if cfg, err := tlsFromEnv(); cfg != nil || err != nil {
		t.Errorf("no TLS variables: %v, %v", cfg, err)
	}
	dir := t.TempDir()
	t.Setenv("DOCKER_CERT_PATH", dir)
	if _, err := tlsFromEnv(); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("DOCKER_CERT_PATH without certificates: %v, want an error naming %s", err, dir)
	}
	writeCerts(t, dir)
	cfg, err := tlsFromEnv()
	if err != nil || len(cfg.Certificates) != 1 || !cfg.InsecureSkipVerify || cfg.RootCAs != nil {
		t.Fatalf("DOCKER_CERT_PATH alone: %+v, %v; want the client certificate, the engine's unverified", cfg, err)
	}
	t.Setenv("DOCKER_TLS_VERIFY", "1")
	cfg, err = tlsFromEnv()
	if err != nil || cfg.InsecureSkipVerify || cfg.RootCAs == nil {
		t.Fatalf("DOCKER_TLS_VERIFY=1: %+v, %v; want the engine verified against ca.pem", cfg, err)
	}
	c, err := New("tcp://engine:2376", "", tlsFromEnv)
	if err != nil || c.base != "https://engine:2376" {
		t.Errorf("tcp:// with TLS: %q, %v; want https", c.base, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tlsFromEnv(); err == nil || !strings.Contains(err.Error(), "ca.pem") {
		t.Errorf("a ca.pem without a certificate: %v", err)
	}
}
