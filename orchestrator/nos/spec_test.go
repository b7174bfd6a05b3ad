package nos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/qos"
)

// qos.mtu's documentation (package lab, which cannot import eos or qos)
// gives the headers, the fabric's MTU and the largest qos.mtu an EOS and a
// SONiC lab take in figures: they are those CheckSpec holds labs to.
func TestSpecMTUDoc(t *testing.T) {
	_, _, sonicMax := sonic.Plugin{}.MTULimits()
	doc := lab.KeyDocs["qos.mtu"].Doc
	for _, want := range []string{
		fmt.Sprintf("plus %d bytes of headers", qos.RoCEHeaderBytes),
		fmt.Sprintf("exceeds their %d", fabric.SwitchMTU),
		fmt.Sprintf("a qos.mtu above %d on EOS", eos.LabMaxMTU-qos.RoCEHeaderBytes),
		fmt.Sprintf("take at most %d", eos.CEOSMaxMTU),
		fmt.Sprintf("%d on SONiC", sonicMax-qos.RoCEHeaderBytes),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("qos.mtu's doc %q lacks %q", doc, want)
		}
	}
	// The largest qos.mtu the doc names is the largest CheckSpec takes.
	for nos, hi := range map[string]int{eos.Name: eos.LabMaxMTU, sonic.Name: sonicMax} {
		for mtu, ok := range map[int]bool{hi - qos.RoCEHeaderBytes: true, hi - qos.RoCEHeaderBytes + 1: false} {
			s := &lab.Spec{Name: "x", NOS: nos, Transport: "uet", Source: "catalog:x", QoS: lab.QoSSpec{Profile: "roce-dcqcn", MTU: &mtu}}
			err := CheckSpec(s, "")
			if (err == nil) != ok {
				t.Errorf("qos.mtu %d on %s: %v; want refused %v", mtu, nos, err, !ok)
			}
			// EOS's refusal says whose limit the range's end is: a cEOS
			// lab switch's, below the modeled platform's.
			if want := fmt.Sprintf("a cEOS lab switch takes at most %d, the modeled 7050CX3 %d", eos.CEOSMaxMTU, eos.PlatformMaxMTU); err != nil && nos == eos.Name && !strings.Contains(err.Error(), want) {
				t.Errorf("qos.mtu %d on %s: %v; want it to say %q", mtu, nos, err, want)
			}
		}
	}
}

// The MTUs CheckSpec holds a lab to and those lint's QOS020 and QOS021
// name (qos.PortMaxMTU, which Lookup's plug-ins are registered with) are one plug-in's
// MTULimits: every NOS has them, registered as they are, the port's
// limit not below the lab's.
func TestMTULimitsAgree(t *testing.T) {
	for _, name := range Names() {
		n, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		l, ok := n.(qos.MTULimiter)
		if !ok {
			t.Errorf("%s: no MTULimits", name)
			continue
		}
		lo, port, lab := l.MTULimits()
		regPort, regLab := qos.PortMaxMTU(name)
		if regPort != port || regLab != lab || port < lab || lo <= 0 {
			t.Errorf("%s: MTULimits %d/%d/%d, registered for lint %d/%d; want them one", name, lo, port, lab, regPort, regLab)
		}
	}
}
