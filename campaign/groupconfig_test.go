package campaign

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
)

// group_config is set on the run's share group and read back into run.json
// (kfake, not Kafka: it accepts these keys as group configs).
func TestGroupConfigAppliedAndReadBackOnKfake(t *testing.T) {
	ctx, cl := startKfake(t)
	s := baseSpec()
	s.ConsumerType, s.Members, s.Rate = "share", 2, 200
	s.Warmup, s.Duration = time.Second, time.Second
	s.GroupConfig = map[string]string{"share.record.lock.duration.ms": "20000", "share.delivery.count.limit": "3"}
	m, err := RunOne(ctx, cl, s, "kfake-groupconfig", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	g := m.Record.GroupConfig
	if g == nil {
		t.Fatal("no group_config in the record")
	}
	for k, v := range map[string]string{"share.record.lock.duration.ms": "20000", "share.delivery.count.limit": "3", "share.auto.offset.reset": "earliest"} {
		if g.Applied[k] != v || g.ReadBack[k] != v {
			t.Errorf("%s: applied %q read back %q, want %q", k, g.Applied[k], g.ReadBack[k], v)
		}
	}
}

func TestFeatureProblems(t *testing.T) {
	f42 := infra.Features{Finalized: map[string]int16{"share.version": 1},
		GroupConfigs: []string{"share.auto.offset.reset", "share.record.lock.duration.ms"}}
	if err := featureProblems(f42, featureNeeds{groupKeys: []string{"share.record.lock.duration.ms"}, share: true}, "4.2.2"); err != nil {
		t.Errorf("4.2 lock duration: %v", err)
	}
	err := featureProblems(f42, featureNeeds{groupKeys: []string{"share.delivery.count.limit"}, share: true, dlq: true}, "4.2.2")
	for _, w := range []string{"refused before any run", "group_config.share.delivery.count.limit", "needs Kafka 4.3.0 or newer",
		"dead_letter: needs share.version 2 (Kafka 4.4.0 or newer)", "finalized share.version 1"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}

// A Kafka 4.1 cluster whose share groups were not enabled (an external
// cluster: the providers format 4.1 with share.version=1) refuses share
// runs with the command that enables them, and lets consumer runs through.
func TestFeatureProblemsSharePreviewOff(t *testing.T) {
	off := infra.Features{Finalized: map[string]int16{"metadata.version": 27},
		GroupConfigs: []string{"share.auto.offset.reset", "share.record.lock.duration.ms"}}
	err := featureProblems(off, featureNeeds{groupKeys: []string{"share.auto.offset.reset"}, share: true}, "4.1.2")
	for _, w := range []string{"refused before any run", "consumer_type share: the brokers (Kafka 4.1.2) have share groups off",
		"upgrade --feature share.version=1", "or run consumer_type consumer only"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
	if err := featureProblems(off, featureNeeds{}, "4.1.2"); err != nil {
		t.Errorf("consumer runs refused: %v", err)
	}
	on := off
	on.Finalized = map[string]int16{"share.version": 1}
	if err := featureProblems(on, featureNeeds{groupKeys: []string{"share.auto.offset.reset", "share.record.lock.duration.ms"}, share: true}, "4.1.2"); err != nil {
		t.Errorf("4.1.2 with share.version 1: %v", err)
	}
}
