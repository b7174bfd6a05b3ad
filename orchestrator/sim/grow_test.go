package sim

import (
	"os"
	"runtime"
	"testing"
	"unsafe"

	"github.com/labctl/labctl/orchestrator/hugepage"
)

// TestGrowAdvised: growAdvised keeps the elements and the length, makes
// room for n more, and (on Linux with transparent huge pages) leaves the
// new array advised for huge pages.
func TestGrowAdvised(t *testing.T) {
	s := make([]packet, 3, 4)
	for i := range s {
		s[i].flow = int32(i + 7)
	}
	g := growAdvised(s, 40000) // 2.5 MiB of packets
	if len(g) != 3 || cap(g) < 40003 {
		t.Fatalf("grown to len %d cap %d, want len 3 and cap >= 40003", len(g), cap(g))
	}
	for i := range g {
		if g[i].flow != int32(i+7) {
			t.Errorf("element %d: flow %d, want %d", i, g[i].flow, i+7)
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	if hugepage.Mode() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("this kernel has no transparent huge pages (hugepage.Mode): CI's must have them")
		}
		t.Skip("this kernel has no transparent huge pages (hugepage.Mode)")
	}
	for _, p := range []unsafe.Pointer{unsafe.Pointer(&g[0]), unsafe.Pointer(&g[:cap(g)][cap(g)-1])} {
		ok, err := hugepage.Advised(uintptr(p))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("the grown array at %p is not advised for huge pages", p)
		}
	}
}
