package eos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/util"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/nos/devssh"
)

// PushTarget is one EOS switch reached over SSH. Password never appears in
// errors or outputs returned by this package.
type PushTarget struct {
	Name     string // node name, for messages
	Host     string
	Port     int // 0 means 22
	Username string
	Password string
	// Timeout bounds each command; 0 means 2 minutes.
	Timeout time.Duration
	// Session names the configuration session; "" means
	// labctl-<UTC time>. Names are [A-Za-z0-9_-].
	Session string
	// Options are extra scrapligo options, applied last; tests replay a
	// recorded session with the file transport this way.
	Options []util.Option
}

// PushStep is one command sent and what the switch answered.
type PushStep struct {
	Command string `json:"command"`
	Output  string `json:"output"`
}

// PushOutcome is a committed push: the session, the lines sent and the
// running configuration read back afterwards (`show running-config`).
type PushOutcome struct {
	Device  string     `json:"device"`
	Session string     `json:"session"`
	Steps   []PushStep `json:"steps"`
	Running string     `json:"running"`
}

// PushError is a failed push: the device, the stage (connect, session,
// apply, commit, read-back), the rejected command with its line number in
// the config file, and the device's own words. A rejected line aborts the
// session, so nothing of the push is left on the switch (Aborted).
type PushError struct {
	Device  string
	Stage   string
	Line    int // 1-based line in the config; 0 when not a config line
	Command string
	Output  string
	Aborted bool
	Err     error
}

func (e *PushError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "push to %s: %s", e.Device, e.Stage)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": config line %d", e.Line)
	}
	if e.Command != "" {
		fmt.Fprintf(&b, ": %q", e.Command)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if o := strings.TrimSpace(e.Output); o != "" {
		fmt.Fprintf(&b, "; device said: %s", o)
	}
	if e.Aborted {
		b.WriteString(" (session aborted, running config unchanged)")
	}
	return b.String()
}

func (e *PushError) Unwrap() error { return e.Err }

// Retryable reports whether trying again may help: the connection failed
// for a reason other than the credentials.
func (e *PushError) Retryable() bool {
	return e.Stage == "connect" && !errors.Is(e.Err, util.ErrAuthError) &&
		!(e.Err != nil && strings.Contains(e.Err.Error(), "unable to authenticate"))
}

// pushRejections are EOS's answers to a line it did not take.
var pushRejections = []string{
	"% Invalid input",
	"% Unavailable command",
	"% Incomplete command",
	"% Ambiguous command",
	"% Error",
	"% Cannot commit",
}

var pushSessionRE = lazyregexp.New(`^[A-Za-z0-9_-]{1,64}$`)

