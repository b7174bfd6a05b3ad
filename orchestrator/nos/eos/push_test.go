package eos

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/util"

	"github.com/labctl/labctl/orchestrator/runtime/clab/sshtest"
)

// The package's -update flag (rewrite golden files, re-record transcripts)
// is shared with its other tests: define it only if they have not.
var _ = pushRegisterUpdate()

func pushRegisterUpdate() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files and re-record transcripts under testdata/")
	}
	return true
}

func pushUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const (
	pushTestUser    = "admin"
	pushTestPass    = "AdminPaSsWoRd"
	pushTestSession = "labctl-20261129T120000"
)

// pushFakeEOS is a cEOS CLI reduced to what a push uses: privileged exec,
// configuration sessions with commit and abort, and a running config.
type pushFakeEOS struct {
	running   []string
	pending   []string
	inSession bool
	mode      string // "", "if-Et1", "txq-3"
	rejects   map[string]string
	hangOn    string
}

func newPushFakeEOS() *pushFakeEOS {
	return &pushFakeEOS{
		running: []string{"hostname leaf1", "username admin privilege 15 role network-admin secret sha512 $6$x"},
		rejects: map[string]string{},
	}
}

func (f *pushFakeEOS) Prompt() string {
	switch {
	case !f.inSession:
		return "leaf1#"
	case f.mode != "":
		return "leaf1(config-s-labctl-" + f.mode + ")#"
	}
	return "leaf1(config-s-labctl)#"
}

func (f *pushFakeEOS) Run(line string) (string, bool) {
	cmd := strings.TrimSpace(line)
	if f.hangOn != "" && strings.HasPrefix(cmd, f.hangOn) {
		return "", true
	}
	if msg, ok := f.rejects[cmd]; ok {
		return msg, false
	}
	switch {
	case cmd == "", cmd == "terminal width 32767", cmd == "terminal length 0":
		return "", false
	case strings.HasPrefix(cmd, "configure session "):
		f.inSession, f.pending, f.mode = true, nil, ""
		return "", false
	case cmd == "abort" && f.inSession:
		f.inSession, f.pending, f.mode = false, nil, ""
		return "", false
	case cmd == "commit" && f.inSession:
		f.running = append(f.running, f.pending...)
		f.inSession, f.pending, f.mode = false, nil, ""
		return "", false
	case cmd == "show running-config":
		return "! Command: show running-config\n! device: leaf1 (cEOSLab, EOS-4.32.0F)\n!\n" + strings.Join(f.running, "\n") + "\nend", false
	case cmd == "exit":
		return "", false
	case f.inSession:
		if strings.HasPrefix(cmd, "interface ") {
			f.mode = "if-Et1"
		} else if strings.HasPrefix(cmd, "tx-queue ") {
			f.mode = "if-Et1-txq-3"
		}
		f.pending = append(f.pending, line)
		return "", false
	}
	return "% Invalid input (at token 0: '" + strings.Fields(cmd + " x")[0] + "')", false
}

func pushConfigFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/transcripts/qos-leaf1.cfg")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type pushSyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *pushSyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *pushSyncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

func pushSSHTarget(srv *sshtest.Server, pass string) PushTarget {
	return PushTarget{Name: "leaf1", Host: srv.Host, Port: srv.Port, Username: pushTestUser, Password: pass, Timeout: 5 * time.Second, Session: pushTestSession}
}

