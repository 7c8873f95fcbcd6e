package report

import (
	"fmt"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// barWidth is the pixel width of a full bar in report.html.
const barWidth = 420.0

// auditBars splits the produced records into one stacked bar: completed
// once, duplicates, archived, in flight, lost, undelivered.
func auditBars(a results.Audit) []svgBar {
	parts := []struct {
		label, color string
		n            int64
	}{
		{"completed once", "#2ca02c", a.CompletedOnce}, {"duplicates", "#ff7f0e", a.Duplicates},
		{"archived", "#9467bd", a.Archived}, {"in flight", "#17becf", a.InFlight}, {"lost", "#d62728", a.Lost},
		{"undelivered", "#bcbd22", a.Undelivered},
	}
	var total int64
	for _, p := range parts {
		total += p.n
	}
	var bars []svgBar
	x := 0.0
	for i, p := range parts {
		w := 0.0
		if total > 0 {
			w = barWidth * float64(p.n) / float64(total)
		}
		bars = append(bars, svgBar{Label: p.label, Color: p.color, X: x, Y: 34 + 16*float64(i), W: w,
			Text: fmt.Sprintf("%s %d", p.label, p.n)})
		x += w
	}
	return bars
}

// ceilingBars draws the offered rate, each ceiling and the measured
// throughput on one scale, so the binding ceiling sits next to the result.
func ceilingBars(r runs.Record) []svgBar {
	c := r.Ceiling
	items := []struct {
		label, color string
		v            float64
	}{
		{"offered", "#999999", r.Throughput.OfferedPerSec},
		{"worker ceiling", "#bbbbbb", c.Workers},
		{"lock ceiling", "#bbbbbb", c.Locks},
		{"ceiling (" + string(c.Bound) + ")", "#d62728", c.RecordsPerSec},
		{"completed", "#1f77b4", r.Throughput.CompletedPerSec},
	}
	if r.Throughput.CompletedPerSec-r.UsefulPerSec() >= 0.5 { // the ceiling's basis: completions while the lock held
		items = append(items, struct {
			label, color string
			v            float64
		}{"completed in lock", "#17becf", r.UsefulPerSec()})
	}
	// The scale fits the figures that matter; a far-off ceiling (locks of a
	// lightly loaded share group) is clipped and says so.
	hi := 1.25 * max(r.Throughput.OfferedPerSec, c.RecordsPerSec, r.Throughput.CompletedPerSec)
	var bars []svgBar
	for _, it := range items {
		if it.v <= 0 {
			continue // no worker bound (no processing time) or no lock ceiling (consumer group)
		}
		b := svgBar{Label: it.label, Color: it.color, Y: 22 * float64(len(bars)),
			W: barWidth * 0.7 * min(it.v, hi) / hi, Text: fmt.Sprintf("%s %.1f/s", it.label, it.v)}
		if it.v > hi {
			b.Text += " (off scale)"
		}
		bars = append(bars, b)
	}
	return bars
}

// deliveryCountBars draws share-group deliveries by delivery count.
func deliveryCountBars(counts []int64) []svgBar {
	var hi int64
	for _, n := range counts {
		hi = max(hi, n)
	}
	var bars []svgBar
	for i, n := range counts {
		bars = append(bars, svgBar{Label: fmt.Sprint(i + 1), Color: "#9467bd", Y: 22 * float64(i),
			W: barWidth * 0.7 * float64(n) / float64(max(hi, 1)), Text: fmt.Sprintf("delivery count %d: %d", i+1, n)})
	}
	return bars
}
