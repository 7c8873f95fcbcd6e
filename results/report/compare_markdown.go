package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/sharebench/sharebench/results/runs"
)

// writeCompare renders the comparison as a Markdown table per matched run
// spec, then the unmatched runs and the verdict.
func writeCompare(w io.Writer, c runs.Comparison) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# sharebench compare\n\nbaseline `%s` → candidate `%s`", c.Baseline, c.Candidate)
	if len(c.Thresholds) > 0 {
		fmt.Fprintf(bw, "; thresholds %s", c.Thresholds)
	} else {
		fmt.Fprint(bw, "; no thresholds (report only)")
	}
	fmt.Fprint(bw, "\n\n")
	if len(c.Runs) > 0 {
		mdHeader(bw, "---:", "run", "measure", "baseline", "candidate", "change", "baseline noise", "threshold", "status")
		for _, rc := range c.Runs {
			for _, d := range rc.Deltas {
				mdRow(bw, runLabel(rc), d.Measure, num4(d.Baseline), num4(d.Candidate), changeText(d),
					noiseText(d), thresholdText(d), statusText(d))
			}
		}
		fmt.Fprintln(bw)
	}
	for _, id := range c.BaselineOnly {
		fmt.Fprintf(bw, "- unmatched: baseline run %s has no candidate run with the same spec or id\n", id)
	}
	for _, id := range c.CandidateOnly {
		fmt.Fprintf(bw, "- unmatched: candidate run %s has no baseline run with the same spec or id\n", id)
	}
	if len(c.BaselineOnly)+len(c.CandidateOnly) > 0 {
		fmt.Fprintln(bw)
	}
	if c.Failed() {
		fmt.Fprintf(bw, "**FAIL**: %s\n", c.RegressionSummary())
	} else {
		fmt.Fprintf(bw, "**PASS**: %d matched run spec(s), no measure beyond its threshold outside the noise\n", len(c.Runs))
	}
	return bw.Flush()
}

func runLabel(rc runs.RunComparison) string {
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

func noiseText(d runs.Delta) string {
	if d.Noise == nil {
		return "–"
	}
	return num4(d.Noise[0]) + ".." + num4(d.Noise[1])
}

func thresholdText(d runs.Delta) string {
	if d.ThresholdPct == nil {
		return "–"
	}
	return fmt.Sprintf("%+g%%", *d.ThresholdPct)
}

func statusText(d runs.Delta) string {
	if d.Status == runs.StatusRegression {
		return "**" + d.Status + "**"
	}
	return d.Status
}
