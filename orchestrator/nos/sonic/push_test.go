package sonic

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
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
	pushTestUser = "admin"
	pushTestPass = "YourPaSsWoRd"
)

// pushFakeSONiC is a SONiC admin shell reduced to the commands a push uses,
// with a file system and a CONFIG_DB that `config load` merges into.
type pushFakeSONiC struct {
	files    map[string][]byte
	configDB map[string]any
	hangOn   string // a command prefix that never returns
}

func newPushFakeSONiC() *pushFakeSONiC {
	return &pushFakeSONiC{files: map[string][]byte{}, configDB: map[string]any{
		"DEVICE_METADATA": map[string]any{"localhost": map[string]any{"hostname": "sonic", "hwsku": "Force10-S6000"}},
	}}
}

func (f *pushFakeSONiC) Prompt() string { return "admin@sonic:~$ " }

var (
	pushFakePrintf = regexp.MustCompile(`^printf '%s' '([A-Za-z0-9+/=]*)' >> (\S+)$`)
	pushFakeB64    = regexp.MustCompile(`^base64 -d (\S+) > (\S+)$`)
)

func (f *pushFakeSONiC) Run(line string) (string, bool) {
	cmd, ok := strings.CutSuffix(line, "; echo labctl-rc=$?")
	if !ok {
		if line == "exit" {
			return "logout", false
		}
		return "", false
	}
	if f.hangOn != "" && strings.HasPrefix(cmd, f.hangOn) {
		return "", true
	}
	out, rc := f.exec(cmd)
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out + "labctl-rc=" + string(rune('0'+rc)), false
}

func (f *pushFakeSONiC) exec(cmd string) (string, int) {
	switch {
	case strings.HasPrefix(cmd, "rm -f "):
		for _, p := range strings.Fields(cmd)[2:] {
			delete(f.files, p)
		}
		return "", 0
	case pushFakePrintf.MatchString(cmd):
		m := pushFakePrintf.FindStringSubmatch(cmd)
		f.files[m[2]] = append(f.files[m[2]], m[1]...)
		return "", 0
	case pushFakeB64.MatchString(cmd):
		m := pushFakeB64.FindStringSubmatch(cmd)
		b, err := base64.StdEncoding.DecodeString(string(f.files[m[1]]))
		if err != nil {
			return "base64: invalid input", 1
		}
		f.files[m[2]] = b
		return "", 0
	case strings.HasPrefix(cmd, "sha256sum "):
		p := strings.TrimPrefix(cmd, "sha256sum ")
		b, ok := f.files[p]
		if !ok {
			return "sha256sum: " + p + ": No such file or directory", 1
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:]) + "  " + p, 0
	case strings.HasPrefix(cmd, "sudo -n config load -y "):
		p := strings.TrimPrefix(cmd, "sudo -n config load -y ")
		var doc map[string]any
		if err := json.Unmarshal(f.files[p], &doc); err != nil {
			return "Running command: /usr/local/bin/sonic-cfggen -j " + p + " --write-to-db\n" +
				"Error: Failed to load " + p + ": " + err.Error(), 1
		}
		for table, rows := range doc {
			cur, _ := f.configDB[table].(map[string]any)
			if cur == nil {
				cur = map[string]any{}
			}
			for k, v := range rows.(map[string]any) {
				cur[k] = v
			}
			f.configDB[table] = cur
		}
		return "Running command: /usr/local/bin/sonic-cfggen -j " + p + " --write-to-db", 0
	case strings.HasPrefix(cmd, "sudo -n config apply-patch "):
		p := strings.TrimPrefix(cmd, "sudo -n config apply-patch ")
		var patch []map[string]any
		if err := json.Unmarshal(f.files[p], &patch); err != nil {
			return "Error: " + err.Error(), 1
		}
		return "Patch Applier: localhost: Patch application starting.\nPatch applied successfully.", 0
	case cmd == "sudo -n sonic-cfggen -d --print-data":
		b, _ := json.MarshalIndent(f.configDB, "", "    ")
		return string(b), 0
	}
	return "-bash: " + strings.Fields(cmd)[0] + ": command not found", 127
}

func pushReadFixture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/transcripts/qos-leaf1.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pushSSHTarget(srv *sshtest.Server, pass string) PushTarget {
	return PushTarget{Name: "leaf1", Host: srv.Host, Port: srv.Port, Username: pushTestUser, Password: pass, Timeout: 5 * time.Second}
}

