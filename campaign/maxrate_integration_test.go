//go:build integration

package campaign

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// TestMaxRateFindsWorkerCeiling: a share group of 2 members × 1 worker ×
// 10 ms has a worker ceiling of C = 2 × 1 × 1000/10 = 200 records/s. The
// schedule 80, 150, 220, 290 is chosen so that the outcome of every step is
// derivable:
//
//   - a step above C ÷ completed_ratio (200 ÷ 0.98 = 204) must fail: the
//     workers cannot complete more than C records/s (each record sleeps at
//     least 10 ms), so completed/offered ≤ C/rate < 0.98. First such step: 220.
//     The test's ratio is 0.98, not the default 0.995: a 5 s step at 150
//     records/s counts 750 records, and the records in flight at the
//     window's two edges (rate × latency, a few records at 20–40 ms) move the
//     count by more than 0.5 % on a busy host (one run read 0.9947).
//   - a step at or below (1 − m) × C passes, with m = 25 % for the per-poll
//     overheads (a fetch and an acknowledgement round trip per 5 records) and
//     sleep overshoot on a loaded 2-core host: 150 = 0.75 × C.
//   - no step lies in between ((150, 204], where the outcome would depend on
//     the overheads).
//
// So the search runs exactly 80, 150, 220, stops at 220 (it never runs 290)
// and finds 150.
func TestMaxRateFindsWorkerCeiling(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Workers, s.MaxPollRecords = "share", 2, 1, 5
	s.Processing.Time = 10 * time.Millisecond
	s.Warmup, s.Duration, s.DrainTimeout = 2*time.Second, 5*time.Second, 30*time.Second
	s.LoadMode, s.Renew, s.Style = "max_rate", "none", "blocking"
	s.MaxRate = &scenarios.MaxRate{Start: 80, Step: 70, Max: 290, P99Bound: time.Second, CompletedRatio: 0.98}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	ceiling := float64(s.Members*s.Workers) * 1000 / float64(s.Processing.Time.Milliseconds())
	const overheadMargin = 0.25
	passBelow, failAbove := (1-overheadMargin)*ceiling, ceiling/s.MaxRate.CompletedRatio
	want, wantStop := expectedMaxRate(s.MaxRate.Schedule(), passBelow, failAbove)
	if want != 150 || wantStop != 220 {
		t.Fatalf("the schedule %v gives found %.0f, stop %.0f: want 150 and 220 (the test's derivation changed)", s.MaxRate.Schedule(), want, wantStop)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m, err := RunOne(ctx, needKafka(t), s, "maxrate", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	res := m.Record.MaxRate
	if res == nil {
		t.Fatal("run.json has no max_rate")
	}
	var offered []float64
	for _, st := range res.Steps {
		offered = append(offered, st.OfferedPerSec)
		t.Logf("step %.0f: completed %.1f/s ratio %.4f p99 %.1f ms pass %v (%s) flags %v",
			st.OfferedPerSec, st.CompletedPerSec, st.CompletedRatio, st.P99Ms, st.Pass, st.Why, st.Flags)
	}
	t.Log(res.Line("maxrate"))
	if res.FoundRate != want {
		t.Errorf("found %.0f records/s, want %.0f: the last step ≤ (1 − %.2f) × ceiling %.0f", res.FoundRate, want, overheadMargin, ceiling)
	}
	if wantSteps := []float64{80, 150, 220}; !slices.Equal(offered, wantSteps) {
		t.Errorf("steps ran %v, want %v: the search stops at the first step above ceiling ÷ completed_ratio = %.0f", offered, wantSteps, failAbove)
	}
	for i, st := range res.Steps {
		if wantPass := st.OfferedPerSec <= passBelow; st.Pass != wantPass {
			t.Errorf("step %d at %.0f: pass %v, want %v (%s)", i+1, st.OfferedPerSec, st.Pass, wantPass, st.Why)
		}
		// The workers' physical bound: completed never exceeds the ceiling
		// (2 % for the window edges: completions by completion time).
		if st.CompletedPerSec > 1.02*ceiling {
			t.Errorf("step %.0f: completed %.1f/s above the worker ceiling %.0f", st.OfferedPerSec, st.CompletedPerSec, ceiling)
		}
	}
	if got := m.Record.Throughput.OfferedPerSec; got != res.FoundRate {
		t.Errorf("run.json's figures are those of step %.0f, want the found rate %.0f", got, res.FoundRate)
	}
}

// expectedMaxRate is the found rate and the stopping step of a schedule
// whose steps ≤ passBelow pass and > failAbove fail; a step in between
// has no derivable outcome, so it returns (-1, -1).
func expectedMaxRate(schedule []float64, passBelow, failAbove float64) (found, stop float64) {
	for _, r := range schedule {
		switch {
		case r <= passBelow:
			found = r
		case r > failAbove:
			return found, r
		default:
			return -1, -1
		}
	}
	return found, 0
}
