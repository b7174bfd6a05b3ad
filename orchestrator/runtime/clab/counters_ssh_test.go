package clab

import (
	"bytes"
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/util"

	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/runtime/clab/sshtest"
)

var update = flag.Bool("update", false, "re-record the transcripts under testdata/transcripts")

// counterFakeSONiC is a SONiC admin shell that knows the counter commands.
type counterFakeSONiC struct{ outs map[string]string }

func (d *counterFakeSONiC) Prompt() string { return "admin@leaf1:~$ " }

func (d *counterFakeSONiC) Run(line string) (string, bool) {
	cmd, ok := strings.CutSuffix(strings.TrimSpace(line), "; echo labctl-rc=$?")
	if !ok {
		return "", false
	}
	if out, ok := d.outs[cmd]; ok {
		return strings.TrimRight(out, "\n") + "\nlabctl-rc=0", false
	}
	return "-bash: " + strings.Fields(cmd + " x")[0] + ": command not found\nlabctl-rc=127", false
}

// counterFakeEOS is a cEOS privileged exec that knows the counter
// commands; rejects answers some with EOS's error.
type counterFakeEOS struct {
	outs    map[string]string
	rejects map[string]bool
}

func (d *counterFakeEOS) Prompt() string { return "leaf1#" }

func (d *counterFakeEOS) Run(line string) (string, bool) {
	cmd := strings.TrimSpace(line)
	switch {
	case cmd == "", cmd == "terminal width 32767", cmd == "terminal length 0":
		return "", false
	case d.rejects[cmd]:
		return "% Invalid input (at token 1: 'qos')", false
	}
	if out, ok := d.outs[cmd]; ok {
		return strings.TrimRight(out, "\n"), false
	}
	return "% Invalid input (at token 0: '" + strings.Fields(cmd + " x")[0] + "')", false
}

