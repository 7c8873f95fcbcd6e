package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sharebench/sharebench/results/runs"
)

// maxRateHeader is the column row of a max-rate step table.
var maxRateHeader = []string{"step", "offered/s", "completed/s", "completed ratio", "p99 ms", "result", "why", "flags"}

func maxRateCells(i int, s runs.MaxRateStep) []string {
	result := "pass"
	if !s.Pass {
		result = "FAIL"
	}
	step := fmt.Sprint(i + 1)
	if s.Retry {
		step += " (retry)"
	}
	return []string{step, fmt.Sprintf("%.6g", s.OfferedPerSec), fmt.Sprintf("%.1f", s.CompletedPerSec),
		fmt.Sprintf("%.4f", s.CompletedRatio), fmt.Sprintf("%.1f", s.P99Ms), result, s.Why, runs.JoinCodes(s.Flags, ",")}
}

// writeMaxRate prints every max-rate run's step table and found rate.
func writeMaxRate(w io.Writer, recs []runs.Record) error {
	for _, r := range recs {
		if r.MaxRate == nil {
			continue
		}
		fmt.Fprintf(w, "\nmax-rate search %s\n", r.RunID)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(maxRateHeader, "\t"))
		for i, s := range r.MaxRate.Steps {
			fmt.Fprintln(tw, strings.Join(maxRateCells(i, s), "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, r.MaxRate.Line(r.RunID))
	}
	return nil
}

// writeRecommendations prints the campaign's recommendations.
func writeRecommendations(w io.Writer, recs []runs.Recommendation) {
	for _, rec := range recs {
		fmt.Fprintf(w, "\nrecommendation: %s\n", runs.QueryText(rec.Query))
		for _, l := range rec.Lines() {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

func writeMarkdownMaxRate(w io.Writer, recs []runs.Record) {
	for _, r := range recs {
		if r.MaxRate == nil {
			continue
		}
		fmt.Fprintf(w, "## Max-rate search: %s\n\n", r.RunID)
		fmt.Fprintf(w, "%s\n\n", r.MaxRate.Line(r.RunID))
		mdHeader(w, "---:", maxRateHeader...)
		for i, s := range r.MaxRate.Steps {
			mdRow(w, maxRateCells(i, s)...)
		}
		fmt.Fprintln(w)
	}
}

func writeMarkdownRecommendations(w io.Writer, recs []runs.Recommendation) {
	for _, rec := range recs {
		fmt.Fprintf(w, "## Recommendation: %s\n\n", runs.QueryText(rec.Query))
		for _, g := range rec.Groups {
			best := "**none qualifies**"
			if g.Best != "" {
				best = fmt.Sprintf("**%s=%s** (%s %.4g)", rec.Query.Knob, g.Best, rec.Query.Maximize, g.Figure)
				if len(g.Tied) > 0 {
					best += ", tied with " + strings.Join(g.Tied, ", ")
				}
			}
			fmt.Fprintf(w, "- %s: %s\n", g.Label, best)
			for _, c := range g.Candidates {
				if !c.Qualifies() {
					fmt.Fprintf(w, "  - %s=%s excluded by %s\n", rec.Query.Knob, c.Value, strings.Join(c.Excluded, "; "))
				}
			}
		}
		fmt.Fprintln(w)
	}
}

// htmlMaxRate is report.html's max-rate section of one run: the step table
// and two charts over the offered rate, completed records/s (with the
// offered line and the pass bound completed_ratio × offered) and completion
// p99 (with its bound); a step that was retried is drawn by its retry.
type htmlMaxRate struct {
	RunID  string
	Line   string
	Header []string
	Rows   [][]string
	Charts []chart
}

func maxRateSections(recs []runs.Record) []htmlMaxRate {
	var out []htmlMaxRate
	for _, r := range recs {
		m := r.MaxRate
		if m == nil || len(m.Steps) == 0 {
			continue
		}
		sec := htmlMaxRate{RunID: r.RunID, Line: m.Line(r.RunID), Header: maxRateHeader}
		var offered, completed, threshold, p99, bound nums
		for i, s := range m.Steps {
			sec.Rows = append(sec.Rows, maxRateCells(i, s))
			if i+1 < len(m.Steps) && m.Steps[i+1].Retry {
				continue // the chart shows the attempt that decided the step
			}
			offered = append(offered, s.OfferedPerSec)
			completed = append(completed, s.CompletedPerSec)
			threshold = append(threshold, m.Criteria.CompletedRatio*s.OfferedPerSec)
			p99 = append(p99, s.P99Ms)
			bound = append(bound, m.Criteria.P99BoundMs)
		}
		sec.Charts = append(sec.Charts, chart{Title: "completed vs offered, " + r.RunID, Kind: kindXY,
			XLabel: "offered records/s", YLabel: "records/s", Series: []chartSeries{
				{Label: "completed", Color: palette[0], X: offered, Y: completed},
				{Label: "offered", Color: "#999", Dash: true, X: offered, Y: offered},
				{Label: "pass bound", Color: palette[1], Dash: true, X: offered, Y: threshold},
			}})
		sec.Charts = append(sec.Charts, chart{Title: "completion p99 vs offered, " + r.RunID, Kind: kindXY,
			XLabel: "offered records/s", YLabel: "ms", Series: []chartSeries{
				{Label: "completion p99", Color: palette[0], X: offered, Y: p99},
				{Label: "p99 bound", Color: palette[1], Dash: true, X: offered, Y: bound},
			}})
		out = append(out, sec)
	}
	return out
}
