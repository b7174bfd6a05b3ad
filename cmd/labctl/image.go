package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/runtime/clab/hostimage"
)

func newImageCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "image",
		Short: "Build the container images labs use",
	}
	cmd.AddCommand(newImageBuildCmd(app))
	return cmd
}

func newImageBuildCmd(app *App) *cobra.Command {
	var o hostimage.Options
	var method string
	cmd := &cobra.Command{
		Use:   "build [--method auto|dockerfile|debootstrap] [--tag labctl/rdma-host:latest]",
		Short: "Build the RDMA host image (Debian 12, rdma-core, perftest, iproute2, …)",
		Long: `build makes the host image of containerlab labs: Debian 12 with rdma-core,
ibverbs-utils, perftest, iproute2, ethtool, lldpd and iputils-ping.

--method auto (the default) builds from images/host/Dockerfile when the base
image is present or a registry serves it, and otherwise from Debian packages
alone: debootstrap --variant=minbase into a directory, then docker import.
debootstrap needs root and takes a few minutes. Progress goes to stderr.`,
		Example: `  labctl image build
  sudo labctl image build --method debootstrap --mirror http://deb.debian.org/debian`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			o.Method = hostimage.Method(method)
			if err := o.Validate(); err != nil {
				return err
			}
			o.Progress = app.Err
			used, err := hostimage.Build(cmd.Context(), hostimage.ExecTools{}, o)
			if err != nil {
				return err
			}
			if o.Tag == "" {
				o.Tag = hostimage.DefaultTag
			}
			if format == "json" {
				return json.NewEncoder(app.Out).Encode(map[string]string{"tag": o.Tag, "method": string(used)})
			}
			fmt.Fprintf(app.Out, "built %s (%s)\n", o.Tag, used)
			return nil
		},
	}
	cmd.Flags().StringVar(&method, "method", string(hostimage.Auto), "auto, dockerfile or debootstrap")
	cmd.Flags().StringVar(&o.Tag, "tag", hostimage.DefaultTag, "image tag to build")
	cmd.Flags().StringVar(&o.Base, "base", hostimage.DefaultBase, "base image of the dockerfile method")
	cmd.Flags().StringVar(&o.Suite, "suite", hostimage.DefaultSuite, "Debian suite of the debootstrap method")
	cmd.Flags().StringVar(&o.Mirror, "mirror", hostimage.DefaultMirror, "Debian mirror of the debootstrap method")
	return cmd
}
