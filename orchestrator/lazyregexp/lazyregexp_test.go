package lazyregexp

import (
	"testing"
)

func TestNew(t *testing.T) {
	re := New(`^[a-z]{1,3}$`)
	if !re().MatchString("abc") || re().MatchString("abcd") {
		t.Error("wrong matches")
	}
	if first := re(); re() != first {
		t.Error("compiled twice")
	}
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on use")
		}
	}()
	bad()
}

func TestNewCompilesOnFirstUse(t *testing.T) {
	if n := testing.AllocsPerRun(10, func() { New(`^[A-Za-z0-9_./-]{1,255}$`) }); n > 10 {
		t.Errorf("New allocates %.0f times: it compiles at once?", n)
	}
}
