package runs

import (
	"fmt"
	"math"
	"strings"
)

// MaxRateCriteria say when a step of load_mode max_rate passes: the
// consumers complete at least CompletedRatio of the offered rate and the
// completion p99 stays at or under P99BoundMs.
type MaxRateCriteria struct {
	CompletedRatio float64 `json:"completed_ratio"`
	P99BoundMs     float64 `json:"p99_bound_ms"`
	// Confirm runs a failing step once more; the step fails only if the
	// retry fails too (a noisy host gets one second chance per rate).
	Confirm bool `json:"confirm,omitempty"`
	// Precision ends the bisection: after the schedule's first failing
	// step, the search halves the gap between the highest passing rate lo
	// and the lowest failing rate hi until hi − lo ≤ Precision × lo, then
	// measures lo once more to confirm it. 0: the schedule's steps only, no
	// bisection and no confirmation (records written before bisection
	// existed read so).
	Precision float64 `json:"precision,omitempty"`
}

// Probe kinds of a max-rate search: a step of the schedule, a bisection
// probe between the highest passing and the lowest failing rate, and the
// confirmation of the answer.
const (
	ProbeSchedule = "schedule"
	ProbeBisect   = "bisect"
	ProbeConfirm  = "confirm"
)

// MaxRateProbes bounds the probes a search runs beyond its schedule
// (bisection and confirmations): with Precision p the bisection from a gap
// g takes about log2(g ÷ (p × lo)) probes, 4 to 6 for a schedule step of
// 50 % and p = 5 %; the bound is only reached when confirmations keep
// failing.
const MaxRateProbes = 30

// MaxRateStep is one step of a max-rate search: a run at a fixed offered
// rate with its own warm-up and measurement window.
type MaxRateStep struct {
	RunID           string  `json:"run_id"`
	OfferedPerSec   float64 `json:"offered_per_sec"`
	CompletedPerSec float64 `json:"completed_per_sec"`
	// CompletedRatio is CompletedPerSec ÷ OfferedPerSec (of the offered
	// rate, not of what the producers managed to send).
	CompletedRatio float64 `json:"completed_ratio"`
	P50Ms          float64 `json:"completion_p50_ms"`
	P99Ms          float64 `json:"completion_p99_ms"`
	Pass           bool    `json:"pass"`
	Why            string  `json:"why"`
	// Probe is what the step was for: ProbeSchedule, ProbeBisect or
	// ProbeConfirm (empty in records written before bisection: schedule).
	Probe string `json:"probe,omitempty"`
	Retry bool   `json:"retry,omitempty"` // the confirming retry of a failed step
	Flags []Code `json:"validity_flags,omitempty"`
}

// MaxRateResult is run.json "max_rate": the steps in order and the highest
// offered rate that passed (0 when none did).
type MaxRateResult struct {
	Criteria  MaxRateCriteria `json:"criteria"`
	Steps     []MaxRateStep   `json:"steps"`
	FoundRate float64         `json:"found_rate"`
	// FailedRate is the lowest offered rate that failed above FoundRate (0
	// when every step passed), and GapRatio (FailedRate − FoundRate) ÷
	// FoundRate: how close the search came to the limit.
	FailedRate float64 `json:"failed_rate,omitempty"`
	GapRatio   float64 `json:"gap_ratio,omitempty"`
	// Confirmed says FoundRate passed a second, separate measurement (the
	// confirmation probe) after the search.
	Confirmed bool `json:"confirmed,omitempty"`
	// CeilingPerSec is the capacity formula's ceiling of the consumers
	// without the producer rate (the schedule's step at any rate has the
	// same one), drawn beside the measured curve; 0 when not computed.
	CeilingPerSec float64 `json:"formula_ceiling_per_sec,omitempty"`
	// Stop says why the search ended: the first failing step, or the last
	// step of the schedule passed.
	Stop string `json:"stop"`
}

// Judge fills a step's CompletedRatio, Pass and Why from its figures.
func (c MaxRateCriteria) Judge(s *MaxRateStep) {
	s.CompletedRatio = 0
	if s.OfferedPerSec > 0 {
		s.CompletedRatio = s.CompletedPerSec / s.OfferedPerSec
	}
	var why []string
	if !(s.CompletedRatio >= c.CompletedRatio) {
		why = append(why, fmt.Sprintf("completed %.4g of offered < %.4g", s.CompletedRatio, c.CompletedRatio))
	}
	if !(s.P99Ms <= c.P99BoundMs) || math.IsNaN(s.P99Ms) {
		why = append(why, fmt.Sprintf("completion p99 %.1f ms > bound %.4g ms", s.P99Ms, c.P99BoundMs))
	}
	s.Pass = len(why) == 0
	if s.Pass {
		s.Why = fmt.Sprintf("completed %.4g of offered ≥ %.4g, p99 %.1f ms ≤ %.4g ms", s.CompletedRatio, c.CompletedRatio, s.P99Ms, c.P99BoundMs)
	} else {
		s.Why = strings.Join(why, "; ")
	}
}

// MaxRateProbe is one measurement a search asks for: its index among the
// search's measurements, the offered rate, what it is for (ProbeSchedule,
// ProbeBisect, ProbeConfirm) and whether it retries a failed one.
type MaxRateProbe struct {
	N     int
	Rate  float64
	Kind  string
	Retry bool
}

