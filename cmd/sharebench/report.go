package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/results"
)

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "report DIR",
		Short:   "Re-render summary.md and report.html of a campaign folder from the files on disk",
		Example: "  sharebench report sharebench-results/partition-cap-20261129T203145Z",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			camp, runs, err := results.LoadCampaign(dir)
			if err != nil {
				return err
			}
			written, err := results.WriteReports(dir, camp, runs)
			for _, p := range written {
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
			}
			return err
		},
	}
}
