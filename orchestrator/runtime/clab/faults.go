package clab

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// Link faults on a live lab: the switch end of the link is taken down and
// up with `ip link set` in the switch container's network namespace (its
// containerlab interface), at the scenario's times counted from the start
// of traffic. What was done and when is recorded as measured timeline
// marks. PFC storms and load-balancing modes exist only in the simulator.

// linkAction is one `ip link set` at an offset from the start of traffic.
type linkAction struct {
	at        time.Duration
	up        bool
	container string
	iface     string
	where     string
}

// liveFaults refuses what a live lab cannot do, before anything runs, and
// returns the `ip link set` commands the variant's link faults need.
func liveFaults(l *runtime.Lab, v runtime.VariantSpec) ([]linkAction, error) {
	for i, f := range v.Faults {
		if f.Kind == runtime.FaultPFCStorm {
			return nil, exitcode.Usagef("variant %s faults[%d]: a pfc-storm needs the simulator (a soft-RoCE host cannot be made to send PFC pause frames without end): run it with --runtime sim", v.Name, i)
		}
	}
	if v.LB.Mode != "" && v.LB.Mode != "ecmp" {
		return nil, exitcode.Usagef("variant %s: load balancing %s is a mode of the simulator's switches (SONiC-VS and cEOS-lab forward by flow hash): run it with --runtime sim, or leave lb out", v.Name, v.LB.Mode)
	}
	if v.NIC.OutOfOrder {
		return nil, exitcode.Usagef("variant %s: nic.out_of_order is simulated only (soft-RoCE has no out-of-order placement): run it with --runtime sim, or leave it out", v.Name)
	}
	var cfgs map[string]*qos.DeviceConfig
	if slices.ContainsFunc(v.Faults, func(f runtime.FaultSpec) bool { return f.Link != "" }) {
		// A link a switch keeps administratively down is refused as the
		// simulator refuses it: `ip link set` on its container
		// interface would change nothing the switch forwards.
		all, err := runtime.LoadConfigsToRead(l)
		if err != nil {
			return nil, err
		}
		cfgs = runtime.ConfigsByDevice(all)
	}
	return linkActions(l, v, cfgs)
}

