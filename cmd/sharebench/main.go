// Command sharebench runs the same Kafka workload against consumer groups and
// share groups (KIP-932) and reports what each achieved against its
// theoretical ceiling.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRoot().ExecuteContext(ctx)
	stop()
	code := exitCode(err)
	switch {
	case code == ExitInterrupted:
		fmt.Fprintln(os.Stderr, "sharebench: interrupted; every broker it started has been stopped")
	case err != nil:
		fmt.Fprintln(os.Stderr, "sharebench:", err)
	}
	os.Exit(code)
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "sharebench",
		Short:         "Benchmark Kafka consumer groups against share groups on the same workload",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newBenchCmd(), newScenariosCmd(), newCompareCmd(), newReportCmd(), &cobra.Command{
		Use:   "version",
		Short: "Print the sharebench version: module version, VCS revision (dirty when the tree had changes), Go and franz-go versions",
		Args:  cobra.NoArgs,
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), version.Get()) },
	})
	root.AddCommand(newAdviseCmd(), newRecommendCmd(), newClusterCmd(), newJarsCmd())
	root.AddCommand(newHistoryCmd())
	root.AddCommand(newK8sCmd(), newAgentCmd())
	markUsageErrors(root)
	return root
}
