//go:build integration

package campaign

import (
	"testing"

	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// groupSpec is a short keyed run: 3 partitions, 30 keys with a hot key,
// one member with one worker unless changed.
func groupSpec() scenarios.RunSpec {
	s := baseSpec()
	s.ConsumerType, s.Partitions, s.Members, s.Workers = "consumer", 3, 1, 1
	s.KeyMode, s.Keys, s.HotKeys = "hashed", 30, scenarios.HotKeys{Share: 0.3, Keys: 1}
	s.Rate, s.Processing = 300, scenarios.Processing{Model: "constant", Time: 1_000_000} // 1 ms
	s.GroupProtocol, s.RemoteAssignor, s.Assignor, s.Commit = "classic", "uniform", "cooperative-sticky", "after_processing"
	s.AutoCommitInterval = 5e9
	return s
}

// Both consumer-group protocols form and drain on Kafka 4.2 with balanced
// audits, the broker runs the protocol asked for, and a one-worker group
// finishes every key and partition in order.
func TestGroupProtocolsOnKafka(t *testing.T) {
	for _, tc := range []struct{ protocol, assignor, remote, wantAssignor, wantRebalance string }{
		{"classic", "range", "uniform", "range", "eager"},
		{"consumer", "cooperative-sticky", "uniform", "uniform", "incremental"},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			s := groupSpec()
			s.GroupProtocol, s.Assignor, s.RemoteAssignor = vocab.GroupProtocol(tc.protocol), tc.assignor, tc.remote
			s.Members = 2
			r := runSpec(t, s, "group-"+tc.protocol)
			g := r.Group
			t.Logf("group %+v order %+v", g, r.Audit.Order)
			if g == nil || g.Protocol != tc.protocol || g.Assignor != tc.wantAssignor || g.Rebalance != tc.wantRebalance || g.Fallback {
				t.Fatalf("group read back %+v, want protocol %s assignor %s", g, tc.protocol, tc.wantAssignor)
			}
			if o := r.Audit.Order; o == nil || !o.Keyed || o.Violations != 0 || o.Partition.Violations != 0 || o.Checked == 0 {
				t.Errorf("one worker per member must process each key in order: %+v", o)
			}
		})
	}
}

// A share group with several members processes one key's records out of
// order; the same keyed workload on a one-worker consumer group does not.
func TestShareGroupOrderViolations(t *testing.T) {
	s := groupSpec()
	s.ConsumerType, s.Members, s.Workers, s.MaxPollRecords = "share", 4, 2, 20
	s.Processing = scenarios.Processing{Model: "uniform", Min: 0, Max: 4_000_000}
	r := runSpec(t, s, "order-share")
	o := r.Audit.Order
	t.Logf("share order %+v", o)
	if o == nil || o.Violations == 0 || o.Affected == 0 || o.MaxDisplacementRecords == 0 {
		t.Fatalf("4 share members × 2 workers kept every key in order: %+v", o)
	}
	if r.Group == nil || r.Group.Protocol != "share" {
		t.Errorf("group %+v", r.Group)
	}
}
