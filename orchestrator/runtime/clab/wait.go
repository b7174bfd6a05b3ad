package clab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Probe checks once whether a node is ready. It returns ready, and a short
// description of what it saw ("container created", "sshd not answering") for
// progress lines and the timeout error. An error stops the wait: use it for
// states that will not get better (the container exited).
type Probe func(ctx context.Context) (ready bool, seen string, err error)

// Wait describes one readiness wait.
type Wait struct {
	Node     string        // node name, for messages
	What     string        // what is awaited: "container running", "SSH on 172.20.20.3:22"
	Timeout  time.Duration // total; 0 means only ctx bounds it
	Interval time.Duration // between probes; 0 means 1s
	// Progress, when set, gets a line each time what the probe sees changes.
	Progress func(line string)
}

// ErrNotReady is wrapped by a wait that ran out of time.
var ErrNotReady = errors.New("not ready")

// Until probes until ready, the probe fails, the timeout passes or ctx is
// done. The timeout error names the node, what it waited for, how long, and
// what the last probe saw.
func (w Wait) Until(ctx context.Context, probe Probe) error {
	interval := w.Interval
	if interval <= 0 {
		interval = time.Second
	}
	wctx := ctx
	if w.Timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, w.Timeout)
		defer cancel()
	}
	start := time.Now()
	last := ""
	for {
		ready, seen, err := probe(wctx)
		if seen != last && w.Progress != nil {
			w.Progress(fmt.Sprintf("%s: waiting for %s: %s (%s)", w.Node, w.What, seen, time.Since(start).Round(time.Second)))
		}
		if seen != "" {
			last = seen
		}
		if err != nil && wctx.Err() == nil {
			return fmt.Errorf("%s: waiting for %s: %w", w.Node, w.What, err)
		}
		if ready && err == nil {
			return nil
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("%s: waiting for %s: %w", w.Node, w.What, ctx.Err())
			}
			if last == "" {
				last = "nothing yet"
			}
			return fmt.Errorf("%s: %w: waited %s for %s; last seen: %s (raise the timeout, or look at 'docker logs' of the node)", w.Node, ErrNotReady, w.Timeout, w.What, last)
		case <-time.After(interval):
		}
	}
}

// ContainerRunning is a probe for a container in the running state (and
// healthy, when the image defines a health check).
func ContainerRunning(d interface {
	State(ctx context.Context, name string) (ContainerState, error)
}, container string) Probe {
	return func(ctx context.Context) (bool, string, error) {
		s, err := d.State(ctx, container)
		if err != nil {
			return false, err.Error(), nil
		}
		switch {
		case !s.Exists:
			return false, "container not created yet", nil
		case s.Status == "exited" || s.Status == "dead":
			return false, "container " + s.Status, fmt.Errorf("container %s is %s with exit code %d (see 'docker logs %s')", container, s.Status, s.ExitCode, container)
		case !s.Running:
			return false, "container " + s.Status, nil
		case s.Health == "starting" || s.Health == "unhealthy":
			return false, "container running, health " + s.Health, nil
		}
		return true, "container running", nil
	}
}

// CommandSucceeds is a probe that runs argv in the container and is ready
// when it exits 0, e.g. SONiC's `systemctl is-active swss`.
func CommandSucceeds(e Execer, container string, argv []string, perTry time.Duration) Probe {
	return func(ctx context.Context) (bool, string, error) {
		r, err := e.Exec(ctx, container, argv, ExecOptions{Timeout: perTry})
		if err != nil {
			return false, err.Error(), nil
		}
		if r.ExitCode != 0 {
			return false, fmt.Sprintf("%s exits %d: %s", argv[0], r.ExitCode, tail(append(r.Stdout, r.Stderr...), 200)), nil
		}
		return true, argv[0] + " succeeds", nil
	}
}

// TCPOpen is a probe for a TCP port accepting connections, e.g. a switch's
// SSH server, which comes up a minute or two after its container.
func TCPOpen(addr string) Probe {
	return func(ctx context.Context) (bool, string, error) {
		var d net.Dialer
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		c, err := d.DialContext(dctx, "tcp", addr)
		if err != nil {
			return false, addr + " not accepting connections", nil
		}
		_ = c.Close()
		return true, addr + " accepts connections", nil
	}
}
