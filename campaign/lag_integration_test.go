//go:build integration

package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/vocab"
)

// A share group on 3 partitions whose records all go to one (key_mode
// hashed, one key): the two partitions that never held a record have no
// share-partition state and Kafka answers lag -1 for them. The lag
// collector counts them as 0 (their logs are empty), keeps its series and
// does not flag the run collector_failed.
func TestLagOfShareGroupWithEmptyPartitionsOnKafka(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := baseSpec()
	s.ConsumerType = vocab.ShareGroup
	s.Partitions, s.Members, s.Workers = 3, 2, 2
	s.KeyMode, s.Keys = "hashed", 1
	s.Rate = 100
	s.Warmup, s.Duration, s.DrainTimeout = time.Second, 4*time.Second, 20*time.Second
	m, err := RunOne(ctx, cl, s, "lag-empty-partitions", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	t.Logf("lag %+v; flags %v", r.Lag, r.Validity.Codes())
	if r.Lag.Samples == 0 {
		t.Fatalf("no lag reading succeeded: %+v", r.Lag)
	}
	if r.Lag.Errors > 0 && strings.Contains(r.Lag.LastError, "unknown") {
		t.Errorf("%d readings failed as unknown: %s", r.Lag.Errors, r.Lag.LastError)
	}
	if slices.Contains(r.Validity.Codes(), runs.CodeCollectorFailed) {
		t.Errorf("flagged collector_failed: %+v", r.Validity.Flags)
	}
	if r.Audit.Produced == 0 || !r.Audit.Balanced {
		t.Errorf("audit %+v", r.Audit)
	}
}
