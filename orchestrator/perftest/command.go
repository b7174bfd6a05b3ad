// Package perftest builds command lines for the perftest RDMA benchmarks
// (ib_write_bw, ib_write_lat) and parses what they print, and what their
// siblings of other verbs print (ib_read_bw, ib_send_lat, ...): the text
// report, perftest 4.5's --out_json file (keys without quotes, not JSON)
// and the real JSON of perftest 24.x and later.
package perftest

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// Test names a perftest binary.
type Test string

// The benchmarks labctl runs.
const (
	WriteBW  Test = "ib_write_bw"
	WriteLat Test = "ib_write_lat"
)

// The benchmarks of other verbs, whose output the parsers read too (labctl
// does not run them): every verb prints the same report, so only its
// banner's test name tells which ran.
const (
	ReadBW    Test = "ib_read_bw"
	SendBW    Test = "ib_send_bw"
	AtomicBW  Test = "ib_atomic_bw"
	ReadLat   Test = "ib_read_lat"
	SendLat   Test = "ib_send_lat"
	AtomicLat Test = "ib_atomic_lat"
)

// BWTests and LatTests are the bandwidth and latency tests whose output
// ParseBWOf and ParseLatOf read.
var (
	BWTests  = []Test{WriteBW, ReadBW, SendBW, AtomicBW}
	LatTests = []Test{WriteLat, ReadLat, SendLat, AtomicLat}
)

// sibling is the latency test of a bandwidth test's verb, and the other
// way round: the kind to name for output of the other report.
func sibling(t Test) Test {
	if s, ok := strings.CutSuffix(string(t), "_bw"); ok {
		return Test(s + "_lat")
	}
	return Test(strings.TrimSuffix(string(t), "_lat") + "_bw")
}

// testOf returns the test a test name names: the banner's ("RDMA_Read BW
// Test", "Send_imm Bidirectional BW Test", "Atomic FETCH_AND_ADD Latency
// Test") or --out_json's ("RDMA_Read_BW_Test"), as perftest's
// ctx_print_test_info writes them (RDMA_Write_imm and Send_imm are
// ib_write_bw and ib_send_bw run with immediate data). "" for a name it
// does not know.
func testOf(name string) Test {
	n := strings.ReplaceAll(strings.TrimSpace(name), " ", "_") + "_"
	var verb string
	switch {
	case strings.HasPrefix(n, "RDMA_Write_"):
		verb = "write"
	case strings.HasPrefix(n, "RDMA_Read_"):
		verb = "read"
	case strings.HasPrefix(n, "Send_"):
		verb = "send"
	case strings.HasPrefix(n, "Atomic_"):
		verb = "atomic"
	default:
		return ""
	}
	switch {
	case strings.Contains(n, "_BW_"):
		return Test("ib_" + verb + "_bw")
	case strings.Contains(n, "_Latency_"):
		return Test("ib_" + verb + "_lat")
	}
	return ""
}

// parseAs is the fix for output of test got given as another's.
func parseAs(got Test) string { return fmt.Sprintf("parse it as %s: labctl parse %s <file>", got, got) }

// checkTest refuses output whose test name (at line, 0 when unknown) says
// another test ran than want: its figures would pass for want's.
func checkTest(want Test, name string, line int) error {
	got := testOf(name)
	if got == "" || got == want {
		return nil
	}
	return &textparse.Error{Line: line, Msg: fmt.Sprintf("this is %s output (its test is %q), not %s: perftest prints the same report for every verb, so its figures would pass for %s's", got, clean(name), want, want),
		Fix: parseAs(got)}
}

