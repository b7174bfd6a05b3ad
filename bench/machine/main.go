// Command machine prints what two services of the kernel cost a process on
// this machine now: the first write to a fresh page of anonymous memory (a
// minor page fault) and a system call (getppid). The bench scripts print
// its line beside their tables.
//
// Why: a short labctl run takes some 2,000 page faults (a Go heap, a 40 MB
// binary, SQLite), htsim's some 170. On the VMs labctl is measured on a page
// fault has cost 1.5 µs on some days and 8-13 µs on others, and the incast's
// labctl/htsim ratio moved with it (0.54 against 1.14); a table that says
// what the machine's faults cost can be read against another's.
package main

import (
	"fmt"
	"slices"
	"time"
)

func main() {
	// A figure that cannot be measured is said so; the bench goes on.
	if fault, err := pageFault(4096, 5); err != nil {
		fmt.Printf("a page fault n/a (%v)", err)
	} else {
		fmt.Printf("a page fault %.1f µs", us(fault))
	}
	if call, err := systemCall(100000, 5); err != nil {
		fmt.Printf(", a system call n/a (%v)\n", err)
	} else {
		fmt.Printf(", a system call %.2f µs\n", us(call))
	}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// median is the middle of rounds, each a time per operation.
func median(rounds []time.Duration) time.Duration {
	s := slices.Clone(rounds)
	slices.Sort(s)
	return s[len(s)/2]
}
