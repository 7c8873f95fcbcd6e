package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/sharebench/sharebench/results/runs"
)

// writeCompare renders the comparison as a Markdown table per matched run
// spec, then the correctness failures, the unmatched runs and the verdict.
func writeCompare(w io.Writer, c runs.Comparison) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# sharebench compare\n\nbaseline `%s` → candidate `%s`", c.Baseline, c.Candidate)
	if len(c.Thresholds) > 0 {
		fmt.Fprintf(bw, "; thresholds %s", c.Thresholds)
	} else {
		fmt.Fprint(bw, "; no thresholds (speed figures reported only)")
	}
	fmt.Fprintf(bw, "; denied validity flags: %s", orNone(c.DenyFlags))
	fmt.Fprint(bw, "\n\n")
	if len(c.Runs) > 0 {
		mdHeader(bw, "---:", "run", "measure", "baseline", "candidate", "change", "threshold", "status", "how")
		for _, rc := range c.Runs {
			for _, d := range rc.Deltas {
				mdRow(bw, runLabel(rc), d.Measure, sideCell(d.Baseline, d.BaselineRange, len(rc.BaselineRuns)),
					sideCell(d.Candidate, d.CandidateRange, len(rc.CandidateRuns)), changeText(d),
					thresholdText(d), statusText(d), d.Note)
			}
		}
		fmt.Fprintln(bw)
		if multi(c) {
			fmt.Fprintln(bw, "With several trials: median (min–max). REGRESSION needs the change beyond the threshold and a one-sided")
			fmt.Fprintf(bw, "Mann-Whitney test at α=%g; INCONCLUSIVE when the trial spread is wider than the threshold.\n\n", c.Alpha)
		}
	}
	if len(c.Failures) > 0 {
		fmt.Fprintln(bw, "Correctness gates failed:")
		for _, f := range c.Failures {
			fmt.Fprintf(bw, "- %s\n", f)
		}
		fmt.Fprintln(bw)
	}
	if len(c.Inconclusive) > 0 {
		fmt.Fprintln(bw, "Inconclusive:")
		for _, f := range c.Inconclusive {
			fmt.Fprintf(bw, "- %s\n", f)
		}
		fmt.Fprintln(bw)
	}
	switch {
	case c.Empty():
		fmt.Fprintf(bw, "**NOTHING TO COMPARE**: no run spec of the candidate matches one of the baseline\n")
	case c.Failed():
		fmt.Fprintf(bw, "**FAIL**: %d correctness failure(s), %d regression(s), %d inconclusive\n",
			len(c.Failures), len(c.Regressions), len(c.Inconclusive))
		for _, r := range c.Regressions {
			fmt.Fprintf(bw, "- REGRESSION %s\n", r)
		}
	default:
		fmt.Fprintf(bw, "**PASS**: %d matched run spec(s), every correctness gate passed, no measure beyond its threshold", len(c.Runs))
		if len(c.Inconclusive) > 0 {
			fmt.Fprintf(bw, " (%d inconclusive, allowed)", len(c.Inconclusive))
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}

func orNone(v []runs.Code) string {
	if len(v) == 0 {
		return "none"
	}
	return runs.JoinCodes(v, ", ")
}

func multi(c runs.Comparison) bool {
	for _, rc := range c.Runs {
		if len(rc.BaselineRuns) > 1 || len(rc.CandidateRuns) > 1 {
			return true
		}
	}
	return false
}

// sideCell is the value of one trial, or "median (min–max)" of several.
func sideCell(median float64, rng [2]float64, n int) string {
	if n <= 1 {
		return num4(median)
	}
	return fmt.Sprintf("%s (%s–%s)", num4(median), num4(rng[0]), num4(rng[1]))
}

func runLabel(rc runs.PairedRuns) string {
	label := rc.Run
	if len(rc.BaselineRuns) > 1 || len(rc.CandidateRuns) > 1 {
		label += fmt.Sprintf(" (%d vs %d trials)", len(rc.BaselineRuns), len(rc.CandidateRuns))
	}
	if rc.MatchedBy == runs.MatchedByRunID {
		label += " (by run id)"
	}
	return label
}

func num4(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

func changeText(d runs.Delta) string {
	if d.ChangePct == nil {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", *d.ChangePct)
}

func thresholdText(d runs.Delta) string {
	if d.ThresholdPct == nil {
		return "–"
	}
	return fmt.Sprintf("%+g%%", *d.ThresholdPct)
}

func statusText(d runs.Delta) string {
	if d.Status == runs.StatusRegression || d.Status == runs.StatusInconclusive {
		return "**" + d.Status + "**"
	}
	return d.Status
}
