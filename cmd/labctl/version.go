package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/sim"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// The commit can be given with -ldflags too (make build does): Go stamps
// vcs.revision only where .git is a directory, so not in a git worktree,
// and not with -buildvcs=false. Go's own stamp wins where there is one.
var (
	vcsCommit   string
	vcsTime     string
	vcsModified string // "true" or "false"
)

// buildVersion is what the binary knows of its build: the -ldflags
// version, and the git commit Go stamps into a binary built with go build
// in a git checkout (vcs.revision, vcs.time, vcs.modified). go run and go
// test leave the VCS stamp out, and so does -buildvcs=false.
type buildVersion struct {
	// SchemaVersion is the shape's version, as every -o json output has.
	SchemaVersion int    `json:"schema_version"`
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	Time          string `json:"commit_time,omitempty"`
	Modified      bool   `json:"modified,omitempty"`
	Go            string `json:"go"`
	// SimRevision is the simulator's revision (sim.Revision), which the
	// run records carry and regress compares.
	SimRevision int `json:"sim_revision"`
}

func readBuildVersion(bi *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{SchemaVersion: 1, Version: version, Go: runtime.Version(), SimRevision: sim.Revision}
	stamp := map[string]string{}
	if ok && bi != nil {
		for _, s := range bi.Settings {
			stamp[s.Key] = s.Value
		}
		// A module version (go install ...@v1.2.3) is a version too,
		// where no -ldflags gave one.
		if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
	}
	if stamp["vcs.revision"] == "" {
		// Go stamped no commit: what -ldflags gave, if anything.
		stamp = map[string]string{"vcs.revision": vcsCommit, "vcs.time": vcsTime, "vcs.modified": vcsModified}
	}
	v.Commit, v.Time, v.Modified = stamp["vcs.revision"], stamp["vcs.time"], stamp["vcs.modified"] == "true"
	return v
}

// String is the one line labctl version prints.
func (v buildVersion) String() string {
	if v.Commit == "" {
		return fmt.Sprintf("labctl %s, commit unknown (built without VCS info), %s, simulator revision %d", v.Version, v.Go, v.SimRevision)
	}
	commit := v.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	var about []string
	if t, err := time.Parse(time.RFC3339, v.Time); err == nil {
		about = append(about, t.UTC().Format("2006-01-02 15:04:05Z"))
	}
	if v.Modified {
		about = append(about, "with uncommitted changes")
	}
	if len(about) > 0 {
		commit += " (" + strings.Join(about, ", ") + ")"
	}
	return fmt.Sprintf("labctl %s, commit %s, %s, simulator revision %d", v.Version, commit, v.Go, v.SimRevision)
}

func newVersionCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print labctl's version",
		Long: `version prints labctl's version and the git commit it was built from (with
its time, and whether the checkout had uncommitted changes), as go build
stamps them into the binary in a git checkout, and the revision of its
simulator, which every run record carries (sim_revision): the same lab,
configs, scenario and seed give the same figures under one revision, and
regress names a revision that differs between a baseline and a run. go
run and binaries built with -buildvcs=false have no commit.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			v := readBuildVersion(debug.ReadBuildInfo())
			if format == "json" {
				return json.NewEncoder(app.Out).Encode(v)
			}
			_, err = fmt.Fprintln(app.Out, v)
			return err
		},
	}
}
