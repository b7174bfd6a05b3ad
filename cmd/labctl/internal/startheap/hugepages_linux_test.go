package startheap

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"

	"github.com/labctl/labctl/orchestrator/hugepage"
)

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
		// The block's first whole huge page is where b starts, or the
		// next one.
		a := (uintptr(unsafe.Pointer(&b[0])) + hugepage.Size - 1) &^ (hugepage.Size - 1)
		ok, err := hugepage.Advised(a)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("advised:", ok)
		return
	}
	if hugepage.Mode() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("this kernel has no transparent huge pages (hugepage.Mode): CI's must have them")
		}
		t.Skip("this kernel has no transparent huge pages (hugepage.Mode)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdvisedHeapReused$")
	cmd.Env = append(os.Environ(), "STARTHEAP_CHILD=1", "GOGC=", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	switch {
	case strings.Contains(string(out), "advised: true"):
	case strings.Contains(string(out), "advised: false"):
		t.Error("the allocation after adviseHugeHeap lies in memory not advised for huge pages")
	default:
		t.Fatalf("the child said neither:\n%s", out)
	}
}
