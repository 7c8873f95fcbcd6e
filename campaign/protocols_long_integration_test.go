//go:build integration && long

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/report"
)

// The protocols built-in on a real Kafka 4.2 broker: the same 2 → 4 join on
// classic eager, classic cooperative, KIP-848 and a share group meets every
// expectation its protocols' documented behaviour gives (docs/explanation/measurement.md,
// "Rebalance pauses"): eager pauses all 4 partitions at once (a group stop),
// cooperative and KIP-848 only the 2 moved ones and never the whole group,
// KIP-848's moved partitions wait at most about one 5 s heartbeat and its new
// members get records after one to two, the share group revokes nothing.
// Besides the built-in's claims, eager's group stop must be the only one,
// and eager must pause more partitions at once than any other setup.
func TestProtocolsBuiltinOnKafka(t *testing.T) {
	needOwnCluster(t)
	res, _ := runOnOwnCluster(t, builtin(t, "protocols"), 8*time.Minute)
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(res.Runs))
	}
	for _, r := range res.Runs {
		for _, e := range r.Events {
			t.Logf("%s: %s", r.RunID, report.EventLine(r, e))
		}
	}
	for _, o := range res.Expectations {
		if !o.Met {
			t.Errorf("NOT MET: %s", o.Line())
		}
	}
	eager, others := res.Runs[0], res.Runs[1:]
	if eager.Spec.Assignor != "range" || eager.EventSummary == nil {
		t.Fatalf("first run %s is not the eager one", eager.RunID)
	}
	for _, r := range others {
		s := r.EventSummary
		if s == nil {
			t.Fatalf("%s: no event summary", r.RunID)
		}
		if s.GroupStopSec != 0 || s.RebalancePeakPaused >= eager.EventSummary.RebalancePeakPaused {
			t.Errorf("%s: group stop %.3fs, %d partitions at once; eager: %.3fs, %d: only eager stops the whole group",
				r.RunID, s.GroupStopSec, s.RebalancePeakPaused, eager.EventSummary.GroupStopSec, eager.EventSummary.RebalancePeakPaused)
		}
	}
}
