package consumers

import (
	"testing"

	"github.com/sharebench/sharebench/results"
)

func TestIsPoisonIsStableAndMatchesRate(t *testing.T) {
	const n = 100000
	hits := 0
	for s := uint64(0); s < n; s++ {
		st := results.Stamp{Run: 77, Producer: uint32(s % 3), Seq: s}
		p := isPoison(st, 0.05)
		if p != isPoison(st, 0.05) {
			t.Fatal("poison decision not stable")
		}
		if p {
			hits++
		}
	}
	if hits < 4700 || hits > 5300 { // 5% ± 6σ (σ ≈ 69)
		t.Fatalf("%d poison of %d at rate 0.05", hits, n)
	}
	if isPoison(results.Stamp{Seq: 1}, 0) {
		t.Fatal("rate 0 produced poison")
	}
}
