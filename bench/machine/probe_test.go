//go:build linux

package main

import (
	"testing"
	"time"
)

// Both probes measure something: a time per operation above nothing and
// below a millisecond, which no page fault or getppid takes.
func TestProbes(t *testing.T) {
	fault, err := pageFault(256, 3)
	if err != nil || fault <= 0 || fault > time.Millisecond {
		t.Errorf("pageFault = %v, %v", fault, err)
	}
	call, err := systemCall(1000, 3)
	if err != nil || call <= 0 || call > time.Millisecond {
		t.Errorf("systemCall = %v, %v", call, err)
	}
}

func TestMedian(t *testing.T) {
	if m := median([]time.Duration{5, 1, 3}); m != 3 {
		t.Errorf("median = %v", m)
	}
}
