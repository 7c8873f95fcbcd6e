package producer

import (
	"fmt"
	"math"
	"time"
)

// Segment is one piece of a rate profile: the fleet's rate goes linearly
// from From to To records/s over Dur (From == To: a step; a spike is a
// short step).
type Segment struct {
	Dur      time.Duration
	From, To float64
}

// Profile is a piecewise-linear rate over time, t from the schedule's
// start: Lead at the first segment's starting rate (the warm-up), then the
// segments, then the last segment's end rate for ever. Its cumulative count
// C(t) = ∫ rate is what the schedule inverts: the fleet's record k is due
// at the t where C(t) = k, so every record keeps the send time the curve
// intended, however late the producer gets to it (no coordinated omission).
type Profile struct {
	segs  []Segment
	start []float64 // t (ns) at which each segment starts
	cum   []float64 // records due before each segment starts
}

// NewProfile checks the segments (each Dur > 0, rates finite and ≥ 0, some
// record due) and builds the profile; lead is the time at the first rate
// before the segments (≥ 0).
func NewProfile(lead time.Duration, segs []Segment) (*Profile, error) {
	if len(segs) == 0 {
		return nil, fmt.Errorf("rate profile: no segments")
	}
	if lead < 0 {
		return nil, fmt.Errorf("rate profile: lead %v < 0", lead)
	}
	all := append([]Segment{{Dur: lead, From: segs[0].From, To: segs[0].From}}, segs...)
	p := &Profile{}
	t, c := 0.0, 0.0
	for i, s := range all {
		if i > 0 && s.Dur <= 0 {
			return nil, fmt.Errorf("rate profile: segment %d: duration must be > 0, got %v", i, s.Dur)
		}
		for _, r := range []float64{s.From, s.To} {
			if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
				return nil, fmt.Errorf("rate profile: segment %d: rates must be finite and ≥ 0, got %v → %v", i, s.From, s.To)
			}
		}
		p.segs = append(p.segs, s)
		p.start = append(p.start, t)
		p.cum = append(p.cum, c)
		t += float64(s.Dur)
		c += float64(s.Dur) / 1e9 * (s.From + s.To) / 2
	}
	if c == 0 && all[len(all)-1].To == 0 {
		return nil, fmt.Errorf("rate profile: every rate is 0: no record is ever due")
	}
	return p, nil
}

// tail is the rate after the last segment.
func (p *Profile) tail() float64 { return p.segs[len(p.segs)-1].To }

// end is the time (ns) at which the last segment ends.
func (p *Profile) end() float64 {
	i := len(p.segs) - 1
	return p.start[i] + float64(p.segs[i].Dur)
}

// RateAt is the rate (records/s) at t from the start.
func (p *Profile) RateAt(t time.Duration) float64 {
	x := float64(t)
	for i := len(p.segs) - 1; i >= 0; i-- {
		if x >= p.start[i] {
			s := p.segs[i]
			if x >= p.start[i]+float64(s.Dur) {
				return s.To
			}
			return s.From + (s.To-s.From)*(x-p.start[i])/float64(s.Dur)
		}
	}
	return p.segs[0].From
}

// Count is C(t): the records due in [0, t) for the whole fleet, a real
// number (the last record may be partly due).
func (p *Profile) Count(t time.Duration) float64 {
	x := float64(t)
	if x <= 0 {
		return 0
	}
	if x >= p.end() {
		n := len(p.segs) - 1
		return p.cum[n] + float64(p.segs[n].Dur)/1e9*(p.segs[n].From+p.segs[n].To)/2 + (x-p.end())/1e9*p.tail()
	}
	i := len(p.segs) - 1
	for p.start[i] > x {
		i--
	}
	s, dt := p.segs[i], x-p.start[i]
	r := s.From + (s.To-s.From)*dt/float64(s.Dur)
	return p.cum[i] + dt/1e9*(s.From+r)/2
}

// TimeOf is C⁻¹(k): when (ns from the start) the fleet's record k is due;
// +Inf when it never is (the rate ends at 0 first).
func (p *Profile) TimeOf(k float64) float64 {
	n := len(p.segs)
	i := n - 1
	for i > 0 && p.cum[i] > k {
		i--
	}
	// Skip segments that end before k (several may share a cum when rates are 0).
	for i < n-1 && p.cum[i+1] <= k {
		i++
	}
	x := (k - p.cum[i]) // records into segment i
	s := p.segs[i]
	area := float64(s.Dur) / 1e9 * (s.From + s.To) / 2
	if i == n-1 && x >= area {
		if p.tail() == 0 {
			return math.Inf(1)
		}
		return p.end() + (x-area)/p.tail()*1e9
	}
	// rate(τ) = a + m τ over the segment (τ in s): a τ + m τ²/2 = x, solved
	// in the form that stays exact as m → 0.
	a, m := s.From, (s.To-s.From)/(float64(s.Dur)/1e9)
	d := a*a + 2*m*x
	if d < 0 {
		d = 0
	}
	den := a + math.Sqrt(d)
	if den == 0 {
		return p.start[i]
	}
	return p.start[i] + 2*x/den*1e9
}

// Peak is the highest rate of the profile.
func (p *Profile) Peak() float64 {
	peak := 0.0
	for _, s := range p.segs {
		peak = max(peak, s.From, s.To)
	}
	return peak
}
