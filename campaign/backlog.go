package campaign

import (
	"math"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// backlogFigures rewrites a load_mode backlog run's throughput and ceiling:
// the window is the drain (first delivery → last finish), nothing is offered
// on a schedule, the producers' figure is the fill rate, and the producer
// rate does not bound the drain.
func backlogFigures(rr *runs.Record, s scenarios.RunSpec, m results.Merged, fillSec float64) {
	rr.Phases.FillSec = fillSec
	rr.Phases.WarmupSec = 0
	t := &rr.Throughput
	t.OfferedPerSec = 0
	t.ProducedPerSec = 0
	if fillSec > 0 {
		t.ProducedPerSec = float64(m.Acked) / fillSec
	}
	// CompletedPerSec (completions ÷ drain) stands; the ratio is the
	// fraction of the backlog completed.
	t.CompletedRatio = 0
	if m.Acked > 0 {
		t.CompletedRatio = float64(m.CompletedInWindow) / float64(m.Acked)
	}
	c := runs.ComputeCeiling(runs.CeilingInput{
		Share: s.ConsumerType == "share", Members: s.Members, Workers: s.Workers, Partitions: s.Partitions,
		ProcessingMs: float64(s.ProcessingMean()) / 1e6, TransientRate: s.TransientRate, PoisonRate: s.PoisonRate,
		ProducerRate: math.Inf(1), RecordLocks: s.RecordLocks(), HoldMs: rr.Latency.HoldMs.Mean,
	})
	if math.IsInf(c.RecordsPerSec, 1) {
		c.RecordsPerSec, c.Bound = 0, "none" // no processing bound
	}
	c.ProducerRate = 0
	rr.Ceiling = c.WithMeasured(t.CompletedPerSec)
}
