//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountOrSkip mounts (syscall.Mount) and unmounts at the end of the test.
// Mounting needs root (CAP_SYS_ADMIN); without it the test skips with a
// message, except in CI, where it must run.
func mountOrSkip(t *testing.T, source, target, fstype string, flags uintptr, data string) {
	t.Helper()
	if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount %s on %s: %v (CI runs as root and must be able to mount)", fstype, target, err)
		}
		t.Skipf("cannot mount %s here (%v): run as root to test read-only and full disks", fstype, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(target, syscall.MNT_DETACH) })
}

// Read commands work on a read-only results/ (and topologies/); write
// commands exit 3 naming the path and the fix.
func TestReadOnlyWorkDir(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	// The baseline and a second run to check against it (regress refuses
	// a run compared with itself).
	for _, args := range [][]string{{"up", "16gpu"}, {"run", "baseline-bw", "--lab", "16gpu"}, {"regress", "--save-baseline", "latest", "good"}, {"run", "baseline-bw", "--lab", "16gpu"}} {
		if r := runChild(t, src, nil, args...); r.code != 0 {
			t.Fatalf("labctl %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	ro := t.TempDir()
	mountOrSkip(t, src, ro, "", syscall.MS_BIND, "")
	if err := syscall.Mount("", ro, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	if err := os.WriteFile(filepath.Join(ro, "probe"), nil, 0o644); err == nil {
		t.Fatal("the read-only mount is writable")
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"results", "list"}, 0, "baseline-bw"},
		{[]string{"results", "show", "latest"}, 0, "passed"},
		{[]string{"report", "latest"}, 0, "# labctl run"},
		{[]string{"report", "latest", "-o", "html"}, 0, "<html"},
		{[]string{"regress", "latest", "--baseline", "good"}, 0, "OK: no regression"},
		{[]string{"status"}, 0, "16gpu"},
		{[]string{"results", "reindex"}, 3, "read-only file system (fix:"},
		{[]string{"run", "baseline-bw", "--lab", "16gpu"}, 3, "read-only file system (fix:"},
		{[]string{"regress", "--save-baseline", "latest", "other"}, 3, "read-only file system (fix:"},
		{[]string{"up", "16gpu"}, 3, "fix: use a writable --dir"},
	} {
		r := runChild(t, ro, nil, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.want) {
			t.Errorf("read-only: labctl %s: exit %d, want %d with %q\n%s%s", strings.Join(tt.args, " "), r.code, tt.code, tt.want, r.stdout, r.stderr)
		}
	}
}

// A full disk mid-run: exit 3 naming the file and the fix, one "save run"
// prefix, the finished variants printed, and the record left on disk read
// as abandoned by every reader, by the summary too. ecn-pfc on 16gpu saves
// its record in progress compact (0.45-1.0 MB a variant) and the finished
// one indented (2.7 MB), each written beside the one before until renamed
// over it: on 2 MiB a save in progress fails, on 4 MiB the last one (the
// finished record beside the 1.6-2.2 MB of three variants; the save before
// needed at most 1.7 and 2.2 MB), after every variant has finished, so
// that the record on disk holds three variants and the summary prints
// four.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	for _, size := range []string{"2m", "4m"} {
		t.Run(size, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			mountOrSkip(t, "tmpfs", dir, "tmpfs", 0, "size="+size)
			if r := runChild(t, dir, nil, "up", "16gpu"); r.code != 0 {
				t.Fatalf("up: exit %d\n%s", r.code, r.stderr)
			}
			r := runChild(t, dir, nil, "run", "ecn-pfc", "--lab", "16gpu")
			if r.code != 3 {
				t.Fatalf("run on a full disk: exit %d, want 3\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"run.json: no space left on device", "(fix: free space on the file system"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
				}
			}
			if n := strings.Count(r.stderr, "save run "); n != 1 {
				t.Errorf("%d 'save run' prefixes:\n%s", n, r.stderr)
			}
			// Which variants had finished when the disk filled depends on
			// how the two run side by side were scheduled (under a loaded
			// CI machine ecn=on,pfc=on may finish third): at least those
			// the record on disk holds are printed, as a table row each.
			printed := 0
			for _, v := range []string{"ecn=on,pfc=on", "ecn=on,pfc=off", "ecn=off,pfc=on", "ecn=off,pfc=off"} {
				if strings.Contains(r.stdout, "  "+v+"  ") {
					printed++
				}
			}
			if printed == 0 || !strings.Contains(r.stdout, "ABANDONED") || strings.Contains(r.stdout, "PASSED") {
				t.Errorf("the finished variants are not printed, or not as abandoned:\n%s", r.stdout)
			}
			list := runChild(t, dir, nil, "results", "list", "-o", "json")
			var out struct {
				Runs []listedRun `json:"runs"`
			}
			if err := json.Unmarshal([]byte(list.stdout), &out); err != nil || len(out.Runs) != 1 || out.Runs[0].Status != "abandoned" || out.Runs[0].Variants == 0 {
				t.Fatalf("results list after the full disk: %v\n%s%s", err, list.stdout, list.stderr)
			}
			if out.Runs[0].Variants > printed {
				t.Errorf("the record on disk holds %d variants, the summary printed %d:\n%s", out.Runs[0].Variants, printed, r.stdout)
			}
			if size == "4m" && (out.Runs[0].Variants != 3 || printed != 4) {
				t.Errorf("4 MiB: the record on disk holds %d variants and the summary printed %d; want 3 and 4 (the finished record's save failing, not one in progress: have the records' sizes changed?)", out.Runs[0].Variants, printed)
			}
			if rep := runChild(t, dir, nil, "report", "latest"); rep.code != 0 || !strings.Contains(rep.stdout, "ABANDONED") {
				t.Errorf("report latest: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
			}
		})
	}
}
