package runs

import (
	"math"
	"testing"

	"github.com/sharebench/sharebench/results"
)

func TestDrainEstimate(t *testing.T) {
	tests := []struct {
		name               string
		backlog            int64
		produced, consumed float64
		want               float64 // NaN: nil
	}{
		{"drains at the net rate", 3000, 1000, 1500, 6},
		{"no backlog", 0, 1000, 400, 0},
		{"consumers slower: never", 3000, 1000, 400, math.NaN()},
		{"consumers exactly as fast: never", 3000, 1000, 1000, math.NaN()},
		{"nothing measured", 10, 0, 0, math.NaN()},
	}
	for _, tc := range tests {
		got := DrainEstimate(tc.backlog, tc.produced, tc.consumed)
		switch {
		case math.IsNaN(tc.want) && got != nil:
			t.Errorf("%s: %v, want nil", tc.name, *got)
		case !math.IsNaN(tc.want) && (got == nil || math.Abs(*got-tc.want) > 1e-9):
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A known queue: 1,000 records/s produced throughout; the consumers start
// 10 s late (a 10,000-record backlog at the window's start), then complete
// 1,500/s. At the end of the 10 s window the backlog is 5,000 and the
// measured rates are 1,000 and 1,500/s, so the estimate is
// 5000 / (1500 − 1000) = 10 s. With production going on, the drain time
// measured on the time series (the first second whose cumulative
// completions catch up with production) agrees within its 1 s resolution.
func TestDrainEstimateMatchesMeasuredDrain(t *testing.T) {
	const produce, consume, late, window = 1000, 1500, 10, 10
	s := results.NewSeries(0, 120)
	var backlog int64
	for sec := 0; sec < 120; sec++ {
		var done int64
		if sec >= late {
			done = min(consume, backlog+produce)
		}
		s.Add(results.Produced, int64(sec)*1e9, produce)
		s.Add(results.Completed, int64(sec)*1e9, done)
		backlog += produce - done
	}
	w := results.Window{Start: late * 1e9, End: (late + window) * 1e9}
	first, end := s.Bucket(w.Start), s.Bucket(w.End)
	atEnd := s.Total(results.Produced, 0, end) - s.Total(results.Completed, 0, end)
	est := DrainEstimate(atEnd, float64(s.Total(results.Produced, first, end))/w.Seconds(), float64(s.Total(results.Completed, first, end))/w.Seconds())
	if atEnd != 5000 || est == nil || *est != 10 {
		t.Fatalf("backlog %d estimate %v, want 5000 and 10 s", atEnd, est)
	}
	measured := -1
	for sec := end; sec < s.Len(); sec++ {
		if s.Total(results.Produced, 0, sec+1)-s.Total(results.Completed, 0, sec+1) <= 0 {
			measured = sec + 1 - end // seconds after the window end
			break
		}
	}
	if measured < 0 || math.Abs(float64(measured)-*est) > 1 {
		t.Fatalf("measured drain %d s, estimated %.1f s", measured, *est)
	}
	// With the producers stopped at the window's end (what a sharebench run
	// does), the same backlog drains in backlog / consume = 3.3 s:
	// phases.drain_s is that figure, not the estimate.
}
