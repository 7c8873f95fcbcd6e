package runs

import (
	"math"
	"sort"
)

// ExactMaxTrials is the largest pooled sample (baseline + candidate trials)
// for which MannWhitney computes the exact p-value; above it the normal
// approximation is used.
const ExactMaxTrials = 50

// MannWhitneyResult is the outcome of MannWhitney, a one-sided Mann-Whitney
// U test of "y tends to be greater than x". U is the number of pairs (x_i, y_j) with y_j > x_i, ties counting
// one half; it lies in [0, len(x)·len(y)]. P is the probability, with no
// difference between the two distributions, of a U at least as large.
//
// With len(x)+len(y) ≤ ExactMaxTrials the p-value is exact: the fraction of
// the C(n+m, m) ways to pick m of the pooled (mid-)ranks whose sum is at
// least y's rank sum (ties are handled exactly, by their mid-ranks).
// Above it, the normal approximation with a continuity correction of ½ and
// the tie-corrected variance n·m/12·((N+1) − Σ(t³−t)/(N(N−1))).
// MinP is the smallest p-value these sample sizes can give (1/C(n+m, m)
// exactly): when it exceeds α the test can never reject.
type MannWhitneyResult struct {
	U     float64 `json:"u"`
	P     float64 `json:"p"`
	MinP  float64 `json:"min_p"`
	Exact bool    `json:"exact"`
}

// MannWhitney tests whether y is stochastically greater than x (see
// MannWhitneyResult).
func MannWhitney(x, y []float64) MannWhitneyResult {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return MannWhitneyResult{P: 1, MinP: 1}
	}
	ranks2, ties := midRanks2(x, y) // twice the mid-rank of each pooled value: integers
	var ry2 int                     // twice y's rank sum
	for _, r := range ranks2[n:] {
		ry2 += r
	}
	u := float64(ry2)/2 - float64(m*(m+1))/2
	res := MannWhitneyResult{U: u}
	N := n + m
	if N <= ExactMaxTrials {
		res.Exact = true
		res.P, res.MinP = exactUpperTail(ranks2, m, ry2)
		return res
	}
	nf, mf, Nf := float64(n), float64(m), float64(N)
	variance := nf * mf / 12 * ((Nf + 1) - ties/(Nf*(Nf-1)))
	res.MinP = 0
	if variance <= 0 { // every value tied
		res.P = 1
		return res
	}
	z := (u - nf*mf/2 - 0.5) / math.Sqrt(variance)
	res.P = 0.5 * math.Erfc(z/math.Sqrt2)
	return res
}

// midRanks2 returns twice the mid-rank (1-based) of every pooled value, x
// first then y, and Σ(t³−t) over groups of t tied values.
func midRanks2(x, y []float64) ([]int, float64) {
	pooled := append(append([]float64(nil), x...), y...)
	idx := make([]int, len(pooled))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pooled[idx[a]] < pooled[idx[b]] })
	ranks2 := make([]int, len(pooled))
	var ties float64
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && pooled[idx[j+1]] == pooled[idx[i]] {
			j++
		}
		r2 := (i + 1) + (j + 1) // 2 × mean of ranks i+1..j+1
		for k := i; k <= j; k++ {
			ranks2[idx[k]] = r2
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	return ranks2, ties
}

// exactUpperTail counts, over every m-subset of the pooled doubled ranks,
// those whose sum is ≥ obs, by dynamic programming on (subset size, sum).
// It returns that fraction and the smallest attainable tail probability.
func exactUpperTail(ranks2 []int, m, obs int) (p, minP float64) {
	maxSum := 0
	for _, r := range ranks2 {
		maxSum += r
	}
	// ways[k][s]: subsets of size k with doubled-rank sum s.
	ways := make([][]float64, m+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for _, r := range ranks2 {
		for k := m; k >= 1; k-- {
			for s := maxSum; s >= r; s-- {
				ways[k][s] += ways[k-1][s-r]
			}
		}
	}
	var total, tail, top float64
	for s, w := range ways[m] {
		total += w
		if s >= obs {
			tail += w
		}
		if w > 0 {
			top = w // ways of the largest attainable sum
		}
	}
	return tail / total, top / total
}
