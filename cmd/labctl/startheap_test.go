package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestStartHeapInitializedFirst: the start heap is in effect before the
// packages initialized ahead of it have allocated half of the runtime's
// first heap goal (4 MiB), so that no collection can start during init;
// it did when main set it up, some 5 ms of CPU of every labctl command
// (client-go's scheme alone allocated 660 KB as it was initialized, when
// labctl linked it). Go reports the order with GODEBUG=inittrace=1; this
// test binary links what labctl links, so it re-runs itself to read that.
func TestStartHeapInitializedFirst(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s -test.run=^$: %v\n%s", os.Args[0], err, out)
	}
	// "init PKG @T ms, C ms clock, B bytes, N allocs"
	type pkgInit struct {
		name  string
		bytes int
	}
	var order []pkgInit
	for line := range strings.SplitSeq(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		order = append(order, pkgInit{f[1], n})
	}
	const start = "github.com/labctl/labctl/cmd/labctl/internal/startheap"
	at := -1
	for i, p := range order {
		if p.name == start {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("%s is not initialized (main must import it); inittrace listed %d packages", start, len(order))
	}
	const budget = 2 << 20
	before, after := 0, 0
	for _, p := range order[:at] {
		before += p.bytes
	}
	for _, p := range order[at:] {
		after += p.bytes
	}
	if before >= budget {
		t.Errorf("the packages initialized before %s allocate %d bytes (budget %d): the collector may run before it", start, before, budget)
	}
	// Where the start heap sits matters while initialization as a whole
	// allocates more than the budget: then most of it must come after.
	// Without client-go's scheme and with the large regular expressions
	// compiled on first use, it allocates about 1.5 MB in all (3.8 MB
	// before).
	if before+after >= budget && after < before {
		t.Errorf("the packages initialized after %s allocate %d bytes, those before %d: is %s still early in the order?", start, after, before, start)
	}
	t.Logf("%d packages before %s allocate %d bytes, %d after it %d bytes", at, start, before, len(order)-at-1, after)
}
