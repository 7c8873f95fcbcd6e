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
}

// MaxRateStep is one step of a max-rate search: a run at a fixed offered
// rate with its own warm-up and measurement window.
type MaxRateStep struct {
	RunID           string  `json:"run_id"`
	OfferedPerSec   float64 `json:"offered_per_sec"`
	CompletedPerSec float64 `json:"completed_per_sec"`
	// CompletedRatio is CompletedPerSec ÷ OfferedPerSec (of the offered
	// rate, not of what the producers managed to send).
	CompletedRatio float64 `json:"completed_ratio"`
	P99Ms          float64 `json:"completion_p99_ms"`
	Pass           bool    `json:"pass"`
	Why            string  `json:"why"`
	Retry          bool    `json:"retry,omitempty"` // the confirming retry of a failed step
	Flags          []Code  `json:"validity_flags,omitempty"`
}

// MaxRateResult is run.json "max_rate": the steps in order and the highest
// offered rate that passed (0 when none did).
type MaxRateResult struct {
	Criteria  MaxRateCriteria `json:"criteria"`
	Steps     []MaxRateStep   `json:"steps"`
	FoundRate float64         `json:"found_rate"`
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

// SearchMaxRate runs the schedule's rates in order with measure, judges each
// step, and stops at the first failing one (after one confirming retry with
// Confirm). FoundRate is the last passing rate. An error from measure ends
// the search and is returned with the steps so far.
func SearchMaxRate(schedule []float64, c MaxRateCriteria, measure func(step int, rate float64, retry bool) (MaxRateStep, error)) (MaxRateResult, error) {
	res := MaxRateResult{Criteria: c}
	n := 0
	for _, rate := range schedule {
		step, err := measureJudged(c, measure, n, rate, false)
		n++
		if err != nil {
			return res, err
		}
		res.Steps = append(res.Steps, step)
		if !step.Pass && c.Confirm {
			step, err = measureJudged(c, measure, n, rate, true)
			n++
			if err != nil {
				return res, err
			}
			res.Steps = append(res.Steps, step)
		}
		if !step.Pass {
			res.Stop = fmt.Sprintf("stopped at %.6g records/s: %s", rate, step.Why)
			return res, nil
		}
		res.FoundRate = rate
	}
	res.Stop = "every step of the schedule passed: raise max_rate.max to find the limit"
	return res, nil
}

func measureJudged(c MaxRateCriteria, measure func(int, float64, bool) (MaxRateStep, error), n int, rate float64, retry bool) (MaxRateStep, error) {
	s, err := measure(n, rate, retry)
	s.OfferedPerSec, s.Retry = rate, retry
	c.Judge(&s)
	return s, err
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
