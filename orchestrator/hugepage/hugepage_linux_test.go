package hugepage

import (
	"os"
	"testing"
	"unsafe"
)

// TestAdvise: Advise marks the whole huge pages within a slice, and only
// those: the mapping at the first aligned address inside is advised, the
// memory before it (the slice's unaligned head) is not touched by the
// advice, and a slice without a whole huge page is left alone.
func TestAdvise(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("this kernel has no transparent huge pages (%v): CI's must have them", err)
		}
		t.Skipf("this kernel has no transparent huge pages (%v)", err)
	}
	if AdviseSlice(make([]byte, Size-1)) {
		t.Error("AdviseSlice of less than a huge page reported advice")
	}
	if AdviseSlice([]int64(nil)) {
		t.Error("AdviseSlice of nothing reported advice")
	}
	s := make([]int64, 3*Size/8) // 6 MiB: at least two whole huge pages
	if !AdviseSlice(s) {
		t.Fatal("AdviseSlice of 6 MiB: the kernel did not take the advice")
	}
	start := uintptr(unsafe.Pointer(&s[0]))
	first := (start + Size - 1) &^ (Size - 1)
	for _, a := range []uintptr{first, first + Size - 1} {
		ok, err := Advised(a)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%#x (within the slice's first whole huge page) is not advised", a)
		}
	}
	if start < first {
		ok, err := Advised(first - 1)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			t.Errorf("%#x (before the slice's first whole huge page) is advised too", first-1)
		}
	}
}
