//go:build integration

package campaign

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
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
// So the schedule runs exactly 80, 150, 220 and stops at 220 (it never runs
// 290). The bisection (precision 5 %) then probes between 150 and 220: a
// probe above 204 fails and one at or below 150 passes, those in between
// go either way, so the confirmed answer lies in [150, 204] with the
// lowest failing rate within 5 % above it.
func TestMaxRateFindsWorkerCeiling(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Workers, s.MaxPollRecords = "share", 2, 1, 5
	s.Processing.Time = 10 * time.Millisecond
	s.Warmup, s.Duration, s.DrainTimeout = 2*time.Second, 5*time.Second, 30*time.Second
	s.LoadMode, s.Renew, s.Style = "max_rate", "none", "blocking"
	s.MaxRate = &scenarios.MaxRate{Start: 80, Step: 70, Max: 290, P99Bound: time.Second, CompletedRatio: 0.98, Precision: 0.05}
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
	if res.FoundRate < want || res.FoundRate > failAbove {
		t.Errorf("found %.6g records/s, want it in [%.0f, %.0f]: the schedule's last pass ≤ (1 − %.2f) × ceiling %.0f, and no rate above ceiling ÷ completed_ratio passes",
			res.FoundRate, want, failAbove, overheadMargin, ceiling)
	}
	if !res.Confirmed || res.GapRatio > s.MaxRate.Precision || res.FailedRate <= res.FoundRate || res.FailedRate > wantStop {
		t.Errorf("confirmed %v, failed at %.6g, gap %.4g: want the answer confirmed and the lowest failing rate within %.2g above it, at most %.0f",
			res.Confirmed, res.FailedRate, res.GapRatio, s.MaxRate.Precision, wantStop)
	}
	if len(offered) < 3 || !slices.Equal(offered[:3], []float64{80, 150, 220}) {
		t.Errorf("steps ran %v, want 80, 150, 220 first: the schedule stops at the first step above ceiling ÷ completed_ratio = %.0f", offered, failAbove)
	}
	if n := len(res.Steps); n > 3+runs.MaxRateProbes {
		t.Errorf("%d steps: the search's probes beyond the schedule are bounded by %d", n, runs.MaxRateProbes)
	}
	for i, st := range res.Steps {
		switch {
		case st.OfferedPerSec <= passBelow && !st.Pass:
			t.Errorf("step %d at %.6g (≤ %.0f) failed: %s", i+1, st.OfferedPerSec, passBelow, st.Why)
		case st.OfferedPerSec > failAbove && st.Pass:
			t.Errorf("step %d at %.6g (> %.0f) passed: %s", i+1, st.OfferedPerSec, failAbove, st.Why)
		}
		if i >= 3 && (st.OfferedPerSec <= 150 && st.Probe == runs.ProbeBisect || st.OfferedPerSec >= 220) {
			t.Errorf("step %d (%s) at %.6g: bisection probes lie strictly between 150 and 220", i+1, st.Probe, st.OfferedPerSec)
		}
		// The workers' physical bound: completed never exceeds the ceiling
		// (2 % for the window edges: completions by completion time).
		if st.CompletedPerSec > 1.02*ceiling {
			t.Errorf("step %.6g: completed %.1f/s above the worker ceiling %.0f", st.OfferedPerSec, st.CompletedPerSec, ceiling)
		}
	}
	if last := res.Steps[len(res.Steps)-1]; last.Probe != runs.ProbeConfirm || last.OfferedPerSec != res.FoundRate || !last.Pass {
		t.Errorf("the last step %+v: want the passing confirmation of %.6g", last, res.FoundRate)
	}
	if got := m.Record.Throughput.OfferedPerSec; got != res.FoundRate {
		t.Errorf("run.json's figures are those of step %.6g, want the found rate %.6g", got, res.FoundRate)
	}
	if math.Abs(res.CeilingPerSec-ceiling) > 1e-9 {
		t.Errorf("max_rate.formula_ceiling_per_sec %.6g, want the worker ceiling %.0f", res.CeilingPerSec, ceiling)
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
