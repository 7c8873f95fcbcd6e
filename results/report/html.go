package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"row":        func(name, run string, p results.Percentiles) pctRow { return pctRow{name, run, p} },
	"pct":        func(ratio float64) float64 { return 100 * ratio },
	"add":        func(a, b float64) float64 { return a + b },
	"sub":        func(a, b float64) float64 { return a - b },
	"barsHeight": func(bars []svgBar) float64 { return 22 * float64(len(bars)) },
}).Parse(reportTemplateText))

// pctRow is one row of a run's percentile table.
type pctRow struct {
	Name, Run string
	P         results.Percentiles
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"}

// htmlReport is what report.html.tmpl renders.
type htmlReport struct {
	Title, Question, Environment string
	NotKafka, Verdicts           []string
	Header                       []string   // side-by-side: run ids
	Rows                         [][]string // side-by-side: label, one cell per run
	Completion                   *svgChart  // completion percentiles of every run
	Sweeps                       []sweepSection
	Recommendations              []runs.Recommendation
	MaxRate                      []htmlMaxRate
	Runs                         []htmlRun
}

type htmlRun struct {
	Rec            runs.Record
	Color          string
	Audit          string
	Throughput     *svgChart
	OverTime       []svgChart // gauges of timeseries.csv: broker CPU, memory, lag
	Latency        *svgChart
	AuditBars      []svgBar
	CeilingBars    []svgBar
	DeliveryCounts []svgBar
	Spec, Env      string
	Events         [][]string // the events table, one row per event (eventHeader)
	Notes          []string   // files that could not be read
}

// svgBar is a horizontal bar segment, in pixels.
type svgBar struct {
	Label, Text, Color string
	X, Y, W            float64
}

// writeHTML writes report.html: one self-contained file (inline SVG, no
// scripts, no network) from the run records and the .hgrm and
// timeseries.csv files under dir/runs/<run-id>/ (dir "" skips them).
func writeHTML(w io.Writer, dir string, camp runs.Campaign, recs []runs.Record) error {
	rep := htmlReport{Title: "sharebench: " + camp.Name, Question: campaignDescription(camp),
		Environment: environmentLine(recs, camp)}
	for _, r := range recs {
		if !r.Environment.IsKafka {
			rep.NotKafka = append(rep.NotKafka, fmt.Sprintf("%s ran on %s (%s), not Apache Kafka: its numbers say nothing about Kafka.",
				r.RunID, r.Environment.Provider, r.Environment.KafkaVersion))
		}
	}
	for _, p := range runs.Pairs(recs) {
		rep.Verdicts = append(rep.Verdicts, p.Verdict())
	}
	rep.Header, rep.Rows = sideBySideCells(recs)
	rep.Sweeps = sweepSections(recs)
	rep.Recommendations = camp.Recommendations
	rep.MaxRate = maxRateSections(recs)
	var curves []chartSeries
	for i, r := range recs {
		hr := newHTMLRun(dir, r, palette[i%len(palette)])
		rep.Runs = append(rep.Runs, hr)
		if pts, err := readCurve(dir, r.RunID, "completion"); err == nil && len(pts.X) > 0 {
			pts.Label, pts.Color = r.RunID, hr.Color
			curves = append(curves, pts)
		}
	}
	if len(curves) > 0 {
		c := percentileChart("completion latency, all runs (log scale)", curves, true)
		rep.Completion = &c
	}
	return reportTemplate.Execute(w, rep)
}

func sideBySideCells(recs []runs.Record) ([]string, [][]string) {
	rows := sideBySideRows()
	var header []string
	for _, r := range recs {
		header = append(header, rows[0].cell(r))
	}
	var cells [][]string
	for _, row := range rows[1:] {
		line := []string{row.label}
		for _, r := range recs {
			line = append(line, row.cell(r))
		}
		cells = append(cells, line)
	}
	return header, cells
}

func newHTMLRun(dir string, r runs.Record, color string) htmlRun {
	hr := htmlRun{Rec: r, Color: color, Audit: AuditLine(r), Spec: indentJSON(r.Spec), Env: indentJSON(r.Environment)}
	hr.AuditBars = auditBars(r.Audit)
	hr.CeilingBars = ceilingBars(r)
	hr.DeliveryCounts = deliveryCountBars(r.Outcomes.DeliveryCounts)
	for _, e := range r.Events {
		hr.Events = append(hr.Events, eventRow(r, e)[1:])
	}
	if dir == "" {
		return hr
	}
	runDir := filepath.Join(dir, "runs", r.RunID)
	if t, err := results.ReadSeriesCSV(filepath.Join(runDir, "timeseries.csv")); err == nil {
		c := throughputChart(t, r.Ceiling.RecordsPerSec)
		markPhases(&c, r.Phases, len(t.Rows))
		markEvents(&c, r, len(t.Rows))
		hr.Throughput = &c
		hr.OverTime = gaugeCharts(t, r.Phases)
	} else {
		hr.Notes = append(hr.Notes, err.Error())
	}
	var curves []chartSeries
	for i, name := range []string{"completion", "delivery"} {
		s, err := readCurve(dir, r.RunID, name)
		if err != nil {
			hr.Notes = append(hr.Notes, err.Error())
			continue
		}
		s.Label, s.Color, s.Dash = name, color, i == 1
		curves = append(curves, s)
	}
	if len(curves) > 0 {
		c := percentileChart(r.RunID+": latency percentiles", curves, false)
		hr.Latency = &c
	}
	return hr
}

func indentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// maxQuantileX is 1/(1−q) at p99.99, the right end of percentile charts.
const maxQuantileX = 10000

// readCurve reads runs/<id>/<name>.hgrm as x = 1/(1−q), y = ms, up to p99.99.
func readCurve(dir, runID, name string) (chartSeries, error) {
	pts, err := ReadPercentileFile(filepath.Join(dir, "runs", runID, name+".hgrm"))
	var s chartSeries
	for _, p := range pts {
		x := 1 / (1 - p.Quantile)
		if x > maxQuantileX*1.0001 {
			break
		}
		s.X, s.Y = append(s.X, x), append(s.Y, p.ValueMs)
	}
	return s, err
}

func percentileChart(title string, curves []chartSeries, logY bool) svgChart {
	hi, lo := 0.0, math.Inf(1)
	for _, c := range curves {
		for _, v := range c.Y {
			hi, lo = max(hi, v), min(lo, max(v, 0.001))
		}
	}
	xTicks := []float64{1, 10, 100, 1000, 10000}
	y := axis{lo: 0, hi: hi}
	yTicks, top := niceTicks(hi, 5)
	y.hi = top
	if logY {
		y = axis{lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(max(hi, lo*10)))), log: true}
		yTicks = nil
		for v := y.lo; v <= y.hi*1.0001; v *= 10 {
			yTicks = append(yTicks, v)
		}
	}
	return newChart(title, "percentile (x = 1/(1−q), log)", "ms", curves,
		axis{lo: 1, hi: maxQuantileX, log: true}, y, xTicks, yTicks, quantileTickLabel, fmtTick)
}

func throughputChart(t results.SeriesTable, ceiling float64) svgChart {
	var xs []float64
	for i := range t.Rows {
		xs = append(xs, float64(i))
	}
	column := func(name string) []float64 {
		out := make([]float64, len(t.Rows)) // a missing column draws as zeros
		copy(out, t.Column(name))
		return out
	}
	produced, completed := column("produced"), column("completed")
	hi := ceiling
	for i := range xs {
		hi = max(hi, produced[i], completed[i])
	}
	last := max(float64(len(xs)-1), 1)
	series := []chartSeries{
		{Label: "completed/s", Color: "#1f77b4", X: xs, Y: completed},
		{Label: "produced/s", Color: "#999999", X: xs, Y: produced},
		{Label: fmt.Sprintf("ceiling %.0f/s", ceiling), Color: "#d62728", Dash: true, X: []float64{0, last}, Y: []float64{ceiling, ceiling}},
	}
	yTicks, top := niceTicks(hi, 5)
	xTicks, xTop := niceTicks(last, 6)
	return newChart("throughput over time", "seconds since run start", "records/s", series,
		axis{lo: 0, hi: xTop}, axis{lo: 0, hi: top}, xTicks, yTicks, fmtTick, fmtTick)
}
