package results

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// The per-record path as the harness runs it: many goroutines (members'
// workers, producers' ack callbacks) record at once, on a clock that crosses
// the one-second interval boundaries of the interval logs (a flush every
// 10,000 records here, so a benchmark run crosses hundreds of them).

// benchNsPerRecord spaces the records' clock readings: 100 µs apart.
const benchNsPerRecord = 100_000

// benchRecorder is a recorder whose ledger and series hold n records.
func benchRecorder(producers int, n uint64) *Recorder {
	r := NewRecorder(NewClock(), 1, NewLedger(producers, n/uint64(producers)+1), NewSeries(0, int(n*benchNsPerRecord/1e9)+2))
	r.SetWindow(Window{Start: 0, End: 1 << 62})
	return r
}

// BenchmarkMemberRecordPathParallel runs delivery + completion of one record
// per op from g goroutines. Each goroutine is a member with its own shard
// (a member's workers share its shard; BenchmarkMemberWorkersParallel
// covers that). ns/op is wall time per record over all goroutines: with no
// shared lock it stays near the single-goroutine figure (2 cores here).
func BenchmarkMemberRecordPathParallel(b *testing.B) {
	for _, g := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			benchMembers(b, g, g)
		})
	}
}

// BenchmarkMemberWorkersParallel: 64 goroutines as 4 members × 16 workers,
// the workers of a member sharing its shard.
func BenchmarkMemberWorkersParallel(b *testing.B) { benchMembers(b, 64, 4) }

func benchMembers(b *testing.B, goroutines, members int) {
	r := benchRecorder(1, uint64(b.N)+1)
	shards := make([]*MemberRecorder, members)
	for i := range shards {
		shards[i] = r.MemberRecorder()
	}
	one := func(m *MemberRecorder, s uint64) {
		t := int64(s) * benchNsPerRecord
		st := Stamp{Run: 1, Seq: s, Intended: t, Sent: t + 10}
		m.RecordDelivery(st, 1, t+20, t+1e6)
		m.RecordCompletion(st, t+1e6, t+2e6, false)
	}
	b.ResetTimer()
	if goroutines == 1 { // RunParallel starts at least GOMAXPROCS goroutines
		for i := range b.N {
			one(shards[0], uint64(i))
		}
		return
	}
	var seq, who atomic.Uint64
	b.SetParallelism(max(1, goroutines/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		m := shards[int(who.Add(1)-1)%members]
		for pb.Next() {
			one(m, seq.Add(1)-1)
		}
	})
}

// BenchmarkProducerAckParallel is the producer side: one produce
// acknowledgement per op (ledger, publish histogram, interval log, series)
// from 1 and 64 goroutines, each goroutine a producer with its own shard.
func BenchmarkProducerAckParallel(b *testing.B) {
	for _, g := range []int{1, 64} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			r := benchRecorder(1, uint64(b.N)+1)
			one := func(p *ProducerRecorder, s uint64) {
				t := int64(s) * benchNsPerRecord
				p.RecordAck(Stamp{Run: 1, Seq: s, Intended: t, Sent: t + 10}, t+2e6)
			}
			b.ResetTimer()
			if g == 1 {
				p := r.ProducerRecorder()
				for i := range b.N {
					one(p, uint64(i))
				}
				return
			}
			var seq atomic.Uint64
			b.SetParallelism(max(1, g/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				p := r.ProducerRecorder()
				for pb.Next() {
					one(p, seq.Add(1)-1)
				}
			})
		})
	}
}

// BenchmarkMerge1M merges a run of 1,000,000 records (16 members, 4
// producers, 100 s of one-second intervals) into the run's figures and
// interval logs.
func BenchmarkMerge1M(b *testing.B) {
	const n, members, producers = 1_000_000, 16, 4
	r := NewRecorder(NewClock(), 1, NewLedger(producers, n/producers), NewSeries(0, 120))
	r.SetWindow(Window{Start: 0, End: 1 << 62})
	ms := make([]*MemberRecorder, members)
	for i := range ms {
		ms[i] = r.MemberRecorder()
	}
	ps := make([]*ProducerRecorder, producers)
	for i := range ps {
		ps[i] = r.ProducerRecorder()
	}
	for i := range n {
		t := int64(i) * 100_000 // 100 s in all
		st := Stamp{Run: 1, Producer: uint32(i % producers), Seq: uint64(i / producers), Intended: t, Sent: t + 10}
		ps[i%producers].RecordAck(st, t+int64(i%5000)*1000)
		m := ms[i%members]
		m.RecordDelivery(st, 1, t+20, t+1e6)
		m.RecordCompletion(st, t+1e6, t+2e6+int64(i%10000)*1000, false)
	}
	b.ResetTimer()
	for range b.N {
		if m := r.Merge(); m.Completion.TotalCount() != n || m.IntervalLogErr != nil {
			b.Fatal(m.Completion.TotalCount(), m.IntervalLogErr)
		}
	}
}
