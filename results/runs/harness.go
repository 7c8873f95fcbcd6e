package runs

import (
	"fmt"
	"strings"
)

// The harness's own footprint over a run's measurement window: its
// resident memory, goroutines, open files and what its recorder holds,
// read once a second by the /proc sampler, kept in run.json as a series
// (harness) and judged for growth (harness_growth). docs/explanation/measurement.md,
// "Harness footprint".

// CodeHarnessGrowth: the harness's own footprint grew by more than
// HarnessGrowthLimitPercent over a window of at least HarnessGrowthMinWindowSec.
const CodeHarnessGrowth Code = "harness_growth"

const (
	// HarnessGrowthLimitPercent is the growth above which a run is flagged.
	HarnessGrowthLimitPercent = 10
	// HarnessGrowthBaseFromSec and HarnessGrowthBaseToSec are the span of
	// the window whose median is the base: minute 5 to 6.
	HarnessGrowthBaseFromSec = 300
	HarnessGrowthBaseToSec   = 360
	// HarnessGrowthLateSec is the last part of the window whose median is
	// the late value: its last minute.
	HarnessGrowthLateSec = 60
	// HarnessGrowthMinWindowSec is the shortest window growth is judged on:
	// 10 minutes, so the late minute is at least 4 minutes past the base.
	HarnessGrowthMinWindowSec = 600
	// harnessSeriesIntervalSec is the series' spacing in run.json, doubled
	// until it keeps at most harnessSeriesMaxPoints points.
	harnessSeriesIntervalSec = 10
	harnessSeriesMaxPoints   = 720
)

// HarnessSample is one reading of the harness process, taken in the
// measurement window.
type HarnessSample struct {
	// AtSec is the reading's time from the window's start, in seconds.
	AtSec      float64
	RSSBytes   int64 // VmRSS; 0: unread
	Goroutines int
	OpenFiles  int // -1: unread
	// RecorderBytes is what the recorder held apart from its interval
	// logs (results.RecorderHeld.Bounded); IntervalLogBytes the logs.
	RecorderBytes    int64
	IntervalLogBytes int64
}

// HarnessSeries is run.json's harness block: the readings of the window at
// IntervalSec spacing (the first reading of each interval), and the growth
// judged on every reading.
type HarnessSeries struct {
	IntervalSec      int       `json:"interval_s"`
	AtSec            []float64 `json:"t_s"` // seconds from the window's start
	RSSBytes         []int64   `json:"rss_bytes"`
	Goroutines       []int     `json:"goroutines"`
	OpenFiles        []int     `json:"open_files"`
	RecorderBytes    []int64   `json:"recorder_bytes"`
	IntervalLogBytes []int64   `json:"interval_log_bytes"`
	Growth           *Growth   `json:"growth,omitempty"`
}

// Growth is each quantity's growth from minute 5 to the window's end:
// 100 × (late − base) ÷ base, base the median of the readings in
// [300 s, 360 s) of the window, late the median of its last 60 s. Absent
// (nil percentages) when the window is shorter than 10 minutes or a
// quantity was not read in both spans.
type Growth struct {
	Evaluated bool `json:"evaluated"`
	// Reason says why growth was not evaluated.
	Reason            string   `json:"reason,omitempty"`
	RSSBaseBytes      float64  `json:"rss_base_bytes,omitempty"`
	RSSLateBytes      float64  `json:"rss_late_bytes,omitempty"`
	RSSPercent        *float64 `json:"rss_percent,omitempty"`
	GoroutinesPercent *float64 `json:"goroutines_percent,omitempty"`
	OpenFilesPercent  *float64 `json:"open_files_percent,omitempty"`
	RecorderPercent   *float64 `json:"recorder_percent,omitempty"`
}

