package clab

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"strings"
	"testing"
)

// applyPatch is a minimal RFC 6902 add/remove over a config_db document,
// strict where SONiC's patcher is: removing what is absent, or adding under
// a missing parent, fails.
func applyPatch(t *testing.T, db configDB, patch []byte) {
	t.Helper()
	if err := patchConfigDB(db, patch); err != nil {
		t.Fatal(err)
	}
}

func patchConfigDB(db configDB, patch []byte) error {
	var ops []PatchOp
	if err := json.Unmarshal(patch, &ops); err != nil {
		return err
	}
	asFields := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		return maps.Clone(m)
	}
	for _, op := range ops {
		parts := strings.Split(strings.TrimPrefix(op.Path, "/"), "/")
		for i := range parts {
			parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(parts[i])
		}
		switch {
		case op.Op == "add" && len(parts) == 1:
			tab := map[string]map[string]any{}
			vals, ok := op.Value.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: value is not a table", op.Path)
			}
			for k, v := range vals {
				tab[k] = asFields(v)
			}
			db[parts[0]] = tab
		case op.Op == "add" && len(parts) == 2:
			if db[parts[0]] == nil {
				return fmt.Errorf("%s: no table %s", op.Path, parts[0])
			}
			db[parts[0]][parts[1]] = asFields(op.Value)
		case op.Op == "add" && len(parts) == 3:
			if db[parts[0]][parts[1]] == nil {
				return fmt.Errorf("%s: no entry", op.Path)
			}
			db[parts[0]][parts[1]][parts[2]] = op.Value
		case op.Op == "remove" && len(parts) == 2:
			if _, ok := db[parts[0]][parts[1]]; !ok {
				return fmt.Errorf("%s: remove of a missing entry", op.Path)
			}
			delete(db[parts[0]], parts[1])
		case op.Op == "remove" && len(parts) == 3:
			if _, ok := db[parts[0]][parts[1]][parts[2]]; !ok {
				return fmt.Errorf("%s: remove of a missing field", op.Path)
			}
			delete(db[parts[0]][parts[1]], parts[2])
		default:
			return fmt.Errorf("unexpected op %+v", op)
		}
	}
	for k, tab := range db {
		if len(tab) == 0 {
			delete(db, k)
		}
	}
	return nil
}

