package consumers

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestSamplerMatchesModel(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		p          Processing
		mean       time.Duration
		median     time.Duration
		p99        time.Duration
		wantMeanHi float64 // tolerance on the sample mean, relative
	}{
		{Processing{Model: ModelConstant, Time: 10 * ms}, 10 * ms, 10 * ms, 10 * ms, 0},
		{Processing{Model: ModelUniform, Min: 2 * ms, Max: 6 * ms}, 4 * ms, 4 * ms, time.Duration(5.96 * float64(ms)), 0.02},
		// exponential: median = mean·ln 2, p99 = mean·ln 100.
		{Processing{Model: ModelExponential, Mean: 10 * ms}, 10 * ms, time.Duration(10 * math.Ln2 * float64(ms)), time.Duration(10 * math.Log(100) * float64(ms)), 0.03},
		// lognormal median 10 ms, p99 50 ms: σ = ln 5 / 2.3263 = 0.6918, mean = 10·e^(σ²/2) = 12.70 ms.
		{Processing{Model: ModelLognormal, Median: 10 * ms, P99: 50 * ms}, time.Duration(12.700 * float64(ms)), 10 * ms, 50 * ms, 0.03},
		{Processing{Model: ModelNone}, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(string(tc.p.Model), func(t *testing.T) {
			s, err := NewSampler(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			const n = 200000
			xs := make([]float64, n)
			var sum float64
			for i := range xs {
				xs[i] = float64(s.Sample(r))
				sum += xs[i]
			}
			slices.Sort(xs)
			within := func(name string, got, want float64, tol float64) {
				t.Helper()
				if math.Abs(got-want) > tol*math.Max(want, 1) {
					t.Errorf("%s = %v, want %v (±%.0f%%)", name, time.Duration(got), time.Duration(want), tol*100)
				}
			}
			within("sample mean", sum/n, float64(tc.mean), tc.wantMeanHi+1e-9)
			within("sample median", xs[n/2], float64(tc.median), tc.wantMeanHi+1e-9)
			within("sample p99", xs[n*99/100], float64(tc.p99), 2*tc.wantMeanHi+1e-9)
		})
	}
}

func TestSamplerRejectsBadModels(t *testing.T) {
	for _, p := range []Processing{
		{Model: "gaussian"},
		{}, // the model has one spelling: "none", not ""
		{Model: ModelUniform, Min: 5, Max: 1},
		{Model: ModelExponential},
		{Model: ModelLognormal, Median: 10, P99: 5},
		{Model: ModelConstant, Time: -1},
	} {
		if _, err := NewSampler(p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
