package results

import (
	"fmt"
	"runtime"
	"testing"
)

// heapGrowth measures the live heap a constructor adds, as a second
// measurement of the footprint formulas.
func heapGrowth(t *testing.T, build func() any) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

func within(t *testing.T, what string, predicted, measured uint64, tol float64) {
	t.Helper()
	lo, hi := float64(predicted)*(1-tol), float64(predicted)*(1+tol)
	if float64(measured) < lo || float64(measured) > hi {
		t.Errorf("%s: predicted %d bytes, measured %d (tolerance %.0f%%)", what, predicted, measured, tol*100)
	}
}

func TestFootprintMatchesHeap(t *testing.T) {
	within(t, "ledger 4×2,000,000", LedgerBytes(4, 2_000_000),
		heapGrowth(t, func() any { return NewLedger(4, 2_000_000) }), 0.05)
	within(t, "series 100,000 s", SeriesBytes(100_000),
		heapGrowth(t, func() any { return NewSeries(0, 100_000) }), 0.05)
	for _, n := range []int{3, 10, 1000} {
		rec := NewRecorder(NewClock(), 1, NewLedger(1, 1), NewSeries(0, 1))
		within(t, fmt.Sprintf("%d members' recorders", n), MembersRecorderBytes(uint64(n)),
			heapGrowth(t, func() any {
				for range n {
					rec.MemberRecorder()
				}
				return rec
			}), 0.10)
	}
}

// TestMembersShareStripes: however many members, a recorder holds at most
// MemberStripes() sets of member histograms; fewer members hold one each.
func TestMembersShareStripes(t *testing.T) {
	k := MemberStripes()
	if k < 8 || k > 64 {
		t.Fatalf("MemberStripes() = %d, want within [8, 64]", k)
	}
	one := MembersRecorderBytes(1)
	if got := MembersRecorderBytes(uint64(k)) - MembersRecorderBytes(uint64(k-1)); got < one/2 {
		t.Errorf("member %d adds %d bytes, want a stripe's (about %d)", k, got, one)
	}
	if got := MembersRecorderBytes(uint64(k)+1) - MembersRecorderBytes(uint64(k)); got > one/100 {
		t.Errorf("member %d adds %d bytes, want only its counters (a stripe is %d)", k+1, got, one)
	}
}

func TestLedgerBytesArithmetic(t *testing.T) {
	// 64 records fit one word per bitset: 4 bitsets × 8 bytes.
	if got := LedgerBytes(1, 64); got != 32 {
		t.Errorf("LedgerBytes(1, 64) = %d, want 32", got)
	}
	if got := LedgerBytes(3, 65); got != 3*4*2*8 {
		t.Errorf("LedgerBytes(3, 65) = %d, want %d", got, 3*4*2*8)
	}
	if got := LedgerBytes(1000, 1<<62); got != ^uint64(0) {
		t.Errorf("LedgerBytes must saturate, got %d", got)
	}
}
