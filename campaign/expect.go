package campaign

import (
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// Expectations converts a scenario's expect: claims into the plain form
// results evaluates (results does not import scenarios).
func Expectations(sc *scenarios.Scenario) []results.Expectation {
	out := make([]results.Expectation, 0, len(sc.Expectations))
	for _, e := range sc.Expectations {
		x := results.Expectation{Name: e.Name}
		switch {
		case e.Ratio != nil:
			num, den := selector(e.Ratio.Numerator), selector(e.Ratio.Denominator)
			x.Field, x.Numerator, x.Denominator = e.Ratio.Field, &num, &den
			x.Min, x.Max = e.Ratio.Min, e.Ratio.Max
		case e.Measure != nil:
			x.Field, x.Runs = e.Measure.Field, selector(e.Measure.RunSelector)
			x.Min, x.Max = e.Measure.Min, e.Measure.Max
		}
		out = append(out, x)
	}
	return out
}

func selector(s scenarios.RunSelector) results.Selector {
	return results.Selector{Type: s.Runs, Where: s.Where}
}

// EvaluateExpectations checks the scenario's expectations against the
// campaign's runs.
func EvaluateExpectations(sc *scenarios.Scenario, runs []results.RunRecord) []results.ExpectationOutcome {
	if len(sc.Expectations) == 0 {
		return nil
	}
	return results.EvaluateExpectations(runs, Expectations(sc))
}

// RecommendQuery converts a scenario's recommend: block (or the CLI's
// flags, parsed by scenarios.ParseRecommend) into results' form.
func RecommendQuery(r scenarios.Recommend) results.RecommendQuery {
	q := results.RecommendQuery{Knob: r.Knob, Maximize: r.Maximize}
	for _, c := range r.Where {
		q.Where = append(q.Where, results.Clause{Field: c.Field, Op: c.Op, Value: c.Value, Text: c.Text})
	}
	return q
}
