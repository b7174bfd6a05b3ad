package startheap

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"
)

func TestParseTHPMode(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never\n": "always",
		"always madvise [never]\n": "never",
		"":                         "",
		"always madvise never\n":   "",
		"] [":                      "",
	} {
		if got := parseTHPMode([]byte(in)); got != want {
			t.Errorf("parseTHPMode(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHugePagesOnlyOnRequest: under the "always" and "never" modes
// HugePages does nothing (no collection); under "madvise" it collects
// once and leaves the start on.
func TestHugePagesOnlyOnRequest(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if p, _ := gcSettings(); p == -1 {
		restored(t)
	}
	start()
	defer restored(t)
	for _, mode := range []string{"always", "never", ""} {
		cycles := gcCycles()
		hugePages(mode)
		if n := gcCycles(); n != cycles {
			t.Errorf("hugePages(%q) ran %d collections, want none", mode, n-cycles)
		}
	}
	cycles := gcCycles()
	hugePages("madvise")
	if n := gcCycles(); n != cycles+1 {
		t.Errorf("hugePages(\"madvise\") ran %d collections, want 1", n-cycles)
	}
	if p, l := gcSettings(); p != -1 || l != startHeapBytes {
		t.Errorf("after hugePages: GOGC %d, limit %d; want the start still on (-1, %d)", p, l, startHeapBytes)
	}
}

// TestAdvisedHeapReused: after adviseHugeHeap, the heap's next large
// allocation lies in memory the kernel holds advised for huge pages
// ("hg" in its mapping's VmFlags, /proc/self/smaps). It runs in a fresh
// process (this test binary again), whose heap has no other free block
// the allocation could take.
func TestAdvisedHeapReused(t *testing.T) {
	if os.Getenv("STARTHEAP_CHILD") == "1" {
		adviseHugeHeap(32 << 20)
		b := make([]byte, 16<<20)
		flags, err := vmFlags(uintptr(unsafe.Pointer(&b[0])))
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("flags:", strings.Join(flags, " "))
		return
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("this kernel has no transparent huge pages (%v): CI's must have them", err)
		}
		t.Skipf("this kernel has no transparent huge pages (%v)", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdvisedHeapReused$")
	cmd.Env = append(os.Environ(), "STARTHEAP_CHILD=1", "GOGC=", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	i := strings.Index(string(out), "flags:")
	if i < 0 {
		t.Fatalf("child printed no flags:\n%s", out)
	}
	flags := strings.Fields(strings.SplitN(string(out[i+len("flags:"):]), "\n", 2)[0])
	for _, f := range flags {
		if f == "hg" {
			return
		}
	}
	t.Errorf("the allocation after adviseHugeHeap lies in a mapping without huge pages advised (VmFlags %v)", flags)
}

// vmFlags reads the VmFlags of the mapping that holds address a.
func vmFlags(a uintptr) ([]string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(line[:strings.IndexByte(line, ' ')], "-") {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no mapping holds %#x", a)
}
