package report

import (
	"fmt"
	"math"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// gaugeLine is one gauge column of timeseries.csv drawn as a line.
type gaugeLine struct {
	column, label, color string
	dash                 bool
}

// gaugeChartSpec is one over-time chart of gauge columns; scale divides
// the values drawn (bytes → MiB), unit names the scaled unit.
type gaugeChartSpec struct {
	title, unit string
	scale       float64
	lines       []gaugeLine
	// gaps is a column that is 1 in the seconds the chart's gauge could not
	// be read, shaded as gaps ("": none).
	gaps string
}

var gaugeChartSpecs = []gaugeChartSpec{
	{title: "CPU over time", unit: "% of all cores", scale: 1, lines: []gaugeLine{
		{column: "broker_cpu_percent", label: "brokers", color: "#d62728"},
		{column: "harness_cpu_percent", label: "harness", color: "#1f77b4", dash: true}}},
	{title: "memory over time", unit: "MiB", scale: 1 << 20, lines: []gaugeLine{
		{column: "broker_heap_used_bytes", label: "heap", color: "#2ca02c"},
		{column: "broker_rss_bytes", label: "broker RSS", color: "#9467bd", dash: true},
		{column: "harness_rss_bytes", label: "harness RSS", color: "#1f77b4", dash: true}}},
	{title: "group lag and in-flight over time", unit: "records", scale: 1, gaps: "lag_unread", lines: []gaugeLine{
		{column: "lag", label: "lag", color: "#ff7f0e"},
		{column: "in_flight", label: "in flight", color: "#17becf", dash: true}}},
}

// gaugeCharts draws the gauge columns of t over time, one chart per
// gaugeChartSpec that has at least one column with readings (files written
// before the gauges existed, and kfake runs without brokers, draw fewer).
func gaugeCharts(t results.SeriesTable, ph runs.Phases) []chart {
	var out []chart
	for _, spec := range gaugeChartSpecs {
		c := chart{Title: spec.title, Kind: kindTime, XLabel: "seconds since run start", YLabel: spec.unit, X: seconds(len(t.Rows))}
		for _, l := range spec.lines {
			if !t.Known(l.column) {
				continue
			}
			raw := t.Column(l.column)
			ys := make(nums, len(raw))
			colMax := math.Inf(-1)
			for i, v := range raw {
				ys[i] = v / spec.scale
				if !math.IsNaN(v) {
					colMax = max(colMax, v)
				}
			}
			c.Series = append(c.Series, chartSeries{Label: fmt.Sprintf("%s (max %s)", l.label, fmtGauge(colMax/spec.scale)),
				Color: l.color, Dash: l.dash, Y: ys, Key: l.column, Max: fmtGauge(colMax)})
		}
		if len(c.Series) == 0 {
			continue
		}
		markPhases(&c, ph)
		if spec.gaps != "" {
			markGaps(&c, t, spec.gaps)
		}
		out = append(out, c)
	}
	return out
}

// markGaps shades the seconds a gauge could not be read (column gaps is 1:
// the lag reading failed), so a gap in the line reads as unknown, not as a
// drop.
func markGaps(c *chart, t results.SeriesTable, gaps string) {
	if !t.Known(gaps) {
		return
	}
	col := t.Column(gaps)
	for i := 0; i < len(col); i++ {
		if col[i] != 1 {
			continue
		}
		j := i
		for j+1 < len(col) && col[j+1] == 1 {
			j++
		}
		c.addBand("gap", "lag unread (reading failed)", "#f6d5d5", float64(i), float64(j+1))
		i = j
	}
}

// markPhases shades the warm-up and the measurement window on a chart whose
// x axis is seconds since the series start; runs written before
// phases.window_start_s existed are left unshaded.
func markPhases(c *chart, ph runs.Phases) {
	if ph.WindowStartSec <= 0 || ph.MeasureSec <= 0 {
		return
	}
	start := ph.WindowStartSec
	c.addBand("warmup", "warm-up", "#eeeeee", start-ph.WarmupSec, start)
	c.addBand("measure", "measurement window", "#cfe3f7", start, start+ph.MeasureSec)
}

// fmtGauge prints a gauge value as the CSV does: whole numbers without
// decimals, others with two.
func fmtGauge(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