// PushConfig applies an EOS CLI configuration through a configuration
// session (`configure session <name>`, the lines, `commit`), so the switch
// takes all of it or none: a rejected line aborts the session. It then reads
// `show running-config` back.
func PushConfig(ctx context.Context, t PushTarget, config string) (*PushOutcome, error) {
	session := t.Session
	if session == "" {
		session = "labctl-" + time.Now().UTC().Format("20060102T150405")
	}
	if !pushSessionRE().MatchString(session) {
		return nil, fmt.Errorf("push to %s: session name %q is not valid: use letters, digits, _ and -", t.Name, session)
	}
	out := &PushOutcome{Device: t.Name, Session: session}
	err := pushSession(ctx, t, func(d *network.Driver) error {
		send := func(cmd string) (string, bool, error) {
			r, err := d.Driver.SendCommand(cmd)
			if err != nil {
				return "", false, pushRedactErr(err, t.Password)
			}
			o := pushRedact(r.Result, t.Password)
			out.Steps = append(out.Steps, PushStep{Command: cmd, Output: o})
			return o, pushRejected(o), nil
		}
		abort := func(e *PushError) error {
			if _, _, err := send("abort"); err == nil {
				e.Aborted = true
			}
			return e
		}
		o, bad, err := send("configure session " + session)
		if err != nil {
			return &PushError{Device: t.Name, Stage: "session", Command: "configure session " + session, Err: err}
		}
		if bad {
			return &PushError{Device: t.Name, Stage: "session", Command: "configure session " + session, Output: o, Err: errors.New("session refused")}
		}
		for n, line := range strings.Split(config, "\n") {
			line = strings.TrimRight(line, " \t\r")
			if pushSkip(line) {
				continue
			}
			o, bad, err := send(line)
			if err != nil {
				return abort(&PushError{Device: t.Name, Stage: "apply", Line: n + 1, Command: strings.TrimSpace(line), Err: err})
			}
			if bad {
				return abort(&PushError{Device: t.Name, Stage: "apply", Line: n + 1, Command: strings.TrimSpace(line), Output: o, Err: errors.New("line rejected")})
			}
		}
		o, bad, err = send("commit")
		if err != nil {
			return &PushError{Device: t.Name, Stage: "commit", Command: "commit", Err: err}
		}
		if bad {
			return abort(&PushError{Device: t.Name, Stage: "commit", Command: "commit", Output: o, Err: errors.New("commit refused")})
		}
		running, err := pushReadRunning(d, t)
		out.Running = running
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadRunningConfig returns `show running-config`.
func ReadRunningConfig(ctx context.Context, t PushTarget) (string, error) {
	var running string
	err := pushSession(ctx, t, func(d *network.Driver) error {
		var err error
		running, err = pushReadRunning(d, t)
		return err
	})
	if err != nil {
		// On cancellation the session goroutine may still be writing
		// running; do not read it.
		return "", err
	}
	return running, nil
}

// pushReadRunning sends `show running-config` on an open session.
func pushReadRunning(d *network.Driver, t PushTarget) (string, error) {
	r, err := d.SendCommand("show running-config")
	if err != nil {
		return "", &PushError{Device: t.Name, Stage: "read-back", Command: "show running-config", Err: pushRedactErr(err, t.Password)}
	}
	return pushRedact(r.Result, t.Password), nil
}

// pushSkip drops what is not a configuration command: blank lines, "!"
// comments, and the mode changes a saved config carries ("end",
// "configure"), which would leave the session.
func pushSkip(line string) bool {
	s := strings.TrimSpace(line)
	switch {
	case s == "", strings.HasPrefix(s, "!"), s == "end", s == "configure", s == "configure terminal":
		return true
	}
	return false
}

func pushRejected(out string) bool {
	for _, r := range pushRejections {
		if strings.Contains(out, r) {
			return true
		}
	}
	return false
}

// pushSession opens a session, runs fn, and closes it. scrapligo calls take
// no context, so the session runs in a goroutine, each command's timeout is
// bounded by ctx's deadline, and ctx's end returns at once.
func pushSession(ctx context.Context, t PushTarget, fn func(d *network.Driver) error) error {
	err := devssh.Session(ctx, devssh.Target{Name: t.Name, Host: t.Host, Port: t.Port, Username: t.Username, Password: t.Password, Timeout: t.Timeout, Options: t.Options},
		"arista_eos", 2*time.Minute, fn)
	var se *devssh.StageError
	if errors.As(err, &se) {
		return &PushError{Device: t.Name, Stage: se.Stage, Err: se.Err}
	}
	return err
}

func pushRedact(s, secret string) string { return devssh.Redact(s, secret) }

func pushRedactErr(err error, secret string) error { return devssh.RedactErr(err, secret) }

// RunShowCommands runs read-only commands (for example the counter
// commands with `| json`) in one session and returns their outputs in
// order. A command EOS rejects is an error naming it and EOS's answer.
func RunShowCommands(ctx context.Context, t PushTarget, cmds []string) ([]string, error) {
	outs := make([]string, 0, len(cmds))
	err := pushSession(ctx, t, func(d *network.Driver) error {
		for _, cmd := range cmds {
			r, err := d.SendCommand(cmd)
			if err != nil {
				return &PushError{Device: t.Name, Stage: "show", Command: cmd, Err: pushRedactErr(err, t.Password)}
			}
			o := pushRedact(r.Result, t.Password)
			if pushRejected(o) {
				return &PushError{Device: t.Name, Stage: "show", Command: cmd, Output: o, Err: errors.New("command rejected")}
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
