package nos

import (
	"fmt"
	"os"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// CheckSpec refuses a lab spec whose configs labctl would render for the
// NOS name (the spec's when empty) with lines the NOS refuses: a fabric
// port MTU (qos.Intent.FabricPortMTU: the fabric's, raised to the lab's
// qos.mtu plus RoCE's headers) outside the MTUs the NOS takes (UET's
// qos.mtu 9216 gave EOS mtu 9276, above the 9194 a cEOS lab switch takes). The error is a usage
// error (exit 2) at qos.mtu in the spec's file, naming the value, the
// limit and the fix. A spec whose qos section does not resolve is left to
// the checks that report it.
func CheckSpec(spec *lab.Spec, name string) error {
	if name == "" {
		name = spec.NOS
	}
	n, err := Lookup(name)
	if err != nil {
		return nil
	}
	r, ok := n.(qos.MTULimiter)
	if !ok {
		return nil
	}
	in, err := qos.FromSpec(spec.QoS)
	if err != nil {
		return nil
	}
	lo, _, hi := r.MTULimits()
	mtu := in.FabricPortMTU(fabric.SwitchMTU)
	if mtu >= lo && mtu <= hi {
		return nil
	}
	takes := fmt.Sprintf("the %d-%d bytes %s takes", lo, hi, name)
	if rn, ok := n.(qos.MTURangeNoter); ok {
		takes = fmt.Sprintf("the %d-%d bytes a %s lab's switches take (%s)", lo, hi, name, rn.MTURangeNote())
	}
	msg := fmt.Sprintf("qos.mtu: %d makes labctl write mtu %d on the %s switches' fabric ports (the payload MTU plus labctl's %d bytes of headers), outside %s: the switches would refuse the line and keep their default MTU", in.MTU, mtu, name, qos.RoCEHeaderBytes, takes)
	fix := fmt.Sprintf("give a qos.mtu of at most %d (%d less the %d bytes of headers) for %s switches", hi-qos.RoCEHeaderBytes, hi, qos.RoCEHeaderBytes, name)
	if file := spec.Source; file != "" && !strings.HasPrefix(file, "catalog:") {
		if data, rerr := os.ReadFile(file); rerr == nil {
			return specyaml.AtFirst(file, data, msg, fix, "$.qos.mtu", "$.qos")
		}
	}
	return exitcode.Usagef("%s (fix: %s)", msg, fix)
}
