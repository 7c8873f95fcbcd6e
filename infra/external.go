package infra

import (
	"context"
	"errors"
	"time"

	"github.com/sharebench/sharebench/connection"
)

// ExternalProvider uses a cluster that is already running (staging, a
// managed service): it starts nothing and stops nothing. Broker metrics come
// from the Prometheus URLs the user gives (a JMX exporter or a managed
// service's open-monitoring endpoints).
type ExternalProvider struct {
	Bootstrap   []string // host:port seeds
	MetricsURLs []string // Prometheus text-format endpoints, one per broker (optional)
	// KafkaVersion is what the user says the brokers run; the protocol does
	// not report a release version. Empty: "unknown".
	KafkaVersion string
	// Conn is how clients connect (TLS, SASL); the zero value is plaintext.
	Conn connection.Settings
}

// Name implements Provider.
func (*ExternalProvider) Name() string { return "external" }

// Start checks that the cluster answers and counts its brokers. The spec's
// node count, version, heap and broker configuration do not apply: the
// cluster is what it is, and the run records what was found.
func (p *ExternalProvider) Start(ctx context.Context, spec ClusterSpec) (Cluster, error) {
	if len(p.Bootstrap) == 0 {
		return nil, errors.New("external provider: --bootstrap: give the cluster's bootstrap servers (host:port, comma-separated)")
	}
	ids, err := CheckConnection(ctx, p.Bootstrap, p.Conn, 30*time.Second)
	if err != nil {
		return nil, err // the campaign names the provider
	}
	version := p.KafkaVersion
	if version == "" && spec.KafkaVersion != "" {
		version = spec.KafkaVersion + " (stated by the scenario, not checked)"
	}
	if version == "" {
		version = "unknown (external)"
	}
	return &externalCluster{p: *p, nodes: len(ids), version: version}, nil
}

type externalCluster struct {
	p       ExternalProvider
	nodes   int
	version string
}

func (c *externalCluster) Bootstrap() []string             { return c.p.Bootstrap }
func (c *externalCluster) Provider() string                { return "external" }
func (c *externalCluster) KafkaVersion() string            { return c.version }
func (c *externalCluster) IsKafka() bool                   { return true }
func (c *externalCluster) Nodes() int                      { return c.nodes }
func (c *externalCluster) BrokerConfig() map[string]string { return nil }
func (c *externalCluster) PIDs() []int                     { return nil }
func (c *externalCluster) MetricsURLs() []string           { return c.p.MetricsURLs }
func (c *externalCluster) LogDir() string                  { return "" }
func (c *externalCluster) Connection() connection.Settings { return c.p.Conn }

// Stop does nothing: the harness did not start this cluster.
func (c *externalCluster) Stop(context.Context) error { return nil }
