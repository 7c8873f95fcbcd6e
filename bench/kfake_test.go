package bench

import (
	"context"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
)

// The whole run pipeline on kfake (not Kafka): both consumer types balance
// their audits and the run is flagged not_kafka. Fast enough for -short.
func TestRunOnKfakeIsLabelledNotKafka(t *testing.T) {
	p, _ := infra.NewProvider("kfake")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := p.Start(ctx, infra.ClusterSpec{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop(context.Background())
	for _, typ := range []string{"consumer", "share"} {
		s := baseSpec()
		s.ConsumerType, s.Members, s.Rate = typ, 2, 200
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
