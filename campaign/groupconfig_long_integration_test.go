//go:build integration && long

package campaign

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// A group_config sweep of share.delivery.count.limit and
// share.record.lock.duration.ms on Kafka 4.3.1 runs on ONE cluster (no
// broker restart between the values), and every run's group reads back the
// values it was given, with the group as their source.
func TestGroupConfigSweepOneCluster43(t *testing.T) {
	needOwnCluster(t)
	sc, err := scenarios.LoadBytes("group-config.yaml", []byte(`name: group-config-43
consumer_type: share
kafka_version: 4.3.1
broker_heap: 512m
partitions: 2
members: 2
rate: 100
processing: {model: none}
transient_rate: 0.2
warmup: 1s
duration: 2s
drain_timeout: 30s
group_config:
  share.delivery.count.limit: [2, 4]
  share.record.lock.duration.ms: 20000
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, log := runOnOwnCluster(t, sc, 4*time.Minute)
	if n := strings.Count(log, "starting process cluster"); n != 1 {
		t.Errorf("%d cluster starts, want 1", n)
	}
	if n := strings.Count(log, "broker 1: started"); n != 1 {
		t.Errorf("%d broker starts, want 1", n)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for i, r := range res.Runs {
		want := []string{"2", "4"}[i]
		g := r.GroupConfig
		if g == nil {
			t.Fatalf("%s: no group_config", r.RunID)
		}
		t.Logf("%s: applied %v read back %v source %v audit %+v", r.RunID, g.Applied, g.ReadBack, g.Source, r.Audit)
		if g.ReadBack["share.delivery.count.limit"] != want || g.ReadBack["share.record.lock.duration.ms"] != "20000" ||
			g.ReadBack["share.auto.offset.reset"] != "earliest" {
			t.Errorf("%s: read back %v", r.RunID, g.ReadBack)
		}
		if g.Source["share.delivery.count.limit"] != "GROUP_CONFIG" {
			t.Errorf("%s: source %v", r.RunID, g.Source)
		}
		if b := r.Environment.Broker; b == nil || b.Features["share.version"] != 1 || !strings.Contains(strings.Join(b.GroupConfigs, ","), "share.delivery.count.limit") {
			t.Errorf("%s: broker %+v", r.RunID, b)
		}
		if !r.Audit.Balanced || r.Audit.Lost != 0 {
			t.Errorf("%s: audit %+v", r.RunID, r.Audit)
		}
	}
}
