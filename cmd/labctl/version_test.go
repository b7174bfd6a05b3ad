package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/sim"
)

// Not parallel: it sets the package's version variables.
func TestBuildVersion(t *testing.T) {
	goVer := runtime.Version() + fmt.Sprintf(", simulator revision %d", sim.Revision)
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "e1070ccb1355ddcb0488987feefc850533d9e7e6"},
		{Key: "vcs.time", Value: "2026-12-01T22:05:14Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		name  string
		bi    *debug.BuildInfo
		ldver string
		want  string
	}{
		{"go build in a git checkout", stamped, "", "labctl dev, commit e1070ccb1355 (2026-12-01 22:05:14Z, with uncommitted changes), " + goVer},
		{"-ldflags version kept", stamped, "v0.3.0", "labctl v0.3.0, commit e1070ccb1355 (2026-12-01 22:05:14Z, with uncommitted changes), " + goVer},
		{"go run, go test", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "labctl dev, commit unknown (built without VCS info), " + goVer},
		{"go install @version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "labctl v1.2.3, commit unknown (built without VCS info), " + goVer},
		{"no build info", nil, "", "labctl dev, commit unknown (built without VCS info), " + goVer},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.ldver != "" {
				old := version
				version = c.ldver
				defer func() { version = old }()
			}
			if got := readBuildVersion(c.bi, c.bi != nil).String(); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
	// A commit from -ldflags (make build, where Go stamps none: a git
	// worktree, -buildvcs=false); Go's own stamp wins over it.
	oldC, oldT, oldM := vcsCommit, vcsTime, vcsModified
	defer func() { vcsCommit, vcsTime, vcsModified = oldC, oldT, oldM }()
	vcsCommit, vcsTime, vcsModified = "0123456789abcdef0123", "2026-11-30T10:00:00+01:00", "false"
	if got := readBuildVersion(&debug.BuildInfo{}, true).String(); got != "labctl dev, commit 0123456789ab (2026-11-30 09:00:00Z), "+goVer {
		t.Errorf("ldflags commit: %q", got)
	}
	if got := readBuildVersion(stamped, true).String(); !strings.Contains(got, "commit e1070ccb1355") {
		t.Errorf("Go's stamp does not win: %q", got)
	}
	// The command prints it.
	if code, out, _ := runCLI(t, "version"); code != 0 || !strings.HasPrefix(out, "labctl ") || !strings.Contains(out, "commit ") {
		t.Errorf("labctl version: exit %d, %q", code, out)
	}
}
