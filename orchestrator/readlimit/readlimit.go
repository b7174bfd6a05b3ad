// Package readlimit reads labctl's inputs with a size cap. Every file or
// stream labctl reads (specs, scenarios, vendor configs, command output
// handed to a parser, state files, run records and baselines) goes through
// it, so that a wrong input (/dev/zero, a pipe that never ends, a
// multi-gigabyte log) is refused with an error naming it, the cap and the
// fix, instead of being read until the machine runs out of memory.
package readlimit

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/term"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// Limit is the cap for one kind of input.
type Limit struct {
	// What the inputs are, as errors name them: "lab specs".
	What string
	// Bytes is the largest input accepted.
	Bytes int64
	// RegularOnly refuses anything but a regular file (a device, a FIFO):
	// inputs labctl writes itself are always files, and refusing streams
	// keeps a large cap from being filled from /dev/zero.
	RegularOnly bool
	// Fix says what to do about an input over the cap.
	Fix string
}

// The caps. Each is far above what a real input of its kind holds (a
// catalog lab spec is under 1 KiB, a SONiC config_db of a 32-port switch
// about 80 KiB, show-command output a few KiB, a run record of the catalog
// scenarios about 5 MiB), and low enough that parsing an input at the cap
// stays within a few hundred MB of memory.
var (
	// Specs are parsed by a YAML library that needs about 200 bytes of
	// memory per byte of input, so their cap is the lowest.
	Spec = Limit{What: "specs", Bytes: 256 << 10,
		Fix: "name the YAML spec file itself; specs are a few KiB"}
	Config = Limit{What: "vendor config files", Bytes: 4 << 20,
		Fix: "name the switch's config file (config_db JSON or EOS running-config), not a log or an archive"}
	Output = Limit{What: "command output", Bytes: 4 << 20,
		Fix: "save the output of one show command (or one perftest run) to a file and parse that"}
	Record = Limit{What: "run records", Bytes: 256 << 20, RegularOnly: true,
		Fix: "name a run.json or baseline file labctl wrote; a record that large comes from a scenario that samples too often (sample_every) or repeats too much (repetitions)"}
	State = Limit{What: "lab state files", Bytes: 16 << 20, RegularOnly: true,
		Fix: "remove the file and run 'labctl up' again"}
	Manifest = Limit{What: "config manifests", Bytes: 16 << 20, RegularOnly: true,
		Fix: "delete it and run 'labctl config render <lab> --force' to let labctl rewrite it"}
	Generated = Limit{What: "generated topology files", Bytes: 64 << 20, RegularOnly: true,
		Fix: "remove it and run 'labctl topo <lab>' to write it again"}
)

// TooLargeError says an input is over its cap. It is a usage error (exit 2).
type TooLargeError struct {
	// Name is the file (or "<stdin>"); empty when the reader's caller
	// adds it.
	Name  string
	Limit Limit
}

func (e *TooLargeError) Error() string {
	name := e.Name
	if name == "" {
		name = "input"
	}
	return fmt.Sprintf("%s: larger than %s, labctl's size limit for %s (fix: %s)", name, Size(e.Limit.Bytes), e.Limit.What, e.Limit.Fix)
}

// NotRegularError says an input is not a file labctl can read: a named
// pipe, a socket, a directory, a terminal or another device (or, for a
// RegularOnly limit, anything but a regular file). Opening a pipe with no
// writer blocks for ever, and a terminal waits for typing, so they are
// refused before anything is read.
type NotRegularError struct {
	Name  string
	Limit Limit
	// Kind says what the path is: "a named pipe (FIFO)", "a directory".
	Kind string
	// Fix overrides the default fix ("give the path of the file itself"),
	// for a command that can read standard input instead.
	Fix string
}

func (e *NotRegularError) Error() string {
	kind := ""
	if e.Kind != "" {
		kind = ": it is " + e.Kind
	}
	fix := e.Fix
	if fix == "" {
		fix = "give the path of the file itself"
		if e.Kind == kindDir {
			fix = "name a file inside the directory"
		}
	}
	return fmt.Sprintf("%s: not a regular file%s, and labctl reads %s only from files (fix: %s)", e.Name, kind, e.Limit.What, fix)
}

const kindDir = "a directory"

