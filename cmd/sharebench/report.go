package main

import (
	"fmt"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "report DIR",
		Short:   "Re-render summary.md and report.html of a campaign folder from the files on disk",
		Example: "  sharebench report sharebench-results/partition-cap-20261129T203145Z",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			camp, recs, err := runs.LoadCampaign(dir)
			if err != nil {
				return err
			}
			written, err := report.WriteFiles(dir, camp, recs)
			for _, p := range written {
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
			}
			return err
		},
	}
}
