package results

import (
	"math"
	"strings"
	"testing"
)

// Bucket clamps times before the series to bucket 0 and times after it to
// the last bucket; NewSeries always has at least one bucket.
func TestSeriesBucketClamps(t *testing.T) {
	const start = int64(100e9)
	s := NewSeries(start, 3)
	for _, c := range []struct {
		ns   int64
		want int
	}{
		{start - 2e9, 0}, {start - 1, 0}, {start, 0}, {start + 1e9, 1}, {start + 3e9 - 1, 2},
		{start + 3e9, 2}, {start + 10e9, 2},
	} {
		if got := s.Bucket(c.ns); got != c.want {
			t.Errorf("Bucket(start%+d ns) = %d, want %d", c.ns-start, got, c.want)
		}
	}
	if n := NewSeries(start, 0).Len(); n != 1 {
		t.Errorf("NewSeries(…, 0) has %d buckets, want 1", n)
	}
}

// SetGaugeAt sets a bucket inside the series, the first and the last
// included, and ignores indexes outside it.
func TestSeriesSetGaugeAtBounds(t *testing.T) {
	s := NewSeries(0, 3)
	s.SetGaugeAt(Lag, -1, 1)
	s.SetGaugeAt(Lag, 3, 1)
	s.SetGaugeAt(Lag, 0, 10)
	s.SetGaugeAt(Lag, 2, 12)
	for i, want := range []float64{10, math.NaN(), 12} {
		v, ok := s.GaugeAt(Lag, i)
		if ok != !math.IsNaN(want) || ok && v != want {
			t.Errorf("bucket %d: %v (%v), want %v", i, v, ok, want)
		}
	}
}

// Thirds takes whole buckets from the window's first to the bucket of its
// last nanosecond (End − 1), in three equal spans; fewer than 3 buckets
// give zeros. Bucket i holds 2^i, so every sum names its buckets.
func TestSeriesThirdsBucketEdges(t *testing.T) {
	s := NewSeries(0, 20)
	for i := range 20 {
		s.Add(Completed, int64(i)*1e9, 1<<i)
	}
	for _, c := range []struct {
		w    Window
		want [3]int64
	}{
		{Window{2e9, 7e9}, [3]int64{4, 8, 16}},        // buckets 2..6: n = 1
		{Window{2e9, 7e9 + 1}, [3]int64{12, 48, 192}}, // buckets 2..7: n = 2
		{Window{2e9, 5e9}, [3]int64{4, 8, 16}},        // exactly 3 buckets
		{Window{2e9, 4e9}, [3]int64{}},                // 2 buckets: none
	} {
		if got := s.Thirds(Completed, c.w); got != c.want {
			t.Errorf("Thirds(%v) = %v, want %v", c.w, got, c.want)
		}
	}
}

// An empty series writes the header and the row of second 0, nothing more.
func TestSeriesEmptyCSVHasOneRow(t *testing.T) {
	var b strings.Builder
	if err := NewSeries(0, 5).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "0,0,0,0,0,0,0,0,0,") {
		t.Errorf("empty series CSV:\n%s", b.String())
	}
}

// PercentileText prints 5 ticks per half distance (HdrHistogram's
// default .hgrm layout): rows at 0 %, 10 %, 20 %, … 50 %, 55 %, …
func TestPercentileTextTicksPerHalfDistance(t *testing.T) {
	h := NewLatencyHistogram()
	for v := int64(1); v <= 1000; v++ {
		RecordNanos(h, v*1000)
	}
	b, err := PercentileText(h)
	if err != nil {
		t.Fatal(err)
	}
	var pcts []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && strings.HasPrefix(f[1], "0.") {
			pcts = append(pcts, f[1])
		}
	}
	want := []string{"0.000000", "0.100000", "0.200000", "0.300000", "0.400000",
		"0.500000", "0.550000", "0.600000", "0.650000", "0.700000", "0.750000", "0.775000"}
	if len(pcts) < len(want) || strings.Join(pcts[:len(want)], " ") != strings.Join(want, " ") {
		t.Errorf("percentile rows %v, want them to begin %v", pcts, want)
	}
}

// Row numbers and in_flight are decimal past 9, and in_flight subtracts
// releases and rejects as well as completions.
func TestSeriesCSVInFlightAndLateRows(t *testing.T) {
	s := NewSeries(0, 12)
	s.Add(Delivered, 11e9, 30)
	s.Add(Completed, 11e9, 5)
	s.Add(Released, 11e9, 3)
	s.Add(Rejected, 11e9, 2)
	var b strings.Builder
	if err := s.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// second, produced, delivered, completed, redelivered, released, rejected, lock_expired, in_flight
	if want := "11,0,30,5,0,3,2,0,20,"; len(lines) != 13 || !strings.HasPrefix(lines[12], want) {
		t.Errorf("last row %q (of %d lines), want it to begin %q", lines[len(lines)-1], len(lines), want)
	}
}
