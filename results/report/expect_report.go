package report

import (
	"fmt"
	"io"

	"github.com/sharebench/sharebench/results/runs"
)

// writeExpectations prints the scenario's expectations for the console, one
// line each: "  MET      no record lost: all runs: audit.lost ≤ 0: measured ...".
func writeExpectations(w io.Writer, outs []runs.ExpectationOutcome) {
	if len(outs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", expectationsHeadline(outs))
	for _, o := range outs {
		fmt.Fprintf(w, "  %-8s %s\n", o.Status(), o.Line())
	}
}

// writeMarkdownExpectations is summary.md's "Expectations" section.
func writeMarkdownExpectations(w io.Writer, outs []runs.ExpectationOutcome) {
	if len(outs) == 0 {
		return
	}
	fmt.Fprintln(w, "## Expectations")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s.\n\n", mdText(expectationsHeadline(outs)))
	for _, o := range outs {
		status := "**" + o.Status() + "**"
		fmt.Fprintf(w, "- %s %s\n", status, mdText(o.Line()))
	}
	fmt.Fprintln(w)
}

// runVerdict is the campaign's run verdict in words (what sharebench run
// decides its exit status by: runs.VerdictProblems), for summary.md and
// report.html; "" for a campaign that did not complete (its banner says
// so, and its expectations were not evaluated) or has no runs. A run whose
// record could not be read (camp.Skipped: corrupt, truncated, a run_id
// that disagrees with its folder) is a problem of its own: the verdict
// cannot pass over a run it did not see.
func runVerdict(camp runs.Campaign, recs []runs.Record) (headline string, problems []string) {
	if len(recs) == 0 || camp.Incomplete() != "" {
		return "", nil
	}
	for _, s := range camp.Skipped {
		problems = append(problems, "unreadable run record, left out of every figure: "+s)
	}
	problems = append(problems, runs.VerdictProblems(recs, camp.Expectations)...)
	if len(problems) > 0 {
		how := "sharebench run exits 3 on them; --no-fail exits 0"
		if len(camp.Skipped) > 0 {
			how = "a record that cannot be read is never a pass; sharebench compare exits 2 on it"
		}
		return fmt.Sprintf("Run verdict: FAILED, %d problem(s) (%s)", len(problems), how), problems
	}
	exp := "no expectations declared"
	if n := len(camp.Expectations); n > 0 {
		skipped := 0
		for _, o := range camp.Expectations {
			if o.Skipped {
				skipped++
			}
		}
		exp = fmt.Sprintf("all %d expectation(s) met", n-skipped)
		if skipped > 0 {
			exp += fmt.Sprintf(", %d skipped (no run to check)", skipped)
		}
	}
	return fmt.Sprintf("Run verdict: passed: no record lost, every audit balanced, %s", exp), nil
}

// expectationsHeadline is "expectations: 1 of 2 met", or "expectations: 3
// of 4 met, 1 skipped (no run to check)": a skipped one is not counted as
// checked.
func expectationsHeadline(outs []runs.ExpectationOutcome) string {
	met, skipped := 0, 0
	for _, o := range outs {
		switch {
		case o.Skipped:
			skipped++
		case o.Met:
			met++
		}
	}
	s := fmt.Sprintf("expectations: %d of %d met", met, len(outs)-skipped)
	if skipped > 0 {
		s += fmt.Sprintf(", %d skipped (no run to check)", skipped)
	}
	return s
}
