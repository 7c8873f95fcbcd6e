package infra

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// ClusterSpec describes the cluster a run needs. Providers apply it the same
// way; zero values take the documented defaults.
type ClusterSpec struct {
	// Nodes is the number of KRaft nodes, each a combined broker+controller
	// (1 or 3). Default 1.
	Nodes int
	// KafkaVersion is the Apache Kafka release whose jars are resolved
	// (default DefaultKafkaVersion).
	KafkaVersion string
	// Heap is the JVM -Xmx/-Xms of each broker, e.g. "1g" (default "1g" on
	// one node, "512m" per broker on several so three JVMs fit a laptop).
	Heap string
	// BrokerConfig is applied to every broker on top of the harness defaults
	// (a user key wins over a default).
	BrokerConfig map[string]string
	// WorkDir holds broker data and logs. Empty means a fresh temporary
	// directory that Stop removes (logs are kept only in LogDir).
	WorkDir string
	// LogDir receives one log file per broker (broker-<id>.log). Empty means
	// WorkDir/logs.
	LogDir string
	// Log receives progress lines (resolving jars, starting broker 2 ...).
	// Nil discards them.
	Log io.Writer
	// StartTimeout bounds start-up including jar resolution (default 5m).
	StartTimeout time.Duration
	// Security secures the client listener (process provider only;
	// process_security.go). Nil: plaintext.
	Security *ClusterSecurity
}

// Cluster is a running set of brokers. Stop must be called exactly once on
// every path; it is safe to call on a partially started cluster.
type Cluster interface {
	// Bootstrap returns the client bootstrap addresses (host:port on 127.0.0.1).
	Bootstrap() []string
	// Provider names the provider that started it ("process",
	// "container", "kfake", "external").
	Provider() string
	// KafkaVersion is the broker version actually running ("kfake (not
	// Kafka)" for the fake).
	KafkaVersion() string
	// IsKafka is false for kfake: its numbers are not Apache Kafka's.
	IsKafka() bool
	// Nodes is the number of brokers.
	Nodes() int
	// BrokerConfig is the effective configuration applied to every broker.
	BrokerConfig() map[string]string
	// PIDs of the broker processes running now (empty for in-process
	// providers): a broker started again after a fault has a new pid, a
	// killed one none, so samplers ask at every reading.
	PIDs() []int
	// MetricsURLs are the brokers' Prometheus scrape endpoints (the JMX
	// exporter agent of the process provider), in node order; nil when the
	// provider has none (kfake).
	MetricsURLs() []string
	// LogDir holds the per-broker logs (empty when there are none).
	LogDir() string
	// Stop stops every broker and waits for the processes to exit.
	Stop(ctx context.Context) error
}

// Provider starts clusters.
type Provider interface {
	Name() string
	Start(ctx context.Context, spec ClusterSpec) (Cluster, error)
}

// DefaultKafkaVersion is the newest Kafka 4.2 patch release.
const DefaultKafkaVersion = "4.2.2"

// NewProvider returns the provider called name: "process", "container",
// "kfake" or "auto" (container when a Docker engine answers and a broker
// image is usable, else process; decided at the first Start). The
// container provider's image can be forced with $SHAREBENCH_KAFKA_IMAGE.
func NewProvider(name string) (Provider, error) {
	switch name {
	case "", "auto":
		return &AutoProvider{}, nil
	case "process":
		return &ProcessProvider{}, nil
	case "container":
		return &ContainerProvider{Image: os.Getenv(ImageEnv)}, nil
	case "kfake":
		return KfakeProvider{}, nil
	case "external":
		return nil, fmt.Errorf("provider %q: needs the cluster's address: construct an ExternalProvider (CLI: --provider external --bootstrap HOST:PORT)", name)
	default:
		return nil, fmt.Errorf("provider %q: unknown; expected one of auto, process, container, kfake, external", name)
	}
}

// ImageOf returns the container image a cluster's brokers run, or "" when
// they are not containers.
func ImageOf(c Cluster) string {
	if i, ok := c.(interface{ Image() string }); ok {
		return i.Image()
	}
	return ""
}
