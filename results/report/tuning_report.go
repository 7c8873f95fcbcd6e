package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sharebench/sharebench/results/runs"
)

// maxRateHeader is the column row of a max-rate step table.
var maxRateHeader = []string{"step", "probe", "offered/s", "completed/s", "completed ratio", "p50 ms", "p99 ms", "result", "why", "flags"}

func maxRateCells(i int, s runs.MaxRateStep) []string {
	result := "pass"
	if !s.Pass {
		result = "FAIL"
	}
	step := fmt.Sprint(i + 1)
	if s.Retry {
		step += " (retry)"
	}
	probe := s.Probe
	if probe == "" {
		probe = runs.ProbeSchedule
	}
	return []string{step, probe, fmt.Sprintf("%.6g", s.OfferedPerSec), fmt.Sprintf("%.1f", s.CompletedPerSec),
		fmt.Sprintf("%.4f", s.CompletedRatio), fmt.Sprintf("%.1f", s.P50Ms), fmt.Sprintf("%.1f", s.P99Ms), result, s.Why, runs.JoinCodes(s.Flags, ",")}
}

// ratePoint is one offered rate of a max-rate search on its curve: the
// last measurement at that rate (a retry or a confirmation replaces the
// attempt before it).
type ratePoint struct {
	offered, completed, ratio, p50, p99 float64
}

// rateCurve is a search's measurements as a curve over the offered rate,
// in rising order, one point per rate.
func rateCurve(m *runs.MaxRateResult) []ratePoint {
	last := map[float64]runs.MaxRateStep{}
	for _, s := range m.Steps {
		last[s.OfferedPerSec] = s
	}
	out := make([]ratePoint, 0, len(last))
	for rate, s := range last {
		out = append(out, ratePoint{offered: rate, completed: s.CompletedPerSec, ratio: s.CompletedRatio, p50: s.P50Ms, p99: s.P99Ms})
	}
	slices.SortFunc(out, func(a, b ratePoint) int { return cmp.Compare(a.offered, b.offered) })
	return out
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
// p99 (with its bound); each rate is drawn by its last measurement (a
// retry or a confirmation replaces the attempt before it).
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
		for i, s := range m.Steps {
			sec.Rows = append(sec.Rows, maxRateCells(i, s))
		}
		var offered, completed, threshold, p99, bound nums
		for _, p := range rateCurve(m) {
			offered = append(offered, p.offered)
			completed = append(completed, p.completed)
			threshold = append(threshold, m.Criteria.CompletedRatio*p.offered)
			p99 = append(p99, p.p99)
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

// rateLatencyCharts are report.html's rate–latency curve of every max-rate
// run of a campaign on shared axes (a consumer group and a share group side
// by side): completion p50 and p99 against the offered rate, and completed
// ÷ offered against it with the pass bound. Each run's knee, its found
// rate, is a marker on its curves, and the capacity formula's ceiling a
// dashed vertical line in the run's colour. Nil without a max-rate run.
func rateLatencyCharts(recs []runs.Record) []chart {
	lat := chart{Title: "rate–latency curve: completion p50 (dashed) and p99 vs offered rate (log scale)", Kind: kindXY, YLog: true,
		XLabel: "offered records/s", YLabel: "ms"}
	done := chart{Title: "completed ÷ offered vs offered rate", Kind: kindXY, XLabel: "offered records/s", YLabel: "ratio"}
	var allX nums
	bound := math.NaN()
	for i, r := range recs {
		m := r.MaxRate
		if m == nil || len(m.Steps) == 0 {
			continue
		}
		color := palette[i%len(palette)]
		var x, p50, p99, ratio nums
		for _, p := range rateCurve(m) {
			// A log scale has no 0: a latency not read (records from
			// before p50 was kept) is a gap, not a point.
			x, p50, p99, ratio = append(x, p.offered), append(p50, positive(p.p50)), append(p99, positive(p.p99)), append(ratio, p.ratio)
			if m.FoundRate > 0 && p.offered == m.FoundRate {
				knee := fmt.Sprintf("%s knee: %.6g/s found", r.RunID, m.FoundRate)
				lat.Series = append(lat.Series, chartSeries{Label: knee, Color: color, Points: true, X: nums{p.offered}, Y: nums{positive(p.p99)}})
				done.Series = append(done.Series, chartSeries{Label: knee, Color: color, Points: true, X: nums{p.offered}, Y: nums{p.ratio}})
			}
		}
		allX = append(allX, x...)
		bound = m.Criteria.CompletedRatio
		lat.Series = append(lat.Series,
			chartSeries{Label: r.RunID + " p99", Color: color, X: x, Y: p99},
			chartSeries{Label: r.RunID + " p50", Color: color, Dash: true, X: x, Y: p50})
		done.Series = append(done.Series, chartSeries{Label: r.RunID, Color: color, X: x, Y: ratio})
		if c := m.CeilingPerSec; c > 0 {
			allX = append(allX, c) // the pass bound's line reaches the ceiling, so it is on the x scale
			ceil := chartBand{Name: "ceiling-" + r.RunID, Label: fmt.Sprintf("%s formula ceiling %.6g/s", r.RunID, c),
				Color: color, Start: c, End: c, Row: len(lat.Bands)}
			lat.Bands = append(lat.Bands, ceil)
			done.Bands = append(done.Bands, ceil)
		}
	}
	if len(allX) == 0 {
		return nil
	}
	slices.Sort(allX)
	allX = slices.Compact(allX)
	line := make(nums, len(allX))
	for i := range line {
		line[i] = bound
	}
	done.Series = append(done.Series, chartSeries{Label: "pass bound (completed_ratio)", Color: "#999", Dash: true, X: allX, Y: line})
	return []chart{lat, done}
}

// positive is v, or NaN (no point: null in the chart's JSON) when v ≤ 0.
func positive(v float64) float64 {
	if v > 0 {
		return v
	}
	return math.NaN()
}
