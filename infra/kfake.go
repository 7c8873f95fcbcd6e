package infra

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
)

// KfakeProvider starts franz-go's in-process fake cluster (kfake). It is
// for unit tests and dry runs: it speaks the Kafka protocol, share groups
// included, but its performance says nothing about Apache Kafka, and
// clusters report IsKafka() == false so that reports can say so.
//
// ClusterSpec fields that only make sense for JVMs (KafkaVersion, Heap,
// WorkDir, LogDir) are ignored. BrokerConfig is handed to kfake, which
// understands a subset of Kafka's settings (see kfake.BrokerConfigs);
// num.partitions sets kfake's default partition count, 1 like the process
// provider's unless overridden.
type KfakeProvider struct{}

// Name returns "kfake".
func (KfakeProvider) Name() string { return "kfake" }

// Start starts a fake cluster of spec.Nodes brokers on loopback ports.
func (KfakeProvider) Start(_ context.Context, spec ClusterSpec) (Cluster, error) {
	spec, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	partitions := 1
	if v, ok := spec.BrokerConfig["num.partitions"]; ok {
		if partitions, err = strconv.Atoi(v); err != nil || partitions < 1 {
			return nil, fmt.Errorf("broker config %q: %q is not a positive partition count", "num.partitions", v)
		}
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(spec.Nodes),
		kfake.DefaultNumPartitions(partitions),
	}
	if len(spec.BrokerConfig) > 0 {
		opts = append(opts, kfake.BrokerConfigs(spec.BrokerConfig))
	}
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("kfake: start: %w", err)
	}
	cfg := maps.Clone(spec.BrokerConfig)
	if cfg == nil {
		cfg = map[string]string{}
	}
	cfg["num.partitions"] = strconv.Itoa(partitions)
	progress(spec.Log, "kfake cluster of %d broker(s) at %v (not Apache Kafka)", spec.Nodes, fake.ListenAddrs())
	return &kfakeCluster{fake: fake, addrs: fake.ListenAddrs(), nodes: spec.Nodes, cfg: cfg}, nil
}

type kfakeCluster struct {
	fake  *kfake.Cluster
	addrs []string
	nodes int
	cfg   map[string]string
	once  sync.Once
}

func (c *kfakeCluster) Bootstrap() []string             { return append([]string(nil), c.addrs...) }
func (c *kfakeCluster) Provider() string                { return "kfake" }
func (c *kfakeCluster) KafkaVersion() string            { return "kfake (not Kafka)" }
func (c *kfakeCluster) IsKafka() bool                   { return false }
func (c *kfakeCluster) Nodes() int                      { return c.nodes }
func (c *kfakeCluster) BrokerConfig() map[string]string { return maps.Clone(c.cfg) }
func (c *kfakeCluster) PIDs() []int                     { return nil }
func (c *kfakeCluster) LogDir() string                  { return "" }
func (c *kfakeCluster) MetricsURLs() []string           { return nil }

// Fake returns the underlying kfake cluster, for tests that inject faults
// through its control functions.
func (c *kfakeCluster) Fake() *kfake.Cluster { return c.fake }

// Stop closes the fake cluster; it is idempotent.
func (c *kfakeCluster) Stop(context.Context) error {
	c.once.Do(c.fake.Close)
	return nil
}
