package runs

import (
	"errors"
	"strings"
	"testing"
)

// ceilingModel is a consumer fleet with a hard ceiling: it completes
// min(rate, ceiling) records/s, with p99 low below the ceiling and growing
// with the backlog above it.
func ceilingModel(ceiling float64, calls *[]float64) func(int, float64, bool) (MaxRateStep, error) {
	return func(_ int, rate float64, _ bool) (MaxRateStep, error) {
		*calls = append(*calls, rate)
		s := MaxRateStep{CompletedPerSec: min(rate, ceiling), P99Ms: 40}
		if rate >= ceiling {
			s.P99Ms = 40 + 1000*(rate-ceiling+1)
		}
		return s, nil
	}
}

func TestSearchMaxRate(t *testing.T) {
	crit := MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500}
	tests := []struct {
		name      string
		schedule  []float64
		ceiling   float64
		confirm   bool
		wantFound float64
		wantCalls []float64
		wantStop  string
	}{
		{"stops at the first failing step", []float64{100, 150, 200, 250, 300}, 200, false, 150,
			[]float64{100, 150, 200}, "stopped at 200 records/s: completion p99 1040.0 ms > bound 500 ms"},
		{"confirm retries the failing step once", []float64{100, 150, 200, 250, 300}, 180, true, 150,
			[]float64{100, 150, 200, 200}, "completed 0.9 of offered < 0.995"},
		{"every step passes", []float64{100, 200}, 1000, false, 200, []float64{100, 200}, "raise max_rate.max"},
		{"first step fails: nothing found", []float64{300, 400}, 100, false, 0, []float64{300}, "stopped at 300"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls []float64
			c := crit
			c.Confirm = tc.confirm
			res, err := SearchMaxRate(tc.schedule, c, ceilingModel(tc.ceiling, &calls))
			if err != nil {
				t.Fatal(err)
			}
			if res.FoundRate != tc.wantFound || !floatsEqual(calls, tc.wantCalls) || !strings.Contains(res.Stop, tc.wantStop) {
				t.Errorf("found %v calls %v stop %q; want %v %v containing %q", res.FoundRate, calls, res.Stop, tc.wantFound, tc.wantCalls, tc.wantStop)
			}
			if len(res.Steps) != len(tc.wantCalls) {
				t.Errorf("steps %d, want %d", len(res.Steps), len(tc.wantCalls))
			}
			if tc.confirm && !res.Steps[len(res.Steps)-1].Retry {
				t.Errorf("the last step must be the retry: %+v", res.Steps)
			}
		})
	}
}

func TestSearchMaxRateError(t *testing.T) {
	boom := errors.New("broker gone")
	res, err := SearchMaxRate([]float64{100, 200, 300}, MaxRateCriteria{CompletedRatio: 0.9, P99BoundMs: 100},
		func(n int, rate float64, _ bool) (MaxRateStep, error) {
			if rate == 200 {
				return MaxRateStep{}, boom
			}
			return MaxRateStep{CompletedPerSec: rate, P99Ms: 1}, nil
		})
	if !errors.Is(err, boom) || len(res.Steps) != 1 || res.FoundRate != 100 {
		t.Errorf("err %v steps %d found %v; want the error after one step, found 100", err, len(res.Steps), res.FoundRate)
	}
}

func TestJudge(t *testing.T) {
	c := MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500}
	for _, tc := range []struct {
		offered, completed, p99 float64
		pass                    bool
		why                     string
	}{
		{200, 199, 120, true, "completed 0.995 of offered ≥ 0.995, p99 120.0 ms ≤ 500 ms"},
		{200, 198, 120, false, "completed 0.99 of offered < 0.995"},
		{200, 200, 501, false, "completion p99 501.0 ms > bound 500 ms"},
		{200, 100, 900, false, "completed 0.5 of offered < 0.995; completion p99 900.0 ms > bound 500 ms"},
	} {
		s := MaxRateStep{OfferedPerSec: tc.offered, CompletedPerSec: tc.completed, P99Ms: tc.p99}
		c.Judge(&s)
		if s.Pass != tc.pass || s.Why != tc.why {
			t.Errorf("%v/%v p99 %v: pass %v why %q; want %v %q", tc.completed, tc.offered, tc.p99, s.Pass, s.Why, tc.pass, tc.why)
		}
	}
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFoundRateField(t *testing.T) {
	if _, ok := FieldValue(Record{}, "max_rate.found_rate"); ok {
		t.Error("a rate-mode run (no max_rate) must not read a found rate")
	}
	if v, ok := FieldValue(Record{MaxRate: &MaxRateResult{FoundRate: 450}}, "max_rate.found_rate"); !ok || v != 450 {
		t.Errorf("found rate %v %v, want 450", v, ok)
	}
}
