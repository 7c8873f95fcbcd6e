package autoscale

import (
	"fmt"
	"math"
	"time"
)

// Signal chooses what triggers a scale-out.
type Signal string

const (
	// Lag: the lag smoothed over Window, divided by the replicas, above
	// Threshold (records per replica).
	Lag Signal = "lag"
	// ETD: the estimated time to drain, smoothed lag ÷ (completed −
	// produced records/s), above Goal. With consumption at or below
	// production it is infinite: above any goal.
	ETD Signal = "etd"
)

// Policy is one scaling rule (rules 1–4 of docs/autoscaling.md).
type Policy struct {
	Signal    Signal
	Threshold float64       // Lag: records per replica
	Goal      time.Duration // ETD
	Window    time.Duration // smoothing span of the readings
	OutAfter  time.Duration // N: the scale-out condition holds this long
	InAfter   time.Duration // M: lag per replica ≤ InBelow this long
	InBelow   float64       // records per replica: "near zero"
	Cooldown  time.Duration // least time between two actions
	Step      int           // replicas per action
	Min, Max  int           // Max is already min(max, rule 3's cap)
	// MaxLatency blocks scale-outs while Reading.Latency is above it (rule
	// 4); 0: off.
	MaxLatency time.Duration
	// PollEvery is how often the harness reads and decides (the scaler
	// itself decides per reading; KEDA's pollingInterval).
	PollEvery time.Duration
}

// Reading is one observation: At from the start of the measurement
// window. OK false is a failed lag reading (it is skipped, never a 0).
type Reading struct {
	At       time.Duration
	OK       bool
	Lag      int64
	Replicas int
	// ProducedPerSec and CompletedPerSec are the rates over the last poll
	// interval (the ETD's denominator).
	ProducedPerSec, CompletedPerSec float64
	// Latency is the processing latency (p99 over the last poll interval)
	// rule 4 compares; the destination's write latency will take its place
	// when the run has a destination.
	Latency time.Duration
}

// Action is what a decision does.
type Action string

const (
	Hold    Action = "hold"    // nothing
	Out     Action = "out"     // add replicas
	In      Action = "in"      // remove replicas
	Blocked Action = "blocked" // a scale-out rule 4 or the cap held back
)

// Decision is the scaler's answer to one reading, with its inputs, so a
// run's log replays.
type Decision struct {
	At       time.Duration `json:"at"`
	Action   Action        `json:"action"`
	From     int           `json:"from"`
	To       int           `json:"to"`
	Lag      int64         `json:"lag"`
	Smoothed float64       `json:"smoothed_lag"`
	// PerReplica is Smoothed ÷ From; ETDSec the estimated time to drain
	// (-1: infinite: consumption not above production).
	PerReplica float64 `json:"lag_per_replica"`
	ETDSec     float64 `json:"etd_s"`
	// Above is the scale-out condition (rule 1) on this reading.
	Above bool `json:"above"`
	// HeldSec is how long the condition that acted had held.
	HeldSec float64 `json:"held_s"`
	Reason  string  `json:"reason"`
}

// Scaler holds the state between readings: the window of readings, when
// the scale-out and scale-in conditions began to hold, the last action.
type Scaler struct {
	p        Policy
	win      []Reading
	outSince time.Duration // -1: the condition does not hold
	inSince  time.Duration
	last     time.Duration
	acted    bool
}

// New returns a scaler for p.
func New(p Policy) (*Scaler, error) {
	switch {
	case p.Signal != Lag && p.Signal != ETD:
		return nil, fmt.Errorf("signal: expected lag or etd, got %q", p.Signal)
	case p.Max <= p.Min || p.Min < 1:
		return nil, fmt.Errorf("replicas: need 1 ≤ min < max, got min %d max %d: the scaler could never act", p.Min, p.Max)
	case p.InAfter <= p.OutAfter:
		return nil, fmt.Errorf("in_after %v must be > out_after %v", p.InAfter, p.OutAfter)
	case p.Window <= 0 || p.Step < 1:
		return nil, fmt.Errorf("window %v and step %d must be > 0", p.Window, p.Step)
	case p.Signal == Lag && !(p.Threshold > 0):
		return nil, fmt.Errorf("threshold must be > 0, got %v", p.Threshold)
	case p.Signal == ETD && p.Goal <= 0:
		return nil, fmt.Errorf("goal must be > 0, got %v", p.Goal)
	}
	return &Scaler{p: p, outSince: -1, inSince: -1}, nil
}

