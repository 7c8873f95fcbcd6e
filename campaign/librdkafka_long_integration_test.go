//go:build integration && long

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/scenarios"
)

// TestLibrdkafkaScaleEvents: join, leave and slow events reach the
// librdkafka runner's members on a real broker (share group and consumer
// group): the audit balances with every record completed once, the
// members that joined did work, and the one that left stopped.
func TestLibrdkafkaScaleEvents(t *testing.T) {
	if err := consumers.CheckLibrdkafkaClient(); err != nil {
		t.Skip(err)
	}
	for _, ctype := range []string{"share", "consumer"} {
		t.Run(ctype, func(t *testing.T) {
			s := javaSpec(ctype, "librdkafka")
			s.Partitions, s.Members = 4, 2
			s.Duration = 8 * time.Second
			s.Events = []scenarios.Event{
				{At: 1 * time.Second, Action: scenarios.ActionJoin, Members: 2},
				{At: 4 * time.Second, Action: scenarios.ActionLeave, Members: 1},
				{At: 5 * time.Second, Action: scenarios.ActionSlow, Factor: 2, Duration: time.Second},
			}
			r := runSpec(t, s, "lrev-"+ctype)
			// Every record completed; a consumer group's rebalances (the join,
			// the leave) may hand a partition over with records processed but
			// not yet committed, which complete again (at-least-once): there
			// duplicates are allowed, in a share group not.
			if r.Audit.CompletedOnce+r.Audit.Duplicates != r.Audit.Produced || (ctype == "share" && r.Audit.Duplicates != 0) {
				t.Errorf("completed once %d of %d, duplicates %d", r.Audit.CompletedOnce, r.Audit.Produced, r.Audit.Duplicates)
			}
			if len(r.PerMember) != 4 {
				t.Fatalf("per member %v: want 4 members (2 + 2 joined)", r.PerMember)
			}
			for id, n := range r.PerMember[2:] {
				if n == 0 {
					t.Errorf("member %d joined at 1s and completed nothing: %v", id+2, r.PerMember)
				}
			}
			t.Logf("per member %v; completed %.1f/s", r.PerMember, r.Throughput.CompletedPerSec)
		})
	}
}
