package autoscale

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sharebench/sharebench/blocks"
)

// Policy is one scaling rule (rules 1–4 of docs/how-to/test-autoscaling.md): the
// scenario's autoscale: block, with Max already min(max, rule 3's cap).
// Remove and FlapWindow are the harness's, not the rule's. Poll is how
// often the harness reads and decides (the scaler itself decides per
// reading; KEDA's pollingInterval).
type Policy = blocks.Autoscale

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

// Decision is the scaler's answer to one reading, with its inputs, so a
// run's log replays; run.json keeps it as it is.
type Decision = blocks.Decision

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
	case !slices.Contains(p.Signal.Values(), string(p.Signal)):
		return nil, fmt.Errorf("signal: expected lag or etd, got %q", p.Signal)
	case p.Max <= p.Min || p.Min < 1:
		return nil, fmt.Errorf("replicas: need 1 ≤ min < max, got min %d max %d: the scaler could never act", p.Min, p.Max)
	case p.InAfter <= p.OutAfter:
		return nil, fmt.Errorf("in_after %v must be > out_after %v", p.InAfter, p.OutAfter)
	case p.Window <= 0 || p.Step < 1:
		return nil, fmt.Errorf("window %v and step %d must be > 0", p.Window, p.Step)
	case p.Signal == blocks.SignalLag && !(p.Threshold > 0):
		return nil, fmt.Errorf("threshold must be > 0, got %v", p.Threshold)
	case p.Signal == blocks.SignalETD && p.Goal <= 0:
		return nil, fmt.Errorf("goal must be > 0, got %v", p.Goal)
	}
	return &Scaler{p: p, outSince: -1, inSince: -1}, nil
}

// Observe takes one reading and decides.
func (s *Scaler) Observe(r Reading) Decision {
	d := Decision{AtSec: r.At.Seconds(), Action: blocks.Hold, From: r.Replicas, To: r.Replicas, Lag: r.Lag, ETDSec: -1,
		LatencyMs: float64(r.Latency) / 1e6}
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
	if s.p.Signal == blocks.SignalETD {
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
			d.Action, d.Reason = blocks.Blocked, fmt.Sprintf("at max %d replicas", s.p.Max)
		case s.p.MaxLatency > 0 && r.Latency > s.p.MaxLatency:
			d.Action, d.Reason = blocks.Blocked, fmt.Sprintf("rule 4: processing latency %v > %v", r.Latency, s.p.MaxLatency)
		case cooling:
			d.Reason = fmt.Sprintf("cooldown: %.1fs since the last action", (r.At - s.last).Seconds())
		default:
			d.Action, d.To = blocks.Out, min(r.Replicas+s.p.Step, s.p.Max)
			d.Reason = s.outReason(d, etd)
		}
	case in && r.At-s.inSince >= s.p.InAfter && r.Replicas > s.p.Min:
		d.HeldSec = (r.At - s.inSince).Seconds()
		if cooling {
			d.Reason = fmt.Sprintf("cooldown: %.1fs since the last action", (r.At - s.last).Seconds())
			break
		}
		d.Action, d.To = blocks.In, max(r.Replicas-s.p.Step, s.p.Min)
		d.Reason = fmt.Sprintf("lag per replica %.0f ≤ %.0f for %.1fs", d.PerReplica, s.p.InBelow, d.HeldSec)
	}
	if d.Action == blocks.Out || d.Action == blocks.In {
		s.acted, s.last = true, r.At
	}
	return d
}

func (s *Scaler) outReason(d Decision, etd float64) string {
	if s.p.Signal == blocks.SignalETD {
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