// Observe takes one reading and decides.
func (s *Scaler) Observe(r Reading) Decision {
	d := Decision{At: r.At, Action: Hold, From: r.Replicas, To: r.Replicas, Lag: r.Lag, ETDSec: -1}
	if !r.OK {
		d.Reason = "lag reading failed"
		return d
	}
	s.win = append(s.win, r)
	for len(s.win) > 0 && s.win[0].At <= r.At-s.p.Window {
		s.win = s.win[1:]
	}
	var lag, prod, comp float64
	for _, w := range s.win {
		lag += float64(w.Lag)
		prod += w.ProducedPerSec
		comp += w.CompletedPerSec
	}
	n := float64(len(s.win))
	d.Smoothed = lag / n
	d.PerReplica = d.Smoothed / float64(max(r.Replicas, 1))
	etd := math.Inf(1)
	if drain := (comp - prod) / n; drain > 0 {
		etd = d.Smoothed / drain
		d.ETDSec = etd
	} else if d.Smoothed == 0 {
		etd, d.ETDSec = 0, 0
	}
	if r.At < s.p.Window {
		d.Reason = fmt.Sprintf("filling the window (%.1fs of %v)", r.At.Seconds(), s.p.Window)
		return d
	}
	out := d.PerReplica > s.p.Threshold
	if s.p.Signal == ETD {
		out = etd > s.p.Goal.Seconds()
	}
	d.Above = out
	in := !out && d.PerReplica <= s.p.InBelow
	s.outSince = since(s.outSince, out, r.At)
	s.inSince = since(s.inSince, in, r.At)
	cooling := s.acted && r.At-s.last < s.p.Cooldown
	switch {
	case out && r.At-s.outSince >= s.p.OutAfter:
		d.HeldSec = (r.At - s.outSince).Seconds()
		switch {
		case r.Replicas >= s.p.Max:
			d.Action, d.Reason = Blocked, fmt.Sprintf("at max %d replicas", s.p.Max)
		case s.p.MaxLatency > 0 && r.Latency > s.p.MaxLatency:
			d.Action, d.Reason = Blocked, fmt.Sprintf("rule 4: processing latency %v > %v", r.Latency, s.p.MaxLatency)
		case cooling:
			d.Reason = fmt.Sprintf("cooldown: %.1fs since the last action", (r.At - s.last).Seconds())
		default:
			d.Action, d.To = Out, min(r.Replicas+s.p.Step, s.p.Max)
			d.Reason = s.outReason(d, etd)
		}
	case in && r.At-s.inSince >= s.p.InAfter && r.Replicas > s.p.Min:
		d.HeldSec = (r.At - s.inSince).Seconds()
		if cooling {
			d.Reason = fmt.Sprintf("cooldown: %.1fs since the last action", (r.At - s.last).Seconds())
			break
		}
		d.Action, d.To = In, max(r.Replicas-s.p.Step, s.p.Min)
		d.Reason = fmt.Sprintf("lag per replica %.0f ≤ %.0f for %.1fs", d.PerReplica, s.p.InBelow, d.HeldSec)
	}
	if d.Action == Out || d.Action == In {
		s.acted, s.last = true, r.At
	}
	return d
}

func (s *Scaler) outReason(d Decision, etd float64) string {
	if s.p.Signal == ETD {
		e := "∞"
		if !math.IsInf(etd, 1) {
			e = fmt.Sprintf("%.1fs", etd)
		}
		return fmt.Sprintf("time to drain %s > goal %v for %.1fs", e, s.p.Goal, d.HeldSec)
	}
	return fmt.Sprintf("lag per replica %.0f > %.0f for %.1fs", d.PerReplica, s.p.Threshold, d.HeldSec)
}

// since keeps the start of a stretch in which cond holds: at when it
// starts, -1 when it does not hold.
func since(start time.Duration, cond bool, at time.Duration) time.Duration {
	switch {
	case !cond:
		return -1
	case start < 0:
		return at
	}
	return start
}

// Replay runs p over recorded readings whose Replicas follow the
// decisions (the replicas of the first reading, then each action's To):
// what the scaler decides on a lag series without a broker.
func Replay(p Policy, readings []Reading, replicas int) ([]Decision, error) {
	s, err := New(p)
	if err != nil {
		return nil, err
	}
	out := make([]Decision, 0, len(readings))
	for _, r := range readings {
		r.Replicas = replicas
		d := s.Observe(r)
		replicas = d.To
		out = append(out, d)
	}
	return out, nil
}
