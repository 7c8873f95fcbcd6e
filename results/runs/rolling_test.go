package runs

import (
	"slices"
	"testing"

	"github.com/sharebench/sharebench/results"
)

// A rolling event's steps: each step's window-relative times, its longest
// run of seconds without a completion and its lowest second, over the
// seconds its span [StartNs, SpanEndNs) touches inside the window; and the
// summary's step counts, longest gap, duplicates and broker releases.
func TestRollingStepsAnalysis(t *testing.T) {
	window := results.Window{Start: 5 * sec, End: 45 * sec}
	// Seconds from the series start (0); the window starts at second 5.
	// Step 1 spans s10..s19 (StartNs 10.2 s, SpanEndNs 19.5 s: seconds
	// 10..19), with 0 completions at s12, s13, s14 (a gap of 3) and s17
	// (1), lowest 0. Step 2 spans s20..s29 with 40 at s22 (lowest), no
	// zero second. Step 3 starts at 41.5 s and its span reaches 50 s,
	// past the window: seconds 41..44 count (45 holds the window's end and
	// is left out), with 0 at s43 and s44: a gap of 2; s45..47 = 0 are not
	// counted.
	completed := series(50, 100, map[int]int64{12: 0, 13: 0, 14: 0, 17: 0, 22: 40, 43: 0, 44: 0, 45: 0, 46: 0, 47: 0})
	ev := Event{Action: "broker_rolling_upgrade", StartNs: 10 * sec, EndNs: 45 * sec,
		Steps: []RollingStep{
			{Broker: 1, VersionBefore: "4.2.2", VersionAfter: "4.3.1", StartNs: 10*sec + sec/5, EndNs: 16 * sec, SpanEndNs: 19*sec + sec/2,
				Redeliveries: 7, DuplicateCompletions: 2},
			{Broker: 2, VersionBefore: "4.2.2", VersionAfter: "4.3.1", StartNs: 20 * sec, EndNs: 26 * sec, SpanEndNs: 30 * sec},
			{Broker: 3, VersionBefore: "4.2.2", VersionAfter: "4.2.2", StartNs: 41*sec + sec/2, EndNs: 48 * sec, SpanEndNs: 50 * sec,
				DuplicateCompletions: 1, Error: "under-replicated partitions remained"},
		},
		Versions: []BrokerVersion{{1, "4.2.2", "4.3.1"}, {2, "4.2.2", "4.3.1"}, {3, "4.2.2", "4.2.2"}},
	}
	reps := AnalyzeEvents(EventInput{Completed: completed, Redelivered: make([]int64, 50), SeriesStart: 0, LoadStart: 0,
		Window: window, Events: []Event{ev}})
	steps := reps[0].Steps
	want := []struct{ start, end, gap, lowest float64 }{
		{5.2, 11, 3, 0},
		{15, 21, 0, 40},
		{36.5, 43, 2, 0},
	}
	for k, w := range want {
		st := steps[k]
		if !near(st.StartSec, w.start) || !near(st.EndSec, w.end) || st.CompletionGapMaxSec != w.gap || st.LowestPerSec != w.lowest {
			t.Errorf("step %d: start %.2f end %.2f gap %.0f lowest %.0f, want %.2f %.2f %.0f %.0f",
				k+1, st.StartSec, st.EndSec, st.CompletionGapMaxSec, st.LowestPerSec, w.start, w.end, w.gap, w.lowest)
		}
	}
	if ev.Steps[0].StartSec != 0 {
		t.Error("the analysis wrote into the fired event's steps")
	}
	s := SummarizeEvents(reps, nil, 6)
	if s.RollingSteps != 2 || s.RollingStepsFailed != 1 || s.RollingGapMaxSec != 3 || s.RollingDuplicates != 3 {
		t.Errorf("summary steps %d failed %d gap %.0f duplicates %d, want 2 1 3 3", s.RollingSteps, s.RollingStepsFailed, s.RollingGapMaxSec, s.RollingDuplicates)
	}
	if !slices.Equal(s.BrokerVersions, ev.Versions) {
		t.Errorf("broker versions %+v", s.BrokerVersions)
	}
}

// Two rolling events: a broker's release before is the first event's, after
// the last's.
func TestRollingBrokerVersionsAcrossEvents(t *testing.T) {
	reps := []EventReport{
		{Event: Event{Versions: []BrokerVersion{{2, "4.2.2", "4.2.2"}, {1, "4.2.2", "4.2.2"}}}},
		{Event: Event{Versions: []BrokerVersion{{1, "4.2.2", "4.3.1"}, {2, "4.2.2", "4.3.1"}}}},
	}
	s := SummarizeEvents(reps, nil, 0)
	want := []BrokerVersion{{1, "4.2.2", "4.3.1"}, {2, "4.2.2", "4.3.1"}}
	if !slices.Equal(s.BrokerVersions, want) {
		t.Errorf("got %+v, want %+v", s.BrokerVersions, want)
	}
	if s.RollingSteps != 0 {
		t.Errorf("steps %d", s.RollingSteps)
	}
}

func TestCompletionGap(t *testing.T) {
	c := []int64{5, 0, 0, 3, 0, 0, 0, 9}
	for _, tc := range []struct {
		from, to    int
		gap, lowest float64
	}{
		{0, 8, 3, 0}, {0, 3, 2, 0}, {3, 4, 0, 3}, {7, 20, 0, 9}, {-3, 1, 0, 5}, {5, 5, 0, 0}, {0, 1, 0, 5},
	} {
		if g, l := completionGap(c, tc.from, tc.to); g != tc.gap || l != tc.lowest {
			t.Errorf("[%d, %d): gap %.0f lowest %.0f, want %.0f %.0f", tc.from, tc.to, g, l, tc.gap, tc.lowest)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
