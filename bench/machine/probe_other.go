//go:build !linux

package main

import (
	"errors"
	"time"
)

var errNotLinux = errors.New("measured on Linux only")

func pageFault(pages, rounds int) (time.Duration, error)  { return 0, errNotLinux }
func systemCall(calls, rounds int) (time.Duration, error) { return 0, errNotLinux }
