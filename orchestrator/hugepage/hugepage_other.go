//go:build !linux

package hugepage

// Huge pages on request are Linux's (hugepage_linux.go).
func mode() string { return "" }

func advise(uintptr, uintptr) bool { return false }

// Advised: no mapping is advised where Advise does nothing.
func Advised(uintptr) (bool, error) { return false, nil }
