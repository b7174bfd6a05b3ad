package nos

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// TestParseReadsOnlyTheData: a NOS that says it is a DataOnlyParser makes
// of a device's files what it makes of the same bytes under another
// device's name and other file names, Device aside, so that configset.Load
// may parse identical files once for all the devices that have them. The
// inputs: rendered switches, a rendered switch with a reference that
// resolves to nothing and a scheduler type changed (defaults and
// unresolved references are recorded, naming ports), and the real configs
// when ../shared is there. SONiC must say it (a rendered SONiC lab's
// switches would otherwise each parse).
func TestParseReadsOnlyTheData(t *testing.T) {
	if _, ok := mustLookup(t, "sonic").(DataOnlyParser); !ok {
		t.Error("sonic is not a DataOnlyParser")
	}
	for _, name := range Names() {
		n := mustLookup(t, name)
		if _, ok := n.(DataOnlyParser); !ok {
			t.Logf("%s does not say its parse reads only the data: not checked", name)
			continue
		}
		ext := n.ConfigExt()
		rendered := string(bigSwitch(t, n, 8))
		// A reference to nothing and a scheduler gone: the parse records
		// defaults and unresolved references, which name ports.
		broken := strings.Replace(strings.Replace(rendered, "scheduler.", "missing.", 1), "DWRR", "WRR", 1)
		inputs := [][]string{{rendered}, {broken}}
		real := filepath.Join("..", "..", "..", "shared", "reference", "real-configs", name)
		if files, _ := filepath.Glob(filepath.Join(real, "*"+ext)); len(files) > 0 {
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				inputs = append(inputs, []string{string(data)})
			}
		} else {
			t.Logf("%s: no real configs at %s; rendered ones only", name, real)
		}
		if name == "sonic" && len(inputs) > 3 {
			// A QoS file and a buffer file together, the second a
			// companion (<device>.buffers.json).
			inputs = append(inputs, []string{inputs[2][0], inputs[3][0]})
		}
		parsed := 0
		for i, in := range inputs {
			as := func(device, dir string) (qos.DeviceConfig, error) {
				var srcs []qos.Source
				for j, data := range in {
					file := device + ext
					if j > 0 {
						file = device + ".part" + string(rune('a'+j)) + ext
					}
					srcs = append(srcs, qos.Source{Name: filepath.Join(dir, file), Data: []byte(data)})
				}
				return n.ParseQoS(device, srcs...)
			}
			a, errA := as("leaf1", "/labs/a/configs")
			b, errB := as("spine12", "/tmp/other")
			if (errA == nil) != (errB == nil) {
				t.Errorf("%s input %d: leaf1 parses with error %v, spine12 with %v", name, i, errA, errB)
				continue
			}
			if errA != nil {
				continue
			}
			parsed++
			if b.Device != "spine12" {
				t.Errorf("%s input %d: Device %q, want spine12", name, i, b.Device)
			}
			b.Device = a.Device
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s input %d: the parse differs with the device's and files' names in %v", name, i, differingFields(a, b))
			}
		}
		if parsed < 2 {
			t.Errorf("%s: only %d inputs parsed", name, parsed)
		}
	}
}

func mustLookup(t testing.TB, name string) NOS {
	t.Helper()
	n, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// differingFields names the fields of two device configs that differ.
func differingFields(a, b qos.DeviceConfig) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, va.Type().Field(i).Name)
		}
	}
	return out
}
