package startheap

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// thpEnabled is where Linux says when it gives anonymous memory huge
// pages: "always [madvise] never", the bracketed word the mode.
const thpEnabled = "/sys/kernel/mm/transparent_hugepage/enabled"

// hugePageMode is the kernel's transparent huge page mode (always,
// madvise or never), or "" when it cannot be read.
func hugePageMode() string {
	b, err := os.ReadFile(thpEnabled)
	if err != nil {
		return ""
	}
	return parseTHPMode(b)
}

// parseTHPMode reads the bracketed word of thpEnabled's contents.
func parseTHPMode(b []byte) string {
	i := bytes.IndexByte(b, '[')
	j := bytes.IndexByte(b, ']')
	if i < 0 || j < i {
		return ""
	}
	return string(b[i+1 : j])
}

// adviseHuge asks for huge pages on b's memory.
func adviseHuge(b []byte) bool {
	return unix.Madvise(b, unix.MADV_HUGEPAGE) == nil
}
