package campaign

import (
	"context"
	"fmt"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// maxRateMode runs load_mode max_rate: each rate of the schedule is a run of
// its own (load_mode rate at that rate: a fresh topic and
// group, a fresh member fleet, its own warm-up, window and drain), judged
// by runs.SearchMaxRate, which stops at the first failing step.
//
// Fresh per step, not one fleet across steps: a step that overloads the
// consumers leaves a backlog, and a shared fleet and topic would carry it
// (and its latency) into the next step; fresh steps are independent
// measurements of one rate each. The cost is a group join per step, which
// lies outside every window.
//
// The returned record is the step at the found rate (the first step when
// none passed) with Record.MaxRate holding every step.
type maxRateMode struct{}

func (maxRateMode) run(ctx context.Context, rn runner, spec scenarios.RunSpec, runID string) (*Measured, error) {
	mr := spec.MaxRate
	log := rn.log
	crit := runs.MaxRateCriteria{CompletedRatio: mr.CompletedRatio,
		P99BoundMs: float64(mr.P99Bound) / 1e6, Confirm: mr.Confirm}
	var first, best *Measured
	res, err := runs.SearchMaxRate(mr.Schedule(), crit, func(n int, rate float64, retry bool) (runs.MaxRateStep, error) {
		step := spec.AtRate(rate)
		id := fmt.Sprintf("%s-step%d", runID, n+1)
		fmt.Fprintf(log, "  %s: max-rate step %d at %.6g records/s\n", runID, n+1, rate)
		m, err := rn.runOne(ctx, step, id)
		if err != nil {
			return runs.MaxRateStep{RunID: id}, err
		}
		if first == nil {
			first = m
		}
		s := runs.MaxRateStep{RunID: id, OfferedPerSec: rate, CompletedPerSec: m.Record.Throughput.CompletedPerSec,
			P99Ms: m.Record.Latency.CompletionMs.P99, Flags: m.Record.Validity.Codes()}
		crit.Judge(&s)
		if s.Pass {
			best = m
		}
		fmt.Fprintf(log, "  %s: step %d %s: %s\n", runID, n+1, map[bool]string{true: "pass", false: "FAIL"}[s.Pass], s.Why)
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	kept := first
	if best != nil {
		kept = best
	}
	kept.Record.RunID = runID
	kept.Record.Spec = &spec
	kept.Record.MaxRate = &res
	fmt.Fprintf(log, "  %s\n", res.Line(runID))
	return kept, nil
}
