package consumers

import (
	"context"
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

func newFakeRun(t testing.TB, partitions int32, n int, brokerConfig map[string]string) *fakeRun {
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
	ps := rec.ProducerRecorder()
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
		Type: ConsumerGroup, Acquire: AcquireBatchOptimized, Ack: AckImplicit, Style: StyleBlocking,
		Processing: Processing{Model: ModelNone},
		Members:    1, Workers: 1, MaxPollRecords: 1, DeliveryLimit: 5, CloseTimeout: 2 * time.Second}}
}

func setShareEarliest(ctx context.Context, t testing.TB, cl *kgo.Client, group string) {
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

// startFake starts a fleet on the fake run; the returned stop ends it and
// returns the merged counts.
func (f *fakeRun) start(t testing.TB) (*Fleet, func() results.Merged) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	fl, err := Start(ctx, f.c, f.rec)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return fl, func() results.Merged {
		cancel()
		if err := fl.Wait(); err != nil {
			t.Fatal(err)
		}
		return f.rec.Merge()
	}
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out after %v waiting for %s", d, what)
}

func (f *fakeRun) allDone() bool {
	a := f.rec.Ledger.Audit()
	return a.CompletedOnce+a.Duplicates >= int64(f.n)
}

// allSettled reports whether every record completed or was archived
// (rejected, dead-lettered, or past the delivery limit).
func (f *fakeRun) allSettled() bool {
	a := f.rec.Ledger.Audit()
	return a.CompletedOnce+a.Duplicates+a.Archived >= int64(f.n)
}
