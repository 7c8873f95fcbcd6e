package report

import (
	"encoding/json"
	"math"
	"strconv"
)

// Chart kinds: how the page script (assets/charts.js) scales and labels
// the x axis of a chart.
const (
	kindTime       = "time"       // x: seconds since the run start
	kindPercentile = "percentile" // x: 1/(1−q) on log10, labelled as percentiles (HdrHistogram's plot)
	kindXY         = "xy"         // x: a number (offered records/s)
	kindCategory   = "category"   // x: index into Categories (swept knob values)
	kindHistory    = "history"    // x: campaign start, Unix seconds
)

// chart is one interactive chart of report.html or history.html: the
// template writes a <figure data-chart=ID> and, in one JSON block, the
// charts' data; the page script draws them with uPlot.
type chart struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Kind   string `json:"kind"`
	XLabel string `json:"xLabel"`
	YLabel string `json:"yLabel"`
	YLog   bool   `json:"yLog,omitempty"`
	// Categories are the x labels of a kindCategory chart (x = index).
	Categories []string `json:"categories,omitempty"`
	// X, when set, is the x of every series (time series, history);
	// otherwise each series has its own X and the page joins them.
	X      nums          `json:"x,omitempty"`
	Series []chartSeries `json:"series"`
	Bands  []chartBand   `json:"bands,omitempty"`
	// Links (history) are a URL per X: a click on the chart opens the
	// campaign's report.html; Notes label each X in the hover legend.
	Links []string `json:"links,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// chartSeries is one line (or, with Points, markers only).
type chartSeries struct {
	Label  string `json:"label"`
	Color  string `json:"color"`
	Dash   bool   `json:"dash,omitempty"`
	Points bool   `json:"points,omitempty"` // markers without a line
	// NoiseHi and NoiseLo mark the two series the page shades between.
	NoiseHi bool `json:"noiseHi,omitempty"`
	NoiseLo bool `json:"noiseLo,omitempty"`
	X       nums `json:"x,omitempty"` // see chart.X
	Y       nums `json:"y"`           // NaN: no reading (null in JSON)
	// Key and Max, when Key is set: the timeseries.csv column drawn and its
	// largest value as read from the file.
	Key string `json:"key,omitempty"`
	Max string `json:"max,omitempty"`
}

// chartBand is a shaded x range drawn under the lines: the warm-up, the
// measurement window, an event. A band whose Start equals its End is a
// marker: a dashed vertical line in Color with its Label (a formula's
// ceiling), the label on text row Row from the top.
type chartBand struct {
	Name  string  `json:"name"`
	Label string  `json:"label"`
	Color string  `json:"color"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Row   int     `json:"row,omitempty"`
}

// nums is a JSON array of numbers where NaN and ±Inf are null.
type nums []float64

func (v nums) MarshalJSON() ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 8*len(v)+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, x, 'g', 10, 64)
	}
	return append(b, ']'), nil
}

func (v *nums) UnmarshalJSON(b []byte) error {
	var raw []*float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*v = make(nums, len(raw))
	for i, p := range raw {
		(*v)[i] = math.NaN()
		if p != nil {
			(*v)[i] = *p
		}
	}
	return nil
}

// addBand shades [from, to] of the x axis; an empty range is left out.
func (c *chart) addBand(name, label, color string, from, to float64) {
	if to <= from {
		return
	}
	c.Bands = append(c.Bands, chartBand{Name: name, Label: label, Color: color, Start: from, End: to})
}

// seconds is 0, 1, … n−1: the x of a timeseries.csv chart.
func seconds(n int) nums {
	xs := make(nums, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	return xs
}

// numberCharts gives every chart a page-unique id, c1, c2, … in order.
func numberCharts(charts []*chart) {
	for i, c := range charts {
		c.ID = "c" + strconv.Itoa(i+1)
	}
}
