package campaign

import (
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/vocab"
)

// A consumer group whose committed offset is past records no consumer was
// handed has lost them: Kafka will not deliver them to the group again.
// Records past the committed offset are still deliverable (undelivered).
// On the kfake cluster (not Kafka): the harness logic of the read-back,
// with the committed offset set from outside as an admin or a rogue member
// would.
func TestCommittedPastIsLost(t *testing.T) {
	ctx, cl := startKfake(t)
	const n, completed, committed = 100, 10, 60 // records, completed by a worker, committed offset
	spec := baseSpec()
	spec.ConsumerType, spec.Partitions = vocab.ConsumerGroup, 1
	s, err := newRunSetup(runner{cl: cl, log: io.Discard}, spec, "committed-past")
	if err != nil {
		t.Fatal(err)
	}
	defer s.adm.cl.Close()
	if err := s.adm.createTopic(ctx, s.topic, 1, 1); err != nil {
		t.Fatal(err)
	}
	pcl, err := kgo.NewClient(kgo.SeedBrokers(cl.Bootstrap()...), kgo.DefaultProduceTopic(s.topic))
	if err != nil {
		t.Fatal(err)
	}
	defer pcl.Close()
	ledger := results.NewLedger(1, n)
	tag := results.RunTag(s.id + "-" + s.suffix)
	for seq := range uint64(n) {
		v := make([]byte, results.StampSize)
		results.Stamp{Run: tag, Seq: seq}.Put(v)
		if err := pcl.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		ledger.Produced(0, seq)
		if seq < completed {
			ledger.Delivered(0, seq)
			ledger.Completed(0, seq)
		}
	}
	to := kadm.Offsets{}
	to.AddOffset(s.topic, 0, committed, -1)
	resp, err := s.adm.adm.CommitOffsets(ctx, s.group, to)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("commit offset %d: %v", committed, err)
	}

	spans, err := s.deliverableSpans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 1 || spans[0].GroupPos != committed || spans[0].From != committed || spans[0].End != n {
		t.Fatalf("spans %+v, want one from the committed offset %d to the end %d", spans, committed, n)
	}
	found, err := s.readDeliverable(ctx, spans, ledger)
	if err != nil {
		t.Fatal(err)
	}
	a := ledger.Audit()
	if found != n-committed || a.Undelivered != n-committed || a.Lost != committed-completed || a.CompletedOnce != completed || !a.Balanced {
		t.Errorf("read back %d, audit %+v: want undelivered %d (past the commit), lost %d (committed past, never delivered), completed %d, balanced",
			found, a, n-committed, committed-completed, completed)
	}
}

// deliverableFrom: the group's position counts only past the log start.
func TestDeliverableFrom(t *testing.T) {
	for _, tc := range []struct{ start, pos, want int64 }{
		{0, -1, 0},   // no position: from the log start
		{0, 60, 60},  // committed past: from the commit
		{40, 10, 40}, // deleted past the commit: from the log start
		{40, 40, 40},
	} {
		if got := deliverableFrom(tc.start, tc.pos); got != tc.want {
			t.Errorf("deliverableFrom(%d, %d) = %d, want %d", tc.start, tc.pos, got, tc.want)
		}
	}
}
