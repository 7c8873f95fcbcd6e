package campaign

import (
	"context"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"

	"github.com/sharebench/sharebench/vocab"
)

// The whole run pipeline on kfake (not Kafka): both consumer types balance
// their audits and the run is flagged not_kafka. Fast enough for -short.
func TestRunOnKfakeIsLabelledNotKafka(t *testing.T) {
	ctx, cl := startKfake(t)
	for _, typ := range []string{"consumer", "share"} {
		s := baseSpec()
		s.ConsumerType, s.Members, s.Rate = vocab.GroupType(typ), 2, 200
		s.Processing.Time = time.Millisecond
		s.Warmup, s.Duration = time.Second, 2*time.Second
		m, err := RunOne(ctx, cl, s, "kfake-"+typ, testLog(t))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		r := m.Record
		if !r.Audit.Balanced || r.Audit.Lost != 0 || r.Audit.Produced < 550 {
			t.Errorf("%s: audit %+v", typ, r.Audit)
		}
		if len(r.Errors) > 0 {
			t.Errorf("%s: run errors: %v", typ, r.Errors)
		}
		flagged := false
		for _, f := range r.Validity.Flags {
			flagged = flagged || f.Code == "not_kafka"
		}
		if !flagged || r.Environment.IsKafka {
			t.Errorf("%s: kfake run not labelled: %+v", typ, r.Validity)
		}
	}
}

// startKfake starts an in-process kfake cluster (not Kafka) that the test's
// cleanup stops, and a context bounding the test to two minutes.
func startKfake(t *testing.T) (context.Context, infra.Cluster) {
	t.Helper()
	p, _ := infra.NewProvider("kfake")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cl, err := p.Start(ctx, infra.ClusterSpec{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Stop(context.Background()) })
	return ctx, cl
}
