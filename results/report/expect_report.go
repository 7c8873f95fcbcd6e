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
	met := 0
	for _, o := range outs {
		if o.Met {
			met++
		}
	}
	fmt.Fprintf(w, "\nexpectations: %d of %d met\n", met, len(outs))
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
	for _, o := range outs {
		status := "**MET**"
		if !o.Met {
			status = "**NOT MET**"
		}
		fmt.Fprintf(w, "- %s %s\n", status, o.Line())
	}
	fmt.Fprintln(w)
}
