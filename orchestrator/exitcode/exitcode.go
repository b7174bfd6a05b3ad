// Package exitcode classifies errors into the CLI's exit codes: 0 ok, 1 the
// thing checked failed (an assertion, a regression, a lint error), 2 bad input
// or usage, 3 the environment lacks something. Packages wrap an error with the
// class they know; the CLI maps it to the process exit code.
package exitcode

import (
	"errors"
	"fmt"
)

// Exit codes of the CLI contract.
const (
	OK          = 0
	CheckFailed = 1
	BadInput    = 2
	Environment = 3
)

// Error carries an exit code with an error.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usage marks err as bad input or usage (exit 2).
func Usage(err error) error { return wrap(BadInput, err) }

// Usagef formats a bad-input error (exit 2).
func Usagef(format string, a ...any) error { return wrap(BadInput, fmt.Errorf(format, a...)) }

// Failed marks err as a failed check (exit 1).
func Failed(err error) error { return wrap(CheckFailed, err) }

// Failedf formats a failed-check error (exit 1).
func Failedf(format string, a ...any) error { return wrap(CheckFailed, fmt.Errorf(format, a...)) }

// Env marks err as a missing environment capability (exit 3).
func Env(err error) error { return wrap(Environment, err) }

// Envf formats a missing-environment error (exit 3).
func Envf(format string, a ...any) error { return wrap(Environment, fmt.Errorf(format, a...)) }

func wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Code returns the exit code for err: the innermost classified code, or 1
// for an unclassified error.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CheckFailed
}
