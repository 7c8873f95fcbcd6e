package infra

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// BrokerDefaults returns the broker settings the harness applies to every
// broker of a cluster of the given number of nodes, before the user's
// ClusterSpec.BrokerConfig. Everything else is Kafka's own default.
//
// The replication settings of the internal topics follow the node count.
// Kafka's defaults (replication factor 3, min ISR 2) cannot be met by a single
// broker: the offsets and transaction-state topics could not be created and,
// less obviously, a share group on a one-broker cluster would never consume,
// because the share coordinator's state topic could not be created either.
// From 3 nodes on, the production values apply.
func BrokerDefaults(nodes int) map[string]string {
	rf, minISR := "3", "2"
	if nodes < 3 {
		rf, minISR = "1", "1"
	}
	return map[string]string{
		// One partition per topic created without a count; benchmark topics
		// are created explicitly with their own partition counts.
		"num.partitions": "1",
		// Groups form at once instead of waiting 3 s for more members; a
		// run's warm-up owns that time.
		"group.initial.rebalance.delay.ms": "0",

		"offsets.topic.replication.factor":                 rf,
		"transaction.state.log.replication.factor":         rf,
		"transaction.state.log.min.isr":                    minISR,
		"share.coordinator.state.topic.replication.factor": rf,
		"share.coordinator.state.topic.min.isr":            minISR,
	}
}

// providerOwnedKeys are the broker settings a provider derives from the
// cluster's layout (identities, addresses, storage). A user value for one of
// them would silently break the cluster, so it is rejected instead.
var providerOwnedKeys = []string{
	"process.roles",
	"node.id",
	"broker.id",
	"controller.quorum.voters",
	"controller.quorum.bootstrap.servers",
	"controller.listener.names",
	"listeners",
	"advertised.listeners",
	"listener.security.protocol.map",
	"inter.broker.listener.name",
	"log.dirs",
	"log.dir",
	"metadata.log.dir",
}

// EffectiveBrokerConfig merges the user's broker settings over
// BrokerDefaults(nodes): a user key wins over a default. Keys that describe
// the cluster's layout (node.id, listeners, log.dirs, ...) belong to the
// provider and are an error. The result is a new map.
func EffectiveBrokerConfig(nodes int, user map[string]string) (map[string]string, error) {
	cfg := BrokerDefaults(nodes)
	for _, k := range slices.Sorted(maps.Keys(user)) {
		key := strings.TrimSpace(k)
		if key == "" {
			return nil, fmt.Errorf("broker config: empty key (value %q)", user[k])
		}
		if slices.Contains(providerOwnedKeys, key) {
			return nil, fmt.Errorf("broker config %q: set by the provider from the cluster layout; remove it", key)
		}
		cfg[key] = user[k]
	}
	return cfg, nil
}
