package main

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/results"
)

func newReportCmd(app *App) *cobra.Command {
	var f results.Filter
	cmd := &cobra.Command{
		Use:   "report <run-id|latest>",
		Short: "Print a run's report (markdown, self-contained HTML, JSON or JUnit XML)",
		Long: `report renders a stored run to stdout. The same files are written into
results/<run-id>/ when the run finishes: report.md, report.html (one file,
no network access needed), junit.xml and run.json.

  labctl report latest                  markdown
  labctl report latest -o html > r.html
  labctl report 20261129T1200 -o junit  a unique prefix of a run id works`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("md", "md", "html", "json", "junit")
			if err != nil {
				return err
			}
			s, run, err := openRun(app, args[0], f, true)
			if err != nil {
				return err
			}
			defer s.Close()
			switch format {
			case "html":
				mmd, err := readlimit.ReadFile(filepath.Join(app.TopologiesDir(), run.Lab, run.Lab+".mmd"), readlimit.Generated)
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					app.Log.Warn("the report leaves out the topology diagram of lab "+run.Lab, "err", err)
				}
				return results.RenderHTML(run, app.Out, results.HTMLOptions{TopologyMermaid: string(mmd)})
			case "json":
				return results.RenderJSON(run, app.Out)
			case "junit":
				return results.RenderJUnit(run, app.Out)
			default:
				return results.RenderMarkdown(run, app.Out)
			}
		},
	}
	runFilterFlags(cmd, &f)
	return cmd
}