// SearchMaxRate finds the highest offered rate that passes c, in three
// parts:
//
//  1. the schedule's rates in order, stopping at the first failing one
//     (with Confirm: after one retry of it also fails);
//  2. with Precision > 0, bisection between the highest passing rate lo
//     and the lowest failing rate hi, each probe judged (and retried) as a
//     step, until hi − lo ≤ Precision × lo;
//  3. the confirmation: lo measured once more. A failed confirmation makes
//     lo the lowest failing rate and the next passing rate below it the new
//     lo, and the bisection goes on from there.
//
// The probes beyond the schedule are bounded by MaxRateProbes; a search
// that reaches the bound says so and keeps its answer unconfirmed. An error
// from measure ends the search and is returned with the steps so far.
func SearchMaxRate(schedule []float64, c MaxRateCriteria, measure func(MaxRateProbe) (MaxRateStep, error)) (MaxRateResult, error) {
	s := &maxRateSearch{c: c, measure: measure, res: MaxRateResult{Criteria: c}}
	lo, hi := 0.0, 0.0
	var why string
	for _, rate := range schedule {
		pass, w, err := s.probe(rate, ProbeSchedule)
		if err != nil {
			return s.done(lo, hi), err
		}
		if !pass {
			hi, why = rate, w
			break
		}
		lo = rate
	}
	switch {
	case hi == 0:
		s.res.Stop = "every step of the schedule passed: raise max_rate.max to find the limit"
		return s.done(lo, 0), nil
	case lo == 0 || c.Precision <= 0:
		s.res.Stop = fmt.Sprintf("stopped at %.6g records/s: %s", hi, why)
		return s.done(lo, hi), nil
	}
	extra := 0
	for {
		for hi-lo > c.Precision*lo && extra < MaxRateProbes {
			mid := (lo + hi) / 2
			if r := math.Round(mid); r > lo && r < hi {
				mid = r // whole records/s where the gap allows
			}
			pass, w, err := s.probe(mid, ProbeBisect)
			extra++
			if err != nil {
				return s.done(lo, hi), err
			}
			if pass {
				lo = mid
			} else {
				hi, why = mid, w
			}
		}
		if extra >= MaxRateProbes {
			s.res.Stop = fmt.Sprintf("the search's bound of %d probes beyond the schedule was reached between %.6g (pass) and %.6g records/s (%s); %.6g is not confirmed",
				MaxRateProbes, lo, hi, why, lo)
			return s.done(lo, hi), nil
		}
		step, err := s.measureOnce(MaxRateProbe{Rate: lo, Kind: ProbeConfirm})
		extra++
		if err != nil {
			return s.done(lo, hi), err
		}
		if step.Pass {
			s.res.Confirmed = true
			s.res.Stop = fmt.Sprintf("bisected to %.6g (pass) and %.6g records/s (%s): a gap of %.3g %% ≤ %.3g %%; %.6g confirmed by a second measurement",
				lo, hi, why, 100*(hi-lo)/lo, 100*c.Precision, lo)
			return s.done(lo, hi), nil
		}
		hi, why = lo, "its confirmation failed: "+step.Why
		lo = s.passedBelow(hi)
		if lo == 0 {
			s.res.Stop = fmt.Sprintf("no rate passed twice: %.6g records/s %s", hi, why)
			return s.done(0, hi), nil
		}
	}
}

// maxRateSearch is SearchMaxRate's state: the steps so far and every rate
// that passed.
type maxRateSearch struct {
	c       MaxRateCriteria
	measure func(MaxRateProbe) (MaxRateStep, error)
	res     MaxRateResult
	passed  []float64
}

// probe measures rate, and with Confirm measures a failure once more; the
// last measurement decides.
func (s *maxRateSearch) probe(rate float64, kind string) (bool, string, error) {
	step, err := s.measureOnce(MaxRateProbe{Rate: rate, Kind: kind})
	if err == nil && !step.Pass && s.c.Confirm {
		step, err = s.measureOnce(MaxRateProbe{Rate: rate, Kind: kind, Retry: true})
	}
	if err != nil {
		return false, "", err
	}
	if step.Pass {
		s.passed = append(s.passed, rate)
	}
	return step.Pass, step.Why, nil
}

func (s *maxRateSearch) measureOnce(p MaxRateProbe) (MaxRateStep, error) {
	p.N = len(s.res.Steps)
	step, err := s.measure(p)
	if err != nil {
		return step, err
	}
	step.OfferedPerSec, step.Probe, step.Retry = p.Rate, p.Kind, p.Retry
	s.c.Judge(&step)
	s.res.Steps = append(s.res.Steps, step)
	return step, nil
}

// passedBelow is the highest rate below hi that passed, 0 when none did.
func (s *maxRateSearch) passedBelow(hi float64) float64 {
	lo := 0.0
	for _, r := range s.passed {
		if r < hi && r > lo {
			lo = r
		}
	}
	return lo
}

// done fills the answer: lo, the rate hi that failed above it, and the gap.
func (s *maxRateSearch) done(lo, hi float64) MaxRateResult {
	s.res.FoundRate, s.res.FailedRate, s.res.GapRatio = lo, hi, 0
	if lo > 0 && hi > 0 {
		s.res.GapRatio = (hi - lo) / lo
	}
	return s.res
}

// MaxRateLine is the found rate in words, for consoles and reports.
func (m MaxRateResult) Line(runID string) string {
	if m.FoundRate == 0 {
		return fmt.Sprintf("%s: no step passed (completed ≥ %.4g of offered, p99 ≤ %.4g ms); %s",
			runID, m.Criteria.CompletedRatio, m.Criteria.P99BoundMs, m.Stop)
	}
	return fmt.Sprintf("%s: max sustainable rate %.6g records/s (completed ≥ %.4g of offered, p99 ≤ %.4g ms); %s",
		runID, m.FoundRate, m.Criteria.CompletedRatio, m.Criteria.P99BoundMs, m.Stop)
}