// pushRecord pushes to the SSH fake and, with -update, saves what the device
// sent as a transcript for the replay tests.
func pushRecord(t *testing.T, name string, dev *pushFakeEOS, config string, timeout time.Duration) (*PushOutcome, *sshtest.Server, error) {
	t.Helper()
	srv := sshtest.Start(t, pushTestUser, pushTestPass, "", func() sshtest.Device { return dev })
	target := pushSSHTarget(srv, pushTestPass)
	target.Timeout = timeout
	var log pushSyncBuffer
	if pushUpdating() {
		target.Options = append(target.Options, options.WithChannelLog(&log))
	}
	out, err := PushConfig(context.Background(), target, config)
	if pushUpdating() {
		time.Sleep(50 * time.Millisecond) // let the read loop log the last bytes
		if err := os.WriteFile(filepath.Join("testdata/transcripts", name), pushTrimClose(log.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out, srv, err
}

func TestPushSSHSuccess(t *testing.T) {
	out, srv, err := pushRecord(t, "eos-push-ok.txt", newPushFakeEOS(), pushConfigFixture(t), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Running, "priority-flow-control priority 3 no-drop") || !strings.Contains(out.Running, "hostname leaf1") {
		t.Errorf("read-back lacks the pushed lines:\n%s", out.Running)
	}
	lines := srv.Lines()
	if !pushContains(lines, "configure session "+pushTestSession) || !pushContains(lines, "commit") {
		t.Errorf("no session/commit in %q", lines)
	}
	for _, l := range lines {
		if l == "end" || strings.HasPrefix(strings.TrimSpace(l), "!") {
			t.Errorf("sent %q, which is not a config command", l)
		}
	}
}

func pushContains(lines []string, s string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == s {
			return true
		}
	}
	return false
}

func TestPushSSHRejectedLineAborts(t *testing.T) {
	dev := newPushFakeEOS()
	dev.rejects["priority-flow-control pause watchdog default timeout 0.2"] = "% Unavailable command (not supported on this hardware platform)"
	_, srv, err := pushRecord(t, "eos-push-rejected.txt", dev, pushConfigFixture(t), 5*time.Second)
	var pe *PushError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *PushError", err)
	}
	if pe.Stage != "apply" || pe.Line != 12 || !pe.Aborted || !strings.Contains(pe.Output, "% Unavailable command") {
		t.Errorf("PushError = %+v", pe)
	}
	if !pushContains(srv.Lines(), "abort") || pushContains(srv.Lines(), "commit") {
		t.Errorf("session not aborted: %q", srv.Lines())
	}
	if strings.Contains(strings.Join(dev.running, "\n"), "qos map dscp 26") {
		t.Error("lines of an aborted session reached the running config")
	}
}

func TestPushSSHTimeout(t *testing.T) {
	dev := newPushFakeEOS()
	dev.hangOn = "commit"
	_, _, err := pushRecord(t, "eos-push-timeout.txt", dev, pushConfigFixture(t), 300*time.Millisecond)
	if !errors.Is(err, util.ErrTimeoutError) {
		t.Fatalf("error = %v, want a timeout", err)
	}
}

func TestPushSSHAuthFailure(t *testing.T) {
	srv := sshtest.Start(t, pushTestUser, pushTestPass, "", func() sshtest.Device { return newPushFakeEOS() })
	wrong := "Not-The-Secret-7"
	_, err := PushConfig(context.Background(), pushSSHTarget(srv, wrong), pushConfigFixture(t))
	var pe *PushError
	if !errors.As(err, &pe) || pe.Stage != "connect" || pe.Retryable() {
		t.Fatalf("error = %v, want a non-retryable connect PushError", err)
	}
	if strings.Contains(err.Error(), wrong) {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestPushUnreachable(t *testing.T) {
	target := PushTarget{Name: "spine1", Host: "127.0.0.1", Port: sshtest.ClosedPort(t), Username: pushTestUser, Password: pushTestPass, Timeout: 2 * time.Second}
	_, err := PushConfig(context.Background(), target, pushConfigFixture(t))
	var pe *PushError
	if !errors.As(err, &pe) || pe.Stage != "connect" || !pe.Retryable() {
		t.Fatalf("error = %v, want a retryable connect PushError", err)
	}
}

func TestPushBadSessionName(t *testing.T) {
	_, err := PushConfig(context.Background(), PushTarget{Name: "x", Session: "a b;c"}, "")
	if err == nil || !strings.Contains(err.Error(), "session name") {
		t.Fatalf("error = %v", err)
	}
}

func pushReplayTarget(t *testing.T, transcript string, timeout time.Duration) PushTarget {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata/transcripts", transcript))
	if err != nil {
		t.Fatal(err)
	}
	return PushTarget{
		Name: "leaf1", Host: "leaf1", Username: pushTestUser, Password: pushTestPass, Timeout: timeout, Session: pushTestSession,
		Options: []util.Option{
			options.WithTransportType("file"),
			options.WithFileTransportFile(p),
			options.WithReadDelay(0),
		},
	}
}

// The replay tests run the same pushes against recorded sessions through
// scrapligo's file transport: no network, no device.
func TestPushReplay(t *testing.T) {
	if pushUpdating() {
		t.Skip("transcripts are being re-recorded")
	}
	cfg := pushConfigFixture(t)
	t.Run("success", func(t *testing.T) {
		out, err := PushConfig(context.Background(), pushReplayTarget(t, "eos-push-ok.txt", 5*time.Second), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Running, "random-detect ecn minimum-threshold 150 kbytes") {
			t.Errorf("read-back lacks the ECN line:\n%s", out.Running)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		_, err := PushConfig(context.Background(), pushReplayTarget(t, "eos-push-rejected.txt", 5*time.Second), cfg)
		var pe *PushError
		if !errors.As(err, &pe) || pe.Line != 12 || !pe.Aborted || !strings.Contains(err.Error(), "% Unavailable command") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		_, err := PushConfig(context.Background(), pushReplayTarget(t, "eos-push-timeout.txt", 300*time.Millisecond), cfg)
		if !errors.Is(err, util.ErrTimeoutError) {
			t.Fatalf("error = %v, want a timeout", err)
		}
	})
}

func TestPushSkip(t *testing.T) {
	for line, want := range map[string]bool{"": true, "   ": true, "! comment": true, "end": true, "configure terminal": true, "interface Ethernet1": false, "   qos trust dscp": false} {
		if got := pushSkip(line); got != want {
			t.Errorf("pushSkip(%q) = %v, want %v", line, got, want)
		}
	}
}

// pushTrimClose drops the echo of the closing "exit" (and what follows it),
// which the read loop may or may not log before the session closes, so that
// re-recording gives the same file.
func pushTrimClose(b []byte) []byte {
	if i := bytes.LastIndex(b, []byte("exit")); i >= 0 && i >= len(b)-16 {
		return b[:i]
	}
	return b
}

func TestReadRunningConfig(t *testing.T) {
	srv := sshtest.Start(t, pushTestUser, pushTestPass, "", func() sshtest.Device { return newPushFakeEOS() })
	running, err := ReadRunningConfig(context.Background(), pushSSHTarget(srv, pushTestPass))
	if err != nil || !strings.Contains(running, "hostname leaf1") {
		t.Fatalf("ReadRunningConfig = %q, %v", running, err)
	}
}
