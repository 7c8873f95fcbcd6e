package consumers

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/results"
)

// The harness's own per-record work on the consumer side (issue 27.2),
// outside the franz-go client: the buffered hook (HookFetchRecordBuffered),
// the poll's accounting, the hand-over to a worker (stamp decode, delivery
// histograms, ledger, series), processing of 0 ms, the completion
// (completion histograms, interval log, ledger, series) and, for a consumer
// group, the offset tracking of the commit. Batches of 500 records (franz-go's
// default max.poll.records), one worker. ns/op is per record (cpu-ns/op:
// the process's CPU per record, the steadier figure on a shared host); the
// record rate it allows is 1e9 / ns/op (the target: ≥ 100,000 records/s in
// process, ≤ 2 µs per record with the client's own work). A CPU profile:
//
//	go test -run '^$' -bench RecordPath -cpuprofile cpu.out ./consumers
//	go tool pprof -top cpu.out

const benchBatch = 500

// benchMember is a member of a run of n records, on no client, and one
// batch of records it re-stamps for every poll (so memory stays flat
// however many records a benchmark runs).
func benchMember(b *testing.B, typ GroupType, n int) (*member, []*kgo.Record) {
	b.Helper()
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 1, results.NewLedger(1, uint64(n)), results.NewSeries(clock.Now(), n/100_000+120))
	rec.SetWindow(results.Window{Start: 0, End: 1 << 62})
	ps := rec.ProducerRecorder()
	now := clock.Now()
	for i := range n { // every record of the run produced and acknowledged
		ps.RecordAck(results.Stamp{Run: 1, Seq: uint64(i), Intended: now, Sent: now}, now)
	}
	batch := make([]*kgo.Record, benchBatch)
	for i := range batch {
		batch[i] = &kgo.Record{Value: make([]byte, results.StampSize), Timestamp: time.Now()}
	}
	sampler, err := NewSampler(Processing{Model: ModelNone})
	if err != nil {
		b.Fatal(err)
	}
	c := Config{Type: typ, Acquire: AcquireBatchOptimized, Ack: AckImplicit, Style: StyleBlocking,
		Members: 1, Workers: 1, MaxPollRecords: benchBatch, DeliveryLimit: 5}
	m := &member{c: c, sampler: sampler, rec: rec, memberRec: rec.MemberRecorder(), slow: &slowState{},
		fetches: newFetchWatch(clock, nil), pollCtx: context.Background()}
	if typ == ShareGroup {
		m.group = &shareGroupMember{member: m}
	} else {
		m.group = &consumerGroupMember{member: m, offsets: newOffsetTracker(), done: map[int32][]*handled{}}
	}
	return m, batch
}

// benchPartitions is how many partitions a benchmark batch's records come from.
const benchPartitions = 8

func benchRecordPath(b *testing.B, typ GroupType) {
	m, pool := benchMember(b, typ, b.N)
	fetchKey := int16(kmsg.Fetch)
	if typ == ShareGroup {
		fetchKey = int16(kmsg.ShareFetch)
	}
	workers := newWorkers(1, 0, 1)
	ctx := context.Background()
	now := m.rec.Clock.Now()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for lo := 0; lo < b.N; lo += benchBatch {
		batch := pool[:min(benchBatch, b.N-lo)]
		// One fetch response per batch, its records partition by partition
		// (8 partitions), as franz-go buffers them: the response read
		// (HookBrokerE2E), then each record (HookFetchRecordBuffered).
		m.fetches.OnBrokerE2E(kgo.BrokerMetadata{NodeID: 1}, fetchKey, kgo.BrokerE2E{})
		per := (len(batch) + benchPartitions - 1) / benchPartitions
		for i, r := range batch { // the next records of the run: as a fetch decodes them (a few ns)
			seq := lo + i
			results.Stamp{Run: 1, Seq: uint64(seq), Intended: now, Sent: now}.Put(r.Value)
			r.Partition, r.Offset = int32(i/per), int64(lo/benchBatch*per+i%per)
			m.fetches.OnFetchRecordBuffered(r)
		}
		m.memberRec.RecordPoll(len(batch), m.rec.Clock.Now())
		m.fetches.settle(false)
		m.group.received(batch)
		done := m.processBatch(ctx, batch, workers)
		if typ == ShareGroup {
			m.group.settle(ctx, done)
		} else { // the consumer group's settle without its client: completions, then the commit's offsets
			m.recordSettled(done, nil)
			m.group.(*consumerGroupMember).offsets.committable()
		}
	}
	b.StopTimer()
	if cpu := processCPU() - cpu0; cpu > 0 {
		// The process's CPU over the loop, the collector's included: on a
		// busy host far steadier than ns/op, which counts waiting for a core.
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
	if a := m.rec.Ledger.Audit(); a.CompletedOnce != int64(b.N) {
		b.Fatalf("%d of %d records completed once", a.CompletedOnce, b.N)
	}
}

func BenchmarkShareRecordPath(b *testing.B)    { benchRecordPath(b, ShareGroup) }
func BenchmarkConsumerRecordPath(b *testing.B) { benchRecordPath(b, ConsumerGroup) }
