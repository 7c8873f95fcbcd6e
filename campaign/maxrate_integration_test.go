//go:build integration

package campaign

import (
	"context"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// TestMaxRateFindsWorkerCeiling: a share group of 2 members × 1 worker ×
// 10 ms has a worker ceiling of 2 × 1000/10 = 200 records/s. Stepping
// 100, 150, ..., 300 the search must stop at the first failing step and
// find the last step below the ceiling (150), within one step.
func TestMaxRateFindsWorkerCeiling(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.MaxPollRecords = "share", 2, 5
	s.Warmup, s.Duration, s.DrainTimeout = 2*time.Second, 5*time.Second, 30*time.Second
	s.LoadMode, s.Renew, s.Style = "max_rate", "none", "blocking"
	s.MaxRate = &scenarios.MaxRate{Start: 100, Step: 50, Max: 300, P99Bound: time.Second, CompletedRatio: 0.995}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
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
	for _, st := range res.Steps {
		t.Logf("step %.0f: completed %.1f/s ratio %.4f p99 %.1f ms pass %v (%s) flags %v",
			st.OfferedPerSec, st.CompletedPerSec, st.CompletedRatio, st.P99Ms, st.Pass, st.Why, st.Flags)
	}
	t.Log(res.Line("maxrate"))
	const ceiling, step = 200.0, 50.0
	want := 150.0 // the last scheduled rate below the ceiling
	if res.FoundRate < want-step || res.FoundRate > want+step {
		t.Errorf("found %.0f records/s, want %.0f ± one step (%.0f)", res.FoundRate, want, step)
	}
	last := res.Steps[len(res.Steps)-1]
	if last.Pass && last.OfferedPerSec < 300 {
		t.Errorf("the search must end on a failing step or the schedule's end, ended on %+v", last)
	}
	for _, st := range res.Steps[:len(res.Steps)-1] {
		if !st.Pass {
			t.Errorf("a failing step before the last: %+v (the search stops at the first failure)", st)
		}
	}
	if last.OfferedPerSec > ceiling+2*step {
		t.Errorf("steps ran up to %.0f; above the ceiling %.0f the first step must fail", last.OfferedPerSec, ceiling)
	}
	if got := m.Record.Throughput.OfferedPerSec; got != res.FoundRate && res.FoundRate > 0 {
		t.Errorf("run.json's figures are those of step %.0f, want the found rate %.0f", got, res.FoundRate)
	}
}
