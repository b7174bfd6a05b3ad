//go:build unix

package readlimit

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// openGuarded runs Open in a goroutine, so that an Open that blocks (the
// bug: open(2) of a FIFO waits for a writer for ever) fails the test
// instead of hanging it. The guard is a deadlock bound, not a timing.
func openGuarded(t *testing.T, name string, l Limit) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := Open(name, l)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		// Let the blocked open return, so the goroutine ends.
		if w, err := os.OpenFile(name, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("Open(%s) blocked", name)
		return nil
	}
}

func wantNotRegular(t *testing.T, err error, name, kind string) {
	t.Helper()
	var nr *NotRegularError
	if !errors.As(err, &nr) || exitcode.Code(err) != exitcode.BadInput {
		t.Fatalf("%s: %v (exit %d), want a *NotRegularError exiting 2", name, err, exitcode.Code(err))
	}
	for _, want := range []string{name + ": not a regular file: it is " + kind, "fix: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

func TestOpenRefusesWhatWouldBlock(t *testing.T) {
	dir := t.TempDir()
	l := Limit{What: "specs", Bytes: 1 << 20, Fix: "f"}

	fifo := filepath.Join(dir, "f.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	wantNotRegular(t, openGuarded(t, fifo, l), fifo, "a named pipe (FIFO)")
	// ReadFile goes through Open.
	_, err := ReadFile(fifo, l)
	wantNotRegular(t, err, fifo, "a named pipe (FIFO)")

	// A FIFO behind a symlink, as /dev/stdin is for a pipe.
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	wantNotRegular(t, openGuarded(t, link, l), link, "a named pipe (FIFO)")

	// A socket cannot be opened at all (ENXIO): it is named, not reported
	// as "no such device or address".
	sock := filepath.Join(dir, "s.yaml")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer ln.Close()
	wantNotRegular(t, openGuarded(t, sock, l), sock, "a socket")

	wantNotRegular(t, openGuarded(t, dir, l), dir, "a directory")
}

func TestOpenDevices(t *testing.T) {
	l := Limit{What: "specs", Bytes: 1 << 20}
	// /dev/null reads as empty; /dev/zero is what the cap is for.
	if _, err := os.Stat("/dev/null"); err == nil {
		if data, err := ReadFile("/dev/null", l); err != nil || len(data) != 0 {
			t.Errorf("/dev/null: %q, %v; want empty", data, err)
		}
		_, err := ReadFile("/dev/null", Limit{What: "run records", Bytes: 1 << 20, RegularOnly: true})
		wantNotRegular(t, err, "/dev/null", "a character device")
	}
	// A terminal waits for typing: the master side of a new pseudo
	// terminal is one.
	if _, err := os.Stat("/dev/ptmx"); err == nil {
		err := openGuarded(t, "/dev/ptmx", l)
		if errors.Is(err, os.ErrPermission) {
			t.Skipf("/dev/ptmx: %v", err)
		}
		wantNotRegular(t, err, "/dev/ptmx", "a terminal")
	}
}
