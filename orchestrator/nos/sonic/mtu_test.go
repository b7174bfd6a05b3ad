package sonic

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// portsorch's parsePortMtu takes a PORT mtu that swss's to_uint reads
// whole (strtoul, base 0) and that lies in 68-9216 (minPortMtu,
// maxPortMtu; sonic-port.yang's range): any other it refuses, and the
// port keeps the MTU it has. labctl gives the port no MTU of the config's
// (the switch's own), and lint's error names the entry at its line and
// the range; the YANG check (ValidateDoc) refuses it too.
func TestPortMTUOutOfRange(t *testing.T) {
	for _, c := range []struct {
		mtu     string
		applied int // 0: refused
	}{
		{"9100", 9100},
		{"68", 68},
		{"9216", 9216},
		{" 9100", 9100},    // strtoul skips the blanks before a number
		{"0x2384", 9092},   // to_uint reads base 0: hex
		{"20", 0},          // below 68
		{"10000", 0},       // above 9216
		{"abc", 0},         // no number
		{"9100 ", 0},       // to_uint refuses what it leaves unread
		{"-9100", 0},       // strtoul negates: far above 9216
		{"", 0},            // empty value is prohibited
		{"99999999999", 0}, // beyond 32 bits
	} {
		in := "{\"PORT\": {\n\"Ethernet0\": {\"admin_status\": \"up\", \"mtu\": " + strconv.Quote(c.mtu) + "}}}"
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("mtu %q: %v, want it parsed (portsorch refuses it at run time)", c.mtu, err)
			continue
		}
		if got := dc.Port("Ethernet0").MTU; got != c.applied {
			t.Errorf("mtu %q: the port's MTU is %d, want %d", c.mtu, got, c.applied)
		}
		found := false
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, "line 2") &&
				strings.Contains(f.Message, "PORT|Ethernet0") && strings.Contains(f.Message, "parsePortMtu") && strings.Contains(f.Fix, "68-9216") {
				found = true
			}
		}
		if found != (c.applied == 0) {
			t.Errorf("mtu %q: a QOS021 error at line 2 naming parsePortMtu and 68-9216: %v, want %v", c.mtu, found, c.applied == 0)
		}
		yang := len(ValidateDoc(mustDoc(t, in))) == 0
		if want := c.applied != 0 && c.mtu == strconv.Itoa(c.applied); yang != want {
			t.Errorf("mtu %q: ValidateDoc passes it: %v, want %v", c.mtu, yang, want)
		}
	}
}

// The PORT mtu field's description gives the range the resolver takes.
func TestMTUFieldNamesTheRange(t *testing.T) {
	f, _ := reflect.TypeOf(PortEntry{}).FieldByName("MTU")
	if r := strconv.Itoa(cfgPortMTUMin) + "-" + strconv.Itoa(cfgPortMTUMax); !strings.Contains(f.Tag.Get("why"), r) {
		t.Errorf("PORT mtu's description does not give the range %s: %s", r, f.Tag.Get("why"))
	}
}