// Size formats a byte count the way the caps are written: 16 MiB.
func Size(n int64) string {
	switch {
	case n >= 1<<50 && n%(1<<50) == 0:
		return fmt.Sprintf("%d PiB", n>>50)
	case n >= 1<<40 && n%(1<<40) == 0:
		return fmt.Sprintf("%d TiB", n>>40)
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the file name under limit l. A regular file larger than
// the cap is refused before it is read; a character device such as
// /dev/zero is read up to the cap and refused when more follows; anything
// that could block or is no file (see Open) is refused before it is read.
// Errors over the cap are *TooLargeError or *NotRegularError wrapped as
// usage errors (exit 2); errors opening or reading the file are returned
// as the os package gives them, so callers can still test for
// fs.ErrNotExist.
func ReadFile(name string, l Limit) ([]byte, error) {
	f, size, err := OpenSized(name, l)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, name, l, size)
}

// OpenSized is Open, with the file's size when it is a regular file (-1
// for a character device, whose reads stop at the cap): a regular file
// larger than the cap is refused, as ReadFile refuses it, before it is
// read. For callers that stream a file rather than hold it whole.
func OpenSized(name string, l Limit) (*os.File, int64, error) {
	f, err := Open(name, l)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return f, -1, nil
	}
	if st.Size() > l.Bytes {
		f.Close()
		return nil, 0, exitcode.Usage(&TooLargeError{Name: name, Limit: l})
	}
	return f, st.Size(), nil
}

// Open opens name to be read under limit l, without blocking: a named
// pipe (whose open waits for a writer that may never come, ignoring
// Ctrl-C), a socket, a directory, a block device or a terminal is refused
// with a *NotRegularError (exit 2), as is any character device when l is
// RegularOnly. Other character devices (/dev/null, /dev/zero) are allowed:
// reading them stops at the cap. Callers read the file with ReadAll or
// ReadFile's cap. Errors of the open itself are the os package's.
func Open(name string, l Limit) (*os.File, error) {
	// openFlags (O_NONBLOCK on Unix) makes the open of a FIFO return at
	// once, so that it is refused below rather than waited on; for a
	// regular file or a device it changes nothing labctl relies on (Go
	// reads non-blocking descriptors through its poller).
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		// A socket cannot be opened at all (ENXIO, "no such device or
		// address"): say what it is instead.
		if st, serr := os.Stat(name); serr == nil {
			if kind := refusedKind(st.Mode(), l); kind != "" {
				return nil, exitcode.Usage(&NotRegularError{Name: name, Limit: l, Kind: kind})
			}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	kind := refusedKind(st.Mode(), l)
	if kind == "" && st.Mode()&fs.ModeCharDevice != 0 && isTerminal(f) {
		kind = "a terminal"
	}
	if kind != "" {
		f.Close()
		return nil, exitcode.Usage(&NotRegularError{Name: name, Limit: l, Kind: kind})
	}
	return f, nil
}

// refusedKind says what a file of mode m is when limit l refuses it, or
// "" when it may be read.
func refusedKind(m fs.FileMode, l Limit) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return kindDir
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		if l.RegularOnly {
			return "a character device"
		}
		return ""
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file" // a kind the os package does not name
}

// ReadAll reads r under limit l, stopping at the cap: input beyond it is
// never read. name is what errors call the input ("" lets the caller add
// it to the *TooLargeError).
func ReadAll(r io.Reader, name string, l Limit) ([]byte, error) {
	return readAll(r, name, l, -1)
}

// readAll reads at most l.Bytes+1 bytes; sizeHint (-1 when unknown) sizes
// the buffer so a regular file is read without regrowing it.
func readAll(r io.Reader, name string, l Limit, sizeHint int64) ([]byte, error) {
	initial := int64(64 << 10)
	if sizeHint >= 0 {
		initial = sizeHint + 1 // +1 sees EOF without growing
	}
	initial = min(initial, l.Bytes+1)
	buf := make([]byte, 0, initial)
	lr := io.LimitReader(r, l.Bytes+1)
	for {
		if len(buf) == cap(buf) {
			// Grow by doubling, but never past the cap (+1 to see EOF).
			buf = append(buf, 0)[:len(buf)]
			if int64(cap(buf)) > l.Bytes+1 {
				nb := make([]byte, len(buf), l.Bytes+1)
				copy(nb, buf)
				buf = nb
			}
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > l.Bytes {
			return nil, exitcode.Usage(&TooLargeError{Name: name, Limit: l})
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// isTerminal reports whether f is a terminal. The descriptor is read
// through SyscallConn, since f.Fd() would put it back into blocking mode.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	_ = rc.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) })
	return tty
}
