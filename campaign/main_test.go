//go:build integration

package campaign

import (
	"context"
	"os"
	"testing"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit/kafkatest"
)

// kafka is the real 1-node Kafka cluster shared by this package's
// integration tests.
var kafka kafkatest.Shared

func TestMain(m *testing.M) {
	os.Exit(kafka.Main(m, infra.ClusterSpec{Nodes: 1, Heap: "768m"}, func(ctx context.Context, cl infra.Cluster) error {
		_, err := primeCluster(ctx, cl.Bootstrap(), cl.Nodes(), cl.MetricsURLs(), defaultWarmup)
		return err
	}))
}

func needKafka(t *testing.T) infra.Cluster {
	t.Helper()
	return kafka.Need(t)
}
