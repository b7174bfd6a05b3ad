package sonic

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/util"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/nos/devssh"
)

// PlatformYAML is labctl's scrapligo platform for SONiC: a login shell
// (bash) with one privilege level. scrapligo ships no SONiC platform, and
// its default prompt pattern rejects the "~" of "admin@sonic:~$".
//
//go:embed push_platform.yaml
var PlatformYAML []byte

// PushTarget is one SONiC switch reached over SSH. Password never appears
// in errors or outputs returned by this package.
type PushTarget struct {
	Name     string // node name, for messages
	Host     string
	Port     int // 0 means 22
	Username string
	Password string
	// Timeout bounds each command; 0 means 3 minutes (config load restarts
	// services and can take a while on a small VM).
	Timeout time.Duration
	// Options are extra scrapligo options, applied last; tests replay a
	// recorded session with the file transport this way.
	Options []util.Option
}

// PushMethod says how a config_db document is applied.
type PushMethod string

const (
	// PushLoad merges a config_db JSON document: `config load -y`.
	PushLoad PushMethod = "load"
	// PushPatch applies an RFC 6902 JSON patch: `config apply-patch`,
	// which validates against SONiC's YANG models and is all-or-nothing.
	PushPatch PushMethod = "apply-patch"
)

// PushStep is one command sent and what the switch answered.
type PushStep struct {
	Command string `json:"command"`
	Output  string `json:"output"`
}

// PushOutcome is a successful push: what was run and the running
// configuration read back afterwards (`sonic-cfggen -d --print-data`, JSON).
type PushOutcome struct {
	Device  string     `json:"device"`
	Steps   []PushStep `json:"steps"`
	Running string     `json:"running"`
}

// PushError is a failed push: the device, the stage (connect, copy, apply,
// read-back), the command and the device's own words.
type PushError struct {
	Device  string
	Stage   string
	Command string
	Output  string
	Err     error
}

func (e *PushError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "push to %s: %s", e.Device, e.Stage)
	if e.Command != "" {
		fmt.Fprintf(&b, ": %q", pushShorten(e.Command))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if o := strings.TrimSpace(e.Output); o != "" {
		fmt.Fprintf(&b, "; device said: %s", o)
	}
	return b.String()
}

func (e *PushError) Unwrap() error { return e.Err }

// Retryable reports whether trying again may help: the connection failed
// for a reason other than the credentials.
func (e *PushError) Retryable() bool {
	return e.Stage == "connect" && !errors.Is(e.Err, util.ErrAuthError) && !pushIsAuthFailure(e.Err)
}

func pushIsAuthFailure(err error) bool {
	return err != nil && strings.Contains(err.Error(), "unable to authenticate")
}

// pushChunk is how many base64 characters go into one shell line: short
// enough for any terminal line discipline (4095 bytes on Linux).
const pushChunk = 1024

var pushRCRE = lazyregexp.New(`labctl-rc=(\d+)`)

