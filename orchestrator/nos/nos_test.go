package nos

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/qos"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name, kind, ext, eth1, eth3 string
	}{
		{"sonic", "sonic-vs", ".json", "Ethernet0", "Ethernet8"},
		{"eos", "arista_ceos", ".cfg", "Ethernet1", "Ethernet3"},
	}
	for _, tt := range tests {
		n, err := Lookup(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if n.Name() != tt.name || n.Kind() != tt.kind || n.ConfigExt() != tt.ext || n.DefaultImage() == "" {
			t.Errorf("%s: name %s kind %s ext %s image %q", tt.name, n.Name(), n.Kind(), n.ConfigExt(), n.DefaultImage())
		}
		for linux, want := range map[string]string{"eth1": tt.eth1, "eth3": tt.eth3} {
			if got, err := InterfaceName(n, linux); err != nil || got != want {
				t.Errorf("%s %s -> %s, %v; want %s", tt.name, linux, got, err, want)
			}
		}
		if byExt, ok := ForExt(tt.ext); !ok || byExt.Name() != tt.name {
			t.Errorf("ForExt(%s) = %v", tt.ext, byExt)
		}
		// Render then parse through the interface.
		in, _ := qos.Profile("")
		dc, err := qos.Apply(in, qos.Device{Name: "leaf1", Ports: []qos.Port{{Name: tt.eth1, SpeedGbps: 100, Fabric: true}}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := n.RenderQoS(dc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := n.ParseQoS("leaf1", qos.Source{Name: "leaf1" + n.ConfigExt(), Data: out})
		if err != nil || back.Port(tt.eth1) == nil || qos.FormatInts(back.Port(tt.eth1).PFCPriorities) != "3" {
			t.Errorf("%s: parse back = %+v, %v", tt.name, back, err)
		}
		// Optional capabilities are not implemented by the plug-ins here.
		if _, ok := n.(Pusher); ok {
			t.Logf("%s implements Pusher", tt.name)
		}
	}
	_, err := Lookup("junos")
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "sonic, eos") {
		t.Errorf("Lookup(junos) = %v", err)
	}
	for _, bad := range []string{"eth0", "Ethernet1", "eth", "eth01"} {
		n, _ := Lookup("sonic")
		if _, err := InterfaceName(n, bad); err == nil {
			t.Errorf("InterfaceName(%q) accepted", bad)
		}
	}
}

var update = flag.Bool("update", false, "rewrite docs/config-fields.md")

// Every field a NOS plug-in reads states how it is used, and
// docs/config-fields.md is what those statements say.
func TestFieldsReference(t *testing.T) {
	for _, n := range Names() {
		p, _ := Lookup(n)
		seen := map[string]bool{}
		if len(p.Fields()) == 0 {
			t.Errorf("%s states no fields", n)
		}
		for _, f := range p.Fields() {
			switch f.Use {
			case qos.UseSimulated, qos.UseLint, qos.UseIgnored:
			default:
				t.Errorf("%s %s: use %q is not simulated, lint or ignored", n, f.Name(), f.Use)
			}
			if strings.TrimSpace(f.Why) == "" || f.Table == "" || f.Field == "" {
				t.Errorf("%s %s: a statement needs its table, field and why: %+v", n, f.Name(), f)
			}
			if seen[f.Name()] {
				t.Errorf("%s %s stated twice", n, f.Name())
			}
			seen[f.Name()] = true
		}
	}
	path := filepath.Join("..", "..", "docs", "config-fields.md")
	want := FieldsMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s differs from the fields' statements (err %v): run 'go test ./orchestrator/nos -run TestFieldsReference -update' and review the diff", path, err)
	}
}
