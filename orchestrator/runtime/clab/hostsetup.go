package clab

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
)

// HostNet is what one host container needs on one fabric interface.
type HostNet struct {
	Container string       // container name, e.g. clab-64gpu-h1
	Iface     string       // e.g. eth1
	Address   netip.Prefix // e.g. 10.1.0.2/31
	MTU       int          // 0 keeps the interface's MTU
	Routes    []Route      // extra routes through this interface
	RDMADev   string       // soft-RoCE device to create on Iface, e.g. rxe0; "" for none
}

// Route is one static route.
type Route struct {
	Dst netip.Prefix
	Via netip.Addr
}

var (
	ifaceRE   = lazyregexp.New(`^[a-z0-9][a-z0-9._-]{0,14}$`)
	rdmaDevRE = lazyregexp.New(`^[a-z][a-z0-9_-]{0,31}$`)
)

// Validate checks the names that reach commands.
func (h HostNet) Validate() error {
	if !ifaceRE().MatchString(h.Iface) {
		return fmt.Errorf("host %s: interface name %q is not valid: use [a-z0-9][a-z0-9._-]*, at most 15 characters", h.Container, h.Iface)
	}
	if !h.Address.IsValid() {
		return fmt.Errorf("host %s: %s has no address", h.Container, h.Iface)
	}
	if h.MTU != 0 && (h.MTU < 576 || h.MTU > 9216) {
		return fmt.Errorf("host %s: MTU %d out of range 576-9216", h.Container, h.MTU)
	}
	if h.RDMADev != "" && !rdmaDevRE().MatchString(h.RDMADev) {
		return fmt.Errorf("host %s: RDMA device name %q is not valid: use [a-z][a-z0-9_-]*, e.g. rxe0", h.Container, h.RDMADev)
	}
	for _, r := range h.Routes {
		if !r.Dst.IsValid() || !r.Via.IsValid() {
			return fmt.Errorf("host %s: route %v via %v is incomplete", h.Container, r.Dst, r.Via)
		}
	}
	return nil
}

// SetupCommands is the argv list that configures the interface: MTU first
// (rxe takes its MTU from the netdev when the device is created), then the
// address, link up, routes, and the soft-RoCE device last. `replace` keeps a
// second run from failing on what the first did.
func (h HostNet) SetupCommands() ([][]string, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	var cmds [][]string
	if h.MTU != 0 {
		cmds = append(cmds, []string{"ip", "link", "set", "dev", h.Iface, "mtu", strconv.Itoa(h.MTU)})
	}
	cmds = append(cmds,
		[]string{"ip", "addr", "replace", h.Address.String(), "dev", h.Iface},
		[]string{"ip", "link", "set", "dev", h.Iface, "up"},
	)
	for _, r := range h.Routes {
		cmds = append(cmds, []string{"ip", "route", "replace", r.Dst.String(), "via", r.Via.String(), "dev", h.Iface})
	}
	if h.RDMADev != "" {
		cmds = append(cmds, []string{"rdma", "link", "add", h.RDMADev, "type", "rxe", "netdev", h.Iface})
	}
	return cmds, nil
}

// Setup runs the set-up commands in the host container. An rxe device that
// already exists on the right netdev is left alone, so Setup can run again.
func (h HostNet) Setup(ctx context.Context, e Execer) error {
	cmds, err := h.SetupCommands()
	if err != nil {
		return err
	}
	for _, argv := range cmds {
		if argv[0] == "rdma" {
			links, err := RDMALinks(ctx, e, h.Container)
			if err != nil {
				return rxeSetupError(h, err)
			}
			if l, ok := findLink(links, h.RDMADev); ok {
				if l.Netdev != h.Iface {
					return fmt.Errorf("host %s: RDMA device %s exists on %s, not %s: remove it with 'rdma link delete %s'", h.Container, h.RDMADev, l.Netdev, h.Iface, h.RDMADev)
				}
				continue
			}
		}
		if _, err := ExecOK(ctx, e, h.Container, argv, ExecOptions{Timeout: 30 * time.Second}); err != nil {
			if argv[0] == "rdma" {
				return rxeSetupError(h, err)
			}
			return fmt.Errorf("host %s: %w", h.Container, err)
		}
	}
	return nil
}

