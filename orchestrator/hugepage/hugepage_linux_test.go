package hugepage

import (
	"os"
	"testing"
	"unsafe"
)

// TestAdvise: Advise marks the 2 MiB pages a slice overlaps, from the one
// that holds its first byte to the one that holds its last, and no
// memory before them.
func TestAdvise(t *testing.T) {
	if Mode() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("this kernel has no transparent huge pages (Mode): CI's must have them")
		}
		t.Skip("this kernel has no transparent huge pages (Mode)")
	}
	if AdviseSlice([]int64(nil)) {
		t.Error("AdviseSlice of nothing reported advice")
	}
	s := make([]int64, 3*Size/8/2) // 3 MiB: two or three huge pages
	if !AdviseSlice(s) {
		t.Fatal("AdviseSlice of 3 MiB: the kernel did not take the advice")
	}
	first := uintptr(unsafe.Pointer(&s[0]))
	last := uintptr(unsafe.Pointer(&s[len(s)-1]))
	for _, a := range []uintptr{first, last, first&^(Size-1) + Size - 1} {
		ok, err := Advised(a)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%#x (in a huge page the slice %#x-%#x overlaps) is not advised", a, first, last)
		}
	}
	if ok, err := Advised(first&^(Size-1) - 1); err == nil && ok {
		t.Errorf("%#x (before the huge pages the slice overlaps) is advised too", first&^(Size-1)-1)
	}
}
