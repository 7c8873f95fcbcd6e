package producer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Zipf draws partitions with a Zipf law: partition p (0-based) of n with
// probability (p+1)^-s / H(n, s), H(n, s) = Σ_{k=1..n} k^-s. s = 0 is
// uniform; s = 1 sends partition 0 about n/ln(n) times the mean share on
// large n. It is partition_skew: the load a hot tenant or a skewed key
// space puts on a few partitions, without key ids.
type Zipf struct {
	cdf []float64 // cdf[p] = P(partition ≤ p)
}

// NewZipf returns the law over n partitions with exponent s (finite, ≥ 0).
func NewZipf(n int, s float64) (*Zipf, error) {
	if n < 1 {
		return nil, fmt.Errorf("partition_skew: needs partitions ≥ 1, got %d", n)
	}
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("partition_skew: the Zipf exponent must be a finite number ≥ 0, got %v", s)
	}
	z := &Zipf{cdf: make([]float64, n)}
	sum := 0.0
	for p := range n {
		sum += math.Pow(float64(p+1), -s)
		z.cdf[p] = sum
	}
	for p := range z.cdf {
		z.cdf[p] /= sum
	}
	z.cdf[n-1] = 1
	return z, nil
}

// Prob is the probability of partition p.
func (z *Zipf) Prob(p int) float64 {
	if p == 0 {
		return z.cdf[0]
	}
	return z.cdf[p] - z.cdf[p-1]
}

// Pick draws a partition.
func (z *Zipf) Pick(rng *rand.Rand) int32 {
	u := rng.Float64()
	return int32(sort.SearchFloat64s(z.cdf, u))
}
