package producer

import (
	"testing"
	"time"
)

func TestFleetSchedulesInterleave(t *testing.T) {
	// 1000 records/s over 4 producers: each sends every 4 ms, staggered by
	// 1 ms, so the fleet's due times are exactly 1 ms apart.
	s, err := FleetSchedules(0, 1000, 4)
	if err != nil {
		t.Fatal(err)
	}
	var due []int64
	for seq := uint64(0); seq < 3; seq++ {
		for _, p := range s {
			due = append(due, p.Due(seq))
		}
	}
	for i, d := range due {
		if d != int64(i)*int64(time.Millisecond) {
			t.Fatalf("fleet send %d due at %d ns, want %d", i, d, int64(i)*int64(time.Millisecond))
		}
	}
}

func TestCountWithin(t *testing.T) {
	tests := []struct {
		rate  float64
		n     int
		d     time.Duration
		total uint64
	}{
		{1000, 1, time.Second, 1000},
		{1000, 4, time.Second, 1000},
		{1000, 3, time.Second, 1000}, // 333.3 per producer, staggered: 334+333+333
		{7, 2, 10 * time.Second, 70},
		{0.5, 1, 3 * time.Second, 2}, // due at 0 s and 2 s
	}
	for _, tc := range tests {
		s, err := FleetSchedules(0, tc.rate, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var total uint64
		for _, p := range s {
			c := p.CountWithin(tc.d)
			total += c
			if c > 0 && p.Due(c-1) >= int64(tc.d) {
				t.Errorf("rate %v: last counted record due at %d, after the window", tc.rate, p.Due(c-1))
			}
			if p.Due(c) < int64(tc.d) {
				t.Errorf("rate %v: record %d due at %d, inside the window but not counted", tc.rate, c, p.Due(c))
			}
		}
		if total != tc.total {
			t.Errorf("rate %v × %d producers over %v: %d records, want %d", tc.rate, tc.n, tc.d, total, tc.total)
		}
	}
}

func TestFleetSchedulesRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		n    int
	}{{-5, 1}, {0, 1}, {100, 0}} {
		if _, err := FleetSchedules(0, tc.rate, tc.n); err == nil {
			t.Errorf("rate %v producers %d accepted", tc.rate, tc.n)
		}
	}
}
