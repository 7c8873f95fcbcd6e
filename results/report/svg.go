package report

import (
	"fmt"
	"math"
	"strings"
)

// svgChart is a line chart laid out in Go; report.html.tmpl draws it.
type svgChart struct {
	Title          string
	W, H           float64
	X0, Y0, X1, Y1 float64 // plot area: left, top, right, bottom
	XLabel, YLabel string
	Lines          []svgLine
	XTicks, YTicks []svgTick
	Bands          []svgBand // shaded x ranges drawn under the lines
}

type svgLine struct {
	Label, Color, Points string
	Dash                 bool
	LegendY              float64
	// Key and Max, when Key is set, become data-series and data-max: the
	// column drawn and its largest value, as read from the file.
	Key, Max string
}

// svgBand is a shaded x range of a chart, in pixels; Name is its
// data-band attribute, StartS and EndS its data range.
type svgBand struct {
	Name, Label, Color string
	X, W, StartS, EndS float64
}

type svgTick struct {
	Pos   float64 // x (XTicks) or y (YTicks) in pixels
	Label string
}

// chartSeries is one line's data.
type chartSeries struct {
	Label, Color string
	Dash         bool
	X, Y         []float64 // a NaN y is a missing reading: the point is skipped
	Key, Max     string    // see svgLine
}

// axis maps data values to pixels, linearly or on log10.
type axis struct {
	lo, hi float64
	log    bool
}

func (a axis) frac(v float64) float64 {
	if a.log {
		v, a.lo, a.hi = math.Log10(math.Max(v, a.lo)), math.Log10(a.lo), math.Log10(a.hi)
	}
	if a.hi == a.lo {
		return 0
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// newChart lays out series on axes x and y; tick labels come from xTicks
// and yTicks (values), formatted by xFmt and yFmt.
func newChart(title, xLabel, yLabel string, series []chartSeries, x, y axis, xTicks, yTicks []float64,
	xFmt, yFmt func(float64) string) svgChart {
	c := svgChart{Title: title, W: 540, H: 300, X0: 60, Y0: 30, X1: 400, Y1: 260, XLabel: xLabel, YLabel: yLabel}
	px := func(v float64) float64 { return c.X0 + x.frac(v)*(c.X1-c.X0) }
	py := func(v float64) float64 { return c.Y1 - y.frac(v)*(c.Y1-c.Y0) }
	for i, s := range series {
		var b strings.Builder
		for j := range s.X {
			if math.IsNaN(s.Y[j]) {
				continue
			}
			fmt.Fprintf(&b, "%.1f,%.1f ", px(s.X[j]), py(s.Y[j]))
		}
		c.Lines = append(c.Lines, svgLine{Label: s.Label, Color: s.Color, Dash: s.Dash, Key: s.Key, Max: s.Max,
			Points: strings.TrimSpace(b.String()), LegendY: c.Y0 + 10 + 18*float64(i)})
	}
	for _, v := range xTicks {
		c.XTicks = append(c.XTicks, svgTick{Pos: px(v), Label: xFmt(v)})
	}
	for _, v := range yTicks {
		c.YTicks = append(c.YTicks, svgTick{Pos: py(v), Label: yFmt(v)})
	}
	return c
}

// addBand shades data range [from, to] of the x axis (clipped to the plot).
func (c *svgChart) addBand(x axis, name, label, color string, from, to float64) {
	px := func(v float64) float64 { return min(max(c.X0+x.frac(v)*(c.X1-c.X0), c.X0), c.X1) }
	if to <= from || px(to) <= px(from) {
		return
	}
	c.Bands = append(c.Bands, svgBand{Name: name, Label: label, Color: color, X: px(from), W: px(to) - px(from), StartS: from, EndS: to})
}

// niceTicks returns about n round values from 0 to at least hi.
func niceTicks(hi float64, n int) (ticks []float64, top float64) {
	if hi <= 0 {
		return []float64{0, 1}, 1
	}
	raw := hi / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	for i := 0; ; i++ {
		v := float64(i) * step
		ticks = append(ticks, v)
		if v >= hi*(1-1e-9) {
			return ticks, v
		}
	}
}

func fmtTick(v float64) string {
	switch {
	case v >= 10000:
		return fmt.Sprintf("%.0fk", v/1000)
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%g", v)
	}
}

// quantileTickLabel names x = 1/(1−q) as a percentile: 10 → p90.
func quantileTickLabel(x float64) string {
	if x <= 1 {
		return "p0"
	}
	q := 100 * (1 - 1/x)
	return "p" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", q), "0"), ".")
}
