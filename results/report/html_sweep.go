package report

import (
	"fmt"
	"math"

	"github.com/sharebench/sharebench/results/runs"
)

// sweepSection is one swept dimension: each measure plotted against it, one
// line per consumer type (and per value of any other swept dimension),
// averaged over trials, with the best point of each line named.
type sweepSection struct {
	Dimension string
	Charts    []chart
	Best      []string
}

// sweepFigures are the figures plotted against a swept dimension, by
// run.json path; title, unit and direction come from the registry.
var sweepFigures = []string{"throughput.completed_per_sec", "latency.completion_ms.p99", "ceiling.efficiency"}

// sweepSections builds the sweep charts of a campaign; nil when nothing
// but the consumer type varies.
func sweepSections(recs []runs.Record) []sweepSection {
	specs := make([]map[string]string, len(recs))
	for i, r := range recs {
		specs[i] = runs.SpecValues(r.Spec)
	}
	dims, values := runs.SweptDimensions(specs)
	var out []sweepSection
	for _, d := range dims {
		sec := sweepSection{Dimension: d}
		for _, path := range sweepFigures {
			f, err := runs.LookupFigure(path)
			if err != nil {
				continue
			}
			get := func(r runs.Record) float64 { v, _ := f.Value(&r); return v }
			lines := sweepLines(recs, specs, dims, d, values[d], get)
			sec.Charts = append(sec.Charts, sweepChart(f.Label+" vs "+d, d, f.Unit, values[d], lines))
			for _, l := range lines {
				sec.Best = append(sec.Best, bestPoint(f.Label, f.Better == runs.LowerIsBetter, d, values[d], l))
			}
		}
		out = append(out, sec)
	}
	return out
}

// sweepLine is the mean of a measure at each value of the dimension
// (NaN where no run has that value).
type sweepLine struct {
	label string
	y     []float64
}

func sweepLines(recs []runs.Record, specs []map[string]string, dims []string, d string, xs []string,
	get func(runs.Record) float64) []sweepLine {
	type acc struct{ sum, n []float64 }
	groups := map[string]*acc{}
	var order []string
	for i, r := range recs {
		label := string(r.ConsumerType)
		for _, o := range dims {
			if o != d {
				label += " " + o + "=" + specs[i][o]
			}
		}
		g := groups[label]
		if g == nil {
			g = &acc{sum: make([]float64, len(xs)), n: make([]float64, len(xs))}
			groups[label] = g
			order = append(order, label)
		}
		for xi, x := range xs {
			if specs[i][d] == x {
				g.sum[xi] += get(r)
				g.n[xi]++
			}
		}
	}
	lines := make([]sweepLine, 0, len(order))
	for _, label := range order {
		g := groups[label]
		l := sweepLine{label: label, y: make([]float64, len(xs))}
		for i := range xs {
			l.y[i] = math.NaN()
			if g.n[i] > 0 {
				l.y[i] = g.sum[i] / g.n[i]
			}
		}
		lines = append(lines, l)
	}
	return lines
}

func bestPoint(measure string, lowerBetter bool, d string, xs []string, l sweepLine) string {
	best := -1
	for i, v := range l.y {
		if math.IsNaN(v) {
			continue
		}
		if best < 0 || (lowerBetter && v < l.y[best]) || (!lowerBetter && v > l.y[best]) {
			best = i
		}
	}
	if best < 0 {
		return fmt.Sprintf("%s, %s: no data", l.label, measure)
	}
	return fmt.Sprintf("%s: best %s %.4g at %s=%s", l.label, measure, l.y[best], d, xs[best])
}

// sweepChart plots lines over the dimension's values, evenly spaced
// (x is the index of the value; the page labels it with the value).
func sweepChart(title, d, unit string, xs []string, lines []sweepLine) chart {
	c := chart{Title: title, Kind: kindCategory, XLabel: d, YLabel: unit, Categories: xs}
	for i, l := range lines {
		s := chartSeries{Label: l.label, Color: palette[i%len(palette)]}
		for xi, v := range l.y {
			if !math.IsNaN(v) {
				s.X, s.Y = append(s.X, float64(xi)), append(s.Y, v)
			}
		}
		c.Series = append(c.Series, s)
	}
	return c
}
