//go:build unix

package runtime

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used: the
// benchmarks report it beside wall time, which on a shared machine says
// as much about the other jobs as about the code.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