// RDMALink is one line of `rdma link`.
type RDMALink struct {
	Dev           string // rxe0
	Port          int    // 1
	State         string // ACTIVE, DOWN
	PhysicalState string // LINK_UP
	Netdev        string // eth1
}

// ParseRDMALinks reads `rdma link` output:
//
//	link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth1
func ParseRDMALinks(out string) ([]RDMALink, error) {
	var links []RDMALink
	for i, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] != "link" || len(f) < 2 {
			return nil, fmt.Errorf("rdma link output line %d: %q does not start with 'link <dev>/<port>'", i+1, line)
		}
		dev, port, ok := strings.Cut(f[1], "/")
		if !ok {
			return nil, fmt.Errorf("rdma link output line %d: %q is not <dev>/<port>", i+1, f[1])
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, fmt.Errorf("rdma link output line %d: port %q is not a number", i+1, port)
		}
		l := RDMALink{Dev: dev, Port: p}
		for j := 2; j+1 < len(f); j += 2 {
			switch f[j] {
			case "state":
				l.State = f[j+1]
			case "physical_state":
				l.PhysicalState = f[j+1]
			case "netdev":
				l.Netdev = f[j+1]
			}
		}
		links = append(links, l)
	}
	return links, nil
}

func findLink(links []RDMALink, dev string) (RDMALink, bool) {
	for _, l := range links {
		if l.Dev == dev {
			return l, true
		}
	}
	return RDMALink{}, false
}

// RDMALinks runs `rdma link` in the container.
func RDMALinks(ctx context.Context, e Execer, container string) ([]RDMALink, error) {
	r, err := ExecOK(ctx, e, container, []string{"rdma", "link"}, ExecOptions{Timeout: 15 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("host %s: list RDMA links: %w", container, err)
	}
	links, err := ParseRDMALinks(string(r.Stdout))
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", container, err)
	}
	return links, nil
}

// ParseIBVDevices reads `ibv_devices` output and returns the device names:
//
//	device          	   node GUID
//	------          	----------------
//	rxe0            	505400fffe8b1c2d
func ParseIBVDevices(out string) []string {
	var devs []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "device" || strings.HasPrefix(f[0], "---") {
			continue
		}
		devs = append(devs, f[0])
	}
	return devs
}

// rxeSetupError says why a soft-RoCE device could not be made, in the
// words of the rdma tool, and wraps the exec error (its exit code).
func rxeSetupError(h HostNet, err error) error {
	return &wrapped{msg: fmt.Sprintf("host %s: create soft-RoCE device %s: %s (%s)", h.Container, h.RDMADev, toolSaid(err), rxeHint), err: err}
}

// wrapped is an error with its own message that still unwraps to err.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// rxeHint is what a failed soft-RoCE set-up needs.
const rxeHint = "needs the rdma_rxe kernel module, NET_ADMIN and a kernel with RDMA netns support; run 'labctl doctor --runtime clab'"

// toolSaid is what a failed command in a container printed (the same on
// every host, unlike the error, which names the container), or the error.
func toolSaid(err error) string {
	var ee *ExecError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	out := ee.Result.Stderr
	if len(strings.TrimSpace(string(out))) == 0 {
		out = ee.Result.Stdout
	}
	said := fmt.Sprintf("'%s' exited with status %d", strings.Join(ee.Argv, " "), ee.Result.ExitCode)
	if t := tail(out, 300); t != "" {
		said += ": " + t
	}
	if strings.Contains(string(out), "NETLINK_RDMA") {
		said += " (this kernel has no RDMA support)"
	}
	return said
}

// NICNotReady is a host NIC whose soft-RoCE device is not ready. Problem
// is worded so that NICs failing the same way share it, and a lab's report
// names each NIC once under its problem (see GroupNICErrors).
type NICNotReady struct {
	Container string // clab-<lab>-<host>
	Dev       string // rxe-<host>-<n>
	Problem   string // "missing from 'rdma link'"
}

