package lab

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/specdoc"
)

// Every lab spec key is documented: a key added to Spec without an entry
// in KeyDocs fails here with the entry to add.
func TestEveryKeyDocumented(t *testing.T) {
	for _, err := range specdoc.Check(reflect.TypeOf(Spec{}), KeyDocs, "lab spec", "orchestrator/lab/keys.go") {
		t.Error(err)
	}
}

// The ranges the docs give are the ones Load enforces: kmin_kb and kmax_kb
// at most the largest buffer_pool_bytes in KiB, and the pool's own range
// (the docs spelt them out beside the constants).
func TestKeyDocsRangesAreLoads(t *testing.T) {
	maxKB := strconv.FormatInt(MaxBufferPoolBytes/1024, 10)
	for _, k := range []string{"qos.ecn.kmin_kb", "qos.ecn.kmax_kb"} {
		if d := KeyDocs[k].Doc; !strings.Contains(d, "at most "+maxKB+" ("+readlimit.Size(MaxBufferPoolBytes)+",") {
			t.Errorf("%s: %q does not give the bound %s KiB", k, d, maxKB)
		}
	}
	if d := KeyDocs["qos.buffer_pool_bytes"].Doc; !strings.Contains(d, fmt.Sprintf("%d to %d", MinBufferPoolBytes, MaxBufferPoolBytes)) {
		t.Errorf("buffer_pool_bytes: %q does not give %d to %d", d, MinBufferPoolBytes, MaxBufferPoolBytes)
	}
	for kb, ok := range map[string]bool{maxKB: true, strconv.FormatInt(MaxBufferPoolBytes/1024+1, 10): false} {
		_, err := Parse("x.yaml", []byte("name: a\nsizing:\n  gpus: 8\nqos:\n  ecn:\n    kmin_kb: 1\n    kmax_kb: "+kb+"\n"))
		if (err == nil) != ok {
			t.Errorf("kmax_kb %s: %v, want accepted %v", kb, err, ok)
		}
	}
}
