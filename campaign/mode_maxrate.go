package campaign

import (
	"context"
	"fmt"
	"math"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// maxRateMode runs load_mode max_rate: each probe of the search is a run of
// its own (load_mode rate at that rate: a fresh topic and group, a fresh
// member fleet, its own warm-up, window and drain), chosen and judged by
// runs.SearchMaxRate: the schedule up to its first failing step, then
// bisection down to max_rate.precision and a confirmation of the answer.
//
// Fresh per probe, not one fleet across probes: a probe that overloads the
// consumers leaves a backlog, and a shared fleet and topic would carry it
// (and its latency) into the next; fresh probes are independent
// measurements of one rate each, so no backlog of one reaches the next.
// The cost is a group join per probe, which lies outside every window.
//
// The returned record is the last passing measurement at the found rate
// (its confirmation when there was one; the first step when none passed)
// with Record.MaxRate holding every step and the formula's ceiling.
type maxRateMode struct{}

func (maxRateMode) run(ctx context.Context, rn runner, spec scenarios.RunSpec, runID string) (*Measured, error) {
	mr := spec.MaxRate
	log := rn.log
	crit := runs.MaxRateCriteria{CompletedRatio: mr.CompletedRatio,
		P99BoundMs: float64(mr.P99Bound) / 1e6, Confirm: mr.Confirm, Precision: mr.Precision}
	var first *Measured
	passed := map[float64]*Measured{} // the last passing measurement at each rate
	res, err := runs.SearchMaxRate(mr.Schedule(), crit, func(p runs.MaxRateProbe) (runs.MaxRateStep, error) {
		step := spec.AtRate(p.Rate)
		id := fmt.Sprintf("%s-step%d", runID, p.N+1)
		fmt.Fprintf(log, "  %s: max-rate step %d (%s%s) at %.6g records/s\n", runID, p.N+1, p.Kind, map[bool]string{true: ", retry"}[p.Retry], p.Rate)
		m, err := rn.runOne(ctx, step, id)
		if err != nil {
			return runs.MaxRateStep{RunID: id}, err
		}
		if first == nil {
			first = m
		}
		lat := m.Record.Latency.CompletionMs
		s := runs.MaxRateStep{RunID: id, OfferedPerSec: p.Rate, CompletedPerSec: m.Record.Throughput.CompletedPerSec,
			P50Ms: lat.P50, P99Ms: lat.P99, Flags: m.Record.Validity.Codes()}
		crit.Judge(&s)
		if s.Pass {
			passed[p.Rate] = m
		}
		fmt.Fprintf(log, "  %s: step %d %s: %s\n", runID, p.N+1, map[bool]string{true: "pass", false: "FAIL"}[s.Pass], s.Why)
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	kept := first
	if m := passed[res.FoundRate]; m != nil {
		kept = m
	}
	res.CeilingPerSec = consumeCeiling(spec)
	kept.Record.RunID = runID
	kept.Record.Spec = &spec
	kept.Record.MaxRate = &res
	fmt.Fprintf(log, "  %s\n", res.Line(runID))
	return kept, nil
}

// consumeCeiling is the capacity formula's ceiling of spec's consumers
// without the producer rate (the offered rate is what a max-rate search
// varies), 0 when nothing bounds them.
func consumeCeiling(spec scenarios.RunSpec) float64 {
	in := runs.PlannedCeilingInput(spec)
	in.ProducerRate = math.Inf(1)
	if c := runs.ComputeCeiling(in).RecordsPerSec; c > 0 && !math.IsInf(c, 0) {
		return c
	}
	return 0
}
