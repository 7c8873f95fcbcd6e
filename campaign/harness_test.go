package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/results"
)

// harnessSamples keeps the readings inside the window, edges included,
// timed from its start, with the recorder's memory split as run.json's
// harness block has it (the interval logs apart).
func TestHarnessSamplesInWindow(t *testing.T) {
	start := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	end := start.Add(10 * time.Second)
	rec := results.RecorderHeld{Fixed: 1000, IntervalLogs: 300, Other: 20}
	var in []collectors.ProcSample
	for _, off := range []time.Duration{-time.Second, 0, 5 * time.Second, 10 * time.Second, 11 * time.Second} {
		in = append(in, collectors.ProcSample{At: start.Add(off), HarnessRSSBytes: 7, Goroutines: 9, OpenFiles: 11, Recorder: rec})
	}
	got := harnessSamples(in, start, end)
	if len(got) != 3 || got[0].AtSec != 0 || got[1].AtSec != 5 || got[2].AtSec != 10 {
		t.Fatalf("got %+v", got)
	}
	if s := got[1]; s.RSSBytes != 7 || s.Goroutines != 9 || s.OpenFiles != 11 || s.RecorderBytes != 1020 || s.IntervalLogBytes != 300 {
		t.Errorf("got %+v", s)
	}
}
