package main

import (
	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/runtime/clabernetes"
)

// addKubeFlags adds the flags that say which Kubernetes cluster and
// namespace the clabernetes runtime uses. Left out, they come from the
// usual places ($KUBECONFIG or ~/.kube/config and its current context and
// namespace) or, for a lab that is up, from where it was brought up.
func addKubeFlags(cmd *cobra.Command, t *clabernetes.Target) {
	cmd.Flags().StringVar(&t.Kubeconfig, "kubeconfig", "", "clabernetes runtime: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	cmd.Flags().StringVar(&t.Context, "context", "", "clabernetes runtime: kubeconfig context (default: its current context)")
	cmd.Flags().StringVar(&t.Namespace, "namespace", "", "clabernetes runtime: namespace of the lab (default: the context's, else default)")
}
