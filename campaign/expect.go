package campaign

import (
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// EvaluateExpectations checks the scenario's expectations against the
// campaign's runs (nil when it has none).
func EvaluateExpectations(sc *scenarios.Scenario, recs []runs.Record) []runs.ExpectationOutcome {
	if len(sc.Expectations) == 0 {
		return nil
	}
	return runs.EvaluateExpectations(recs, sc.Expectations)
}
