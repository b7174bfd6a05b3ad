package readlimit

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// endless is a reader that never ends, like `yes` on a pipe.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	e.read += int64(len(p))
	return len(p), nil
}

func TestReadAll(t *testing.T) {
	l := Limit{What: "things", Bytes: 100, Fix: "use a smaller thing"}
	tests := []struct {
		name    string
		in      int
		wantErr bool
	}{
		{"empty", 0, false},
		{"under", 99, false},
		{"at the cap", 100, false},
		{"one over", 101, true},
		{"far over", 1 << 20, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ReadAll(bytes.NewReader(make([]byte, tt.in)), "in.txt", l)
			if tt.wantErr {
				var tl *TooLargeError
				if !errors.As(err, &tl) || exitcode.Code(err) != exitcode.BadInput {
					t.Fatalf("err %v (exit %d), want a *TooLargeError exiting 2", err, exitcode.Code(err))
				}
				for _, want := range []string{"in.txt: larger than 100 bytes, labctl's size limit for things", "fix: use a smaller thing"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%q does not mention %q", err, want)
					}
				}
				return
			}
			if err != nil || len(data) != tt.in {
				t.Fatalf("got %d bytes, err %v; want %d bytes", len(data), err, tt.in)
			}
		})
	}
}

func TestReadAllStopsAtTheCap(t *testing.T) {
	r := &endless{}
	_, err := ReadAll(r, "<stdin>", Limit{What: "command output", Bytes: 1 << 20})
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("err %v, want *TooLargeError", err)
	}
	// The cap plus at most one read buffer: never the whole stream.
	if r.read > 2<<20 {
		t.Errorf("read %d bytes of an endless stream with a 1 MiB cap", r.read)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(small, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, bytes.Repeat([]byte("#\n"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	l := Limit{What: "spec", Bytes: 1000, Fix: "f"}
	if data, err := ReadFile(small, l); err != nil || string(data) != "name: x\n" {
		t.Errorf("small: %q, %v", data, err)
	}
	if _, err := ReadFile(big, l); !errors.As(err, new(*TooLargeError)) {
		t.Errorf("big: %v, want *TooLargeError", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "absent"), l); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent: %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(dir, l); !errors.As(err, new(*NotRegularError)) || exitcode.Code(err) != exitcode.BadInput ||
		!strings.Contains(err.Error(), "is a directory") || !strings.Contains(err.Error(), "fix: name a file inside the directory") {
		t.Errorf("directory: %v (exit %d), want a *NotRegularError exiting 2", err, exitcode.Code(err))
	}
}

func TestReadFileDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadFile("/dev/zero", Limit{What: "spec", Bytes: 1 << 20})
	if !errors.As(err, new(*TooLargeError)) || !strings.Contains(err.Error(), "/dev/zero: larger than 1 MiB") {
		t.Errorf("/dev/zero as a stream: %v", err)
	}
	_, err = ReadFile("/dev/zero", Limit{What: "run record", Bytes: 1 << 30, RegularOnly: true, Fix: "name a run.json"})
	if !errors.As(err, new(*NotRegularError)) || exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("/dev/zero as a record: %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 256 << 20: "256 MiB", 1 << 30: "1 GiB", 4096: "4 KiB", 1000: "1000 bytes", 1 << 40: "1 TiB", 1 << 50: "1 PiB", 3 << 50: "3 PiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
