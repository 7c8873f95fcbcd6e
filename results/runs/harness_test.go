package runs

import (
	"strings"
	"testing"
)

const mib = 1 << 20

// harnessRun is a window of windowSec seconds read once a second: RSS 100
// MiB, 50 goroutines, 40 open files, a 10 MiB recorder, each changed by at
// from the second it applies to on.
func harnessRun(windowSec int, at func(sec int, s *HarnessSample)) []HarnessSample {
	var out []HarnessSample
	for sec := 0; sec <= windowSec; sec++ {
		s := HarnessSample{AtSec: float64(sec), RSSBytes: 100 * mib, Goroutines: 50, OpenFiles: 40, RecorderBytes: 10 * mib, IntervalLogBytes: int64(sec) * 700}
		if at != nil {
			at(sec, &s)
		}
		out = append(out, s)
	}
	return out
}

// growingHarness is a 30-minute window whose RSS steps up by pct % at
// minute 15: minute 5–6 reads 100 MiB, the last minute 100 + pct.
func growingHarness(t *testing.T, pct int64) *HarnessSeries {
	t.Helper()
	return NewHarnessSeries(harnessRun(1800, func(sec int, s *HarnessSample) {
		if sec >= 900 {
			s.RSSBytes = (100 + pct) * mib
		}
	}), 1800)
}

func TestHarnessGrowthFlag(t *testing.T) {
	// Flat, with one outlier in each span the medians must ignore.
	flat := NewHarnessSeries(harnessRun(1800, func(sec int, s *HarnessSample) {
		if sec == 310 || sec == 1790 {
			s.RSSBytes, s.Goroutines, s.OpenFiles = 300*mib, 500, 400
		}
	}), 1800)
	g := flat.Growth
	if !g.Evaluated || *g.RSSPercent != 0 || *g.GoroutinesPercent != 0 || *g.OpenFilesPercent != 0 || *g.RecorderPercent != 0 {
		t.Errorf("flat: %+v", g)
	}
	if g.RSSBaseBytes != 100*mib || g.RSSLateBytes != 100*mib {
		t.Errorf("flat: base %v late %v, want 100 MiB both", g.RSSBaseBytes, g.RSSLateBytes)
	}
	if f := flat.GrowthFlag(); f != nil {
		t.Errorf("flat: flagged %v", f)
	}
	// 5 %: 100 → 105 MiB.
	five := growingHarness(t, 5)
	if p := *five.Growth.RSSPercent; p < 4.999 || p > 5.001 {
		t.Errorf("5 %%: rss_percent %v", p)
	}
	if f := five.GrowthFlag(); f != nil {
		t.Errorf("5 %%: flagged %v", f)
	}
	// 15 %: flagged, naming RSS and its growth.
	fifteen := growingHarness(t, 15)
	f := fifteen.GrowthFlag()
	if f == nil || f.Code != CodeHarnessGrowth || !strings.Contains(f.Message, "RSS +15.0 %") || strings.Contains(f.Message, "goroutines") {
		t.Errorf("15 %%: %+v", f)
	}
	// The limit is exclusive: 10 % exactly is not flagged; goroutines 50 →
	// 56 (12 %) are, open files 40 → 44 (10 %) are not.
	counts := NewHarnessSeries(harnessRun(1800, func(sec int, s *HarnessSample) {
		if sec >= 1000 {
			s.RSSBytes, s.Goroutines, s.OpenFiles = 110*mib, 56, 44
		}
	}), 1800)
	f = counts.GrowthFlag()
	if f == nil || !strings.Contains(f.Message, "goroutines +12.0 %") || strings.Contains(f.Message, "RSS") || strings.Contains(f.Message, "open files") {
		t.Errorf("counts: %+v", f)
	}
	// The recorder's interval logs grow by design (700 B a second here)
	// and are not judged; the rest of the recorder is.
	rec := NewHarnessSeries(harnessRun(1800, func(sec int, s *HarnessSample) {
		if sec >= 1000 {
			s.RecorderBytes = 12 * mib
		}
	}), 1800)
	if f := rec.GrowthFlag(); f == nil || !strings.Contains(f.Message, "recorder memory +20.0 %") {
		t.Errorf("recorder: %+v", f)
	}
	// A run under 10 minutes is not judged, however it grows.
	short := NewHarnessSeries(harnessRun(540, func(sec int, s *HarnessSample) { s.RSSBytes = int64(100+sec) * mib }), 540)
	if short.Growth.Evaluated || short.Growth.RSSPercent != nil || !strings.Contains(short.Growth.Reason, "shorter than 600 s") {
		t.Errorf("short: %+v", short.Growth)
	}
	if f := short.GrowthFlag(); f != nil {
		t.Errorf("short: flagged %v", f)
	}
	// Exactly 10 minutes is judged.
	if ten := NewHarnessSeries(harnessRun(600, nil), 600); !ten.Growth.Evaluated {
		t.Errorf("10 min: %+v", ten.Growth)
	}
}

