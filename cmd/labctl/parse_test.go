package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "orchestrator", "nos", "sonic", "testdata", "counters", "pfc_counters.txt")
	src, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// The same output with its Tx table cut off.
	truncated := filepath.Join(dir, "pfc-truncated.txt")
	lines := strings.Split(string(src), "\n")
	if err := os.WriteFile(truncated, []byte(strings.Join(lines[:5], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbled := filepath.Join(dir, "pfc-garbled.txt")
	if err := os.WriteFile(garbled, []byte(strings.Replace(string(src), "1,400", "1#400", 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name    string
		args    []string
		code    int
		wantOut string
		wantErr string
	}{
		{"good", []string{"parse", "sonic-pfc-counters", good}, 0, `"kind": "sonic-pfc-counters"`, ""},
		{"good -o json", []string{"parse", "sonic-pfc-counters", good, "-o", "json"}, 0, `"schema_version": 1`, ""},
		{"truncated", []string{"parse", "sonic-pfc-counters", truncated}, 2, "", truncated + ":5:"},
		{"garbled", []string{"parse", "sonic-pfc-counters", garbled}, 2, "", garbled + ":4:"},
		{"wrong kind", []string{"parse", "sonic-queue-counters", good}, 2, "", good + ":1:"},
		{"unknown kind", []string{"parse", "cisco-counters", good}, 2, "", "ib_write_bw, ib_write_lat"},
		{"missing file", []string{"parse", "ethtool-stats", filepath.Join(dir, "nope.txt")}, 2, "", "no such file"},
		{"directory", []string{"parse", "ethtool-stats", dir}, 2, "", "is a directory"},
		{"one arg", []string{"parse", "ethtool-stats"}, 2, "", "parse takes 2 arguments, got 1"},
		{"bad format", []string{"parse", "sonic-pfc-counters", good, "-o", "yaml"}, 2, "", "not supported"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.wantOut)
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.wantErr)
			}
			if tc.code == 0 {
				var doc struct {
					Result struct {
						Ports []struct {
							Port string   `json:"port"`
							Rx   []*int64 `json:"rx"`
						} `json:"ports"`
					} `json:"result"`
				}
				if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
					t.Fatalf("stdout is not JSON: %v", err)
				}
				if p := doc.Result.Ports; len(p) != 3 || p[1].Port != "Ethernet4" || *p[1].Rx[0] != 1400 {
					t.Errorf("result = %+v", doc.Result)
				}
			}
		})
	}
}

func TestParseCommandEveryKind(t *testing.T) {
	// One fixture per kind: every kind is wired to a parser that accepts
	// its own output.
	root := filepath.Join("..", "..", "orchestrator")
	files := map[string]string{
		"ib_write_bw":             "perftest/testdata/bw_gbits.txt",
		"ib_write_lat":            "perftest/testdata/lat_4.5.json",
		"sonic-pfc-counters":      "nos/sonic/testdata/counters/pfc_counters_na.txt",
		"sonic-queue-counters":    "nos/sonic/testdata/counters/queue_counters_namespace.txt",
		"sonic-wred-counters":     "nos/sonic/testdata/counters/wred_counters.txt",
		"sonic-port-counters":     "nos/sonic/testdata/counters/port_counters.txt",
		"eos-pfc-counters-json":   "nos/eos/testdata/counters/pfc_counters.json",
		"eos-queue-counters-json": "nos/eos/testdata/counters/queue_counters_detail.json",
		"eos-ecn-counters-json":   "nos/eos/testdata/counters/ecn_counters.json",
		"rdma-statistic":          "hoststat/testdata/rdma_statistic.txt",
		"ethtool-stats":           "hoststat/testdata/ethtool_veth.txt",
	}
	if len(files) != len(parseKinds()) {
		t.Fatalf("%d fixtures for %d kinds", len(files), len(parseKinds()))
	}
	for kind, f := range files {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"parse", kind, filepath.Join(root, f)}, &out, &errb); code != 0 {
			t.Errorf("%s %s: exit %d: %s", kind, f, code, errb.String())
		}
	}
}

func TestParseCompletion(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"__complete", "parse", "sonic-"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, k := range []string{"sonic-pfc-counters", "sonic-queue-counters", "sonic-wred-counters", "sonic-port-counters"} {
		if !strings.Contains(out.String(), k) {
			t.Errorf("completion lacks %s:\n%s", k, out.String())
		}
	}
	if strings.Contains(out.String(), "ib_write_bw") {
		t.Errorf("completion ignores the prefix:\n%s", out.String())
	}
}
