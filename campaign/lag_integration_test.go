//go:build integration

package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
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
	// A reading that ran out of time (a loaded host) says so first; one
	// that failed because of the empty partitions would not.
	if r.Lag.Errors > 0 && strings.Contains(r.Lag.LastError, "unknown") && !strings.HasPrefix(r.Lag.LastError, "no answer within") {
		t.Errorf("%d readings failed as unknown: %s", r.Lag.Errors, r.Lag.LastError)
	}
	if slices.Contains(r.Validity.Codes(), runs.CodeCollectorFailed) {
		t.Errorf("flagged collector_failed: %+v", r.Validity.Flags)
	}
	if r.Audit.Produced == 0 || !r.Audit.Balanced {
		t.Errorf("audit %+v", r.Audit)
	}
}

// A broker that stops answering for a while (broker_pause: SIGSTOP for
// 6 s): the lag readings in the pause fail, their timeout grows (2 s, then
// doubled), and they are gaps in the lag series (lag_unread), not zeros;
// the readings before and after give every printed lag figure, so the run
// is not flagged collector_failed.
func TestLagGapsOnPausedBrokerOnKafka(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := baseSpec()
	s.Partitions, s.Members = 1, 1
	s.Rate = 100
	s.Warmup, s.Duration, s.DrainTimeout = time.Second, 14*time.Second, 60*time.Second
	s.Events = []scenarios.Event{{At: 3 * time.Second, Action: scenarios.ActionBrokerPause, Duration: 6 * time.Second, Broker: "1"}}
	m, err := RunOne(ctx, cl, s, "lag-gaps", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	var unread []int
	for i := range m.Series.Len() {
		if _, ok := m.Series.GaugeAt(results.LagUnread, i); ok {
			unread = append(unread, i)
			if v, ok := m.Series.GaugeAt(results.Lag, i); ok {
				t.Errorf("second %d: lag_unread and lag %v", i, v)
			}
		}
	}
	t.Logf("lag %+v; unread seconds %v; flags %v", r.Lag, unread, r.Validity.Codes())
	if r.Lag.Errors == 0 || len(unread) == 0 || len(unread) > r.Lag.Errors {
		t.Errorf("%d failed readings, unread seconds %v: want the pause's failed readings marked as gaps", r.Lag.Errors, unread)
	}
	if r.Lag.TimeoutMaxMs < 4000 || r.Lag.TimeoutMaxMs > 30000 {
		t.Errorf("timeout max %v ms: want the 2 s floor doubled after a timeout, at most 30 s", r.Lag.TimeoutMaxMs)
	}
	if r.Lag.Samples == 0 || slices.Contains(r.Validity.Codes(), runs.CodeCollectorFailed) {
		t.Errorf("samples %d, flags %v: the lag figures are there, no collector_failed", r.Lag.Samples, r.Validity.Flags)
	}
	if !r.Audit.Balanced || r.Audit.Produced == 0 || r.Audit.CompletedOnce+r.Audit.Duplicates != r.Audit.Produced {
		t.Errorf("audit %+v", r.Audit)
	}
}
