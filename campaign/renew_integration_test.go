//go:build integration

package campaign

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results"
)

// Lock renewal on the real broker. The shared test broker keeps Kafka's lock
// floor (group.share.min.record.lock.duration.ms 15000), so the group's lock
// is set to 15 s and each of 2 records takes 17 s: without renewal both
// locks would expire 2 s before their workers finish. With renew auto the
// workers renew (at ≈7.5 s and ≈15 s), every ACCEPT lands inside the renewed
// lock, nothing is redelivered and the broker refuses no acknowledgement.
// About 20 s.
func TestRenewKeepsLocksOnKafka(t *testing.T) {
	renewKeepsLocks(t, consumers.ClientFranzGo)
}

// TestJavaRenewKeepsLocksOnKafka is TestRenewKeepsLocksOnKafka on the Java
// client (kafka-clients 4.2): the runner acknowledges RENEW and polls to get
// the renewed records back, then ACCEPTs them (docs/how-to/compare-clients.md).
func TestJavaRenewKeepsLocksOnKafka(t *testing.T) {
	needJavaClient(t)
	renewKeepsLocks(t, consumers.ClientJava)
}

func renewKeepsLocks(t *testing.T, client consumers.Client) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	suffix := randomSuffix()
	topic, group := "sharebench-renew-"+suffix, "sharebench-renew-g-"+suffix
	adm, err := newAdmin(cl.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.close()
	if err := adm.createTopic(ctx, topic, 1, 1); err != nil {
		t.Fatal(err)
	}
	defer adm.deleteTopic(context.Background(), topic)
	if err := adm.setGroupConfig(ctx, group, map[string]string{
		"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": "15000"}); err != nil {
		t.Fatal(err)
	}

	const n = 2
	clock := results.NewClock()
	tag := results.RunTag(topic)
	rec := results.NewRecorder(clock, tag, results.NewLedger(1, n), results.NewSeries(clock.Now(), 120))
	prod, err := kgo.NewClient(kgo.SeedBrokers(cl.Bootstrap()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	ps := rec.ProducerRecorder()
	for i := range n {
		st := results.Stamp{Run: tag, Seq: uint64(i), Intended: clock.Now(), Sent: clock.Now()}
		v := make([]byte, results.StampSize)
		st.Put(v)
		if err := prod.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		ps.RecordAck(st, clock.Now())
	}
	prod.Close()

	cfg := consumers.Config{Brokers: cl.Bootstrap(), Topic: topic, Group: group, Type: consumers.ShareGroup, Ack: consumers.AckExplicit,
		Acquire: consumers.AcquireRecordLimit, Renew: true, Style: consumers.StyleBlocking, Members: 1, Workers: n, MaxPollRecords: n, DeliveryLimit: 5,
		Processing: consumers.Processing{Model: "constant", Time: 17 * time.Second}, Client: client}
	if client == consumers.ClientJava {
		cfg.KafkaVersion = infra.DefaultKafkaVersion
	}
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- consumers.Run(cctx, cfg, rec) }()
	for ctx.Err() == nil {
		if a := rec.Ledger.Audit(); a.CompletedOnce+a.Duplicates >= n {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // a redelivery would show now
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	m, a := rec.Merge(), rec.Ledger.Audit()
	t.Logf("%s: completed %d renewals %d lock-expired %d redelivered %d duplicates %d ack errors %d",
		client, m.Completed, m.Renewals, m.LockExpired, m.Redelivered, a.Duplicates, m.AckErrors)
	if a.CompletedOnce != n || a.Duplicates != 0 {
		t.Errorf("audit %+v, want %d completed once", a, n)
	}
	if m.Renewals < n {
		t.Errorf("%d renewals for %d records of 17 s under a 15 s lock", m.Renewals, n)
	}
	if m.LockExpired != 0 || m.Redelivered != 0 || m.AckErrors != 0 {
		t.Errorf("lock-expired %d redelivered %d ack errors %d, want 0", m.LockExpired, m.Redelivered, m.AckErrors)
	}
}
