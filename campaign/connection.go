package campaign

import (
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// clientConn is how a run's clients connect to its cluster
// (infra.ConnectionOf): the options every client takes, the TLS
// configuration the consumer fleet's own dialer wraps its connections in,
// and the throttle hook whose figures become the run's throttled flag.
type clientConn struct {
	conn     connection.Settings
	opts     []kgo.Opt // with the TLS dial option
	noTLS    []kgo.Opt // without it, for clients that dial themselves
	tls      *tls.Config
	throttle *throttleHook
}

// connOf prepares the connection of cl's clients for a run of spec, with a
// fresh throttle hook.
func connOf(cl infra.Cluster, spec scenarios.RunSpec) (clientConn, error) {
	return connFrom(infra.ConnectionOf(cl), spec)
}

// connFrom prepares connection settings for a run of spec (an agent's,
// read from its --connection file).
func connFrom(conn connection.Settings, spec scenarios.RunSpec) (clientConn, error) {
	c := clientConn{conn: conn, throttle: &throttleHook{}}
	// What a runner's client cannot take, said before the run.
	switch spec.Client {
	case consumers.ClientJava, consumers.ClientSpring:
		if _, err := c.conn.JavaProperties(); err != nil {
			return c, fmt.Errorf("client %s: %w", spec.Client, err)
		}
	case consumers.ClientLibrdkafka:
		if _, err := c.conn.LibrdkafkaProperties(); err != nil {
			return c, fmt.Errorf("client librdkafka: %w", err)
		}
	}
	var err error
	if c.noTLS, err = c.conn.WithoutTLS(); err != nil {
		return c, err
	}
	if c.tls, err = c.conn.TLSConfig(); err != nil {
		return c, err
	}
	c.noTLS = append(c.noTLS, kgo.WithHooks(c.throttle))
	c.opts = append([]kgo.Opt(nil), c.noTLS...)
	if c.tls != nil {
		c.opts = append(c.opts, kgo.DialTLSConfig(c.tls))
	}
	return c, nil
}

// clusterConnOpts are the connection options of cl's clients outside a
// run (priming, the environment record); an error leaves them plaintext
// and is returned by the client that fails to connect.
func clusterConnOpts(cl infra.Cluster) []kgo.Opt {
	opts, err := infra.ClientOptsOf(cl)
	if err != nil {
		return nil
	}
	return opts
}

// producerConfig is the run's producer fleet with the connection.
func (s *runSetup) producerConfig() producer.Config {
	c := producerConfig(s.spec, s.cl.Bootstrap(), s.topic)
	c.Conn = s.conn.opts
	return c
}

// consumerConfig is the run's consumer fleet with the connection.
func (s *runSetup) consumerConfig() consumers.Config {
	c := consumerConfig(s.spec, s.cl.Bootstrap(), s.topic, s.group)
	c.Conn, c.TLS, c.Connection = s.conn.noTLS, s.conn.tls, s.conn.conn
	c.Log = s.log
	if s.sink != nil {
		c.Destination, c.DestinationConfig = s.destinationWriter, s.sink.Config() // destination.go
	}
	return c
}

// throttleHook records the throttling brokers impose on a run's clients
// (quotas): franz-go's HookBrokerThrottle.
type throttleHook struct {
	mu    sync.Mutex
	count int
	total time.Duration
	max   time.Duration
}

func (h *throttleHook) OnBrokerThrottle(_ kgo.BrokerMetadata, d time.Duration, _ bool) {
	if d <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.count++
	h.total += d
	h.max = max(h.max, d)
}

// summary is the throttling recorded so far (zero without a hook).
func (h *throttleHook) summary() runs.ThrottleSummary {
	if h == nil {
		return runs.ThrottleSummary{}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return runs.ThrottleSummary{Count: h.count, Total: h.total, Longest: h.max}
}

// validity fills the connection's part of the validity input: whether
// broker certificates went unchecked (tls_insecure) and how brokers
// throttled the run's clients (throttled); runs.Check raises the flags.
func (c clientConn) validity(in runs.ValidityInput) runs.ValidityInput {
	in.TLSInsecure = c.conn.Insecure()
	in.Throttle = c.throttle.summary()
	return in
}

// isDenied reports whether err is an authorization failure (an ACL).
func isDenied(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.GroupAuthorizationFailed) ||
		errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.Is(err, kerr.TransactionalIDAuthorizationFailed)
}

// explainDenied says which operation on which resource an ACL denied, and
// which ACL would allow it; other errors are returned unchanged.
func explainDenied(err error, operation, resourceType, name string) error {
	if err == nil || !isDenied(err) {
		return err
	}
	return fmt.Errorf("not authorized: the cluster's ACLs deny %s on %s %q to this principal "+
		"(grant it, e.g. kafka-acls --add --allow-principal User:NAME --operation %s --%s %s; sharebench also needs "+
		"CREATE/DELETE/DESCRIBE/WRITE/READ on topics named sharebench-* and READ/DESCRIBE/ALTER_CONFIGS on groups named sharebench-*): %w",
		operation, resourceType, name, operation, resourceType, name, err)
}
