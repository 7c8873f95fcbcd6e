package results

import (
	"fmt"
	"io"
	"strings"
)

// MeasuredText lists an outcome's measured values: "r01-consumer 0.95,
// r03-consumer 0.82 ✗" (✗ marks a value outside the bounds).
func (o ExpectationOutcome) MeasuredText() string {
	parts := make([]string, 0, len(o.Measured))
	for _, m := range o.Measured {
		s := fmt.Sprintf("%s %.4g", m.Run, m.Value)
		if !m.Met {
			s += " ✗"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "nothing measured"
	}
	return strings.Join(parts, ", ")
}

// Status is "MET" or "NOT MET".
func (o ExpectationOutcome) Status() string {
	if o.Met {
		return "MET"
	}
	return "NOT MET"
}

// line is the outcome in one line after its status: name, claim, measured
// values and, when not met, why.
func (o ExpectationOutcome) line() string {
	s := fmt.Sprintf("%s: %s: measured %s", o.Name, o.Claim, o.MeasuredText())
	if !o.Met && o.Detail != "" {
		s += " (" + o.Detail + ")"
	}
	return s
}

// WriteExpectations prints the scenario's expectations for the console, one
// line each: "  MET      no record lost: all runs: audit.lost ≤ 0: measured ...".
func WriteExpectations(w io.Writer, outs []ExpectationOutcome) {
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
		fmt.Fprintf(w, "  %-8s %s\n", o.Status(), o.line())
	}
}

// writeMarkdownExpectations is summary.md's "Expectations" section.
func writeMarkdownExpectations(w io.Writer, outs []ExpectationOutcome) {
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
		fmt.Fprintf(w, "- %s %s\n", status, o.line())
	}
	fmt.Fprintln(w)
}
