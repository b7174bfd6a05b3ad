package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
		"nccl-tests":              "nccltests/testdata/all_reduce_2.13_h100x16.txt",
		"ib_read_bw":              "perftest/testdata/bw_read.txt",
	}
	// The other verbs' output: a fixture's with its banner's test name
	// changed, as perftest prints it.
	dir := t.TempDir()
	for kind, edit := range map[string][3]string{
		"ib_send_bw":    {"bw_gbits.txt", "RDMA_Write BW Test", "Send BW Test"},
		"ib_atomic_bw":  {"bw_gbits.txt", "RDMA_Write BW Test", "Atomic FETCH_AND_ADD BW Test"},
		"ib_read_lat":   {"lat.txt", "RDMA_Write Latency Test", "RDMA_Read Latency Test"},
		"ib_send_lat":   {"lat.txt", "RDMA_Write Latency Test", "Send Latency Test"},
		"ib_atomic_lat": {"lat.txt", "RDMA_Write Latency Test", "Atomic CMP_AND_SWAP Latency Test"},
	} {
		src, err := os.ReadFile(filepath.Join(root, "perftest", "testdata", edit[0]))
		if err != nil || !bytes.Contains(src, []byte(edit[1])) {
			t.Fatalf("%s: %v, or its banner changed", edit[0], err)
		}
		path := filepath.Join(dir, kind+".txt")
		if err := os.WriteFile(path, bytes.Replace(src, []byte(edit[1]), []byte(edit[2]), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		files[kind] = path
	}
	if len(files) != len(parseKinds()) {
		t.Fatalf("%d fixtures for %d kinds", len(files), len(parseKinds()))
	}
	for kind, f := range files {
		if !strings.HasPrefix(f, dir) {
			f = filepath.Join(root, f)
		}
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"parse", kind, f}, &out, &errb); code != 0 {
			t.Errorf("%s %s: exit %d: %s", kind, f, code, errb.String())
		}
		// The same file saved with a UTF-8 byte-order mark (as Windows
		// tools save text) parses the same: every kind reads past it.
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bom := filepath.Join(dir, "bom-"+kind+filepath.Ext(f))
		if err := os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), src...), 0o644); err != nil {
			t.Fatal(err)
		}
		var bout, berr bytes.Buffer
		if code := run(context.Background(), []string{"parse", kind, bom}, &bout, &berr); code != 0 {
			t.Errorf("%s with a byte-order mark: exit %d: %s", kind, code, berr.String())
		} else if got, want := strings.Replace(bout.String(), bom, f, 1), out.String(); got != want {
			t.Errorf("%s with a byte-order mark parses otherwise than without", kind)
		}
	}
}

