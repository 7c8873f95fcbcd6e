package producer

import (
	"math"
	"testing"
	"time"
)

// A constant profile is the constant-rate schedule: same due times, same
// counts, producer by producer.
func TestConstantProfileIsFleetSchedule(t *testing.T) {
	p, err := NewProfile(2*time.Second, []Segment{{Dur: 3 * time.Second, From: 700, To: 700}})
	if err != nil {
		t.Fatal(err)
	}
	const start = int64(1e12)
	for _, n := range []int{1, 3, 4} {
		flat, _ := FleetSchedules(start, 700, n)
		prof, _ := ProfileSchedules(start, p, n)
		for i := range n {
			for _, seq := range []uint64{0, 1, 17, 900, 5000} {
				if a, b := flat[i].Due(seq), prof[i].Due(seq); abs64(a-b) > 1 {
					t.Errorf("n %d producer %d seq %d: profile due %d, constant %d", n, i, seq, b, a)
				}
			}
			for _, d := range []time.Duration{time.Second, 7 * time.Second, 1500 * time.Millisecond} {
				if a, b := flat[i].CountWithin(d), prof[i].CountWithin(d); a != b {
					t.Errorf("n %d producer %d within %v: profile %d records, constant %d", n, i, d, b, a)
				}
			}
		}
	}
}

// A ramp from 0 to 1000 records/s over 10 s, then a 2 s spike at 3000,
// then a step down to 100: the counts are the areas under the curve, and
// each record's due time inverts the count.
func TestProfileCountsAreAreas(t *testing.T) {
	p, err := NewProfile(time.Second, []Segment{
		{Dur: 10 * time.Second, From: 0, To: 1000},
		{Dur: 2 * time.Second, From: 3000, To: 3000},
		{Dur: 5 * time.Second, From: 100, To: 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		t    time.Duration
		want float64
	}{
		{time.Second, 0},                 // lead at the first rate, 0
		{6 * time.Second, 0.5 * 5 * 500}, // half the ramp: ½·5 s·500/s
		{11 * time.Second, 5000},
		{12 * time.Second, 8000},
		{13 * time.Second, 11000},
		{18 * time.Second, 11500},
		{20 * time.Second, 11700}, // after the end: the last rate
	} {
		if got := p.Count(tc.t); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("C(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
	for _, k := range []float64{1, 10, 1250, 4999, 5000, 6500, 11000, 11200, 11799} {
		at := p.TimeOf(k)
		if got := p.Count(time.Duration(at)); math.Abs(got-k) > 1e-3 {
			t.Errorf("C(TimeOf(%v) = %v) = %v", k, time.Duration(at), got)
		}
	}
	if r := p.RateAt(6 * time.Second); r != 500 {
		t.Errorf("rate at 6 s = %v, want 500", r)
	}
	if r := p.RateAt(12 * time.Second); r != 3000 {
		t.Errorf("rate at 12 s = %v, want 3000", r)
	}
	if p.Peak() != 3000 {
		t.Errorf("peak %v, want 3000", p.Peak())
	}
}

// The schedule stamps the intended time from the curve: due times never
// go back, and the fleet's records per second follow the rate.
func TestProfileScheduleFollowsCurve(t *testing.T) {
	p, _ := NewProfile(0, []Segment{
		{Dur: 2 * time.Second, From: 100, To: 100},
		{Dur: time.Second, From: 2000, To: 2000},
		{Dur: 2 * time.Second, From: 100, To: 100},
	})
	s, _ := ProfileSchedules(0, p, 3)
	perSec := make([]int, 5)
	for _, ps := range s {
		last := int64(-1)
		for seq := range ps.CountWithin(5 * time.Second) {
			d := ps.Due(seq)
			if d < last {
				t.Fatalf("producer %d: record %d due at %d before record %d at %d", ps.Index, seq, d, seq-1, last)
			}
			last = d
			perSec[d/1e9]++
		}
	}
	want := []int{100, 100, 2000, 100, 100}
	for i := range want {
		if perSec[i] != want[i] {
			t.Errorf("second %d: %d records due, want %d", i, perSec[i], want[i])
		}
	}
}

// A rate that falls to 0 and stays there ends the schedule: later records
// are never due.
func TestProfileZeroTail(t *testing.T) {
	p, err := NewProfile(0, []Segment{{Dur: time.Second, From: 10, To: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Count(time.Hour); math.Abs(n-5) > 1e-9 {
		t.Errorf("records due = %v, want 5", n)
	}
	if !math.IsInf(p.TimeOf(6), 1) {
		t.Errorf("record 6 due at %v, want never", p.TimeOf(6))
	}
	s, _ := ProfileSchedules(0, p, 1)
	if s[0].Due(6) != math.MaxInt64 {
		t.Errorf("Due(6) = %d, want never (MaxInt64)", s[0].Due(6))
	}
	for _, bad := range [][]Segment{nil, {{Dur: 0, From: 1, To: 1}}, {{Dur: time.Second, From: -1, To: 1}}, {{Dur: time.Second}}} {
		if _, err := NewProfile(0, bad); err == nil {
			t.Errorf("NewProfile(%v) accepted", bad)
		}
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
