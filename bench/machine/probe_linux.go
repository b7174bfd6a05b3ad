package main

import (
	"syscall"
	"time"
)

// pageFault maps pages pages of fresh anonymous memory, writes a byte to
// each, and returns the time per page, median of rounds mappings.
func pageFault(pages, rounds int) (time.Duration, error) {
	size := pages * syscall.Getpagesize()
	var per []time.Duration
	for range rounds {
		mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return 0, err
		}
		start := time.Now()
		for off := 0; off < size; off += syscall.Getpagesize() {
			mem[off] = 1
		}
		per = append(per, time.Since(start)/time.Duration(pages))
		if err := syscall.Munmap(mem); err != nil {
			return 0, err
		}
	}
	return median(per), nil
}

// systemCall times calls getppid calls, median of rounds.
func systemCall(calls, rounds int) (time.Duration, error) {
	var per []time.Duration
	for range rounds {
		start := time.Now()
		for range calls {
			// Syscall, not RawSyscall: the scheduler's entry and exit
			// are part of what a Go program pays for a call.
			syscall.Syscall(syscall.SYS_GETPPID, 0, 0, 0)
		}
		per = append(per, time.Since(start)/time.Duration(calls))
	}
	return median(per), nil
}
