//go:build integration && long

package campaign

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// The dead-letter built-in on a real Kafka 4.4.0 broker: the run's DLQ topic
// (created with errors.deadletterqueue.group.enable=true) holds every
// archived record exactly once, matched by the stamp in the copied value,
// and the archived share is poison + (1 − poison) × transient^limit.
func TestDeadLetterBuiltin44(t *testing.T) {
	needOwnCluster(t)
	res, _ := runOnOwnCluster(t, builtin(t, "dead-letter"), 5*time.Minute)
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	r := res.Runs[0]
	a := r.Audit
	if a.DeadLettered == nil {
		t.Fatalf("no dead-letter audit: %+v", a)
	}
	const predicted = 0.02 + 0.98*0.2*0.2
	t.Logf("produced %d, archived %d (ratio %.4f, predicted %.4f), DLQ records %d, dead_lettered %d, missing %d, duplicates %d, unmatched %d (by %s); rejected %d, released %d",
		a.Produced, a.Archived, float64(a.Archived)/float64(a.Produced), predicted, *a.DeadLetterRecords, *a.DeadLettered,
		*a.DeadLetterMissing, *a.DeadLetterDuplicates, *a.DeadLetterUnmatched, a.DeadLetterMatchedBy, r.Outcomes.Rejected, r.Outcomes.Released)
	if *a.DeadLettered != a.Archived || a.DeadLetterMatchedBy != "stamp" || !a.Balanced {
		t.Errorf("audit %+v", a)
	}
	if g := r.GroupConfig; g == nil || !strings.HasPrefix(g.ReadBack[scenarios.GroupKeyDLQTopic], "dlq.dead-letter.sharebench-") ||
		g.ReadBack[scenarios.GroupKeyDLQCopyRecord] != "true" || g.ReadBack[scenarios.GroupKeyDeliveryCountLimit] != "2" {
		t.Errorf("group config %+v", r.GroupConfig)
	}
	for _, f := range r.Validity.Flags {
		if f.Code == "dead_letter_unreconciled" {
			t.Errorf("flag %s: %s", f.Code, f.Message)
		}
	}
	for _, e := range res.Expectations {
		t.Logf("expectation %q met=%v %s %s", e.Name, e.Met, e.Claim, e.Detail)
		if !e.Met {
			t.Errorf("expectation %q not met: %s", e.Name, e.Detail)
		}
	}
}
