package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharebench/sharebench/results/report"
	"github.com/spf13/cobra"
)

func newHistoryCmd() *cobra.Command {
	opts := report.HistoryOptions{Window: 5, ThresholdPercent: 10}
	out := "."
	cmd := &cobra.Command{
		Use:   "history DIR...",
		Short: "Chart figures of campaign folders over time: history.html and history.csv, with a noise band and regressions marked",
		Long: `history reads campaign folders (or folders holding them, searched recursively)
and writes history.html and history.csv into --out: for each scenario and run
(the run id, e.g. r01-consumer) one chart per figure across the campaigns, in
the order they started (campaign.json started_at), with the VCS revision where
campaign.json records one.

A figure is any name of docs/figures.md: a dotted run.json path or an alias
such as completion_p99 (default: throughput.completed_per_sec,
latency.completion_ms.p99 and resources.broker_percent where recorded). The
noise band is the min–max of the last --window points; a point is marked a
regression when it is worse than the previous point by more than --threshold
percent, worse being the direction the figure registry declares (lower
throughput and efficiency, higher latency, CPU, memory and lag).`,
		Example: "  sharebench history sharebench-results/\n" +
			"  sharebench history --out history/ --figure latency.delivery_ms.p99 sharebench-results/smoke-*",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := report.FindCampaigns(args)
			if err != nil {
				return err
			}
			var camps []report.HistoryCampaign
			for _, d := range dirs {
				c, err := report.LoadHistoryCampaign(d, out)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "skipping %s: %v\n", d, err)
					continue
				}
				camps = append(camps, c)
			}
			if len(camps) == 0 {
				return fmt.Errorf("no campaign could be read")
			}
			h, err := report.BuildHistory(camps, opts)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			for _, f := range []struct {
				name string
				r    report.Reporter
			}{{"history.html", report.HistoryHTML(h)}, {"history.csv", report.HistoryCSV(h)}} {
				p := filepath.Join(out, f.name)
				if err := f.r.WriteFile(p); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", p)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d campaign(s), %d series\n", len(camps), len(h.Series))
			for _, line := range h.Regressions() {
				fmt.Fprintln(cmd.OutOrStdout(), "regression:", line)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", out, "folder to write history.html and history.csv into")
	cmd.Flags().StringArrayVar(&opts.Figures, "figure", nil, "figure to chart, a run.json path or alias (repeatable; default "+
		"throughput.completed_per_sec, latency.completion_ms.p99, resources.broker_percent)")
	cmd.Flags().IntVar(&opts.Window, "window", opts.Window, "points in the noise band (min–max of the last N)")
	cmd.Flags().Float64Var(&opts.ThresholdPercent, "threshold", opts.ThresholdPercent, "percent worse than the previous point that marks a regression")
	return cmd
}
