package campaign

import (
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The protocols built-in's where: selectors find its runs, and the
// figures measured on Kafka 4.2.2 (2 cores: eager 4 pauses, cooperative 2,
// KIP-848 2 with the longest 3.2 s, share 0) meet its expectations.
func TestProtocolsExpectationsEvaluate(t *testing.T) {
	sc, err := scenarios.Builtin("protocols")
	if err != nil {
		t.Fatal(err)
	}
	var recs []runs.Record
	for i, spec := range sc.Runs {
		r := runs.Record{RunID: sc.RunName(i), ConsumerType: spec.ConsumerType, Spec: &spec,
			Group: &runs.GroupInfo{Requested: spec.GroupProtocol, Protocol: spec.GroupProtocol}}
		pauses, longest := map[string]int{"range": 4, "cooperative-sticky": 2}[spec.Assignor], 0.5
		if spec.GroupProtocol == "consumer" {
			pauses, longest = 2, 3.2
		}
		if spec.ConsumerType == "share" {
			pauses, longest = 0, 0
			r.Group.Protocol, r.Group.Requested = "share", "share"
		}
		r.EventSummary = &runs.EventSummary{RebalancePauses: pauses, RebalancePauseMaxS: longest}
		r.Audit = results.Audit{Produced: 5400, CompletedOnce: 5400, Balanced: true}
		recs = append(recs, r)
	}
	for _, o := range EvaluateExpectations(sc, recs) {
		if !o.Met {
			t.Errorf("%s: %s", o.Name, o.Line())
		}
	}
}
