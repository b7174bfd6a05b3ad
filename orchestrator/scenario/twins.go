package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
	"github.com/labctl/labctl/orchestrator/transport"
)

// twinVariants refuses two variants that would run the same simulation
// under two names: they differ only in what their transport does not read
// (an InfiniBand variant swept over ECN thresholds, a UET one over DCQCN's
// rates, a RoCE one over the infiniband section, the ecn dimension of
// InfiniBand without its congestion control). Their figures would come
// out the same to the byte, read as a finding ("Kmin changes nothing").
// The error is at the matrix key of the first dimension they differ in.
func (s *Spec) twinVariants(points []Point, specs []runtime.VariantSpec) error {
	seen := map[string]int{}
	for i, pt := range points {
		tr := specs[i].Transport
		var key strings.Builder
		fmt.Fprintf(&key, "%s|rep=%d|pfc=%v", tr.Name, pt.Repetition, pt.PFC)
		ecnRead := tr.Name != transport.InfiniBand || tr.InfiniBand != nil && tr.InfiniBand.CC.Runs(true)
		if ecnRead {
			fmt.Fprintf(&key, "|ecn=%v", pt.ECN)
		}
		for _, p := range pt.Params {
			if transport.Reads(tr.Name, p.Path) {
				fmt.Fprintf(&key, "|%s=%s", p.Path, p.Value)
			}
		}
		j, dup := seen[key.String()]
		if !dup {
			seen[key.String()] = i
			continue
		}
		first := points[j]
		var unread []string
		if first.ECN != pt.ECN {
			unread = append(unread, "ecn")
		}
		for k, p := range pt.Params {
			if k < len(first.Params) && first.Params[k].Value != p.Value {
				unread = append(unread, p.Path)
			}
		}
		if len(unread) == 0 {
			continue // the same point twice is the matrix's own concern
		}
		why := fmt.Sprintf("transport %s reads no %s", tr.Name, strings.Join(unread, " or "))
		if unread[0] == "ecn" {
			why = fmt.Sprintf("transport %s reads no ECN setting without its congestion control (infiniband.cc)", tr.Name)
		}
		msg := fmt.Sprintf("variants %s and %s would run the same simulation under two names: %s", first.Name, pt.Name, why)
		fix := fmt.Sprintf("give %s one value, or sweep what %s reads", unread[0], tr.Name)
		if unread[0] == "ecn" {
			fix = "give the matrix one ecn value (ecn: [on]), or turn on infiniband.cc"
		}
		if s.sweepByPath("transport") != nil {
			fix = fmt.Sprintf("leave the twins out with matrix exclude: [{transport: %s, %s: %s}] (each value but one), or sweep what %s reads", tr.Name, unread[0], pointValue(pt, unread[0]), tr.Name)
		}
		if err := s.atMatrixKey(msg, fix, unread[0], "transport"); err != nil {
			return err
		}
		return exitcode.Usage(&specyaml.Error{File: s.file, Msg: msg, Fix: fix})
	}
	return nil
}

// pointValue is the value a point gives a dimension of the matrix.
func pointValue(pt Point, dim string) string {
	switch dim {
	case "ecn":
		return onOff(pt.ECN)
	case "pfc":
		return onOff(pt.PFC)
	}
	for _, p := range pt.Params {
		if p.Path == dim {
			return p.Value
		}
	}
	return ""
}

// unreadSections refuses a scenario section that no variant's transport
// reads: DCQCN's (dcqcn, nic.dcqcn) without a RoCE variant, infiniband
// without an InfiniBand one, uet without a UET one. The run would go ahead
// without it and read as if it had applied.
func (s *Spec) unreadSections(specs []runtime.VariantSpec) error {
	runs := transportsRun(specs)
	for _, c := range []struct {
		paths []string
		tr    string
		what  string
	}{
		{[]string{"$.dcqcn", "$.nic.dcqcn"}, transport.RoCE, "DCQCN, RoCE's congestion control"},
		{[]string{"$.infiniband"}, transport.InfiniBand, "the InfiniBand transport's settings"},
		{[]string{"$.uet"}, transport.UET, "the UET transport's settings"},
	} {
		if runs[c.tr] {
			continue
		}
		for _, path := range c.paths {
			if !specyaml.Has(s.src, path) {
				continue
			}
			key := strings.TrimPrefix(path, "$.")
			ran := slices.Sorted(maps.Keys(runs))
			return specyaml.AtFirst(s.file, s.src,
				fmt.Sprintf("%s sets %s, but no variant of this run uses %s (they run %s), so it would change nothing", key, c.what, c.tr, strings.Join(ran, ", ")),
				fmt.Sprintf("leave %s out, or sweep transport to include %s", key, c.tr), path)
		}
	}
	return nil
}
