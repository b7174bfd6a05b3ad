package nos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/qos"
)

// qos.mtu's documentation (package lab, which cannot import eos or qos)
// gives the headers, the fabric's MTU and the largest qos.mtu an EOS lab
// takes in figures: they are those CheckSpec holds labs to.
func TestSpecMTUDoc(t *testing.T) {
	doc := lab.KeyDocs["qos.mtu"].Doc
	for _, want := range []string{
		fmt.Sprintf("plus %d bytes of headers", qos.RoCEHeaderBytes),
		fmt.Sprintf("exceeds their %d", fabric.SwitchMTU),
		fmt.Sprintf("a qos.mtu above %d", eos.MaxMTU-qos.RoCEHeaderBytes),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("qos.mtu's doc %q lacks %q", doc, want)
		}
	}
	// The largest qos.mtu the doc names is the largest CheckSpec takes.
	for mtu, ok := range map[int]bool{eos.MaxMTU - qos.RoCEHeaderBytes: true, eos.MaxMTU - qos.RoCEHeaderBytes + 1: false} {
		s := &lab.Spec{Name: "x", NOS: eos.Name, Transport: "uet", Source: "catalog:x", QoS: lab.QoSSpec{Profile: "roce-dcqcn", MTU: &mtu}}
		if err := CheckSpec(s, ""); (err == nil) != ok {
			t.Errorf("qos.mtu %d on EOS: %v; want refused %v", mtu, err, !ok)
		}
	}
}
