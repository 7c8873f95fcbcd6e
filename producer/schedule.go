package producer

import (
	"fmt"
	"math"
	"time"
)

// Schedule is the open-loop arrival schedule of one producer: record seq is
// due at Start + Offset + seq·Interval. It answers only "when is record n
// due" and "how many records fit", like vegeta's pacer.
type Schedule struct {
	Start    int64   // Unix ns of the fleet's start
	Offset   float64 // ns; staggers producers so the fleet's sends interleave
	Interval float64 // ns between this producer's records
	// Profile, when set, replaces Offset and Interval: the fleet's record
	// k is due at Profile.TimeOf(k), and producer Index of N sends the
	// fleet's records Index, Index+N, Index+2N, … (its seq s is the
	// fleet's record s·N + Index). With a constant profile this is the
	// same schedule as Offset and Interval.
	Profile  *Profile
	Index, N int
}

// ProfileSchedules splits a rate profile over n producers, dealing the
// fleet's records out in turn so the fleet's sends interleave.
func ProfileSchedules(start int64, p *Profile, n int) ([]Schedule, error) {
	if n < 1 {
		return nil, fmt.Errorf("producers: must be ≥ 1, got %d", n)
	}
	if p == nil {
		return nil, fmt.Errorf("rate profile: none given")
	}
	out := make([]Schedule, n)
	for i := range out {
		out[i] = Schedule{Start: start, Profile: p, Index: i, N: n}
	}
	return out, nil
}

// FleetSchedules splits a total rate evenly over n producers, staggering
// them by Interval/n so the fleet as a whole sends at evenly spaced times.
func FleetSchedules(start int64, totalRate float64, n int) ([]Schedule, error) {
	if n < 1 {
		return nil, fmt.Errorf("producers: must be ≥ 1, got %d", n)
	}
	if !(totalRate > 0) || math.IsInf(totalRate, 0) {
		return nil, fmt.Errorf("rate: must be a finite number > 0 records/s, got %v", totalRate)
	}
	interval := 1e9 * float64(n) / totalRate
	out := make([]Schedule, n)
	for i := range out {
		out[i] = Schedule{Start: start, Offset: interval * float64(i) / float64(n), Interval: interval}
	}
	return out, nil
}

// Due returns when record seq is due.
func (s Schedule) Due(seq uint64) int64 {
	if s.Profile != nil {
		t := s.Profile.TimeOf(float64(seq)*float64(s.N) + float64(s.Index))
		if t >= math.MaxInt64/2 {
			return math.MaxInt64
		}
		return s.Start + int64(t)
	}
	return s.Start + int64(s.Offset+float64(seq)*s.Interval)
}

// CountWithin returns how many records are due in [Start, Start+d).
func (s Schedule) CountWithin(d time.Duration) uint64 {
	if s.Profile != nil {
		c := s.Profile.Count(d) - float64(s.Index)
		if c <= 0 {
			return 0
		}
		return uint64(math.Ceil(c / float64(s.N)))
	}
	span := float64(d) - s.Offset
	if span <= 0 {
		return 0
	}
	return uint64(math.Ceil(span / s.Interval))
}
