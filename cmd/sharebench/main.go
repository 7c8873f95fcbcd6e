// Command sharebench runs the same Kafka workload against consumer groups and
// share groups (KIP-932) and reports what each achieved against its
// theoretical ceiling.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runMain(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr))
}

// runMain runs the command line args and returns the exit status. Every
// byte it prints passes through redact (the command's output, its error
// stream and the final error line, which is also bounded): secrets in
// flags, --set values, SHAREBENCH_* variables, URLs and relayed agent
// text are masked on the console too.
func runMain(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	redact.ArgSecrets(args, environ)
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(redact.Writer(stdout))
	root.SetErr(redact.Writer(stderr))
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	switch {
	case code == ExitInterrupted:
		fmt.Fprintln(stderr, "sharebench: interrupted; every broker it started has been stopped")
	case err != nil:
		fmt.Fprintln(stderr, "sharebench:", redact.Relayed(err.Error(), 16<<10))
	}
	return code
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "sharebench",
		Short: "Benchmark Kafka consumer groups against share groups on the same workload",
		Long: "Benchmark Kafka consumer groups against share groups on the same workload.\n\n" +
			exitStatusHelp() + "\nThe manual: docs/start-here.md; every command and exit status: docs/reference/cli.md.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newBenchCmd(), newScenariosCmd(), newCompareCmd(), newReportCmd(), &cobra.Command{
		Use:   "version",
		Short: "Print the sharebench version: module version, VCS revision (dirty when the tree had changes), Go and franz-go versions",
		Args:  cobra.NoArgs,
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), version.Get()) },
	})
	root.AddCommand(newAdviseCmd(), newPocCmd(), newRecommendCmd(), newClusterCmd(), newJarsCmd())
	root.AddCommand(newHistoryCmd())
	root.AddCommand(newK8sCmd(), newAgentCmd(), newAutoscaleCmd())
	markUsageErrors(root)
	return root
}