// Options describe one perftest run. The same Options give the server and
// the client argv; both sides must agree on everything but the address.
type Options struct {
	Test   Test
	Device string // RDMA device, e.g. rxe0 (-d)
	IBPort int    // device port (-i); 0 = perftest's default (1)
	// GIDIndex selects the GID (-x); soft-RoCE v2 over IPv4 is usually 1.
	// Negative = let perftest choose.
	GIDIndex int
	QPs      int // queue pairs (-q); 0 = 1. Bandwidth tests only.
	Size     int // message size in bytes (-s); 0 = perftest's default
	// TxDepth is --tx-depth: the messages a QP keeps posted and not
	// completed; 0 = perftest's default (DefaultTxDepthBW).
	TxDepth int
	// Bidirectional is -b: both sides send (bandwidth tests only; both
	// sides must be given it). The client's report is then the sum of
	// both directions.
	Bidirectional bool
	Duration      time.Duration // run for this long (-D, whole seconds); 0 = iteration count
	Iterations    int           // iterations (-n); 0 = default. Exclusive with Duration.
	// ReportGbits reports bandwidth in Gb/s (--report_gbits) instead of
	// MiB/s. Bandwidth tests only.
	ReportGbits bool
	// NoCPUFreqCheck passes -F: do not fail when the CPU frequency governor
	// is not at maximum (usual in containers and VMs).
	NoCPUFreqCheck bool
	// TrafficClass, when set, is the IP TOS / GRH traffic class, e.g. 106 =
	// DSCP 26 with ECT(0) (see TOS). Without RDMA CM it is passed as
	// --tclass, with RDMA CM as -T.
	TrafficClass *int
	RDMACM       bool   // connect with RDMA CM (-R)
	TCPPort      int    // out-of-band exchange port (-p); 0 = default 18515
	MTU          int    // RoCE MTU (-m): 256, 512, 1024, 2048 or 4096; 0 = port MTU
	OutJSONFile  string // also write the report to this file (--out_json --out_json_file=)
}

// ECN codepoints of the IP header's two low TOS bits (RFC 3168).
const (
	NotECT = 0 // not ECN-capable
	ECT1   = 1 // ECN-capable transport (1)
	ECT0   = 2 // ECN-capable transport (0): what RoCEv2 NICs send
	CE     = 3 // congestion experienced
)

// TOS returns the IP TOS byte for a DSCP and an ECN codepoint:
// DSCP<<2 | ECN. TOS(26, ECT0) = 106, TOS(26, NotECT) = 104.
func TOS(dscp, ecn int) (int, error) {
	if dscp < 0 || dscp > 63 {
		return 0, fmt.Errorf("DSCP %d out of range 0-63", dscp)
	}
	if ecn < 0 || ecn > 3 {
		return 0, fmt.Errorf("ECN codepoint %d out of range 0-3", ecn)
	}
	return dscp<<2 | ecn, nil
}

// DSCPECN splits a TOS byte into DSCP and ECN codepoint.
func DSCPECN(tos int) (dscp, ecn int) { return (tos >> 2) & 63, tos & 3 }

var deviceRe = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Validate checks the options; the error names the field and the fix.
func (o Options) Validate() error {
	switch o.Test {
	case WriteBW, WriteLat:
	default:
		return fmt.Errorf("perftest test %q: use %s or %s", o.Test, WriteBW, WriteLat)
	}
	if !deviceRe().MatchString(o.Device) {
		return fmt.Errorf("RDMA device %q: expected a name such as rxe0 (letters, digits, _ . -)", o.Device)
	}
	if o.IBPort < 0 || o.IBPort > 255 {
		return fmt.Errorf("device port %d out of range 1-255", o.IBPort)
	}
	if o.GIDIndex > 255 {
		return fmt.Errorf("GID index %d out of range 0-255", o.GIDIndex)
	}
	if o.QPs < 0 || o.QPs > 16384 {
		return fmt.Errorf("QP count %d out of range 1-16384", o.QPs)
	}
	if o.Test == WriteLat && o.QPs > 1 {
		return fmt.Errorf("%s measures one QP: drop the QP count %d", WriteLat, o.QPs)
	}
	if o.TxDepth != 0 && (o.TxDepth < MinTxDepth || o.TxDepth > MaxTxDepth) {
		return fmt.Errorf("tx depth %d out of range %d-%d", o.TxDepth, MinTxDepth, MaxTxDepth)
	}
	if o.Bidirectional && o.Test != WriteBW {
		return fmt.Errorf("%s is a ping-pong, which runs both ways already: drop -b (bidirectional applies to %s)", o.Test, WriteBW)
	}
	if o.Size < 0 || o.Size > 1<<31 {
		return fmt.Errorf("message size %d out of range 1-%d bytes", o.Size, 1<<31)
	}
	if o.Duration < 0 || o.Duration%time.Second != 0 {
		return fmt.Errorf("duration %s: perftest takes whole seconds (-D)", o.Duration)
	}
	if o.Iterations < 0 {
		return fmt.Errorf("iteration count %d is negative", o.Iterations)
	}
	if o.Duration > 0 && o.Iterations > 0 {
		return fmt.Errorf("set either a duration (%s) or an iteration count (%d), not both", o.Duration, o.Iterations)
	}
	if o.ReportGbits && o.Test != WriteBW {
		return fmt.Errorf("--report_gbits applies to bandwidth tests, not %s", o.Test)
	}
	if o.TrafficClass != nil && (*o.TrafficClass < 0 || *o.TrafficClass > 255) {
		return fmt.Errorf("traffic class %d out of range 0-255 (TOS = DSCP<<2 | ECN, e.g. 106)", *o.TrafficClass)
	}
	if o.TCPPort < 0 || o.TCPPort > 65535 {
		return fmt.Errorf("TCP port %d out of range 1-65535", o.TCPPort)
	}
	switch o.MTU {
	case 0, 256, 512, 1024, 2048, 4096:
	default:
		return fmt.Errorf("RoCE MTU %d: use 256, 512, 1024, 2048 or 4096", o.MTU)
	}
	if o.OutJSONFile != "" && !filePathRe().MatchString(o.OutJSONFile) {
		return fmt.Errorf("JSON output file %q: use an absolute or relative path of letters, digits and _ . / -", o.OutJSONFile)
	}
	return nil
}

