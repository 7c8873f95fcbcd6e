package infra

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/connection"
)

// ConnectionOf returns the connection settings a cluster's clients need:
// the zero Settings (plaintext) unless the cluster carries settings (an
// external cluster given them, a process cluster started secured).
func ConnectionOf(c Cluster) connection.Settings {
	if cc, ok := c.(interface{ Connection() connection.Settings }); ok {
		return cc.Connection()
	}
	return connection.Settings{}
}

// ClientOptsOf is ConnectionOf(c).ClientOpts().
func ClientOptsOf(c Cluster) ([]kgo.Opt, error) { return ConnectionOf(c).ClientOpts() }

// connCheckTimeout bounds CheckConnection.
const connCheckTimeout = 20 * time.Second

// CheckConnection connects to bootstrap once with conn and asks for the
// brokers (ProbeBrokers), failing within timeout (default 20s) with a
// *connection.Error that says what is wrong. It returns the node ids.
func CheckConnection(ctx context.Context, bootstrap []string, conn connection.Settings, timeout time.Duration) ([]int32, error) {
	if timeout <= 0 {
		timeout = connCheckTimeout
	}
	opts, err := conn.ClientOpts()
	if err != nil {
		return nil, err
	}
	// Errors that will not go away (authentication, TLS) are not retried.
	opts = append(opts, kgo.RequestRetries(2), kgo.RetryTimeout(min(timeout, 10*time.Second)))
	ids, err := ProbeBrokers(ctx, bootstrap, timeout, opts...)
	return ids, connection.Explain(err, conn, bootstrap)
}
