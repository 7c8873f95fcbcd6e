//go:build integration

package campaign

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// jvmWatch samples the Java runner JVMs (java and spring) of this test process: when each was
// first and last seen.
type jvmWatch struct {
	mu          sync.Mutex
	first, last map[int]time.Time
}

func watchJVMs(ctx context.Context) *jvmWatch {
	w := &jvmWatch{first: map[int]time.Time{}, last: map[int]time.Time{}}
	go func() {
		for ctx.Err() == nil {
			now := time.Now()
			w.mu.Lock()
			for _, pid := range runnerPIDs() {
				if _, ok := w.first[pid]; !ok {
					w.first[pid] = now
				}
				w.last[pid] = now
			}
			w.mu.Unlock()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return w
}

// crashKills counts JVMs that ended at least 3 s before another JVM that
// ran through all of their life (seen by their first sighting, started at
// most 5 s after them): a member's JVM of its own, killed at its crash,
// while the fleet's JVM ran on.
func (w *jvmWatch) crashKills() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for a, fa := range w.first {
		for b, fb := range w.first {
			if a != b && fb.Before(fa.Add(5*time.Second)) && w.last[b].Sub(w.last[a]) >= 3*time.Second {
				n++
				break
			}
		}
	}
	return n
}

// checkSpringRecord requires run.json to name client spring with its
// version over the run's kafka-clients and a clock alignment.
func checkSpringRecord(t *testing.T, id string, m *Measured) {
	t.Helper()
	c := m.Record.Client
	if c == nil || c.Name != "spring" || c.Version != vocab.SpringKafkaVersion || c.Package != "kafka-clients 4.2.2" || c.Clock == nil || c.Settings == nil {
		t.Fatalf("%s: run.json client %+v", id, c)
	}
	sp, want := c.Settings.Spring, "ConcurrentMessageListenerContainer"
	if m.Record.Spec.ConsumerType == vocab.ShareGroup {
		want = "ShareKafkaMessageListenerContainer"
	}
	if sp == nil || sp.Container != want || sp.Concurrency != int64(m.Record.Spec.Workers) || sp.AckMode != "MANUAL" {
		t.Errorf("%s: client.settings.spring %+v, want %s, concurrency %d, ack mode MANUAL", id, sp, want, m.Record.Spec.Workers)
	}
}

// TestSpringShareOnKafka: a short share run on Spring's
// ShareKafkaMessageListenerContainer (2 members × concurrency 2, explicit
// acknowledgement through ShareAcknowledgment) with 20 % transient failures
// (released) and 2 % poison (rejected): the audit balances, nothing is
// lost, records are released, redelivered and archived, and run.json names
// the client.
func TestSpringShareOnKafka(t *testing.T) {
	needJavaClient(t)
	s := javaSpec("share", "spring")
	s.Members, s.Workers = 2, 2
	s.AckMode = vocab.AckExplicit
	s.TransientRate, s.PoisonRate = 0.2, 0.02
	s.Warmup, s.Duration = 2*time.Second, 5*time.Second
	m := runMeasured(t, s, "sp-share-spring")
	r := m.Record
	checkSpringRecord(t, "share", m)
	o := r.Outcomes
	t.Logf("share: completed %.1f/s, audit %+v, outcomes %+v", r.Throughput.CompletedPerSec, r.Audit, o)
	if r.Audit.Archived == 0 || o.Redelivered == 0 || o.Released == 0 || o.Rejected == 0 {
		t.Errorf("share with 20%% transient and 2%% poison: archived %d, redelivered %d, released %d, rejected %d: want all > 0",
			r.Audit.Archived, o.Redelivered, o.Released, o.Rejected)
	}
	if r.Audit.CompletedOnce == 0 || r.Audit.CompletedOnce+r.Audit.Archived != r.Audit.Produced {
		t.Errorf("share: completed once %d + archived %d, want the %d produced", r.Audit.CompletedOnce, r.Audit.Archived, r.Audit.Produced)
	}
}

// TestSpringConsumerOnKafka: a short consumer-group run on Spring's
// ConcurrentMessageListenerContainer (4 members × concurrency 1,
// AckMode.MANUAL: a record acknowledged once finished, committed after the
// batch): every record completed once, the audit balanced, and the client's
// request counts read from its metrics.
func TestSpringConsumerOnKafka(t *testing.T) {
	needJavaClient(t)
	s := javaSpec("consumer", "spring")
	m := runMeasured(t, s, "sp-consumer-spring")
	r := m.Record
	checkSpringRecord(t, "consumer", m)
	t.Logf("consumer: completed %.1f/s, audit %+v", r.Throughput.CompletedPerSec, r.Audit)
	if r.Audit.CompletedOnce != r.Audit.Produced || r.Audit.Produced == 0 {
		t.Errorf("consumer: completed once %d of %d produced", r.Audit.CompletedOnce, r.Audit.Produced)
	}
	if len(r.Requests) == 0 {
		t.Error("consumer: no request rows: the Spring members' client metrics were not read")
	}
}

// TestSpringMemberCrashOnKafka: a Spring share member crashes at +3 s: its
// JVM of its own is SIGKILLed while the fleet's JVM runs on, the records
// it had acquired come back (its connections closed, Kafka releases them),
// the audit balances, and no runner JVM is left. The 6 container threads
// (3 members × concurrency 2) are 80 % busy (120 records/s offered, 40 ms
// each), so the crashed member's two threads almost always hold a record.
func TestSpringMemberCrashOnKafka(t *testing.T) {
	needJavaClient(t)
	s := javaSpec("share", "spring")
	s.Partitions, s.Members, s.Workers, s.MaxPollRecords = 1, 3, 2, 10
	s.Rate, s.Processing.Time = 120, 40*time.Millisecond
	s.Warmup, s.Duration = 2*time.Second, 10*time.Second
	s.Events = []scenarios.Event{{At: 3 * time.Second, Action: scenarios.ActionCrash, Members: 1}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := watchJVMs(ctx)
	m := runMeasured(t, s, "sp-crash-spring")
	r := m.Record
	checkSpringRecord(t, "crash", m)
	if len(r.Events) != 1 {
		t.Fatalf("events %+v", r.Events)
	}
	crash := r.Events[0]
	t.Logf("%s", report.EventLine(r, crash))
	if crash.Error != "" {
		t.Errorf("crash: %s", crash.Error)
	}
	if crash.Redeliveries <= 0 || crash.Redeliveries < crash.HeldByCrashed {
		t.Errorf("crash: held %d, redeliveries %d: want redeliveries, at least the held records", crash.HeldByCrashed, crash.Redeliveries)
	}
	t.Logf("crash: held %d, redeliveries %d, first redelivery %.1f s", crash.HeldByCrashed, crash.Redeliveries, deref(crash.FirstRedeliverySec))
	if n := w.crashKills(); n < 1 {
		t.Errorf("no JVM of its own ended before the fleet's JVM: the crash did not kill the member's JVM")
	}
	if left := runnerPIDs(); len(left) != 0 {
		t.Errorf("runner JVMs left: %v", left)
	}
}

// deref is *p, -1 for nil.
func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
