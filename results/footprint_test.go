package results

import (
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
	rec := NewRecorder(NewClock(), 1, NewLedger(1, 1), NewSeries(0, 1))
	within(t, "10 member shards", 10*MemberRecorderBytes(),
		heapGrowth(t, func() any {
			for range 10 {
				rec.MemberRecorder()
			}
			return rec
		}), 0.10)
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
