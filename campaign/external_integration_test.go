//go:build integration

package campaign

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
)

// The external provider runs on a cluster it did not start (here the
// package's broker, given only by address) and scrapes the metrics URLs it
// is given, and stopping it leaves the cluster running.
func TestExternalProviderRunsOnAGivenCluster(t *testing.T) {
	k := needKafka(t)
	p := &infra.ExternalProvider{Bootstrap: k.Bootstrap(), MetricsURLs: k.MetricsURLs()}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := p.Start(ctx, infra.ClusterSpec{KafkaVersion: "4.2.2"})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Nodes() != 1 || !strings.HasPrefix(cl.KafkaVersion(), "4.2.2 (stated") || len(cl.PIDs()) != 0 {
		t.Fatalf("nodes %d version %q pids %v", cl.Nodes(), cl.KafkaVersion(), cl.PIDs())
	}
	s := baseSpec()
	s.ConsumerType, s.Members, s.Rate = "share", 2, 200
	s.Processing.Time = time.Millisecond
	s.Warmup, s.Duration = time.Second, 3*time.Second
	m, err := RunOne(ctx, cl, s, "external-share", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	if r.Environment.Provider != "external" || !r.Audit.Balanced || r.Audit.Lost != 0 {
		t.Fatalf("environment %+v audit %+v", r.Environment, r.Audit)
	}
	if r.Broker.Endpoints != 1 || r.Broker.Samples == 0 || r.Broker.ScrapeErrors != 0 {
		t.Errorf("broker scrapes from the given URL: %+v", r.Broker)
	}
	if err := cl.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start(ctx, infra.ClusterSpec{}); err != nil {
		t.Errorf("the cluster must still answer after the external provider's Stop: %v", err)
	}
}
