package main

import (
	"fmt"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Re-render summary.md and report.html of a campaign folder from the files on disk",
		Long: "Re-render summary.md, report.html and runs.csv of a campaign folder from its run.json files. " +
			"A campaign that did not complete (status running, interrupted or failed in campaign.json) is rendered " +
			"with an INCOMPLETE CAMPAIGN banner; run folders without a valid run.json are skipped with a message. " +
			"A proof of concept's folder (sharebench poc) keeps its decision.json's section at the top of report.html.",
		Example: "  sharebench report sharebench-results/partition-cap-20261129T203145Z",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			camp, recs, err := runs.LoadCampaign(dir)
			for _, s := range camp.Skipped {
				fmt.Fprintln(cmd.ErrOrStderr(), "skipped:", s)
			}
			if err != nil {
				return usageError(err) // no such folder, no readable run: bad input (docs/how-to/gate-ci.md)
			}
			if banner := camp.Incomplete(); banner != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", banner, dir)
			}
			written, err := report.WriteFiles(dir, camp, recs)
			for _, p := range written {
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
			}
			if err != nil {
				return err
			}
			// A proof of concept's folder keeps its decision at the top.
			d, ok, err := readDecision(dir)
			if ok {
				err = writeDecisionReport(dir, d)
			}
			return err
		},
	}
}