// The base is the median of [300 s, 360 s), the late value the median of
// the last 60 s: readings just outside either span do not count.
func TestHarnessGrowthSpans(t *testing.T) {
	h := NewHarnessSeries(harnessRun(1200, func(sec int, s *HarnessSample) {
		switch {
		case sec < 300 || (sec >= 360 && sec < 1140):
			s.RSSBytes = 500 * mib // outside both spans
		case sec >= 1140:
			s.RSSBytes = 120 * mib // 1140..1200: the last minute
		}
	}), 1200)
	if p := *h.Growth.RSSPercent; p != 20 {
		t.Errorf("rss_percent %v, want 20 (100 MiB → 120 MiB)", p)
	}
	// Unread quantities (RSS 0, open files -1) give no figure, the others do.
	h = NewHarnessSeries(harnessRun(1200, func(_ int, s *HarnessSample) { s.RSSBytes, s.OpenFiles = 0, -1 }), 1200)
	if h.Growth.RSSPercent != nil || h.Growth.OpenFilesPercent != nil || h.Growth.GoroutinesPercent == nil {
		t.Errorf("unread: %+v", h.Growth)
	}
}

// run.json keeps one reading per 10 s, the spacing doubled past 720 points.
func TestHarnessSeriesSpacing(t *testing.T) {
	h := NewHarnessSeries(harnessRun(1800, nil), 1800)
	if h.IntervalSec != 10 || len(h.AtSec) != 181 || h.AtSec[1] != 10 || h.AtSec[180] != 1800 {
		t.Errorf("30 min: interval %d, %d points, %v…", h.IntervalSec, len(h.AtSec), h.AtSec[:3])
	}
	if len(h.RSSBytes) != 181 || len(h.Goroutines) != 181 || len(h.OpenFiles) != 181 || len(h.RecorderBytes) != 181 || len(h.IntervalLogBytes) != 181 {
		t.Error("30 min: columns of different lengths")
	}
	// 3 h: 1,080 points at 10 s, so 20 s: 541 points.
	h = NewHarnessSeries(harnessRun(3*3600, nil), 3*3600)
	if h.IntervalSec != 20 || len(h.AtSec) != 541 {
		t.Errorf("3 h: interval %d, %d points", h.IntervalSec, len(h.AtSec))
	}
	// 48 h: 10 s doubled five times, 320 s: 541 points.
	h = NewHarnessSeries(harnessRun(48*3600, nil), 48*3600)
	if h.IntervalSec != 320 || len(h.AtSec) != 541 {
		t.Errorf("48 h: interval %d, %d points", h.IntervalSec, len(h.AtSec))
	}
	// Readings outside the window are dropped; none in it: no block.
	if NewHarnessSeries([]HarnessSample{{AtSec: -1}, {AtSec: 31}}, 30) != nil {
		t.Error("no reading in the window: want nil")
	}
	var none *HarnessSeries
	if none.GrowthFlag() != nil {
		t.Error("nil series flagged")
	}
}
