package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.Must(template.New("report").Funcs(template.FuncMap{
	"row":        func(name, run string, p results.Percentiles) pctRow { return pctRow{name, run, p} },
	"pct":        func(ratio float64) float64 { return 100 * ratio },
	"barsHeight": func(bars []svgBar) float64 { return 22 * float64(len(bars)) },
}).Parse(reportTemplateText)).Parse(chartsTemplateText))

// pctRow is one row of a run's percentile table.
type pctRow struct {
	Name, Run string
	P         results.Percentiles
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"}

// htmlReport is what report.html.tmpl renders.
type htmlReport struct {
	Title, Question, Environment string
	// Headline is the campaign's headline (headlineLines), the same lines
	// the console prints first.
	Headline []string
	// DroppedRows names the side-by-side rows no run has a value for.
	DroppedRows string
	// Decision is a proof of concept's decision section, rendered by its
	// own renderer (already HTML); "" without one.
	Decision           template.HTML
	NotKafka, Verdicts []string
	Preview            []string // runs on a release whose share groups are a preview (Record.PreviewLine)
	// RunVerdict and VerdictProblems are the run verdict (runVerdict), as
	// summary.md states it; Failed styles it.
	RunVerdict      string
	VerdictProblems []string
	Failed          bool
	// ExpectationsHeadline and Expectations are the scenario's expect:
	// outcomes, MET or NOT MET, as summary.md lists them.
	ExpectationsHeadline string
	Expectations         []htmlExpectation
	Header               []string   // side-by-side: run ids
	Rows                 [][]string // side-by-side: label, one cell per run
	Completion           *chart     // completion percentiles of every run
	Sweeps               []sweepSection
	Recommendations      []runs.Recommendation
	MaxRate              []htmlMaxRate
	RateCurve            []chart // every max-rate run's rate–latency curve on shared axes
	Runs                 []htmlRun
	Page                 chartPage // the chart library, the page script and every chart's data
}

type htmlRun struct {
	Rec            runs.Record
	Color          string
	Audit          string
	Throughput     *chart
	OverTime       []chart // gauges of timeseries.csv: broker CPU, memory, lag and in-flight
	Latency        *chart
	AuditBars      []svgBar
	CeilingBars    []svgBar
	DeliveryCounts []svgBar
	Spec, Env      string
	Events         [][]string // the events table, one row per event (eventHeader)
	Notes          []string   // files that could not be read
}

// htmlExpectation is one expectation's line on the page.
type htmlExpectation struct {
	Status, Line string
	Met, Skipped bool
}

// svgBar is a horizontal bar segment, in pixels.
type svgBar struct {
	Label, Text, Color string
	X, Y, W            float64
}

// writeHTML writes report.html: one self-contained file (the chart library,
// the page script and the charts' data inline, no network) from the run
// records and the .hgrm and timeseries.csv files under dir/runs/<run-id>/
// (dir "" skips them). The tables carry the figures without JavaScript.
func writeHTML(w io.Writer, dir string, camp runs.Campaign, recs []runs.Record, decision template.HTML) error {
	rep := htmlReport{Title: "sharebench: " + camp.Name, Question: campaignDescription(camp),
		Environment: environmentLine(recs, camp), Decision: decision}
	for _, r := range recs {
		if !r.Environment.IsKafka {
			rep.NotKafka = append(rep.NotKafka, fmt.Sprintf("%s ran on %s (%s), not Apache Kafka: its numbers say nothing about Kafka.",
				r.RunID, r.Environment.Provider, r.Environment.KafkaVersion))
		}
		if l := r.PreviewLine(); l != "" {
			rep.Preview = append(rep.Preview, l)
		}
	}
	for _, p := range runs.Pairs(recs) {
		rep.Verdicts = append(rep.Verdicts, p.Verdict())
	}
	rep.Verdicts = append(rep.Verdicts, brokerCostLines(recs)...) // the broker cost beside the throughput verdicts
	if len(recs) > 0 {
		rep.Headline = headlineLines(HeadlineInput{Scenario: camp.Name, Runs: recs, Expectations: camp.Expectations})
	}
	rep.RunVerdict, rep.VerdictProblems = runVerdict(camp, recs)
	rep.Failed = len(rep.VerdictProblems) > 0
	if len(camp.Expectations) > 0 {
		rep.ExpectationsHeadline = expectationsHeadline(camp.Expectations)
	}
	for _, o := range camp.Expectations {
		rep.Expectations = append(rep.Expectations, htmlExpectation{Status: o.Status(), Line: o.Line(), Met: o.Met, Skipped: o.Skipped})
	}
	rep.Header, rep.Rows = sideBySideCells(recs)
	_, dropped := splitRows(recs)
	rep.DroppedRows = droppedNote(dropped)
	rep.Sweeps = sweepSections(recs)
	rep.Recommendations = camp.Recommendations
	rep.MaxRate = maxRateSections(recs)
	rep.RateCurve = rateLatencyCharts(recs)
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
	rep.Page = newChartPage(rep.charts())
	return reportTemplate.Execute(w, rep)
}

// charts lists the report's charts in page order.
func (rep *htmlReport) charts() []*chart {
	var out []*chart
	if rep.Completion != nil {
		out = append(out, rep.Completion)
	}
	for i := range rep.Sweeps {
		for j := range rep.Sweeps[i].Charts {
			out = append(out, &rep.Sweeps[i].Charts[j])
		}
	}
	for i := range rep.RateCurve {
		out = append(out, &rep.RateCurve[i])
	}
	for i := range rep.MaxRate {
		for j := range rep.MaxRate[i].Charts {
			out = append(out, &rep.MaxRate[i].Charts[j])
		}
	}
	for i := range rep.Runs {
		r := &rep.Runs[i]
		if r.Throughput != nil {
			out = append(out, r.Throughput)
		}
		for j := range r.OverTime {
			out = append(out, &r.OverTime[j])
		}
		if r.Latency != nil {
			out = append(out, r.Latency)
		}
	}
	return out
}

func sideBySideCells(recs []runs.Record) ([]string, [][]string) {
	rows := rowsFor(recs) // a row no run has a value for is left out (droppedNote)
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
	if l := OrderLine(r); l != "" {
		hr.Audit += "; " + l
	}
	if c := groupCell(r); c != "-" {
		hr.Audit = "group " + c + ". " + hr.Audit
	}
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
		markPhases(&c, r.Phases)
		markEvents(&c, r)
		hr.Throughput = &c
		hr.OverTime = append(scheduleCharts(t, r), gaugeCharts(t, r.Phases)...)
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

// percentileChart is HdrHistogram's percentile distribution plot: x is
// 1/(1−q) on a log scale labelled p0, p90, p99, …; y is ms, on a log scale
// when logY (values clamped to 1 µs so zeros can be drawn).
func percentileChart(title string, curves []chartSeries, logY bool) chart {
	if logY {
		for i := range curves {
			y := make(nums, len(curves[i].Y))
			for j, v := range curves[i].Y {
				y[j] = max(v, 0.001)
			}
			curves[i].Y = y
		}
	}
	return chart{Title: title, Kind: kindPercentile, XLabel: "percentile (x = 1/(1−q), log)", YLabel: "ms", YLog: logY, Series: curves}
}

// throughputChart draws produced and completed records per second with the
// ceiling as a dashed line.
func throughputChart(t results.SeriesTable, ceiling float64) chart {
	column := func(name string) nums {
		out := make(nums, len(t.Rows)) // a missing column draws as zeros
		copy(out, t.Column(name))
		return out
	}
	flat := make(nums, len(t.Rows))
	for i := range flat {
		flat[i] = ceiling
	}
	return chart{Title: "throughput over time", Kind: kindTime, XLabel: "seconds since run start", YLabel: "records/s",
		X: seconds(len(t.Rows)), Series: []chartSeries{
			{Label: "completed/s", Color: "#1f77b4", Y: column("completed"), Key: "completed"},
			{Label: "produced/s", Color: "#999999", Y: column("produced"), Key: "produced"},
			{Label: fmt.Sprintf("ceiling %.0f/s", ceiling), Color: "#d62728", Dash: true, Y: flat},
		}}
}
