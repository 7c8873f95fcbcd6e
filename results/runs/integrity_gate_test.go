package runs

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// The gate recomputes the audit from its counts: a record that claims to
// balance while its categories add up to less than produced, holds a
// negative count or an impossible rate is named inconsistent; a consistent
// one has no problem.
func TestIntegrityProblems(t *testing.T) {
	ok := Record{RunID: "r", Spec: &scenarios.RunSpec{},
		Phases:     Phases{MeasureSec: 10},
		Throughput: Throughput{OfferedPerSec: 10, ProducedPerSec: 10, CompletedPerSec: 10, CompletedRatio: 1},
		Audit:      results.Audit{Produced: 100, CompletedOnce: 100, Balanced: true}}
	if p := IntegrityProblems(ok); len(p) != 0 {
		t.Fatalf("consistent record: %v", p)
	}
	// A run that measured nothing (every rate 0) over no window is
	// consistent: the bound only refuses a rate with no window under it.
	idle := ok
	idle.Phases, idle.Throughput = Phases{}, Throughput{}
	if p := IntegrityProblems(idle); len(p) != 0 {
		t.Fatalf("idle record: %v", p)
	}
	// A producer that caught up after falling behind in the warm-up sends
	// more than the rate in the window, never more than the spec offered
	// since the load's start.
	caughtUp := ok
	caughtUp.Spec = &scenarios.RunSpec{Producer: scenarios.Producer{Rate: 10, Producers: 1},
		Phases: scenarios.Phases{Warmup: 2 * time.Second, Duration: 10 * time.Second}}
	caughtUp.Audit.Produced, caughtUp.Audit.CompletedOnce, caughtUp.Throughput.ProducedPerSec = 120, 120, 12
	if p := IntegrityProblems(caughtUp); len(p) != 0 {
		t.Fatalf("caught up after the warm-up: %v", p)
	}
	for name, tc := range map[string]struct {
		mut  func(*Record)
		want string
	}{
		"300 produced, 200 completed, balanced": {func(r *Record) { r.Audit.Produced, r.Audit.CompletedOnce = 300, 200 }, "= 200, not produced 300"},
		"lost -5":                               {func(r *Record) { r.Audit.Lost = -5 }, "audit.lost = -5 is negative"},
		"throughput NaN":                        {func(r *Record) { r.Throughput.CompletedPerSec = math.NaN() }, "completed_per_sec = NaN"},
		"throughput 1.7e308":                    {func(r *Record) { r.Throughput.CompletedPerSec = 1.7e308 }, "more than the 100 completions"},
		"throughput -100":                       {func(r *Record) { r.Throughput.CompletedPerSec = -100 }, "expected a finite number ≥ 0"},
		"11/s over 10 s":                        {func(r *Record) { r.Throughput.ProducedPerSec = 11 }, "more than the 100 records produced"},
		"undelivered -5, balanced by it":        {func(r *Record) { r.Audit.CompletedOnce, r.Audit.Undelivered = 105, -5 }, "audit.undelivered = -5 is negative"},
		"phases 0, completions at 1e9/s":        {func(r *Record) { r.Phases.MeasureSec, r.Throughput.CompletedPerSec = 0, 1e9 }, "completed_per_sec = 1e+09 with phases.measure_s and phases.drain_s both 0"},
		"phases 0, production at 10/s":          {func(r *Record) { r.Phases.MeasureSec = 0 }, "produced_per_sec = 10 with phases.measure_s and phases.fill_s both 0"},
		"measure_s NaN":                         {func(r *Record) { r.Phases.MeasureSec = math.NaN() }, "phases.measure_s = NaN"},
		"drain_s -3":                            {func(r *Record) { r.Phases.DrainSec = -3 }, "phases.drain_s = -3"},
		"produced 50/s where the spec offers 10/s": {func(r *Record) {
			r.Spec = &scenarios.RunSpec{Producer: scenarios.Producer{Rate: 10, Producers: 1}, Phases: scenarios.Phases{Duration: 10 * time.Second}}
			r.Audit.Produced, r.Audit.CompletedOnce, r.Throughput.ProducedPerSec = 1000, 1000, 50
		}, "more than the spec offered (rate 10 × 10s = 100 records)"},
		"lost absent": {func(r *Record) { r.absentAudit = []string{"audit.lost"} }, "audit.lost absent"},
	} {
		r := ok
		tc.mut(&r)
		p := strings.Join(IntegrityProblems(r), "\n")
		if !strings.Contains(p, tc.want) || !strings.Contains(p, "inconsistent") {
			t.Errorf("%s: problems %q, want %q", name, p, tc.want)
		}
		if len(Problems(r, nil)) == 0 {
			t.Errorf("%s: the gate passes it", name)
		}
	}
}
