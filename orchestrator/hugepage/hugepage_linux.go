package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// modeFile is where Linux says when it gives anonymous memory huge pages.
const modeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

func mode() string {
	b, err := os.ReadFile(modeFile)
	if err != nil {
		return ""
	}
	return parseMode(b)
}

// advise is madvise(MADV_HUGEPAGE) over [addr, addr+n), addresses (not a
// slice) because the range reaches past the memory Advise was given.
// ENOMEM says part of the range is not mapped (past the heap's end): the
// mapped part is advised all the same.
func advise(addr, n uintptr) bool {
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_HUGEPAGE)
	return errno == 0 || errno == unix.ENOMEM
}

// Advised reports whether the mapping that holds address a is advised for
// huge pages ("hg" among its VmFlags in /proc/self/smaps), for tests that
// check the advice reached the memory they meant.
func Advised(a uintptr) (bool, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		// A mapping's first line: "lo-hi perms offset dev inode [path]".
		if addrs, _, ok := strings.Cut(line, " "); ok && !strings.HasSuffix(addrs, ":") {
			if los, his, ok := strings.Cut(addrs, "-"); ok {
				lo, err1 := strconv.ParseUint(los, 16, 64)
				hi, err2 := strconv.ParseUint(his, 16, 64)
				if err1 == nil && err2 == nil {
					in = lo <= uint64(a) && uint64(a) < hi
					continue
				}
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return slices.Contains(strings.Fields(strings.TrimPrefix(line, "VmFlags:")), "hg"), nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("no mapping of this process holds %#x", a)
}