// pushSyncBuffer collects the channel log, written from scrapligo's read
// goroutine.
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

// pushRecord runs a push against the SSH fake and, with -update, writes what
// the device sent as a transcript for the replay tests.
func pushRecord(t *testing.T, name string, dev *pushFakeSONiC, doc []byte, timeout time.Duration) (*PushOutcome, error) {
	t.Helper()
	srv := sshtest.Start(t, pushTestUser, pushTestPass, "Debian GNU/Linux 11\n", func() sshtest.Device { return dev })
	target := pushSSHTarget(srv, pushTestPass)
	target.Timeout = timeout
	var log pushSyncBuffer
	if pushUpdating() {
		target.Options = append(target.Options, options.WithChannelLog(&log))
	}
	out, err := PushConfigDB(context.Background(), target, doc, PushLoad)
	if pushUpdating() {
		time.Sleep(50 * time.Millisecond) // let the read loop log the last bytes
		if err := os.WriteFile(filepath.Join("testdata/transcripts", name), pushTrimClose(log.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out, err
}

func TestPushSSHSuccess(t *testing.T) {
	doc := pushReadFixture(t)
	out, err := pushRecord(t, "sonic-push-ok.txt", newPushFakeSONiC(), doc, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var running map[string]any
	if err := json.Unmarshal([]byte(out.Running), &running); err != nil {
		t.Fatalf("read-back is not JSON: %v\n%s", err, out.Running)
	}
	for _, table := range []string{"PORT_QOS_MAP", "WRED_PROFILE", "DSCP_TO_TC_MAP", "DEVICE_METADATA"} {
		if _, ok := running[table]; !ok {
			t.Errorf("read-back lacks %s", table)
		}
	}
	if !pushHasStep(out, "sudo -n config load -y /tmp/labctl-") {
		t.Errorf("no config load step in %+v", out.Steps)
	}
}

func pushHasStep(out *PushOutcome, prefix string) bool {
	for _, s := range out.Steps {
		if strings.HasPrefix(s.Command, prefix) {
			return true
		}
	}
	return false
}

func TestPushSSHRejected(t *testing.T) {
	_, err := pushRecord(t, "sonic-push-rejected.txt", newPushFakeSONiC(), []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3",}}}`), 5*time.Second)
	var pe *PushError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *PushError", err)
	}
	if pe.Stage != "apply" || !strings.Contains(pe.Output, "Error: Failed to load") || !strings.Contains(pe.Command, "config load") {
		t.Errorf("PushError = %+v", pe)
	}
	if pe.Retryable() {
		t.Error("a rejected config is marked retryable")
	}
}

func TestPushSSHTimeout(t *testing.T) {
	dev := newPushFakeSONiC()
	dev.hangOn = "sudo -n config load"
	_, err := pushRecord(t, "sonic-push-timeout.txt", dev, pushReadFixture(t), 300*time.Millisecond)
	if !errors.Is(err, util.ErrTimeoutError) {
		t.Fatalf("error = %v, want a timeout", err)
	}
	if !strings.Contains(err.Error(), "config load") {
		t.Errorf("timeout error %q does not name the command", err)
	}
}

func TestPushSSHAuthFailure(t *testing.T) {
	srv := sshtest.Start(t, pushTestUser, pushTestPass, "", func() sshtest.Device { return newPushFakeSONiC() })
	wrong := "wrong-Secret-42"
	_, err := PushConfigDB(context.Background(), pushSSHTarget(srv, wrong), pushReadFixture(t), PushLoad)
	var pe *PushError
	if !errors.As(err, &pe) || pe.Stage != "connect" {
		t.Fatalf("error = %v, want a connect PushError", err)
	}
	if pe.Retryable() {
		t.Error("an authentication failure is marked retryable")
	}
	if strings.Contains(err.Error(), wrong) {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestPushUnreachable(t *testing.T) {
	target := PushTarget{Name: "leaf9", Host: "127.0.0.1", Port: sshtest.ClosedPort(t), Username: pushTestUser, Password: pushTestPass, Timeout: 2 * time.Second}
	_, err := PushConfigDB(context.Background(), target, pushReadFixture(t), PushLoad)
	var pe *PushError
	if !errors.As(err, &pe) || pe.Stage != "connect" || !pe.Retryable() {
		t.Fatalf("error = %v, want a retryable connect PushError", err)
	}
	if !strings.Contains(err.Error(), "leaf9") || strings.Contains(err.Error(), pushTestPass) {
		t.Errorf("error %q should name the device and not the password", err)
	}
}

func TestPushContextCancel(t *testing.T) {
	dev := newPushFakeSONiC()
	dev.hangOn = "sudo -n config load"
	srv := sshtest.Start(t, pushTestUser, pushTestPass, "", func() sshtest.Device { return dev })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	target := pushSSHTarget(srv, pushTestPass)
	target.Timeout = time.Minute
	_, err := PushConfigDB(ctx, target, pushReadFixture(t), PushLoad)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want the context's deadline", err)
	}
}

func pushReplayTarget(t *testing.T, transcript string, timeout time.Duration) PushTarget {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata/transcripts", transcript))
	if err != nil {
		t.Fatal(err)
	}
	return PushTarget{
		Name: "leaf1", Host: "leaf1", Username: pushTestUser, Password: pushTestPass, Timeout: timeout,
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
	doc := pushReadFixture(t)
	t.Run("success", func(t *testing.T) {
		out, err := PushConfigDB(context.Background(), pushReplayTarget(t, "sonic-push-ok.txt", 5*time.Second), doc, PushLoad)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Running, `"AZURE_LOSSLESS"`) {
			t.Errorf("read-back lacks the WRED profile:\n%s", out.Running)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		_, err := PushConfigDB(context.Background(), pushReplayTarget(t, "sonic-push-rejected.txt", 5*time.Second), []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3",}}}`), PushLoad)
		var pe *PushError
		if !errors.As(err, &pe) || pe.Stage != "apply" || !strings.Contains(pe.Output, "invalid character '}'") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		_, err := PushConfigDB(context.Background(), pushReplayTarget(t, "sonic-push-timeout.txt", 300*time.Millisecond), doc, PushLoad)
		if !errors.Is(err, util.ErrTimeoutError) {
			t.Fatalf("error = %v, want a timeout", err)
		}
	})
}

func TestPushUnknownMethod(t *testing.T) {
	_, err := PushConfigDB(context.Background(), PushTarget{Name: "x"}, nil, "replace")
	if err == nil || !strings.Contains(err.Error(), `"load"`) {
		t.Fatalf("error = %v", err)
	}
}

func TestPushPromptPattern(t *testing.T) {
	re := regexp.MustCompile(`(?im)^[\w.\-]+@[\w.\-]+:[^\n$#]*[$#]\s?$`)
	for _, p := range []string{"admin@sonic:~$ ", "admin@leaf1:/tmp$", "root@sonic:~# "} {
		if !re.MatchString(p) {
			t.Errorf("prompt %q not accepted", p)
		}
	}
	for _, p := range []string{"labctl-rc=0", "Password:"} {
		if re.MatchString(p) {
			t.Errorf("%q taken for a prompt", p)
		}
	}
	if !bytes.Contains(PlatformYAML, []byte(re.String())) {
		t.Error("the platform YAML's pattern differs from the one tested here")
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

func TestPushSSHApplyPatchAndReadRunning(t *testing.T) {
	srv := sshtest.Start(t, pushTestUser, pushTestPass, "", func() sshtest.Device { return newPushFakeSONiC() })
	target := pushSSHTarget(srv, pushTestPass)
	patch := []byte(`[{"op": "add", "path": "/PORT_QOS_MAP/Ethernet0/pfc_enable", "value": "3,4"}]`)
	out, err := PushConfigDB(context.Background(), target, patch, PushPatch)
	if err != nil {
		t.Fatal(err)
	}
	if !pushHasStep(out, "sudo -n config apply-patch /tmp/labctl-") {
		t.Errorf("no apply-patch step in %+v", out.Steps)
	}
	running, err := ReadRunningConfig(context.Background(), target)
	if err != nil || !strings.Contains(running, `"DEVICE_METADATA"`) {
		t.Fatalf("ReadRunningConfig = %q, %v", running, err)
	}
	// A patch that is not JSON is refused by the switch, in its words.
	_, err = PushConfigDB(context.Background(), target, []byte("not json"), PushPatch)
	var pe *PushError
	if !errors.As(err, &pe) || pe.Stage != "apply" || !strings.Contains(pe.Output, "Error:") {
		t.Fatalf("bad patch error = %v", err)
	}
}
