package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/spf13/cobra"
)

// regressionError is what compare returns when a measure crossed its
// threshold outside the noise: main prints it and exits with status 1, the
// same status as any other error (it does not wrap context.Canceled, so it
// never becomes 130).
type regressionError struct {
	cmp runs.Comparison
}

func (e *regressionError) Error() string { return e.cmp.RegressionSummary() }

type compareFlags struct {
	thresholds     []string
	thresholdsFile string
	json           bool
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE",
		Short: "Compare a candidate campaign (or run.json) with a baseline; exit 1 on a regression beyond a threshold",
		Long: "Matches runs by spec (the trial ignored; run id as a fallback) and prints the change of\n" +
			"throughput, completion p50/p99/p99.9, delivery p99, publish p99 and efficiency.\n" +
			"A measure beyond its threshold fails the comparison (exit status 1) unless the\n" +
			"candidate lies inside the baseline's noise band (baseline trials of the same spec).\n" +
			"Measures: " + strings.Join(runs.MeasureNames(), ", "),
		Example: "  sharebench compare baseline/ sharebench-results/partition-cap-20261129T203145Z \\\n" +
			"      --threshold throughput:-5% --threshold completion_p99:+10%\n" +
			"  sharebench compare base/runs/r02-share/run.json new/runs/r02-share/run.json --json",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd, args[0], args[1], f)
		},
	}
	cmd.Flags().StringArrayVar(&f.thresholds, "threshold", nil,
		"MEASURE:±N% that fails the comparison, e.g. throughput:-5% or completion_p99:+10% (repeatable)")
	cmd.Flags().StringVar(&f.thresholdsFile, "thresholds", "", "file with one MEASURE:±N% a line (# comments)")
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
	return th, nil
}

func runCompare(cmd *cobra.Command, basePath, candPath string, f compareFlags) error {
	th, err := f.parse()
	if err != nil {
		return err
	}
	base, err := runs.LoadRuns(basePath)
	if err != nil {
		return fmt.Errorf("baseline %s: %w", basePath, err)
	}
	cand, err := runs.LoadRuns(candPath)
	if err != nil {
		return fmt.Errorf("candidate %s: %w", candPath, err)
	}
	cmp := runs.Compare(base, cand, th)
	cmp.Baseline, cmp.Candidate = basePath, candPath
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
	if cmp.Failed() {
		return &regressionError{cmp: cmp}
	}
	return nil
}