func counterOutputs(t *testing.T, nos string) map[string]string {
	t.Helper()
	files := []string{"pfc_counters.txt", "queue_counters_vs.txt", "wred_counters.txt", "port_counters.txt"}
	if nos == eos.Name {
		files = []string{"eos_pfc_counters.json", "eos_ecn_counters.json", "eos_queue_counters_detail.json"}
	}
	outs := map[string]string{}
	for i, cmd := range CounterCommands(nos) {
		outs[cmd] = readTestdata(t, "counters/"+files[i])
	}
	return outs
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// trimClose drops the "exit" the driver types when it closes, which a
// replay would otherwise wait for.
func trimClose(b []byte) []byte {
	if i := bytes.LastIndex(b, []byte("exit")); i >= 0 && i >= len(b)-16 {
		return b[:i]
	}
	return b
}

// showCounters runs the counter commands over SSH (srv) or, without srv, by
// replaying transcript through scrapligo's file transport. With -update an
// SSH run records the transcript.
func showCounters(t *testing.T, nos string, srv *sshtest.Server, transcript string) ([]string, error) {
	t.Helper()
	var opts []util.Option
	var log syncBuffer
	host, port := "leaf1", 0
	if srv != nil {
		host, port = srv.Host, srv.Port
		if *update {
			opts = append(opts, options.WithChannelLog(&log))
		}
	} else {
		p, err := filepath.Abs(filepath.Join("testdata/transcripts", transcript))
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, options.WithTransportType("file"), options.WithFileTransportFile(p), options.WithReadDelay(0))
	}
	var outs []string
	var err error
	if nos == eos.Name {
		outs, err = eos.RunShowCommands(context.Background(), eos.PushTarget{Name: "leaf1", Host: host, Port: port, Username: "admin", Password: "admin", Timeout: 30 * time.Second, Options: opts}, EOSCounterCommands)
	} else {
		outs, err = sonic.RunShowCommands(context.Background(), sonic.PushTarget{Name: "leaf1", Host: host, Port: port, Username: "admin", Password: "YourPaSsWoRd", Timeout: 30 * time.Second, Options: opts}, SONiCCounterCommands)
	}
	if srv != nil && *update && err == nil {
		time.Sleep(50 * time.Millisecond) // let the read loop log the last bytes
		if err := os.MkdirAll("testdata/transcripts", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata/transcripts", transcript), trimClose(log.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return outs, err
}

// The counter commands run over the same SSH client code as the pushes,
// against a device on loopback and against recorded sessions, and parse
// into the counters the live runs record.
func TestCounterShowCommands(t *testing.T) {
	for _, tc := range []struct {
		nos, transcript, port string
		pass                  string
		check                 func(t *testing.T, sc SwitchCounters)
	}{
		{"sonic", "sonic-counters.txt", "Ethernet0", "YourPaSsWoRd", func(t *testing.T, sc SwitchCounters) {
			if got := sc[PortPriority{"Ethernet0", 3}]; got != (CounterValues{TxBytes: 50565120, PFCTx: 213, PFCRx: 203, ECNMarked: 19, Drops: 59}) {
				t.Errorf("Ethernet0 prio 3 = %+v", got)
			}
			if got := sc[PortPriority{"Ethernet4", -1}]; got.Drops != 1000 {
				t.Errorf("Ethernet4 port drops = %+v", got)
			}
		}},
		{"eos", "eos-counters.txt", "Ethernet1", "admin", func(t *testing.T, sc SwitchCounters) {
			got := sc[PortPriority{"Ethernet1", 3}]
			if got.PFCTx != 1532 || got.PFCRx != 0 {
				t.Errorf("Ethernet1 prio 3 = %+v", got)
			}
			if sc[PortPriority{"Ethernet1", 0}].PFCTx != 0 {
				t.Error("EOS PFC frames counted under a priority other than the lossless one")
			}
		}},
	} {
		t.Run(tc.nos, func(t *testing.T) {
			outs := counterOutputs(t, tc.nos)
			var dev sshtest.Device = &counterFakeSONiC{outs: outs}
			if tc.nos == eos.Name {
				dev = &counterFakeEOS{outs: outs}
			}
			srv := sshtest.Start(t, "admin", tc.pass, "", func() sshtest.Device { return dev })
			ports := []string{"Ethernet0", "Ethernet1", "Ethernet4", "Ethernet8"}
			for _, mode := range []string{"ssh", "replay"} {
				s := srv
				if mode == "replay" {
					if *update {
						continue
					}
					s = nil
				}
				got, err := showCounters(t, tc.nos, s, tc.transcript)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				for i, cmd := range CounterCommands(tc.nos) {
					if strings.TrimRight(got[i], "\n") != strings.TrimRight(outs[cmd], "\n") {
						t.Errorf("%s: output of %q:\n%s\nwant\n%s", mode, cmd, got[i], outs[cmd])
					}
				}
				sc, err := ParseSwitchCounters(tc.nos, got, ports, 3)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				tc.check(t, sc)
			}
		})
	}
}

func TestCounterShowRejected(t *testing.T) {
	outs := counterOutputs(t, eos.Name)
	dev := &counterFakeEOS{outs: outs, rejects: map[string]bool{EOSCounterCommands[1]: true}}
	srv := sshtest.Start(t, "admin", "admin", "", func() sshtest.Device { return dev })
	_, err := eos.RunShowCommands(context.Background(), eos.PushTarget{Name: "leaf1", Host: srv.Host, Port: srv.Port, Username: "admin", Password: "admin", Timeout: 5 * time.Second}, EOSCounterCommands)
	if err == nil || !strings.Contains(err.Error(), "show qos interfaces ecn counters queue") || !strings.Contains(err.Error(), "Invalid input") {
		t.Errorf("error = %v", err)
	}
	sdev := &counterFakeSONiC{outs: map[string]string{}}
	ssrv := sshtest.Start(t, "admin", "YourPaSsWoRd", "", func() sshtest.Device { return sdev })
	_, err = sonic.RunShowCommands(context.Background(), sonic.PushTarget{Name: "leaf1", Host: ssrv.Host, Port: ssrv.Port, Username: "admin", Password: "YourPaSsWoRd", Timeout: 5 * time.Second}, SONiCCounterCommands)
	if err == nil || !strings.Contains(err.Error(), "show pfc counters") || !strings.Contains(err.Error(), "exit status 127") {
		t.Errorf("error = %v", err)
	}
}

func TestParseSwitchCountersErrors(t *testing.T) {
	if _, err := ParseSwitchCounters("sonic", []string{"x"}, nil, 3); err == nil || !strings.Contains(err.Error(), "1 outputs for 4 commands") {
		t.Errorf("error = %v", err)
	}
	outs := []string{"garbage", "", "", ""}
	if _, err := ParseSwitchCounters("sonic", outs, nil, 3); err == nil || !strings.Contains(err.Error(), `parse "show pfc counters"`) {
		t.Errorf("error = %v", err)
	}
	if _, err := ParseSwitchCounters("eos", []string{"{}", "{}", "{}"}, nil, 3); err == nil || !strings.Contains(err.Error(), "priority-flow-control") {
		t.Errorf("error = %v", err)
	}
}

func TestCounterDeltas(t *testing.T) {
	before := SwitchCounters{{"Ethernet4", 3}: {TxBytes: 100, PFCTx: 5}, {"Ethernet12", 3}: {Drops: 9}, {"Ethernet4", 0}: {TxBytes: 7}}
	after := SwitchCounters{{"Ethernet4", 3}: {TxBytes: 400, PFCTx: 5}, {"Ethernet12", 3}: {Drops: 2}, {"Ethernet4", 0}: {TxBytes: 7}, {"Ethernet4", -1}: {Drops: 3}}
	got, notes := CounterDeltas("leaf1", before, after, 3)
	if len(notes) != 0 {
		t.Errorf("notes %q", notes)
	}
	// Ethernet4 before Ethernet12; prio 0 did not move and is not
	// lossless; Ethernet12's drops went down (cleared): the delta is what
	// accumulated since.
	want := []string{"Ethernet4/-1 drops 3", "Ethernet4/3 tx 300", "Ethernet12/3 drops 2"}
	var have []string
	for _, c := range got {
		s := c.Port + "/" + strconv.Itoa(c.Priority)
		if c.TxBytes != 0 {
			s += " tx " + strconv.FormatInt(c.TxBytes, 10)
		}
		if c.Drops != 0 {
			s += " drops " + strconv.FormatInt(c.Drops, 10)
		}
		have = append(have, s)
	}
	if strings.Join(have, "; ") != strings.Join(want, "; ") {
		t.Errorf("deltas %q\nwant   %q", have, want)
	}
}

// Switch counters are unsigned 64-bit: a counter past 2^63-1 is carried
// and its delta recorded; a delta records cannot carry (a counter jumping
// to the 2^64-1 some platforms show for one they lack) leaves its row out,
// named in a note, rather than written wrapped negative.
func TestCounterDeltasAbove63Bits(t *testing.T) {
	const big = uint64(1) << 63
	before := SwitchCounters{{"Ethernet0", 3}: {TxBytes: big + 100}, {"Ethernet4", 3}: {TxBytes: 5}}
	after := SwitchCounters{{"Ethernet0", 3}: {TxBytes: big + 400}, {"Ethernet4", 3}: {TxBytes: math.MaxUint64}}
	got, notes := CounterDeltas("leaf1", before, after, 3)
	if len(got) != 1 || got[0].Port != "Ethernet0" || got[0].TxBytes != 300 {
		t.Errorf("deltas %+v, want Ethernet0's 300 bytes alone", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "leaf1 Ethernet4 priority 3: left out") || !strings.Contains(notes[0], "tx_bytes 5 -> 18446744073709551615") {
		t.Errorf("notes %q", notes)
	}
}

// Host counters are unsigned 64-bit as switches' are: a counter past
// 2^63-1 is read (it failed the NIC's whole reading, every other counter
// lost) and its delta recorded; one at 2^64-1 that does not move records
// nothing; a delta records cannot carry leaves that counter out, named in
// a note, rather than written wrapped negative.
func TestHostDeltasAbove63Bits(t *testing.T) {
	const big = uint64(1) << 63
	before := map[string]uint64{"ethtool.rx_bytes": big + 100, "ethtool.rx_unkept": math.MaxUint64, "rdma.sent_pkts": 5, "ethtool.tx_bytes": 7}
	after := map[string]uint64{"ethtool.rx_bytes": big + 400, "ethtool.rx_unkept": math.MaxUint64, "rdma.sent_pkts": math.MaxUint64, "ethtool.tx_bytes": 9}
	got, note := HostDeltas("host1:0", before, after)
	if len(got) != 2 || got["ethtool.rx_bytes"] != 300 || got["ethtool.tx_bytes"] != 2 {
		t.Errorf("deltas %v, want rx_bytes 300 and tx_bytes 2", got)
	}
	if !strings.Contains(note, "host1:0: left out") || !strings.Contains(note, "rdma.sent_pkts 5 -> 18446744073709551615") {
		t.Errorf("note %q", note)
	}
	if _, note := HostDeltas("host1:0", before, before); note != "" {
		t.Errorf("no counter moved: note %q", note)
	}
}

func FuzzParseSwitchCounters(f *testing.F) {
	for _, nos := range []string{"sonic", "eos"} {
		outs := counterOutputs(&testing.T{}, nos)
		cmds := CounterCommands(nos)
		seed := make([]string, 4)
		for i, c := range cmds {
			seed[i] = outs[c]
		}
		f.Add(nos == "eos", seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, isEOS bool, a, b, c, d string) {
		nos, outs := "sonic", []string{a, b, c, d}
		if isEOS {
			nos, outs = "eos", outs[:3]
		}
		sc, err := ParseSwitchCounters(nos, outs, []string{"Ethernet0", "Ethernet1"}, 3)
		if err == nil && len(sc) == 0 {
			t.Fatal("no error and no counters")
		}
	})
}
