package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/spf13/cobra"
)

// regressionError is what compare returns when a correctness gate failed, a
// measure crossed its threshold or (unless allowed) was inconclusive: main
// prints it and exits with status 1 (ExitError).
type regressionError struct {
	cmp runs.Comparison
}

func (e *regressionError) Error() string { return e.cmp.FailureSummary() }

type compareFlags struct {
	thresholds        []string
	thresholdsFile    string
	denyFlags         []string
	allowInconclusive bool
	json              bool
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE",
		Short: "Gate a candidate campaign (or run.json) against a baseline: exit 1 on a broken run or a regression",
		Long: "Matches runs by spec (the trial ignored; run id as a fallback).\n\n" +
			"Correctness gates, always on, fail the comparison (exit status 1) whatever the thresholds:\n" +
			"a run that lost records (audit.lost > 0), whose audit does not balance or whose record is\n" +
			"inconsistent (audit, throughput, destination and autoscale figures recomputed from their counts),\n" +
			"a destination_unreconciled flag (whatever --deny-flags says), a validity flag in --deny-flags,\n" +
			"an expectation NOT MET (recomputed from the run.json files), a run spec present on one side only.\n" +
			"Both campaigns must be complete (campaign.json status \"complete\", or finished_at without a status).\n\n" +
			"Speed figures: throughput, completion p50/p99/p99.9, delivery p99, publish p99 and efficiency.\n" +
			"--threshold MEASURE:N% is the tolerated worsening in percent (a drop for throughput and\n" +
			"efficiency, a rise for latencies). With one trial a side a change beyond it is a regression;\n" +
			"with several trials (repeat) the medians must differ beyond it AND a one-sided Mann-Whitney\n" +
			"test must find the candidate worse at α=0.05; a trial spread wider than the threshold is\n" +
			"INCONCLUSIVE (fails unless --allow-inconclusive). See docs/how-to/gate-ci.md.\n\n" +
			"Exit status: 0 pass, 1 failed gate or regression, 2 bad input or nothing to compare, 130 interrupted.\n" +
			"Measures: " + strings.Join(runs.MeasureNames(), ", ") + " (or the same figures by their run.json path or\n" +
			"runs.csv column, e.g. latency.completion_ms.p99:10%; docs/reference/figures.md).",
		Example: "  sharebench compare baseline/ sharebench-results/partition-cap-20261129T203145Z \\\n" +
			"      --threshold throughput:5% --threshold completion_p99:10%\n" +
			"  sharebench compare base/runs/r02-share/run.json new/runs/r02-share/run.json --json",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("deny-flags") {
				f.denyFlags = runs.CodeStrings(runs.DefaultDenyFlags)
			}
			return runCompare(cmd, args[0], args[1], f)
		},
	}
	cmd.Flags().StringArrayVar(&f.thresholds, "threshold", nil,
		"MEASURE:N% fails the comparison when MEASURE worsens by more than N percent: a drop for throughput and efficiency (0 < N < 100), a rise for latencies, e.g. throughput:5% or completion_p99:10% (repeatable)")
	cmd.Flags().StringVar(&f.thresholdsFile, "thresholds", "", "file with one MEASURE:N% a line (# comments); --threshold flags apply after it")
	cmd.Flags().StringSliceVar(&f.denyFlags, "deny-flags", runs.CodeStrings(runs.DefaultDenyFlags),
		"validity flag codes that fail a run, comma-separated; replaces the default (empty: none). Codes: "+runs.JoinCodes(runs.FlagCodes, ", "))
	cmd.Flags().BoolVar(&f.allowInconclusive, "allow-inconclusive", false, "report measures whose trial spread is wider than the threshold without failing")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the comparison as JSON instead of Markdown")
	return cmd
}

func (f compareFlags) parse() (runs.Thresholds, error) {
	th := runs.Thresholds{}
	if f.thresholdsFile != "" {
		if err := runs.ReadThresholds(f.thresholdsFile, th); err != nil {
			return nil, err
		}
	}
	for _, s := range f.thresholds {
		if err := th.Add(s); err != nil {
			return nil, fmt.Errorf("--threshold: %w", err)
		}
	}
	if err := runs.CheckDenyFlags(runs.Codes(f.denyFlags)); err != nil {
		return nil, fmt.Errorf("--deny-flags: %w", err)
	}
	return th, nil
}

func runCompare(cmd *cobra.Command, basePath, candPath string, f compareFlags) error {
	th, err := f.parse()
	if err != nil {
		return usageError(err)
	}
	base, err := runs.LoadSide(basePath)
	if err != nil {
		return usageError(fmt.Errorf("baseline %s: %w", basePath, err))
	}
	cand, err := runs.LoadSide(candPath)
	if err != nil {
		return usageError(fmt.Errorf("candidate %s: %w", candPath, err))
	}
	cmp := runs.CompareSides(base, cand, runs.CompareOptions{Thresholds: th, DenyFlags: runs.Codes(f.denyFlags),
		AllowInconclusive: f.allowInconclusive})
	out := cmd.OutOrStdout()
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(cmp)
	} else {
		err = report.Compare(cmp)(out)
	}
	if err != nil {
		return err
	}
	if cmp.Empty() {
		return usageError(fmt.Errorf("nothing to compare: no run of candidate %s matches a run of baseline %s by spec or run id (%d baseline run(s), %d candidate run(s)); compare campaigns of the same scenario",
			candPath, basePath, len(base.Runs), len(cand.Runs)))
	}
	if cmp.Failed() {
		return &regressionError{cmp: cmp}
	}
	return nil
}
