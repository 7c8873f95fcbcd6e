package runs

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Hand-computed examples. U counts pairs (x, y) with y > x, ties ½; the
// exact p is the share of the C(6,3) = 20 ways to pick y's ranks among the
// pooled ranks whose sum is at least the observed one.
func TestMannWhitneyExact(t *testing.T) {
	tests := []struct {
		name    string
		x, y    []float64
		u, p    float64
		minP    float64
		comment string
	}{
		// y above every x: rank sum 4+5+6 = 15, the largest of 20: p = 1/20.
		{"separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 9, 1.0 / 20, 1.0 / 20, ""},
		// ranks of y 3,5,6 (sum 14): sums ≥ 14 are {4,5,6} and {3,5,6}: p = 2/20.
		{"one swap", []float64{1, 2, 4}, []float64{3, 5, 6}, 8, 2.0 / 20, 1.0 / 20, ""},
		// pooled 1,2,2,2,3,4: mid-ranks 1,3,3,3,5,6; y = 3,5,6 (sum 14, U 8);
		// subsets with sum ≥ 14: {5,6} with one of the three 3s: p = 3/20.
		{"ties", []float64{1, 2, 2}, []float64{2, 3, 4}, 8, 3.0 / 20, 3.0 / 20, ""},
		// y below every x: U 0, every subset has a sum ≥ the smallest: p = 1.
		{"reversed", []float64{4, 5, 6}, []float64{1, 2, 3}, 0, 1, 1.0 / 20, ""},
		// two trials a side: the smallest possible p is 1/C(4,2) = 1/6 > 0.05.
		{"two a side", []float64{1, 2}, []float64{3, 4}, 4, 1.0 / 6, 1.0 / 6, ""},
	}
	for _, tc := range tests {
		r := MannWhitney(tc.x, tc.y)
		if !r.Exact || r.U != tc.u || math.Abs(r.P-tc.p) > 1e-12 || math.Abs(r.MinP-tc.minP) > 1e-12 {
			t.Errorf("%s: MannWhitney(%v, %v) = %+v, want U %v p %v minP %v exact", tc.name, tc.x, tc.y, r, tc.u, tc.p, tc.minP)
		}
	}
}

// Above ExactMaxTrials pooled trials: the normal approximation.
// x = 0..29, y = 10.5..39.5: U = Σ_j min(j+11, 30) = 410 + 300 = 710;
// mean n·m/2 = 450, variance n·m(N+1)/12 = 4575, z = (710−450−½)/√4575 =
// 3.83656, p = ½·erfc(z/√2) = 6.2385e-5.
func TestMannWhitneyNormal(t *testing.T) {
	var x, y []float64
	for j := range 30 {
		x = append(x, float64(j))
		y = append(y, float64(j)+10.5)
	}
	r := MannWhitney(x, y)
	if r.Exact || r.U != 710 || math.Abs(r.P-6.2385e-5) > 1e-8 {
		t.Errorf("MannWhitney = %+v, want U 710, p 6.2385e-5 by the normal approximation", r)
	}
}

// The dynamic programme agrees with enumerating every subset, ties included.
func TestMannWhitneyExactMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n, m := 1+rng.IntN(5), 1+rng.IntN(5)
		x, y := make([]float64, n), make([]float64, m)
		for i := range x {
			x[i] = float64(rng.IntN(6))
		}
		for i := range y {
			y[i] = float64(rng.IntN(6))
		}
		got := MannWhitney(x, y)
		pooled := append(append([]float64(nil), x...), y...)
		u := func(ys []float64, xs []float64) float64 {
			var s float64
			for _, a := range ys {
				for _, b := range xs {
					if a > b {
						s++
					} else if a == b {
						s += 0.5
					}
				}
			}
			return s
		}
		var total, tail float64
		for mask := 0; mask < 1<<(n+m); mask++ {
			var ys, xs []float64
			for i, v := range pooled {
				if mask&(1<<i) != 0 {
					ys = append(ys, v)
				} else {
					xs = append(xs, v)
				}
			}
			if len(ys) != m {
				continue
			}
			total++
			if u(ys, xs) >= got.U-1e-9 {
				tail++
			}
		}
		if got.U != u(y, x) || math.Abs(got.P-tail/total) > 1e-12 {
			t.Fatalf("x %v y %v: got %+v, enumeration U %v p %v", x, y, got, u(y, x), tail/total)
		}
	}
}
