package clabernetes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/labctl/labctl/orchestrator/runtime/clab"
)

// Pods is what labctl does inside launcher pods, beyond reading API
// objects: run a command in one and forward one of its ports. Both go
// through the API server to the pod's kubelet. APIPods implements it;
// tests use a fake, since no kubelet runs where they do.
type Pods interface {
	// Exec runs argv in a container of a pod and returns what it printed
	// and its exit status (a non-zero status is no error).
	Exec(ctx context.Context, namespace, pod, container string, argv []string) (clab.ExecResult, error)
	// Forward listens on a loopback port and forwards its connections to
	// port of the pod until stop is called.
	Forward(ctx context.Context, namespace, pod string, port int) (local clab.SSHAddr, stop func(), err error)
}

// APIPods runs exec and port-forward through the Kubernetes API: WebSocket
// first, SPDY for API servers that do not speak it, as kubectl does.
type APIPods struct {
	Config *rest.Config
}

// podURL is the URL of a pod subresource (exec, portforward).
func podURL(cfg *rest.Config, namespace, pod, sub string, q url.Values) (*url.URL, error) {
	host := cfg.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("API server address %q: %w", cfg.Host, err)
	}
	u.Path = path.Join("/", u.Path, "api/v1/namespaces", namespace, "pods", pod, sub)
	u.RawQuery = q.Encode()
	return u, nil
}

func shouldFallback(err error) bool {
	return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
}

// kubeletHint explains the API server's answer for a pod no kubelet runs.
func kubeletHint(err error) string {
	if strings.Contains(err.Error(), "does not have a host assigned") {
		return " (exec and port-forward go through the kubelet of the pod's node, and no node runs this pod: is it scheduled?)"
	}
	return ""
}

// Exec implements Pods.
func (p APIPods) Exec(ctx context.Context, namespace, pod, container string, argv []string) (clab.ExecResult, error) {
	q := url.Values{"container": {container}, "stdout": {"true"}, "stderr": {"true"}, "command": argv}
	u, err := podURL(p.Config, namespace, pod, "exec", q)
	if err != nil {
		return clab.ExecResult{}, err
	}
	ws, err := remotecommand.NewWebSocketExecutor(p.Config, "GET", u.String())
	if err != nil {
		return clab.ExecResult{}, err
	}
	sp, err := remotecommand.NewSPDYExecutor(p.Config, "POST", u)
	if err != nil {
		return clab.ExecResult{}, err
	}
	ex, err := remotecommand.NewFallbackExecutor(ws, sp, shouldFallback)
	if err != nil {
		return clab.ExecResult{}, err
	}
	var out, errb bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Stderr: &errb})
	res := clab.ExecResult{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	var ee utilexec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		res.ExitCode = ee.ExitStatus()
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("exec in pod %s/%s: %w%s", namespace, pod, err, kubeletHint(err))
	}
	return res, nil
}

// Forward implements Pods.
func (p APIPods) Forward(ctx context.Context, namespace, pod string, port int) (clab.SSHAddr, func(), error) {
	u, err := podURL(p.Config, namespace, pod, "portforward", nil)
	if err != nil {
		return clab.SSHAddr{}, nil, err
	}
	rt, upgrader, err := spdy.RoundTripperFor(p.Config)
	if err != nil {
		return clab.SSHAddr{}, nil, err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, "POST", u)
	if ws, err := portforward.NewSPDYOverWebsocketDialer(u, p.Config); err == nil {
		dialer = portforward.NewFallbackDialer(ws, dialer, shouldFallback)
	}
	stop, ready := make(chan struct{}), make(chan struct{})
	var errOut bytes.Buffer
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:" + strconv.Itoa(port)}, stop, ready, nil, &errOut)
	if err != nil {
		return clab.SSHAddr{}, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	closeOnce := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}
	select {
	case <-ready:
	case err := <-done:
		if err == nil {
			err = errors.New("forwarding ended before it was ready")
		}
		return clab.SSHAddr{}, nil, fmt.Errorf("port-forward to pod %s/%s port %d: %w%s%s", namespace, pod, port, err, kubeletHint(err), strings.TrimSpace(" "+errOut.String()))
	case <-ctx.Done():
		closeOnce()
		return clab.SSHAddr{}, nil, ctx.Err()
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		closeOnce()
		return clab.SSHAddr{}, nil, fmt.Errorf("port-forward to pod %s/%s port %d: no local port: %v", namespace, pod, port, err)
	}
	return clab.SSHAddr{Host: "127.0.0.1", Port: int(ports[0].Local)}, closeOnce, nil
}