// NewHarnessSeries keeps the window's readings (samples in time order,
// AtSec within [0, windowSec]) in run.json's spacing and judges growth on
// all of them. Nil without readings.
func NewHarnessSeries(samples []HarnessSample, windowSec float64) *HarnessSeries {
	var in []HarnessSample
	for _, s := range samples {
		if s.AtSec >= 0 && s.AtSec <= windowSec {
			in = append(in, s)
		}
	}
	if len(in) == 0 {
		return nil
	}
	step := harnessSeriesIntervalSec
	for windowSec/float64(step) > harnessSeriesMaxPoints {
		step *= 2
	}
	h := &HarnessSeries{IntervalSec: step, Growth: growthOf(in, windowSec)}
	next := 0.0
	for _, s := range in {
		if s.AtSec < next {
			continue
		}
		h.AtSec = append(h.AtSec, s.AtSec)
		h.RSSBytes = append(h.RSSBytes, s.RSSBytes)
		h.Goroutines = append(h.Goroutines, s.Goroutines)
		h.OpenFiles = append(h.OpenFiles, s.OpenFiles)
		h.RecorderBytes = append(h.RecorderBytes, s.RecorderBytes)
		h.IntervalLogBytes = append(h.IntervalLogBytes, s.IntervalLogBytes)
		for next <= s.AtSec {
			next += float64(step)
		}
	}
	return h
}

// growthOf judges growth (Growth) on the window's readings.
func growthOf(in []HarnessSample, windowSec float64) *Growth {
	if windowSec < HarnessGrowthMinWindowSec {
		return &Growth{Reason: fmt.Sprintf("the window (%.0f s) is shorter than %d s", windowSec, HarnessGrowthMinWindowSec)}
	}
	lateFrom := windowSec - HarnessGrowthLateSec
	span := func(get func(HarnessSample) (float64, bool), from, to float64) (float64, bool) {
		var v []float64
		for _, s := range in {
			if x, ok := get(s); ok && s.AtSec >= from && s.AtSec < to {
				v = append(v, x)
			}
		}
		return median(v), len(v) > 0
	}
	pct := func(get func(HarnessSample) (float64, bool)) (*float64, float64, float64) {
		base, ok1 := span(get, HarnessGrowthBaseFromSec, HarnessGrowthBaseToSec)
		late, ok2 := span(get, lateFrom, windowSec+1)
		if !ok1 || !ok2 || base <= 0 {
			return nil, 0, 0
		}
		p := 100 * (late - base) / base
		return &p, base, late
	}
	g := &Growth{Evaluated: true}
	g.RSSPercent, g.RSSBaseBytes, g.RSSLateBytes = pct(func(s HarnessSample) (float64, bool) { return float64(s.RSSBytes), s.RSSBytes > 0 })
	g.GoroutinesPercent, _, _ = pct(func(s HarnessSample) (float64, bool) { return float64(s.Goroutines), s.Goroutines > 0 })
	g.OpenFilesPercent, _, _ = pct(func(s HarnessSample) (float64, bool) { return float64(s.OpenFiles), s.OpenFiles >= 0 })
	g.RecorderPercent, _, _ = pct(func(s HarnessSample) (float64, bool) { return float64(s.RecorderBytes), s.RecorderBytes > 0 })
	if g.RSSPercent == nil && g.GoroutinesPercent == nil && g.OpenFilesPercent == nil && g.RecorderPercent == nil {
		return &Growth{Reason: "no quantity was read both in minute 5 and in the window's last minute"}
	}
	return g
}

// GrowthFlag is harness_growth when any quantity grew by more than
// HarnessGrowthLimitPercent; nil otherwise, and for a run whose growth was
// not evaluated.
func (h *HarnessSeries) GrowthFlag() *Flag {
	if h == nil || h.Growth == nil || !h.Growth.Evaluated {
		return nil
	}
	g := h.Growth
	var grew []string
	for _, q := range []struct {
		name string
		p    *float64
	}{{"RSS", g.RSSPercent}, {"goroutines", g.GoroutinesPercent}, {"open files", g.OpenFilesPercent}, {"recorder memory", g.RecorderPercent}} {
		if q.p != nil && *q.p > HarnessGrowthLimitPercent {
			grew = append(grew, fmt.Sprintf("%s +%.1f %%", q.name, *q.p))
		}
	}
	if len(grew) == 0 {
		return nil
	}
	return &Flag{Code: CodeHarnessGrowth, Message: fmt.Sprintf(
		"the harness's own footprint grew by more than %d %% from minute 5 to the window's last minute (medians): %s; a harness that grows in a steady run may leak and slow what it measures",
		HarnessGrowthLimitPercent, strings.Join(grew, ", "))}
}
