package producer

import (
	"fmt"
	"math"
	"testing"
)

func TestBusyPartitions(t *testing.T) {
	n := 0
	for _, b := range BusyPartitions(KeyHashed, 1, 3) {
		if b {
			n++
		}
	}
	if n != 1 {
		t.Errorf("one key on 3 partitions: %d busy, want 1", n)
	}
	if got := fmt.Sprint(BusyPartitions("round-robin", 0, 3)); got != "[true true true]" {
		t.Errorf("round-robin: %s", got)
	}
}

// PartitionShares: the shares sum to 1; one key puts everything on its
// partition; a hot key with 90 % of the records puts at least 90 % on its
// partition and leaves a trickle on the others; partition_skew is the Zipf
// law; the hashed shares agree with BusyPartitions on which are empty.
func TestPartitionShares(t *testing.T) {
	sum := func(s []float64) float64 {
		t := 0.0
		for _, v := range s {
			t += v
		}
		return t
	}
	one := PartitionShares(KeyHashed, 1, 3, 0, 0, 0)
	busy := BusyPartitions(KeyHashed, 1, 3)
	for p, sh := range one {
		if (sh > 0) != busy[p] || (sh > 0 && math.Abs(sh-1) > 1e-12) {
			t.Errorf("one key: shares %v, busy %v", one, busy)
		}
	}
	hot := PartitionShares(KeyHashed, 100, 6, 0.9, 1, 0)
	hotP := PartitionShares(KeyHashed, 1, 6, 0, 0, 0)
	for p := range hot {
		if hotP[p] > 0 && hot[p] < 0.9 {
			t.Errorf("hot key's partition %d: %v, want ≥ 0.9", p, hot[p])
		}
		if hotP[p] == 0 && (hot[p] <= 0 || hot[p] > 0.1) {
			t.Errorf("quiet partition %d: %v, want a trickle in (0, 0.1]", p, hot[p])
		}
	}
	z := PartitionShares("round-robin", 0, 4, 0, 0, 1)
	zipf, _ := NewZipf(4, 1)
	for p := range z {
		if math.Abs(z[p]-zipf.Prob(p)) > 1e-12 {
			t.Errorf("skew: %v", z)
		}
	}
	for _, s := range [][]float64{one, hot, z, PartitionShares("random", 0, 5, 0, 0, 0)} {
		if math.Abs(sum(s)-1) > 1e-9 {
			t.Errorf("shares %v sum to %v", s, sum(s))
		}
	}
}
