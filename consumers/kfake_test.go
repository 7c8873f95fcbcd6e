package consumers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/results"
)

// fakeRun is a fleet on kfake (not Kafka) with n stamped records on a
// fresh topic: the harness logic only, in a few seconds.
type fakeRun struct {
	c   Config
	rec *results.Recorder
	n   int
}

func newFakeRun(t *testing.T, partitions int32, n int, brokerConfig map[string]string) *fakeRun {
	t.Helper()
	const topic, group = "t", "g"
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic)}
	if brokerConfig != nil {
		opts = append(opts, kfake.BrokerConfigs(brokerConfig))
	}
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	brokers := fake.ListenAddrs()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	setShareEarliest(ctx, t, cl, group)

	clock := results.NewClock()
	tag := results.RunTag(t.Name())
	rec := results.NewRecorder(clock, tag, results.NewLedger(1, uint64(n)), results.NewSeries(clock.Now(), 120))
	ps := rec.ProducerShard()
	for i := range n {
		st := results.Stamp{Run: tag, Seq: uint64(i), Intended: clock.Now(), Sent: clock.Now()}
		v := make([]byte, results.StampSize)
		st.Put(v)
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		ps.RecordAck(st, clock.Now())
	}
	return &fakeRun{rec: rec, n: n, c: Config{Brokers: brokers, Topic: topic, Group: group,
		Members: 1, Workers: 1, MaxPollRecords: 1, DeliveryLimit: 5, CloseTimeout: 2 * time.Second}}
}

func setShareEarliest(ctx context.Context, t *testing.T, cl *kgo.Client, group string) {
	t.Helper()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Value, c.Op = "share.auto.offset.reset", kmsg.StringPtr("earliest"), kmsg.IncrementalAlterConfigOpSet
	res.Configs = append(res.Configs, c)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			t.Fatalf("set group config: error code %d", r.ErrorCode)
		}
	}
}

// run runs the fleet until every record completed once, then settle more
// (to let redeliveries show), or timeout; it returns the merged counts.
func (f *fakeRun) run(t *testing.T, settle, timeout time.Duration) results.Merged {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, f.c, f.rec) }()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if a := f.rec.Ledger.Audit(); a.CompletedOnce+a.Duplicates >= int64(f.n) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(settle)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return f.rec.Merge()
}

// kfake's lock is 1 s (swept every 100 ms) and each record takes 1.6 s: without
// renewal every lock expires under its worker, the completion counts as
// lock-expired and the record comes back; with renew auto each record is
// renewed (at ~0.5 s and ~1 s), completes inside its renewed lock, and is
// never redelivered.
func TestRenewKeepsLocksOnKfake(t *testing.T) {
	cfg := map[string]string{"group.share.record.lock.duration.ms": "1000", "share.record.lock.sweep.interval.ms": "100"}
	const n = 4
	for _, renew := range []bool{false, true} {
		f := newFakeRun(t, 1, n, cfg)
		f.c.Share, f.c.ExplicitAck, f.c.RecordLimit, f.c.Renew = true, true, true, renew
		f.c.Workers, f.c.MaxPollRecords = 2, 2
		f.c.Processing = Processing{Model: "constant", Time: 1600 * time.Millisecond}
		m := f.run(t, 1500*time.Millisecond, 20*time.Second)
		a := f.rec.Ledger.Audit()
		t.Logf("renew %v: completed %d lock-expired %d renewals %d redelivered %d duplicates %d ack errors %d",
			renew, m.Completed, m.LockExpired, m.Renewals, m.Redelivered, a.Duplicates, m.AckErrors)
		if a.CompletedOnce+a.Duplicates != n {
			t.Errorf("renew %v: %d of %d records completed: %+v", renew, a.CompletedOnce+a.Duplicates, n, a)
		}
		if renew {
			if m.LockExpired != 0 || a.Duplicates != 0 || m.Redelivered != 0 {
				t.Errorf("renew auto: lock-expired %d duplicates %d redelivered %d, want 0", m.LockExpired, a.Duplicates, m.Redelivered)
			}
			if m.Renewals < n {
				t.Errorf("renew auto: %d renewals for %d records of 1.6 s under a 1 s lock", m.Renewals, n)
			}
		} else {
			if m.LockExpired == 0 || m.Redelivered == 0 {
				t.Errorf("renew none: lock-expired %d redelivered %d, want > 0", m.LockExpired, m.Redelivered)
			}
			if m.Renewals != 0 {
				t.Errorf("renew none: %d renewals", m.Renewals)
			}
		}
	}
}

// Style continuous on a consumer group: the members poll while their workers
// are busy (at most max_in_flight records held), commit the contiguous
// completed prefix, and every record completes exactly once.
func TestContinuousConsumerGroupOnKfake(t *testing.T) {
	const n = 400
	f := newFakeRun(t, 4, n, nil)
	f.c.Members, f.c.Workers, f.c.MaxPollRecords = 2, 4, 10
	f.c.Continuous, f.c.MaxInFlight = true, 12
	f.c.Processing = Processing{Model: "uniform", Min: time.Millisecond, Max: 5 * time.Millisecond}
	m := f.run(t, 300*time.Millisecond, 30*time.Second)
	a := f.rec.Ledger.Audit()
	t.Logf("completed %d polls %d audit %+v", m.Completed, m.Polls, a)
	if a.CompletedOnce != n || a.Duplicates != 0 || a.Lost != 0 || !a.Balanced {
		t.Errorf("audit %+v, want %d completed once and balanced", a, n)
	}
	if m.AckErrors != 0 || m.PollErrors != 0 {
		t.Errorf("commit errors %d poll errors %d", m.AckErrors, m.PollErrors)
	}
}

// A share group cannot run continuous with franz-go: the next poll would
// ACCEPT the records still being processed.
func TestContinuousShareRefused(t *testing.T) {
	c := Config{Share: true, ExplicitAck: true, Continuous: true, Members: 1, Workers: 1, MaxPollRecords: 1}
	if err := Run(context.Background(), c, nil); err == nil || !strings.Contains(err.Error(), "ACCEPT") {
		t.Fatalf("err %v", err)
	}
}