func (e *NICNotReady) Error() string {
	return fmt.Sprintf("host %s: RDMA device %s %s", e.Container, e.Dev, e.Problem)
}

// GroupNICErrors joins per-NIC errors into one line per problem, listing
// the NICs that have it ("RDMA device missing from 'rdma link' on 16 of 16
// NICs: host1 rxe-host1-0..rxe-host1-7, host2 ..."); other errors follow,
// each once. total is the number of NICs checked.
func GroupNICErrors(errs []error, total int) error {
	type group struct {
		devs  map[string][]string // container -> devices
		order []string
		n     int
	}
	groups := map[string]*group{}
	var problems []string
	var others []error
	seen := map[string]bool{}
	for _, err := range errs {
		var nr *NICNotReady
		if !errors.As(err, &nr) {
			if !seen[err.Error()] {
				seen[err.Error()] = true
				others = append(others, err)
			}
			continue
		}
		g := groups[nr.Problem]
		if g == nil {
			g = &group{devs: map[string][]string{}}
			groups[nr.Problem] = g
			problems = append(problems, nr.Problem)
		}
		if _, ok := g.devs[nr.Container]; !ok {
			g.order = append(g.order, nr.Container)
		}
		g.devs[nr.Container] = append(g.devs[nr.Container], nr.Dev)
		g.n++
	}
	var out []error
	for _, p := range problems {
		g := groups[p]
		var hosts []string
		for _, c := range g.order {
			devs := g.devs[c]
			list := strings.Join(devs, ", ")
			if len(devs) > 2 {
				list = devs[0] + " .. " + devs[len(devs)-1]
			}
			hosts = append(hosts, fmt.Sprintf("%s (%s)", c, list))
		}
		out = append(out, fmt.Errorf("RDMA device %s on %d of %d NICs: %s", p, g.n, total, strings.Join(hosts, ", ")))
	}
	return errors.Join(append(out, others...)...)
}

// Verify checks that the host is ready for perftest: the rxe device is
// ACTIVE on the right netdev, libibverbs sees it, and ib_write_bw and
// ib_write_lat are installed.
func (h HostNet) Verify(ctx context.Context, e Execer) error {
	if h.RDMADev == "" {
		return nil
	}
	links, err := RDMALinks(ctx, e, h.Container)
	if err != nil {
		return &NICNotReady{Container: h.Container, Dev: h.RDMADev, Problem: "cannot be listed: " + toolSaid(err)}
	}
	l, ok := findLink(links, h.RDMADev)
	switch {
	case !ok:
		return &NICNotReady{Container: h.Container, Dev: h.RDMADev, Problem: "missing from 'rdma link'"}
	case l.Netdev != h.Iface:
		return &NICNotReady{Container: h.Container, Dev: h.RDMADev, Problem: fmt.Sprintf("is on %s, want %s", l.Netdev, h.Iface)}
	case l.State != "ACTIVE":
		return &NICNotReady{Container: h.Container, Dev: h.RDMADev, Problem: fmt.Sprintf("is %s, want ACTIVE (is %s up?)", l.State, h.Iface)}
	}
	r, err := ExecOK(ctx, e, h.Container, []string{"ibv_devices"}, ExecOptions{Timeout: 15 * time.Second})
	if err != nil {
		return fmt.Errorf("host %s: %w (is ibverbs-utils installed? rebuild with 'labctl image build')", h.Container, err)
	}
	found := false
	for _, d := range ParseIBVDevices(string(r.Stdout)) {
		found = found || d == h.RDMADev
	}
	if !found {
		return fmt.Errorf("host %s: ibv_devices does not list %s (is the rdma-core provider for rxe installed?)", h.Container, h.RDMADev)
	}
	// A constant script: no input reaches the shell.
	if _, err := ExecOK(ctx, e, h.Container, []string{"sh", "-c", "command -v ib_write_bw && command -v ib_write_lat"}, ExecOptions{Timeout: 15 * time.Second}); err != nil {
		return fmt.Errorf("host %s: perftest is not installed: %w (rebuild the host image with 'labctl image build')", h.Container, err)
	}
	return nil
}
