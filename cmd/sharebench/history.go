package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/spf13/cobra"
)

func newHistoryCmd() *cobra.Command {
	opts := report.HistoryOptions{Window: 5, ThresholdPercent: 10}
	out := "."
	includeIncomplete := false
	cmd := &cobra.Command{
		Use:   "history DIR...",
		Short: "Chart figures of campaign folders over time: history.html and history.csv, with a noise band and regressions marked",
		Long: `history reads campaign folders (or folders holding them, searched recursively)
and writes history.html and history.csv into --out: for each scenario and run
(the run id, e.g. r01-consumer) one chart per figure across the campaigns, in
the order they started (campaign.json started_at), with the VCS revision where
campaign.json records one.

A figure is any name of docs/reference/figures.md: a dotted run.json path or an alias
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
			if opts.Window < 1 {
				return usageError(fmt.Errorf("--window %d: expected a number of points ≥ 1", opts.Window))
			}
			if t := opts.ThresholdPercent; math.IsNaN(t) || math.IsInf(t, 0) || t <= 0 || t >= 1000 {
				return usageError(fmt.Errorf("--threshold %g: expected a percentage > 0 and < 1000", t))
			}
			dirs, err := report.FindCampaigns(args)
			if err != nil {
				return usageError(err) // bad input, as docs/how-to/gate-ci.md says
			}
			var camps []report.HistoryCampaign
			var leftOut []string // on stderr now, and on history.html
			note := func(format string, a ...any) {
				line := fmt.Sprintf(format, a...)
				leftOut = append(leftOut, line)
				fmt.Fprintln(cmd.ErrOrStderr(), line)
			}
			for _, d := range dirs {
				c, err := report.LoadHistoryCampaign(d, out)
				if err != nil {
					note("skipping %s: %v", d, err)
					continue
				}
				for _, sk := range c.Camp.Skipped {
					note("corrupt run left out: %s", sk)
				}
				if st := c.Camp.EffectiveStatus(); st != runs.StatusComplete && !includeIncomplete {
					note("excluded %s: status %s (only complete campaigns are points; --include-incomplete draws them)", d, st)
					continue
				}
				camps = append(camps, c)
			}
			if len(camps) == 0 {
				return usageError(fmt.Errorf("nothing to draw: none of the %d campaign folder(s) is a complete campaign that could be read (each is listed above with why; --include-incomplete draws incomplete ones)", len(dirs)))
			}
			h, err := report.BuildHistory(camps, opts)
			if err != nil {
				return usageError(err) // a figure no run has, or no figure of that name
			}
			h.LeftOut = leftOut
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
	cmd.Flags().BoolVar(&includeIncomplete, "include-incomplete", false, "also draw campaigns whose status is not complete (running, interrupted, failed)")
	cmd.Flags().IntVar(&opts.Window, "window", opts.Window, "points in the noise band (min–max of the last N)")
	cmd.Flags().Float64Var(&opts.ThresholdPercent, "threshold", opts.ThresholdPercent, "percent worse than the previous point that marks a regression")
	return cmd
}