var filePathRe = lazyregexp.New(`^[A-Za-z0-9_./-]{1,255}$`)

// ServerArgv returns the argv of the passive side.
func (o Options) ServerArgv() ([]string, error) {
	return o.argv("")
}

// ClientArgv returns the argv of the side that connects to server, an IP
// address (perftest also takes host names; labctl passes addresses so no
// resolver is involved).
func (o Options) ClientArgv(server string) ([]string, error) {
	if _, err := netip.ParseAddr(server); err != nil {
		return nil, fmt.Errorf("perftest server address %q: expected an IP address", server)
	}
	return o.argv(server)
}

func (o Options) argv(server string) ([]string, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	a := []string{string(o.Test), "-d", o.Device}
	if o.IBPort > 0 {
		a = append(a, "-i", strconv.Itoa(o.IBPort))
	}
	if o.GIDIndex >= 0 {
		a = append(a, "-x", strconv.Itoa(o.GIDIndex))
	}
	if o.RDMACM {
		a = append(a, "-R")
	}
	if o.QPs > 1 {
		a = append(a, "-q", strconv.Itoa(o.QPs))
	}
	if o.Size > 0 {
		a = append(a, "-s", strconv.Itoa(o.Size))
	}
	if o.TxDepth > 0 {
		a = append(a, "--tx-depth", strconv.Itoa(o.TxDepth))
	}
	if o.Bidirectional {
		a = append(a, "-b")
	}
	if o.MTU > 0 {
		a = append(a, "-m", strconv.Itoa(o.MTU))
	}
	if o.Duration > 0 {
		a = append(a, "-D", strconv.Itoa(int(o.Duration/time.Second)))
	}
	if o.Iterations > 0 {
		a = append(a, "-n", strconv.Itoa(o.Iterations))
	}
	if o.ReportGbits {
		a = append(a, "--report_gbits")
	}
	if o.NoCPUFreqCheck {
		a = append(a, "-F")
	}
	if o.TrafficClass != nil {
		if o.RDMACM {
			a = append(a, "-T", strconv.Itoa(*o.TrafficClass))
		} else {
			a = append(a, "--tclass", strconv.Itoa(*o.TrafficClass))
		}
	}
	if o.TCPPort > 0 {
		a = append(a, "-p", strconv.Itoa(o.TCPPort))
	}
	if o.OutJSONFile != "" {
		a = append(a, "--out_json", "--out_json_file="+o.OutJSONFile)
	}
	if server != "" {
		a = append(a, server)
	}
	return a, nil
}
