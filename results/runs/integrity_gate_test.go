package runs

import (
	"math"
	"strings"
	"testing"

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
		"lost absent":                           {func(r *Record) { r.absentAudit = []string{"audit.lost"} }, "audit.lost absent"},
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
