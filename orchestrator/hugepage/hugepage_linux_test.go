package hugepage

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
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

// TestAdviseOnlyWholePages: memory smaller than a huge page is not advised
// (a 2 MiB fault would zero more than the caller fills), from one huge
// page on it is. Freshly mapped memory (not the heap, which earlier advice
// may have covered) so that Advised sees only this test's advice.
func TestAdviseOnlyWholePages(t *testing.T) {
	if Mode() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("this kernel has no transparent huge pages (Mode): CI's must have them")
		}
		t.Skip("this kernel has no transparent huge pages (Mode)")
	}
	m, err := unix.Mmap(-1, 0, 4*Size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	// The first whole huge page inside the mapping.
	base := (uintptr(unsafe.Pointer(&m[0])) + Size - 1) &^ (Size - 1)
	at := int(base - uintptr(unsafe.Pointer(&m[0])))
	small := m[at : at+Size-1 : at+Size-1] // (AdviseSlice takes the capacity)
	if AdviseSlice(small) {
		t.Errorf("AdviseSlice of %d bytes (one short of a huge page) reported advice", len(small))
	}
	if ok, err := Advised(base); err != nil || ok {
		t.Errorf("after advising %d bytes: Advised = %v, %v; want not advised", len(small), ok, err)
	}
	whole := m[at : at+Size : at+Size]
	if !AdviseSlice(whole) {
		t.Errorf("AdviseSlice of a whole huge page: the kernel did not take the advice")
	}
	if ok, err := Advised(base); err != nil || !ok {
		t.Errorf("after advising a whole huge page: Advised = %v, %v; want advised", ok, err)
	}
}
