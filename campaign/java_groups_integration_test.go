//go:build integration

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/vocab"
)

// Client java takes the consumer-group knobs: a KIP-848 group with the
// broker's range assignor, and a classic eager (range) group with static
// members and auto-commit, each form and drain on Kafka 4.2 with every
// record completed once, and the broker reports the protocol and assignor
// asked for (run.json group, read back).
func TestJavaClientGroupKnobsOnKafka(t *testing.T) {
	needJavaClient(t)
	for _, tc := range []struct {
		name, protocol, remote, assignor string
		static, auto                     bool
		wantAssignor, wantRebalance      string
	}{
		{"kip848-range", "consumer", "range", "cooperative-sticky", false, false, "range", "incremental"},
		{"classic-range-static-auto", "classic", "uniform", "range", true, true, "range", "eager"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := javaSpec("consumer", "java")
			s.Members = 2
			s.GroupProtocol, s.RemoteAssignor, s.Assignor, s.StaticMembership = vocab.GroupProtocol(tc.protocol), tc.remote, tc.assignor, tc.static
			if tc.auto {
				s.Commit, s.AutoCommitInterval = "auto", time.Second
			}
			r := runSpec(t, s, "jg-"+tc.name)
			g := r.Group
			t.Logf("%s: group %+v audit %+v", tc.name, g, r.Audit)
			if g == nil || g.Protocol != tc.protocol || g.Assignor != tc.wantAssignor || g.Rebalance != tc.wantRebalance || g.Fallback {
				t.Fatalf("%s: group read back %+v, want protocol %s assignor %s rebalance %s", tc.name, g, tc.protocol,
					tc.wantAssignor, tc.wantRebalance)
			}
			if r.Audit.CompletedOnce != r.Audit.Produced || r.Audit.Duplicates != 0 {
				t.Errorf("%s: completed once %d of %d, duplicates %d", tc.name, r.Audit.CompletedOnce, r.Audit.Produced, r.Audit.Duplicates)
			}
		})
	}
}