// linkActions lists the `ip link set` commands a variant's link faults
// need, in time order, on the lab's configs cfgs (nil: not checked): a
// link that does not come up in the configs (runtime.DownEnd; but not one
// down for its FEC modes, which a live lab brings up) is left out of a
// fault on all the links between two nodes, and a fault on such links
// alone is refused (runtime.FaultOnDownLinkError). The fellow members of
// a port channel a fault leaves short of its min links (runtime.DownWith,
// which the simulator takes down with the fault) are not set down here:
// a live lab's switches run their own LACP (SONiC-VS's teamd, cEOS), whose
// min links sees the faulted member's veth go down; that they take the
// channel down so is not checked on a live lab.
func linkActions(l *runtime.Lab, v runtime.VariantSpec, cfgs map[string]*qos.DeviceConfig) ([]linkAction, error) {
	var out []linkAction
	us := func(x float64) time.Duration { return time.Duration(x * float64(time.Microsecond)) }
	for i, f := range v.Faults {
		if f.Link == "" {
			continue
		}
		lk, member, err := l.Graph.LinkByName(f.Link)
		if err != nil {
			return nil, exitcode.Usagef("variant %s faults[%d]: %v", v.Name, i, err)
		}
		if member > 0 {
			return nil, exitcode.Usagef("variant %s faults[%d]: link %s is member %d of a merged lab link, which is one container interface on a live lab: fail the whole link (drop the .%d) or run it with --runtime sim", v.Name, i, f.Link, member, member)
		}
		links := []*fabric.Link{lk}
		if f.All {
			links = l.Graph.LinksBetween(lk.A.Node, lk.B.Node)
		}
		// A link down for its FEC modes is up on a live lab (LinkDown.FEC):
		// its fault runs.
		links = slices.DeleteFunc(slices.Clone(links), func(x *fabric.Link) bool {
			return runtime.DownEnd(cfgs, x).DownOn(true)
		})
		if len(links) == 0 {
			return nil, exitcode.Usagef("variant %s faults[%d]: %v", v.Name, i, runtime.FaultOnDownLinkError(cfgs, f, lk))
		}
		add := func(down, up time.Duration) {
			for _, lk := range links {
				end := lk.A
				if n := l.Graph.Node(end.Node); n == nil || n.Role == fabric.RoleHost {
					end = lk.B
				}
				where := fmt.Sprintf("%s:%s (%s)", end.Node, end.Port, end.Iface)
				c := ContainerName(l.Name, end.Node)
				out = append(out, linkAction{at: down, container: c, iface: end.Iface, where: where})
				if up > down {
					out = append(out, linkAction{at: up, up: true, container: c, iface: end.Iface, where: where})
				}
			}
		}
		switch f.Kind {
		case runtime.FaultLinkDown:
			up := time.Duration(0)
			if f.ForUs > 0 {
				up = us(f.AtUs + f.ForUs)
			}
			add(us(f.AtUs), up)
		case runtime.FaultLinkFlap:
			t := f.AtUs
			for range f.Count {
				if t >= v.DurationUs {
					break
				}
				add(us(t), us(t+f.DownUs))
				t += f.DownUs + f.UpUs
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out, nil
}

// runLinkFaults carries out actions from start on, until ctx ends, and
// returns what it did as measured marks. Every link it took down is
// brought back up before it returns, so a variant leaves the lab whole.
func runLinkFaults(ctx context.Context, eng Execer, actions []linkAction, start time.Time) []results.Mark {
	var marks []results.Mark
	down := map[string]linkAction{}
	set := func(ctx context.Context, a linkAction, up bool) string {
		state := "down"
		if up {
			state = "up"
		}
		res, err := eng.Exec(ctx, a.container, []string{"ip", "link", "set", "dev", a.iface, state}, ExecOptions{Timeout: 10 * time.Second})
		switch {
		case err != nil:
			return "failed: " + err.Error()
		case res.ExitCode != 0:
			return fmt.Sprintf("failed: exit %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
		}
		return "ip link set dev " + a.iface + " " + state
	}
	for _, a := range actions {
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(start.Add(a.at))):
		}
		if ctx.Err() != nil {
			break
		}
		detail := set(ctx, a, a.up)
		kind := "link down"
		if a.up {
			kind = "link up"
			delete(down, a.where)
		} else {
			down[a.where] = a
		}
		marks = append(marks, results.Mark{TimeUs: float64(time.Since(start).Microseconds()), Kind: kind, Where: a.where, Detail: detail, Source: results.Measured})
	}
	// Restore what is still down, even when the run was cut short.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, a := range down {
		marks = append(marks, results.Mark{TimeUs: float64(time.Since(start).Microseconds()), Kind: "link up", Where: a.where, Detail: set(rctx, a, true) + " (restored after the variant)", Source: results.Measured})
	}
	return marks
}

// faultRunner runs a variant's link faults beside its traffic.
type faultRunner struct {
	wg    sync.WaitGroup
	marks []results.Mark
}

func startLinkFaults(ctx context.Context, eng Execer, actions []linkAction, start time.Time) *faultRunner {
	fr := &faultRunner{}
	if len(actions) == 0 {
		return fr
	}
	fr.wg.Add(1)
	go func() {
		defer fr.wg.Done()
		fr.marks = runLinkFaults(ctx, eng, actions, start)
	}()
	return fr
}

func (fr *faultRunner) wait() []results.Mark {
	fr.wg.Wait()
	return fr.marks
}

// LinksUpWhateverFEC implements runtime.FECBlind: a live lab's links
// follow the containers' veth pairs, up whatever FEC modes the switches
// record.
func (r *Runtime) LinksUpWhateverFEC() bool { return true }