// A parse error's fix names the output once: "give the complete output of
// ib_write_lat (text, ...)", where the kinds' descriptions ended in
// "output" of their own and it read "output of ib_write_lat output".
func TestParseErrorFixSaysOutputOnce(t *testing.T) {
	t.Parallel()
	garbage := filepath.Join(t.TempDir(), "garbage.txt")
	if err := os.WriteFile(garbage, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doubled := regexp.MustCompile(`complete output of [^,(]*\boutput\b`)
	for _, kind := range parseKindNames() {
		code, _, stderr := runCLI(t, "parse", kind, garbage)
		if code != 2 {
			t.Errorf("%s of garbage: exit %d: %s", kind, code, stderr)
		}
		if m := doubled.FindString(stderr); m != "" {
			t.Errorf("%s: the fix says %q:\n%s", kind, m, stderr)
		}
	}
}

// SAI's counters are unsigned 64-bit: a queue counter past 2^63-1 is
// parsed and written as printed (it exited 2, "does not fit a 64-bit
// counter"); past 2^64-1 it still is refused.
func TestParseCountersPast63Bits(t *testing.T) {
	t.Parallel()
	table := `     Port  TxQ           Counter/pkts              Counter/bytes  Drop/pkts  Drop/bytes
---------  ---  ---------------------  -------------------------  ---------  ----------
Ethernet0  UC3  9,007,199,254,740,993  9,223,372,036,854,775,808          7      28,672
`
	dir := t.TempDir()
	big := filepath.Join(dir, "q_big.txt")
	if err := os.WriteFile(big, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "parse", "sonic-queue-counters", big)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Result struct {
			Queues []struct {
				Packets, Bytes json.Number
			} `json:"queues"`
		} `json:"result"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil || len(res.Result.Queues) != 1 {
		t.Fatalf("%v:\n%s", err, out)
	}
	if q := res.Result.Queues[0]; q.Bytes != "9223372036854775808" || q.Packets != "9007199254740993" {
		t.Errorf("bytes %s packets %s", q.Bytes, q.Packets)
	}
	over := filepath.Join(dir, "q_over.txt")
	if err := os.WriteFile(over, []byte(strings.Replace(table, "9,223,372,036,854,775,808", "   18446744073709551616", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "parse", "sonic-queue-counters", over); code != 2 || !strings.Contains(stderr, "does not fit a 64-bit counter") {
		t.Errorf("2^64: exit %d: %s", code, stderr)
	}
}

func TestParseCompletion(t *testing.T) {
	t.Parallel()
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

// entered closes its channel when Read is called, then reads r.
type entered struct {
	ch chan struct{}
	r  io.Reader
}

func (e *entered) Read(p []byte) (int, error) {
	close(e.ch)
	return e.r.Read(p)
}

// A read of stdin that waits for input (a terminal, or a pipe whose
// writer neither writes nor closes) ends when the context is cancelled,
// as Ctrl-C cancels it: labctl catches the signal, so nothing else would
// end the read.
func TestInterruptibleReadEndsOnCancel(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	in := &entered{ch: make(chan struct{}), r: pr}
	r := interruptible(ctx, in)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		done <- err
	}()
	<-in.ch // the read is under way and blocked: nothing is written
	cancel()
	if err := <-done; !errors.Is(err, errInterruptedRead) {
		t.Fatalf("read returned %v, want errInterruptedRead", err)
	}

	// Reads before the cancel deliver what the pipe gives.
	pr2, pw2 := io.Pipe()
	r2 := interruptible(context.Background(), pr2)
	go func() { pw2.Write([]byte("rx_packets: 1\n")); pw2.Close() }()
	got, err := io.ReadAll(r2)
	if err != nil || string(got) != "rx_packets: 1\n" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// labctl parse - exits 1 (interrupted), not 2 (a parse error of what it
// read so far), when Ctrl-C ends its read of stdin.
//
// Not parallel: it replaces os.Stdin, which the other tests' labctl runs
// share.
func TestParseStdinInterrupted(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	old := os.Stdin
	os.Stdin = pr
	defer func() { os.Stdin = old }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"parse", "ethtool-stats", "-"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d, stderr %q; want 1 and interrupted", code, errb.String())
	}
}

// A file of two runs (outputs appended with >>) is refused, exit 2, at
// the second run's header with the fix the parser gives (split the
// file), not the general one (give the whole output or another kind),
// which would send the user looking for other output.
func TestParseTwoRunsRefused(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "orchestrator")
	dir := t.TempDir()
	nccl, err := os.ReadFile(ncclFixture("all_reduce_2.13_h100x16.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ncclTwice := filepath.Join(dir, "nccl-twice.txt")
	if err := os.WriteFile(ncclTwice, append(nccl, nccl...), 0o644); err != nil {
		t.Fatal(err)
	}
	ncclSecond := strings.Count(string(nccl), "\n") + 1
	for _, tc := range []struct{ kind, file, want string }{
		{"ib_write_bw", filepath.Join(root, "perftest", "testdata", "refused_bw_two_runs.txt"), ":46: a second perftest result header (the first is at line 22)"},
		{"ib_write_lat", filepath.Join(root, "perftest", "testdata", "refused_lat_two_runs.txt"), ":44: a second perftest result header (the first is at line 21)"},
		{"nccl-tests", ncclTwice, fmt.Sprintf(":%d: a second nccl-tests header (the first is at line 1)", ncclSecond)},
	} {
		code, out, errs := runCLI(t, "parse", tc.kind, tc.file)
		if code != 2 || out != "" {
			t.Errorf("%s: exit %d, stdout %q: want exit 2 and nothing printed", tc.kind, code, out)
		}
		if !strings.Contains(errs, tc.file+tc.want) || !strings.Contains(errs, "(fix: split the file, one run each") || strings.Contains(errs, "give the complete output") {
			t.Errorf("%s: stderr %q: want %q and only the fix to split the file", tc.kind, errs, tc.file+tc.want)
		}
	}
}

// perftest output of one verb given as another's kind is refused, exit 2,
// naming the kind to give; given as its own, it is read.
func TestParsePerftestOtherVerb(t *testing.T) {
	t.Parallel()
	read := filepath.Join("..", "..", "orchestrator", "perftest", "testdata", "bw_read.txt")
	code, out, errs := runCLI(t, "parse", "ib_write_bw", read)
	want := read + `:2: this is ib_read_bw output (its test is "RDMA_Read BW Test"), not ib_write_bw: perftest prints the same report for every verb, so its figures would pass for ib_write_bw's (fix: parse it as ib_read_bw: labctl parse ib_read_bw <file>)`
	if code != 2 || out != "" || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit 2 and %q", code, out, errs, want)
	}
	code, out, errs = runCLI(t, "parse", "ib_read_bw", read)
	if code != 0 || !strings.Contains(out, `"kind": "ib_read_bw"`) || !strings.Contains(out, `"test": "RDMA_Read BW Test"`) {
		t.Errorf("as ib_read_bw: exit %d %s%s", code, out, errs)
	}
	code, _, errs = runCLI(t, "parse", "ib_read_lat", read)
	if want := read + ":22: this is a bandwidth report (ib_read_bw), expected ib_read_lat output (fix: parse it as ib_read_bw"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("as ib_read_lat: exit %d, stderr %q lacks %q", code, errs, want)
	}
}