// PushConfigDB applies doc to the switch and reads the running
// configuration back. doc is a config_db JSON document (PushLoad) or a JSON
// patch (PushPatch). The file is copied over the SSH session as base64 in
// chunks, checked by SHA-256 on the switch, applied, and removed.
func PushConfigDB(ctx context.Context, t PushTarget, doc []byte, method PushMethod) (*PushOutcome, error) {
	if method != PushLoad && method != PushPatch {
		return nil, fmt.Errorf("push to %s: unknown method %q: use %q or %q", t.Name, method, PushLoad, PushPatch)
	}
	sum := sha256.Sum256(doc)
	hexSum := hex.EncodeToString(sum[:])
	// The name comes from the content, so a replayed session matches.
	base := "/tmp/labctl-" + hexSum[:12]
	out := &PushOutcome{Device: t.Name}
	err := pushSession(ctx, t, func(d *network.Driver) error {
		run := func(stage, cmd string) (string, error) {
			o, err := pushRun(d, t, stage, cmd)
			out.Steps = append(out.Steps, PushStep{Command: pushShorten(cmd), Output: o})
			return o, err
		}
		if _, err := run("copy", "rm -f "+base+".b64 "+base+".json"); err != nil {
			return err
		}
		enc := base64.StdEncoding.EncodeToString(doc)
		for i := 0; i < len(enc); i += pushChunk {
			chunk := enc[i:min(i+pushChunk, len(enc))]
			if _, err := run("copy", "printf '%s' '"+chunk+"' >> "+base+".b64"); err != nil {
				return err
			}
		}
		if _, err := run("copy", "base64 -d "+base+".b64 > "+base+".json"); err != nil {
			return err
		}
		o, err := run("copy", "sha256sum "+base+".json")
		if err != nil {
			return err
		}
		if !strings.Contains(o, hexSum) {
			return &PushError{Device: t.Name, Stage: "copy", Command: "sha256sum " + base + ".json", Output: o, Err: errors.New("the copied file's checksum differs from the config's")}
		}
		apply := "sudo -n config load -y " + base + ".json"
		if method == PushPatch {
			apply = "sudo -n config apply-patch " + base + ".json"
		}
		o, err = run("apply", apply)
		if err != nil {
			return err
		}
		if method == PushPatch && !strings.Contains(o, "Patch applied successfully") {
			return &PushError{Device: t.Name, Stage: "apply", Command: apply, Output: o, Err: errors.New("no 'Patch applied successfully' in the answer")}
		}
		if _, err := run("cleanup", "rm -f "+base+".b64 "+base+".json"); err != nil {
			return err
		}
		running, err := pushRun(d, t, "read-back", "sudo -n sonic-cfggen -d --print-data")
		if err != nil {
			return err
		}
		out.Running = running
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadRunningConfig returns the switch's CONFIG_DB as JSON
// (`sonic-cfggen -d --print-data`).
func ReadRunningConfig(ctx context.Context, t PushTarget) (string, error) {
	var running string
	err := pushSession(ctx, t, func(d *network.Driver) error {
		var err error
		running, err = pushRun(d, t, "read-back", "sudo -n sonic-cfggen -d --print-data")
		return err
	})
	if err != nil {
		// On cancellation the session goroutine may still be writing
		// running; do not read it.
		return "", err
	}
	return running, nil
}

// pushRun sends one shell command followed by an echo of its exit status
// and fails on a non-zero status. The output is trimmed of surrounding space.
func pushRun(d *network.Driver, t PushTarget, stage, cmd string) (string, error) {
	return pushExec(d, t, stage, cmd, strings.TrimSpace)
}

// pushExec is pushRun with the caller's trim applied to the output once
// the exit status line is removed.
func pushExec(d *network.Driver, t PushTarget, stage, cmd string, trim func(string) string) (string, error) {
	r, err := d.Driver.SendCommand(cmd + "; echo labctl-rc=$?")
	if err != nil {
		return "", &PushError{Device: t.Name, Stage: stage, Command: cmd, Err: pushRedactErr(err, t.Password)}
	}
	o := pushRedact(r.Result, t.Password)
	m := pushRCRE().FindAllStringSubmatch(o, -1)
	if len(m) == 0 {
		return o, &PushError{Device: t.Name, Stage: stage, Command: cmd, Output: o, Err: errors.New("no exit status in the answer")}
	}
	rc, _ := strconv.Atoi(m[len(m)-1][1])
	o = trim(pushRCRE().ReplaceAllString(o, ""))
	if rc != 0 {
		return o, &PushError{Device: t.Name, Stage: stage, Command: cmd, Output: o, Err: fmt.Errorf("exit status %d", rc)}
	}
	return o, nil
}

// pushSession opens a session, runs fn, and closes it. scrapligo calls take
// no context, so the session runs in a goroutine, each command's timeout is
// bounded by ctx's deadline, and ctx's end returns at once.
func pushSession(ctx context.Context, t PushTarget, fn func(d *network.Driver) error) error {
	err := devssh.Session(ctx, devssh.Target{Name: t.Name, Host: t.Host, Port: t.Port, Username: t.Username, Password: t.Password, Timeout: t.Timeout, Options: t.Options},
		PlatformYAML, 3*time.Minute, fn)
	var se *devssh.StageError
	if errors.As(err, &se) {
		return &PushError{Device: t.Name, Stage: se.Stage, Err: se.Err}
	}
	return err
}

func pushRedact(s, secret string) string { return devssh.Redact(s, secret) }

func pushRedactErr(err error, secret string) error { return devssh.RedactErr(err, secret) }

// pushShorten keeps long copy lines readable in errors and step lists.
func pushShorten(s string) string {
	if len(s) <= 120 {
		return s
	}
	return s[:100] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// RunShowCommands runs read-only shell commands (for example `show pfc
// counters`) in one session and returns their outputs in order. A command
// that exits non-zero is an error naming it and its output.
func RunShowCommands(ctx context.Context, t PushTarget, cmds []string) ([]string, error) {
	outs := make([]string, 0, len(cmds))
	err := pushSession(ctx, t, func(d *network.Driver) error {
		for _, cmd := range cmds {
			// Not pushRun: its TrimSpace would take the indentation of a
			// table's first header line, which the counter parsers align
			// columns by.
			o, err := pushExec(d, t, "show", cmd, func(s string) string { return strings.Trim(s, "\r\n") })
			if err != nil {
				return err
			}
			outs = append(outs, o)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}
