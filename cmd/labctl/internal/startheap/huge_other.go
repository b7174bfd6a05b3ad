//go:build !linux

package startheap

// hugePageMode: huge pages on request are Linux's (huge_linux.go).
func hugePageMode() string { return "" }

func adviseHuge([]byte) bool { return false }
