package runs

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// ceilingModel is a consumer fleet with a hard ceiling: it completes
// min(rate, ceiling) records/s, with p99 low below the ceiling and growing
// with the backlog above it.
func ceilingModel(ceiling float64, calls *[]float64) func(MaxRateProbe) (MaxRateStep, error) {
	return func(p MaxRateProbe) (MaxRateStep, error) {
		rate := p.Rate
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

// With precision, the search bisects between the last passing and the
// first failing step of the schedule until the gap is at most precision of
// the passing rate, then confirms the answer. The model's limit is exact
// (a rate passes iff ≤ limit), so every probe and the answer follow from
// the halving: 100 pass, 200 fail; 150 pass, 175 fail, 163 pass (rounded),
// 169 fail; gap 6 ≤ 0.05 × 163 = 8.15; 163 confirmed.
func TestSearchMaxRateBisects(t *testing.T) {
	const limit = 166.0
	var calls []MaxRateProbe
	model := func(p MaxRateProbe) (MaxRateStep, error) {
		calls = append(calls, p)
		s := MaxRateStep{CompletedPerSec: min(p.Rate, limit), P50Ms: 5, P99Ms: 20}
		return s, nil
	}
	c := MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500, Precision: 0.05}
	res, err := SearchMaxRate([]float64{100, 200, 300}, c, model)
	if err != nil {
		t.Fatal(err)
	}
	var rates []float64
	var kinds []string
	for _, p := range calls {
		rates = append(rates, p.Rate)
		kinds = append(kinds, p.Kind)
	}
	if want := []float64{100, 200, 150, 175, 163, 169, 163}; !floatsEqual(rates, want) {
		t.Errorf("probes %v, want %v", rates, want)
	}
	if want := []string{ProbeSchedule, ProbeSchedule, ProbeBisect, ProbeBisect, ProbeBisect, ProbeBisect, ProbeConfirm}; !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	if res.FoundRate != 163 || res.FailedRate != 169 || !res.Confirmed || math.Abs(res.GapRatio-6.0/163) > 1e-12 {
		t.Errorf("found %v failed %v gap %v confirmed %v: want 163, 169, 6/163, confirmed", res.FoundRate, res.FailedRate, res.GapRatio, res.Confirmed)
	}
	if res.GapRatio > c.Precision || res.FailedRate <= limit || res.FoundRate > limit {
		t.Errorf("the answer %v (failed %v) does not bracket the limit %v within %v", res.FoundRate, res.FailedRate, limit, c.Precision)
	}
	for i, s := range res.Steps {
		if s.Probe != calls[i].Kind || s.OfferedPerSec != calls[i].Rate {
			t.Errorf("step %d is %s at %v, want %s at %v", i, s.Probe, s.OfferedPerSec, calls[i].Kind, calls[i].Rate)
		}
	}
	if !strings.Contains(res.Stop, "163 confirmed") {
		t.Errorf("stop %q: want the confirmation named", res.Stop)
	}
}

// A failed confirmation makes the answer the lowest failing rate and the
// next passing rate below it the new answer; the bisection goes on from
// there. The model passes 163 once (a lucky window) and fails it after.
func TestSearchMaxRateFailedConfirmation(t *testing.T) {
	seen := map[float64]int{}
	var rates []float64
	model := func(p MaxRateProbe) (MaxRateStep, error) {
		seen[p.Rate]++
		rates = append(rates, p.Rate)
		limit := 155.0
		if p.Rate == 163 && seen[p.Rate] == 1 {
			limit = 170
		}
		return MaxRateStep{CompletedPerSec: min(p.Rate, limit), P99Ms: 20}, nil
	}
	c := MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500, Precision: 0.05}
	res, err := SearchMaxRate([]float64{100, 200}, c, model)
	if err != nil {
		t.Fatal(err)
	}
	// 100 ✓ 200 ✗ | 150 ✓ 175 ✗ 163 ✓(lucky) 169 ✗ | confirm 163 ✗ → lo 150, hi 163: gap 13 > 7.5 |
	// 157 ✗ | gap 7 ≤ 7.5: confirm 150 ✓
	if want := []float64{100, 200, 150, 175, 163, 169, 163, 157, 150}; !floatsEqual(rates, want) {
		t.Errorf("probes %v, want %v", rates, want)
	}
	if res.FoundRate != 150 || res.FailedRate != 157 || !res.Confirmed {
		t.Errorf("found %v failed %v confirmed %v: want 150, 157, confirmed", res.FoundRate, res.FailedRate, res.Confirmed)
	}
}

// The probes beyond the schedule are bounded: a model whose every
// confirmation fails ends at MaxRateProbes with the answer unconfirmed or
// none at all, never in an endless search.
func TestSearchMaxRateBounded(t *testing.T) {
	n := 0
	model := func(p MaxRateProbe) (MaxRateStep, error) {
		n++
		if p.Kind == ProbeConfirm {
			return MaxRateStep{CompletedPerSec: 0, P99Ms: 20}, nil
		}
		return MaxRateStep{CompletedPerSec: min(p.Rate, 1000), P99Ms: 20}, nil
	}
	c := MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500, Precision: 0.001}
	res, err := SearchMaxRate([]float64{100, 2000}, c, model)
	if err != nil {
		t.Fatal(err)
	}
	if n > 2+MaxRateProbes || res.Confirmed {
		t.Errorf("%d probes (bound %d beyond 2), confirmed %v", n, MaxRateProbes, res.Confirmed)
	}
}

// Precision 0 (and records from before bisection) is the schedule alone:
// no bisection, no confirmation.
func TestSearchMaxRateWithoutPrecision(t *testing.T) {
	var calls []float64
	res, err := SearchMaxRate([]float64{100, 150, 200, 250}, MaxRateCriteria{CompletedRatio: 0.995, P99BoundMs: 500}, ceilingModel(180, &calls))
	if err != nil {
		t.Fatal(err)
	}
	if !floatsEqual(calls, []float64{100, 150, 200}) || res.FoundRate != 150 || res.FailedRate != 200 || res.Confirmed {
		t.Errorf("calls %v found %v failed %v confirmed %v", calls, res.FoundRate, res.FailedRate, res.Confirmed)
	}
}

func TestSearchMaxRateError(t *testing.T) {
	boom := errors.New("broker gone")
	res, err := SearchMaxRate([]float64{100, 200, 300}, MaxRateCriteria{CompletedRatio: 0.9, P99BoundMs: 100},
		func(p MaxRateProbe) (MaxRateStep, error) {
			if p.Rate == 200 {
				return MaxRateStep{}, boom
			}
			return MaxRateStep{CompletedPerSec: p.Rate, P99Ms: 1}, nil
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
