package clab

import (
	"context"
	"fmt"
	"strings"

	"github.com/labctl/labctl/orchestrator/runtime"
)

// SSHAddr is where a switch's SSH server answers.
type SSHAddr struct {
	Host string
	Port int // 0 means 22
}

// Transport is how the push, traffic and counter code reaches the nodes of
// a lab that is up: commands in host containers (Exec, whose container is
// the node's containerlab name, ContainerName) and each switch's SSH
// server. On containerlab both are reached through the Docker engine and
// the management network; the clabernetes runtime reaches them through the
// Kubernetes API (exec into the launcher pods, port-forwards) and shares
// everything else.
type Transport interface {
	Execer
	// SwitchSSH maps every switch of the lab to its SSH address.
	SwitchSSH() map[string]SSHAddr
	Close() error
}

// dockerTransport is containerlab's: exec through the Docker engine, SSH
// to the management addresses `containerlab inspect` lists.
type dockerTransport struct {
	Engine
	ssh map[string]SSHAddr
}

func (t *dockerTransport) SwitchSSH() map[string]SSHAddr { return t.ssh }

// switchAddrs picks every switch's management address (addr or addr/len)
// out of mgmt, at port.
func switchAddrs(l *runtime.Lab, mgmt map[string]string, port int) (map[string]SSHAddr, error) {
	out := map[string]SSHAddr{}
	for _, sw := range l.Graph.Switches() {
		host, _, _ := strings.Cut(mgmt[sw.Name], "/")
		if host == "" {
			return nil, fmt.Errorf("switch %s has no management address in 'containerlab inspect'", sw.Name)
		}
		out[sw.Name] = SSHAddr{Host: host, Port: port}
	}
	return out, nil
}

// reach opens the transport to a lab that is up: r.Reach when set, else
// containerlab's.
func (r *Runtime) reach(ctx context.Context, l *runtime.Lab) (Transport, error) {
	if r.Reach != nil {
		return r.Reach(ctx, l)
	}
	mgmt, err := r.managementAddrs(ctx, l)
	if err != nil {
		return nil, err
	}
	ssh, err := switchAddrs(l, mgmt, r.SSHPort)
	if err != nil {
		return nil, err
	}
	eng, err := r.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &dockerTransport{Engine: eng, ssh: ssh}, nil
}