func mustDB(t *testing.T, data []byte) configDB {
	t.Helper()
	db, err := parseConfigDB("test", data)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// merge is `config load`: fields of b over a.
func merge(a, b configDB) configDB {
	out := configDB{}
	for _, db := range []configDB{a, b} {
		for tn, tab := range db {
			if out[tn] == nil {
				out[tn] = map[string]map[string]any{}
			}
			for k, fields := range tab {
				if out[tn][k] == nil {
					out[tn][k] = map[string]any{}
				}
				maps.Copy(out[tn][k], fields)
			}
		}
	}
	return out
}

func TestSONiCVariantPatch(t *testing.T) {
	full, err := os.ReadFile("../../nos/sonic/testdata/golden/ecn-on_pfc-on/leaf1.json")
	if err != nil {
		t.Fatal(err)
	}
	// What SONiC had before labctl's first push: entries and fields labctl
	// does not manage, which a variant must leave alone.
	defaults := []byte(`{
  "DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
  "PORT_QOS_MAP": {"Ethernet0": {"vendor_field": "vendor"}, "Ethernet96": {"pfc_enable": "4"}},
  "BUFFER_PG": {"Ethernet96|0": {"profile": "ingress_lossy_profile"}}
}`)
	for _, variant := range []string{"ecn-off_pfc-off", "ecn-on_pfc-off", "ecn-off_pfc-on", "ecn-on_pfc-on"} {
		t.Run(variant, func(t *testing.T) {
			vdoc, err := os.ReadFile("../../nos/sonic/testdata/golden/" + variant + "/leaf1.json")
			if err != nil {
				t.Fatal(err)
			}
			fl, vr := mustDB(t, full), mustDB(t, vdoc)
			running := merge(mustDB(t, defaults), fl)
			runJSON, _ := json.Marshal(running)
			patch, err := SONiCVariantPatch(runJSON, full, vdoc)
			if err != nil {
				t.Fatal(err)
			}
			applyPatch(t, running, patch)
			// Managed cells hold the variant's values; the rest the
			// defaults.
			want := merge(mustDB(t, defaults), vr)
			for tn, tab := range fl {
				for k, fields := range tab {
					for f := range fields {
						if _, ok := vr[tn][k][f]; !ok {
							delete(want[tn][k], f)
						}
					}
					if len(want[tn][k]) == 0 {
						delete(want[tn], k)
					}
				}
				if len(want[tn]) == 0 {
					delete(want, tn)
				}
			}
			if !reflect.DeepEqual(running, want) {
				g, _ := json.MarshalIndent(running, "", " ")
				w, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("after the patch:\n%s\nwant:\n%s", g, w)
			}
			if running["PORT_QOS_MAP"]["Ethernet0"]["vendor_field"] != "vendor" || running["BUFFER_PG"]["Ethernet96|0"] == nil {
				t.Error("the patch touched what labctl does not manage")
			}
		})
	}
	// Restoring the lab's config is the same patch towards full.
	t.Run("restore", func(t *testing.T) {
		off, _ := os.ReadFile("../../nos/sonic/testdata/golden/ecn-off_pfc-off/leaf1.json")
		running := merge(mustDB(t, defaults), mustDB(t, off))
		runJSON, _ := json.Marshal(running)
		patch, err := SONiCVariantPatch(runJSON, full, full)
		if err != nil {
			t.Fatal(err)
		}
		applyPatch(t, running, patch)
		// What full does not set stays, except buffer ranges of the lab's
		// ports cut otherwise by the variant ("Ethernet0|0-7"), which
		// would overlap the restored ones.
		want := merge(merge(mustDB(t, defaults), mustDB(t, off)), mustDB(t, full))
		fl := mustDB(t, full)
		for table := range portIndexed {
			for k := range ownedByPort(want[table], fl[table]) {
				if _, ok := fl[table][k]; !ok {
					delete(want[table], k)
				}
			}
		}
		if _, ok := want["BUFFER_QUEUE"]["Ethernet0|0-7"]; ok {
			t.Fatal("test set-up: the off variant's merged range should be gone from want")
		}
		if !reflect.DeepEqual(running, want) {
			g, _ := json.MarshalIndent(running, "", " ")
			t.Errorf("restore did not bring the lab's config back:\n%s", g)
		}
	})
}

func TestSONiCVariantPatchErrors(t *testing.T) {
	for _, tc := range []struct{ running, full, variant, want string }{
		{`[]`, `{}`, `{}`, "running CONFIG_DB"},
		{`{}`, `{"A": 1}`, `{}`, "lab's config"},
		{`{}`, `{}`, `nope`, "variant's config"},
	} {
		if _, err := SONiCVariantPatch([]byte(tc.running), []byte(tc.full), []byte(tc.variant)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error = %v, want one naming %q", err, tc.want)
		}
	}
}

func TestPointer(t *testing.T) {
	if got := pointer("QUEUE", "Ethernet0|3", "a/b~c"); got != "/QUEUE/Ethernet0|3/a~1b~0c" {
		t.Errorf("pointer = %q", got)
	}
}

func TestEOSNegations(t *testing.T) {
	read := func(v string) string {
		b, err := os.ReadFile("../../nos/eos/testdata/golden/" + v + "/leaf1.cfg")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	full := read("ecn-on_pfc-on")
	for _, v := range []string{"ecn-off_pfc-off", "ecn-on_pfc-off", "ecn-off_pfc-on", "ecn-on_pfc-on"} {
		t.Run(v, func(t *testing.T) {
			variant := read(v)
			neg := EOSNegations(full, variant)
			if v == "ecn-on_pfc-on" {
				if neg != "" {
					t.Fatalf("negations of the lab's own config:\n%s", neg)
				}
				return
			}
			// Replay: the switch holds full's lines; each "no" in its mode
			// drops one; then the variant's lines are added. The result
			// must be exactly the variant's lines.
			state := map[string]bool{}
			for _, l := range parseEOSLines(full) {
				state[l.key()] = true
			}
			for _, l := range parseEOSLines(neg) {
				if l.text == "exit" {
					continue
				}
				rest, ok := strings.CutPrefix(l.text, "no ")
				if !ok {
					if !state[eosLine{modes: l.modes, text: l.text}.key()] {
						t.Errorf("negations enter mode %q the switch lacks", l.text)
					}
					continue
				}
				k := eosLine{modes: l.modes, text: rest}.key()
				if !state[k] {
					t.Errorf("negation of a line the switch lacks: %q in %q", rest, l.modes)
				}
				for s := range state {
					if s == k || strings.HasPrefix(s, k+"\x00") {
						delete(state, s)
					}
				}
			}
			for _, l := range parseEOSLines(variant) {
				state[l.key()] = true
			}
			want := map[string]bool{}
			for _, l := range parseEOSLines(variant) {
				want[l.key()] = true
			}
			if !reflect.DeepEqual(state, want) {
				for k := range state {
					if !want[k] {
						t.Errorf("left on the switch: %q", strings.ReplaceAll(k, "\x00", " > "))
					}
				}
			}
			if strings.Contains(v, "pfc-off") && !strings.Contains(neg, "no priority-flow-control on") {
				t.Errorf("pfc off without 'no priority-flow-control on':\n%s", neg)
			}
			if strings.Contains(v, "ecn-off") && !strings.Contains(neg, "no random-detect ecn") {
				t.Errorf("ecn off without 'no random-detect ecn':\n%s", neg)
			}
		})
	}
}

func TestEOSNegationsModes(t *testing.T) {
	full := "hostname x\n!\ninterface Ethernet1\n   mtu 9214\n   tx-queue 3\n      random-detect ecn minimum-threshold 1 kbytes\n   tx-queue 4\n      bandwidth percent 10\n!\nqos map x\n   a\nend\n"
	variant := "hostname x\ninterface Ethernet1\n   mtu 9214\n   tx-queue 3\n"
	got := EOSNegations(full, variant)
	want := "interface Ethernet1\n   tx-queue 3\n      no random-detect ecn minimum-threshold 1 kbytes\n      exit\n   no tx-queue 4\n   exit\nno qos map x\n"
	if got != want {
		t.Errorf("EOSNegations =\n%s\nwant\n%s", got, want)
	}
}

func TestSONiCVariantPatchIgnoresOtherTables(t *testing.T) {
	running := []byte(`{"VERSIONS": {"DATABASE": {"VERSION": "version_4_0_1"}}, "WEIRD": [1, 2], "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`)
	patch, err := SONiCVariantPatch(running, []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`), []byte(`{"PORT_QOS_MAP": {"Ethernet0": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var ops []PatchOp
	if err := json.Unmarshal(patch, &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || ops[0].Op != "remove" || ops[0].Path != "/PORT_QOS_MAP/Ethernet0/pfc_enable" {
		t.Errorf("ops = %+v", ops)
	}
	if _, err := SONiCVariantPatch([]byte(`{"PORT_QOS_MAP": [1]}`), []byte(`{"PORT_QOS_MAP": {}}`), []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "table PORT_QOS_MAP") {
		t.Errorf("error = %v", err)
	}
}

func FuzzSONiCVariantPatch(f *testing.F) {
	full, _ := os.ReadFile("../../nos/sonic/testdata/golden/ecn-on_pfc-on/leaf1.json")
	off, _ := os.ReadFile("../../nos/sonic/testdata/golden/ecn-off_pfc-off/leaf1.json")
	f.Add(full, full, off)
	f.Add([]byte(`{}`), []byte(`{"A": {"k": {"f": "1"}}}`), []byte(`{"A": {"k": {}}}`))
	f.Fuzz(func(t *testing.T, running, full, variant []byte) {
		patch, err := SONiCVariantPatch(running, full, variant)
		if err != nil {
			return
		}
		var ops []PatchOp
		if err := json.Unmarshal(patch, &ops); err != nil {
			t.Fatalf("patch is not JSON: %v", err)
		}
		for _, op := range ops {
			if (op.Op != "add" && op.Op != "remove") || !strings.HasPrefix(op.Path, "/") {
				t.Fatalf("bad op %+v", op)
			}
		}
	})
}

func FuzzEOSNegations(f *testing.F) {
	full, _ := os.ReadFile("../../nos/eos/testdata/golden/ecn-on_pfc-on/leaf1.cfg")
	off, _ := os.ReadFile("../../nos/eos/testdata/golden/ecn-off_pfc-off/leaf1.cfg")
	f.Add(string(full), string(off))
	f.Add("a\n b\n  c\n d\n", "a\n b\n")
	f.Fuzz(func(t *testing.T, full, variant string) {
		if got := EOSNegations(full, full); got != "" {
			t.Fatalf("a config negates itself: %q", got)
		}
		neg := EOSNegations(full, variant)
		for _, l := range parseEOSLines(neg) {
			if l.text != "exit" && !strings.HasPrefix(l.text, "no ") && l.depth == 0 && !strings.Contains(full, l.text) {
				t.Fatalf("negations enter a mode full lacks: %q", l.text)
			}
		}
	})
}
