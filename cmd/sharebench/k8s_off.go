//go:build !k8s

// The default build leaves the Kubernetes launcher out (k8s.go, build tag
// k8s): it links client-go, which is most of what a build would otherwise
// compile, and only --distribute k8s and the k8s subcommands use it. Here both
// stay known, and each says how to build the binary that has them.

package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/campaign/shard"
)

// k8sBuilt: this binary has the Kubernetes launcher.
const k8sBuilt = false

func init() {
	launchers["k8s"] = func(distributeFlags) (shard.Launcher, error) {
		return nil, usageError(errors.New("--distribute k8s: " + k8sNotBuilt))
	}
}

// newK8sCmd is the k8s command without its subcommands: whatever follows it,
// it says how to build the binary that has them (its flags are not checked
// here: they belong to the k8s build).
func newK8sCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "k8s",
		Short:              "Kubernetes: render the agents' manifests; write the agent image's root file system (needs a build with -tags k8s)",
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return usageError(errors.New("k8s: " + k8sNotBuilt))
		},
	}
}
