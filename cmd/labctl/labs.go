package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/lab"
)

func newLabsCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "labs",
		Short: "List the catalog labs",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json")
			if err != nil {
				return err
			}
			specs := lab.Catalog()
			if format == "json" {
				return writeJSON(app.Out, map[string]any{"schema_version": 1, "labs": specs})
			}
			tw := tabwriter.NewWriter(app.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tGPUS\tNOS\tRUNTIME\tDESCRIPTION")
			for _, s := range specs {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", s.Name, s.Sizing.GPUs, s.NOS, s.Runtime, s.Description)
			}
			fmt.Fprintln(tw, "\nAny command that takes a lab also takes the path of your own spec file.")
			return tw.Flush()
		},
	}
}
