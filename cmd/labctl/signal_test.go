//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSecondInterruptQuits: the first Ctrl-C cancels the command's context
// and says so; a second one ends labctl at once, even while the command
// ignores the cancellation (a child copy of this test binary plays that
// command).
func TestSecondInterruptQuits(t *testing.T) {
	t.Parallel()
	if os.Getenv("LABCTL_SIGNAL_CHILD") == "1" {
		ctx, stop := interruptContext(os.Stderr)
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("cancelled")
		time.Sleep(time.Minute) // busy with something that never checks ctx
		os.Exit(0)
	}
	cmd, stderr, expect := signalChild(t, "TestSecondInterruptQuits", "1")
	expect("ready")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	expect("cancelled")
	// A second Ctrl-C pressed later, past the window in which a repeat
	// is taken for the same interrupt.
	time.Sleep(repeatedSignalWindow + 200*time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child ended with %v, want killed by the second SIGINT", err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("child ended with %v, want killed by the second SIGINT", err)
	}
	if !strings.Contains(stderr.String(), "press Ctrl-C again, after a second, to quit at once") {
		t.Errorf("stderr = %q, want the note on the first Ctrl-C", stderr.String())
	}
}

// TestRepeatedInterruptIsOne: 'timeout -s INT' signals labctl and then its
// process group, two SIGINTs microseconds apart; when the second came just
// after the first was handled it killed labctl mid-save (exit 130, no
// output, the record left running). A SIGINT right after the first one is
// handled is the same interrupt: the command finishes what it keeps.
func TestRepeatedInterruptIsOne(t *testing.T) {
	t.Parallel()
	if os.Getenv("LABCTL_SIGNAL_CHILD") == "2" {
		ctx, stop := interruptContext(os.Stderr)
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("cancelled")
		time.Sleep(repeatedSignalWindow / 2) // saving what finished
		fmt.Println("saved")
		os.Exit(0)
	}
	cmd, stderr, expect := signalChild(t, "TestRepeatedInterruptIsOne", "2")
	expect("ready")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	expect("cancelled")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	expect("saved")
	if err := cmd.Wait(); err != nil {
		t.Errorf("a second SIGINT right after the first: child ended with %v (stderr %q), want it to finish", err, stderr.String())
	}
}

// signalChild starts a copy of this test binary running test as the
// child its LABCTL_SIGNAL_CHILD=role branch plays, and returns it, its
// stderr so far, and expect, which fails the test (killing the child)
// unless the child's next line of output is want.
func signalChild(t *testing.T, test, role string) (*exec.Cmd, *bytes.Buffer, func(want string)) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), "LABCTL_SIGNAL_CHILD="+role)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	return cmd, stderr, func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("child printed %q, want %q (stderr %q)", lines.Text(), want, stderr.String())
		}
	}
}
