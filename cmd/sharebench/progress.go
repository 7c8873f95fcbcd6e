package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/sharebench/sharebench/campaign"
)

// newProgress picks the campaign's progress display: a live bar on a
// terminal, nothing extra otherwise (CI, tests, pipes keep the plain log
// lines). log is where the plain lines go: on a terminal they are written
// above the bar.
func newProgress(out io.Writer) (p campaign.Progress, log io.Writer, stop func()) {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return campaign.NoProgress{}, out, func() {}
	}
	t := newTermProgress(out)
	return t, t, t.close
}

// termProgress draws one bar for the current run and phase and refreshes
// its description twice a second.
type termProgress struct {
	mu          sync.Mutex
	out         io.Writer
	bar         *progressbar.ProgressBar
	info        campaign.PhaseInfo
	runStart    time.Time
	phaseStart  time.Time
	lastRunID   string
	rate        rateMeter
	done, ended chan struct{}
}

func newTermProgress(out io.Writer) *termProgress {
	t := &termProgress{out: out, done: make(chan struct{}), ended: make(chan struct{}),
		bar: progressbar.NewOptions(100, progressbar.OptionSetWriter(out), progressbar.OptionSetWidth(20),
			progressbar.OptionSetPredictTime(false), progressbar.OptionSetElapsedTime(false),
			progressbar.OptionShowDescriptionAtLineEnd(), progressbar.OptionThrottle(0))}
	go t.refresh()
	return t
}

func (t *termProgress) Phase(info campaign.PhaseInfo) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if info.RunID != t.lastRunID {
		t.lastRunID, t.runStart, t.rate = info.RunID, now, rateMeter{}
	}
	t.info, t.phaseStart = info, now
	t.drawLocked(now)
}

func (t *termProgress) RunDone(int, int, string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.bar.Clear()
	t.info = campaign.PhaseInfo{}
}

// Write prints log lines above the bar.
func (t *termProgress) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.bar.Clear()
	n, err := t.out.Write(p)
	if t.info.Name != "" {
		t.drawLocked(time.Now())
	}
	return n, err
}

func (t *termProgress) refresh() {
	defer close(t.ended)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			return
		case now := <-tick.C:
			t.mu.Lock()
			if t.info.Name != "" {
				t.drawLocked(now)
			}
			t.mu.Unlock()
		}
	}
}

func (t *termProgress) drawLocked(now time.Time) {
	var completed, finished, produced int64
	if t.info.Counts != nil {
		c := t.info.Counts()
		completed, finished, produced = c.Completed, c.Completed+c.Rejected, c.Acked
	}
	rate := t.rate.observe(now, completed)
	_ = t.bar.Set(phasePercent(t.info, now.Sub(t.phaseStart), finished, produced))
	t.bar.Describe(describe(t.info, now.Sub(t.runStart), now.Sub(t.phaseStart), rate))
}

func (t *termProgress) close() {
	close(t.done)
	<-t.ended
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.bar.Clear()
}

// phasePercent is how far the phase is: by time for warm-up and measure, by
// records finished for the drain.
func phasePercent(info campaign.PhaseInfo, inPhase time.Duration, finished, produced int64) int {
	switch info.Name {
	case campaign.PhaseWarmup, campaign.PhaseMeasure:
		if info.Planned > 0 {
			return min(100, int(100*inPhase/info.Planned))
		}
	case campaign.PhaseDrain:
		if produced > 0 {
			return min(100, int(100*finished/produced))
		}
	}
	return 0
}

// describe is the bar's text: run i of N, phase, elapsed and remaining
// time of the current run's phase, live completed records/s.
func describe(info campaign.PhaseInfo, inRun, inPhase time.Duration, rate float64) string {
	left := "left ?"
	switch {
	case info.Planned <= 0:
	case info.Name == campaign.PhaseWarmup || info.Name == campaign.PhaseMeasure:
		left = "left " + roundSec(max(0, info.Planned-inPhase))
	default: // setup, drain: the planned length is a timeout
		left = "left ≤" + roundSec(max(0, info.Planned-inPhase))
	}
	return fmt.Sprintf("run %d/%d %s | %s | elapsed %s | %s | %.0f completed/s",
		info.Run, info.Runs, info.RunID, info.Name, roundSec(inRun), left, rate)
}

func roundSec(d time.Duration) string { return d.Round(time.Second).String() }

// rateMeter turns a running count into a per-second rate over the last
// second or so.
type rateMeter struct {
	at    time.Time
	count int64
	rate  float64
}

func (m *rateMeter) observe(now time.Time, count int64) float64 {
	if m.at.IsZero() {
		m.at, m.count = now, count
		return 0
	}
	if dt := now.Sub(m.at); dt >= time.Second {
		m.rate = float64(count-m.count) / dt.Seconds()
		m.at, m.count = now, count
	}
	return m.rate
}
