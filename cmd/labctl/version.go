package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newVersionCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print labctl's version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			v := version
			commit := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						commit = s.Value
					}
				}
			}
			if format == "json" {
				return json.NewEncoder(app.Out).Encode(map[string]string{"version": v, "commit": commit, "go": runtime.Version()})
			}
			fmt.Fprintf(app.Out, "labctl %s %s (%s)\n", v, commit, runtime.Version())
			return nil
		},
	}
}
