// Package runtimetest holds what the tests of labctl's runtimes and of
// their callers share: a lab laid out and rendered as `labctl up` renders
// it. Only tests import it.
package runtimetest

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// NewLab is lab name (a catalog name or a spec file, lab.Resolve) laid
// out for nos ("": the lab's own) in a temporary folder of the test
// (runtime.NewLab), nothing written yet.
func NewLab(t testing.TB, name, nos string) *runtime.Lab {
	t.Helper()
	spec, err := lab.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := runtime.NewLab(spec, t.TempDir(), nos)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// RenderedLab is NewLab with the lab's configs rendered
// (runtime.RenderLab).
func RenderedLab(t testing.TB, name, nos string) *runtime.Lab {
	t.Helper()
	l := NewLab(t, name, nos)
	if _, _, err := runtime.RenderLab(l); err != nil {
		t.Fatal(err)
	}
	return l
}
