// Package exitcode classifies errors into the CLI's exit codes: 0 ok, 1 the
// thing checked failed (an assertion, a regression, a lint error), 2 bad input
// or usage, 3 the environment lacks something. Packages wrap an error with the
// class they know; the CLI maps it to the process exit code.
package exitcode

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
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

// WriteError is a file labctl could not write: the path, the cause and
// what to do about it.
type WriteError struct {
	Path string
	Err  error
	Fix  string
}

func (e *WriteError) Error() string {
	cause := e.Err.Error()
	var errno syscall.Errno
	if errors.As(e.Err, &errno) {
		cause = errno.Error() // "no space left on device", not the temp file's name
	}
	return fmt.Sprintf("cannot write %s: %s (fix: %s)", e.Path, cause, e.Fix)
}

func (e *WriteError) Unwrap() error { return e.Err }

// WriteFailed classifies a failure to write path as an environment error
// (exit 3: the machine did not let labctl write), with a fix chosen by the
// cause: a full disk, a read-only file system, missing permissions.
func WriteFailed(path string, err error) error {
	if err == nil {
		return nil
	}
	var we *WriteError
	if errors.As(err, &we) {
		return Env(err) // classified already, keep its path and fix
	}
	dir := filepath.Dir(path)
	fix := fmt.Sprintf("check that %s is writable and its disk has space, or point --dir at another directory", dir)
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOSPC, syscall.EDQUOT:
			fix = fmt.Sprintf("free space on the file system that holds %s, or point --dir at another one", dir)
		case syscall.EROFS:
			fix = fmt.Sprintf("%s is on a read-only file system: point --dir at a writable directory", dir)
		case syscall.EACCES, syscall.EPERM:
			fix = fmt.Sprintf("make %s writable for this user, or point --dir at a writable directory", dir)
		case syscall.EIO:
			fix = fmt.Sprintf("the disk holding %s reported an I/O error: check it (dmesg) and its free space, or point --dir at another file system", dir)
		case syscall.EFBIG:
			fix = "a file size limit (ulimit -f) stopped the write: raise it, or point --dir at another directory"
		}
	}
	return Env(&WriteError{Path: path, Err: err, Fix: fix})
}
