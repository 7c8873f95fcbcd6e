package infra

import (
	"strings"
	"testing"
)

// internalTopicKeys are the settings that decide whether Kafka can create
// its internal topics (offsets, transactions, share-group state).
var internalTopicKeys = []string{
	"offsets.topic.replication.factor",
	"transaction.state.log.replication.factor",
	"transaction.state.log.min.isr",
	"share.coordinator.state.topic.replication.factor",
	"share.coordinator.state.topic.min.isr",
}

func TestBrokerDefaultsReplicationFollowsNodeCount(t *testing.T) {
	for _, tc := range []struct {
		nodes      int
		rf, minISR string
	}{
		{1, "1", "1"},
		{3, "3", "2"},
	} {
		cfg := BrokerDefaults(tc.nodes)
		for _, k := range internalTopicKeys {
			want := tc.rf
			if strings.HasSuffix(k, "min.isr") {
				want = tc.minISR
			}
			if got := cfg[k]; got != want {
				t.Errorf("%d node(s): %s = %q, want %q", tc.nodes, k, got, want)
			}
		}
		if got := cfg["num.partitions"]; got != "1" {
			t.Errorf("%d node(s): num.partitions = %q, want 1", tc.nodes, got)
		}
		if got := cfg["group.initial.rebalance.delay.ms"]; got != "0" {
			t.Errorf("%d node(s): group.initial.rebalance.delay.ms = %q, want 0", tc.nodes, got)
		}
	}
}

func TestEffectiveBrokerConfigUserWins(t *testing.T) {
	user := map[string]string{
		"share.coordinator.state.topic.min.isr":  "3",
		"group.share.partition.max.record.locks": "500",
	}
	cfg, err := EffectiveBrokerConfig(3, user)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg["share.coordinator.state.topic.min.isr"]; got != "3" {
		t.Errorf("user override lost: share.coordinator.state.topic.min.isr = %q, want 3", got)
	}
	if got := cfg["group.share.partition.max.record.locks"]; got != "500" {
		t.Errorf("user key missing: group.share.partition.max.record.locks = %q, want 500", got)
	}
	if got := cfg["offsets.topic.replication.factor"]; got != "3" {
		t.Errorf("default lost: offsets.topic.replication.factor = %q, want 3", got)
	}
	cfg["num.partitions"] = "7"
	if BrokerDefaults(3)["num.partitions"] != "1" || user["num.partitions"] != "" {
		t.Error("EffectiveBrokerConfig returned a map shared with its inputs or the defaults")
	}
}

func TestEffectiveBrokerConfigRejectsLayoutKeys(t *testing.T) {
	for _, k := range []string{"node.id", "listeners", "log.dirs", "controller.quorum.voters", " process.roles "} {
		_, err := EffectiveBrokerConfig(1, map[string]string{k: "x"})
		if err == nil {
			t.Errorf("%q accepted; want an error (the provider owns it)", k)
			continue
		}
		if !strings.Contains(err.Error(), strings.TrimSpace(k)) {
			t.Errorf("%q: error %q does not name the key", k, err)
		}
	}
	if _, err := EffectiveBrokerConfig(1, map[string]string{"": "x"}); err == nil {
		t.Error("empty key accepted")
	}
}
