// Package devssh opens scrapligo SSH sessions to switches for the NOS
// packages: one place for the connection options, the timeouts bounded by
// the caller's context, cancellation, and keeping passwords out of every
// message. It knows no NOS; each NOS package names its scrapligo platform.
package devssh

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/platform"
	"github.com/scrapli/scrapligo/util"
)

// Target is one device to reach.
type Target struct {
	Name     string // node name, for messages
	Host     string
	Port     int // 0 means 22
	Username string
	Password string
	// Timeout bounds each command; 0 means the caller's default.
	Timeout time.Duration
	// Options are extra scrapligo options, applied last; tests replay a
	// recorded session with the file transport this way.
	Options []util.Option
}

// StageError is a failure to open or keep a session: Stage is "connect"
// or "session". Errors returned by the session function pass unchanged.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return e.Stage + ": " + e.Err.Error() }
func (e *StageError) Unwrap() error { return e.Err }

// Session opens an SSH session to t with the scrapligo platform def (a
// platform name such as "arista_eos", or a YAML definition as []byte), runs fn on it
// and closes it. Command timeouts are t.Timeout (or defTimeout), cut to the
// context's deadline; a cancelled context returns at once.
func Session(ctx context.Context, t Target, def any, defTimeout time.Duration, fn func(d *network.Driver) error) error {
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = defTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		timeout = max(min(timeout, time.Until(dl)), time.Millisecond)
	}
	port := t.Port
	if port == 0 {
		port = 22
	}
	opts := []util.Option{
		options.WithAuthUsername(t.Username),
		options.WithAuthPassword(t.Password),
		options.WithAuthNoStrictKey(),
		options.WithTransportType("standard"),
		options.WithPort(port),
		options.WithTimeoutOps(timeout),
		options.WithTimeoutSocket(min(timeout, 30*time.Second)),
	}
	opts = append(opts, t.Options...)
	p, err := platform.NewPlatform(def, t.Host, opts...)
	if err != nil {
		return &StageError{Stage: "connect", Err: fmt.Errorf("load scrapligo platform: %w", err)}
	}
	d, err := p.GetNetworkDriver()
	if err != nil {
		return &StageError{Stage: "connect", Err: err}
	}
	done := make(chan error, 1)
	go func() {
		if err := d.Open(); err != nil {
			done <- &StageError{Stage: "connect", Err: fmt.Errorf("ssh %s@%s:%d: %w", t.Username, t.Host, port, RedactErr(err, t.Password))}
			return
		}
		err := fn(d)
		_ = d.Close()
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// scrapligo's driver is not safe for use from two goroutines, so
		// the session goroutine closes it itself once its current command
		// returns (at most one operation timeout, which ctx's deadline
		// already bounds).
		return &StageError{Stage: "session", Err: ctx.Err()}
	}
}

// Redact replaces secret in s.
func Redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "<redacted>")
}

// RedactErr returns err with secret removed from its message; errors.Is and
// errors.As still see the original.
func RedactErr(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return redactedError{msg: Redact(err.Error(), secret), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
