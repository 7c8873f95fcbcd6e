package producer

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// The stamp carries the intended (scheduled) send time, not the actual one:
// the schedule starts 100 ms in the past (the producer was blocked), so
// the first records go out late. Every stamp's Intended must equal the
// schedule's Due exactly, Sent must be the actual send (≥ Intended), and
// the overdue records must show their schedule lag (~100 ms for record 0).
// Stamping the actual time as intended (coordinated omission) fails here.
//
// The same holds under a rate profile (a ramp from 500 to 1500 records/s
// over the 200 ms: 200 records): each stamp's Intended is the profile's
// C⁻¹(k), and partition_skew changes where records go, not when.
func TestStampCarriesIntendedSendTime(t *testing.T) {
	ramp, err := NewProfile(0, []Segment{{Dur: 200 * time.Millisecond, From: 500, To: 1500}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		profile *Profile
		skew    float64
	}{{"constant", nil, 0}, {"ramp with skew", ramp, 1}} {
		t.Run(tc.name, func(t *testing.T) { stampsIntended(t, tc.profile, tc.skew) })
	}
}

func stampsIntended(t *testing.T, profile *Profile, skew float64) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	clock := results.NewClock()
	const rate, dur = 1000.0, 200 * time.Millisecond // 1 record/ms
	start := clock.Now() - int64(100*time.Millisecond)
	c := Config{Brokers: fake.ListenAddrs(), Topic: "t", Producers: 1, Rate: rate, MessageSize: results.StampSize,
		Acks: "all", Start: start, Duration: dur, FlushTimeout: 10 * time.Second, Profile: profile,
		PartitionSkew: skew, Partitions: 4}
	n, err := c.PerProducerMax()
	if err != nil || n != 200 {
		t.Fatalf("per producer %d %v, want 200", n, err)
	}
	tag := results.RunTag(t.Name())
	rec := results.NewRecorder(clock, tag, results.NewLedger(1, n), results.NewSeries(start, 10))
	rec.SetWindow(results.Window{Start: start, End: start + int64(dur)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := Run(ctx, c, rec); err != nil {
		t.Fatal(err)
	}
	sched, _ := c.schedules(rate)
	cl, err := kgo.NewClient(kgo.SeedBrokers(fake.ListenAddrs()...), kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	seen := 0
	perPartition := make([]int, 4)
	for seen < int(n) && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			perPartition[r.Partition]++
			st, err := results.DecodeStamp(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			seen++
			if st.Run != tag || st.Producer != 0 {
				t.Errorf("stamp %+v: run or producer wrong", st)
			}
			if want := sched[0].Due(st.Seq); st.Intended != want {
				t.Errorf("record %d: intended %d, want the schedule's %d (off by %v)", st.Seq, st.Intended, want, time.Duration(st.Intended-want))
			}
			if st.Sent < st.Intended {
				t.Errorf("record %d sent %v before it was due", st.Seq, time.Duration(st.Intended-st.Sent))
			}
			if st.Seq == 0 && st.Sent-st.Intended < int64(90*time.Millisecond) {
				t.Errorf("record 0: schedule lag %v, want ≥ 90 ms (it was due 100 ms before the producer started)", time.Duration(st.Sent-st.Intended))
			}
		})
	}
	if seen != int(n) {
		t.Fatalf("read %d of %d records", seen, n)
	}
	// Zipf s = 1 over 4 partitions: partition 0 takes 1/H(4) = 48 %, 96 of
	// 200 records (4 standard errors: ±28); round-robin gives 50 each.
	if skew > 0 && (perPartition[0] < 68 || perPartition[0] > 124 || perPartition[3] > perPartition[0]) {
		t.Errorf("partition_skew 1: records per partition %v, want about 96, 48, 32, 24", perPartition)
	}
	m := rec.Merge()
	if m.Sent != int64(n) || m.Acked != int64(n) || m.AckedWindow != int64(n) || m.ProduceFailed != 0 {
		t.Errorf("sent %d acked %d in window %d failed %d, want %d, %d, %d, 0", m.Sent, m.Acked, m.AckedWindow, m.ProduceFailed, n, n, n)
	}
	if lag := results.SummarizeMillis(m.ScheduleLag); lag.Max < 90 {
		t.Errorf("schedule lag max %v ms, want ≥ 90", lag.Max)
	}
}

// A produce that fails is counted as failed, not acknowledged: a topic that
// does not exist, with a short delivery timeout.
func TestProduceFailureCounted(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 1, results.NewLedger(1, 10), results.NewSeries(clock.Now(), 10))
	cl, err := kgo.NewClient(kgo.SeedBrokers(fake.ListenAddrs()...), kgo.DefaultProduceTopic("missing"),
		kgo.RecordDeliveryTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	shard := rec.ProducerRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a cancelled produce fails at once
	send(ctx, cl, Config{MessageSize: results.StampSize}, nil, nil, nil, results.Stamp{Run: 1}, shard, rec)
	_ = cl.Flush(context.Background())
	if m := rec.Merge(); m.ProduceFailed != 1 || m.Acked != 0 || m.Sent != 1 {
		t.Errorf("failed %d acked %d sent %d, want 1, 0, 1", m.ProduceFailed, m.Acked, m.Sent)
	}
}
