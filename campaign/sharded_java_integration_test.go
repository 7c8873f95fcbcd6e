//go:build integration

package campaign

import (
	"testing"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/vocab"
)

// A sharded run on the Java client: each of 2 local agents runs its own
// Java runner with its members (global ids), the audit of the merged
// record balances with every record completed once (a consumer group) or
// at least once (a share group), and no agent or runner JVM is left.
func TestShardedJava(t *testing.T) {
	needJavaClient(t)
	for _, typ := range []string{"consumer", "share"} {
		t.Run(typ, func(t *testing.T) {
			l := &pidLauncher{Local: &shard.Local{Binary: agentBinary(t)}, killShard: -1}
			spec := shardSpec(t, typ, 2)
			spec.Client = vocab.ClientJava
			spec.Members = 4
			id := "sharded-java-" + typ
			m, err := runSharded(t, spec, id, l)
			if err != nil {
				t.Fatalf("sharded java run: %v", err)
			}
			l.checkGone(t)
			r := m.Record
			a := r.Audit
			t.Logf("2 shards, java: %.1f/s audit %+v shards %+v", r.Throughput.CompletedPerSec, a, r.Shards.PerShard)
			if r.Shards == nil || r.Shards.Count != 2 || len(r.Shards.PerShard) != 2 {
				t.Fatalf("shards record %+v, want 2 agents", r.Shards)
			}
			if !a.Balanced || a.Lost != 0 || a.InFlight != 0 || a.Produced == 0 || a.CompletedOnce+a.Duplicates != a.Produced {
				t.Errorf("audit %+v: want balanced, every record completed", a)
			}
			if typ == "consumer" && a.Duplicates != 0 {
				t.Errorf("consumer group over 2 java agents completed %d records twice", a.Duplicates)
			}
			for _, p := range r.Shards.PerShard {
				if p.Completed == 0 || len(p.Members) != 2 {
					t.Errorf("shard %d: members %v completed %d: want 2 members that complete records", p.Shard, p.Members, p.Completed)
				}
			}
			if left := runTopics(t, id); len(left) > 0 {
				t.Errorf("topics left: %v", left)
			}
		})
	}
}
