package producer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestZipfMatchesFormula draws partitions and compares each one's share
// with (p+1)^-s / H(n, s), computed here from the formula, within 4
// standard errors of a binomial share.
func TestZipfMatchesFormula(t *testing.T) {
	for _, tc := range []struct {
		n int
		s float64
	}{{8, 1}, {4, 0}, {16, 1.5}, {1, 2}} {
		z, err := NewZipf(tc.n, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		h := 0.0
		for k := 1; k <= tc.n; k++ {
			h += math.Pow(float64(k), -tc.s)
		}
		const draws = 200000
		got := make([]int, tc.n)
		rng := rand.New(rand.NewPCG(1, 2))
		for range draws {
			got[z.Pick(rng)]++
		}
		for p := range tc.n {
			want := math.Pow(float64(p+1), -tc.s) / h
			if math.Abs(z.Prob(p)-want) > 1e-12 {
				t.Errorf("n %d s %v: Prob(%d) = %v, formula %v", tc.n, tc.s, p, z.Prob(p), want)
			}
			share := float64(got[p]) / draws
			se := math.Sqrt(want * (1 - want) / draws)
			if math.Abs(share-want) > 4*se+1e-9 {
				t.Errorf("n %d s %v: partition %d drew %.4f of the records, formula %.4f (±%.4f)", tc.n, tc.s, p, share, want, 4*se)
			}
		}
	}
	// s = 1 on 8 partitions: partition 0 takes 1/H(8) = 36.8 %.
	z, _ := NewZipf(8, 1)
	if p0 := z.Prob(0); math.Abs(p0-0.3679) > 1e-3 {
		t.Errorf("zipf(8, 1): partition 0 = %.4f, want 0.3679", p0)
	}
}

func TestZipfRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		n int
		s float64
	}{{0, 1}, {4, -1}, {4, math.NaN()}, {4, math.Inf(1)}} {
		if _, err := NewZipf(tc.n, tc.s); err == nil {
			t.Errorf("NewZipf(%d, %v) accepted", tc.n, tc.s)
		}
	}
}
