package results

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
)

// benchShardExports builds the encoded exports of a sharded run: agents
// agents, each with 4 of the run's producers and 8 members, a 600-s series
// and run, ledger records in all (split evenly over the producers). Every
// agent's members complete records of every producer (a share group), so
// each export's ledger has completion bits spread over the whole ledger;
// besides the records, 100 latencies a second (log-normal, median 20 ms)
// go into each interval log, so every one of its 600 intervals holds a
// realistic spread of buckets.
func benchShardExports(tb testing.TB, agents int, records uint64) (exports [][]byte, newCoord func() *Recorder) {
	const (
		seconds      = 600
		perAgentProd = 4
		perAgentMem  = 8
		start        = int64(1_700_000_000_000_000_000)
	)
	producers := agents * perAgentProd
	perProducer := records / uint64(producers)
	newRec := func() *Recorder {
		r := NewRecorder(NewClock(), 99, NewLedger(producers, perProducer), NewSeries(start, seconds))
		r.SetWindow(Window{Start: start + 10e9, End: start + 590e9})
		return r
	}
	rng := rand.New(rand.NewPCG(1, 2))
	latency := func() int64 { return int64(math.Exp(rng.NormFloat64()*0.8) * 20e6) }
	for a := range agents {
		r := newRec()
		prods := make([]*ProducerRecorder, perAgentProd)
		for i := range prods {
			prods[i] = r.ProducerRecorder()
		}
		mems := make([]*MemberRecorder, perAgentMem)
		for i := range mems {
			mems[i] = r.MemberRecorder()
			mems[i].Joined(a*perAgentMem+i, start+int64(i)*1e6)
		}
		// This agent's producers send their records evenly over the run.
		for i, p := range prods {
			pi := uint32(a*perAgentProd + i)
			for seq := range perProducer {
				intended := start + int64(seq)*int64(seconds)*1e9/int64(perProducer)
				st := Stamp{Run: 99, Producer: pi, Seq: seq, Intended: intended, Sent: intended + 50_000}
				p.Sent.Add(1)
				p.RecordAck(st, st.Sent+latency()/10)
			}
		}
		// Its members consume every agents-th record of every producer.
		for pi := range uint32(producers) {
			for seq := uint64(a); seq < perProducer; seq += uint64(agents) {
				intended := start + int64(seq)*int64(seconds)*1e9/int64(perProducer)
				st := Stamp{Run: 99, Producer: pi, Seq: seq, Intended: intended, Sent: intended + 50_000}
				m := mems[int(seq+uint64(pi))%perAgentMem]
				dlv := intended + latency()
				m.RecordPoll(1, 0)
				m.RecordDelivery(st, 1, intended+2e6, dlv)
				m.RecordCompletion(st, dlv, dlv+latency()/4, false)
			}
		}
		for s := range int64(seconds) {
			for range 100 {
				r.completionLog.Record(start+s*1e9+int64(rng.IntN(1e9)), latency())
				r.publishLog.Record(start+s*1e9+int64(rng.IntN(1e9)), latency()/10)
			}
			r.Series.SetGauge(HarnessCPUPercent, start+s*1e9, 3)
		}
		e, err := r.Export()
		if err != nil {
			tb.Fatal(err)
		}
		e.Shard = a
		b, err := encodeExport(e)
		if err != nil {
			tb.Fatal(err)
		}
		exports = append(exports, b)
	}
	return exports, newRec
}

// cpuNs is the process's CPU time (user + system, every thread, the
// garbage collector's included): on a shared machine a steadier figure than
// wall time.
func cpuNs() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

// BenchmarkAbsorb64Shards: the coordinator's end of a 64-agent run (256
// producers, 512 members, 600 s): decode and absorb the 64 exports, then
// Merge (which encodes the interval logs) and the ledger's Audit. One op is
// the whole merge; the target is under 1 s (ledger=100000, the
// issue's size; ledger=10000000 is a 10M-record run for comparison).
// cpu-ns/op is the CPU the op used, on every core.
func BenchmarkAbsorb64Shards(b *testing.B) {
	for _, records := range []uint64{100_000, 10_000_000} {
		b.Run(fmt.Sprintf("ledger=%d", records), func(b *testing.B) {
			exports, newCoord := benchShardExports(b, 64, records)
			var size int
			for _, e := range exports {
				size += len(e)
			}
			cpu0 := cpuNs()
			b.ResetTimer()
			for range b.N {
				coord := newCoord()
				for _, x := range exports {
					e, err := decodeExport(x)
					if err != nil {
						b.Fatal(err)
					}
					if err := coord.Absorb(e); err != nil {
						b.Fatal(err)
					}
				}
				m := coord.Merge()
				a := coord.Ledger.Audit()
				if m.IntervalLogErr != nil || len(m.PerMember) != 512 || a.Produced != int64(records/256*256) || a.Lost != 0 {
					b.Fatalf("merge: %v, %d members, audit %+v", m.IntervalLogErr, len(m.PerMember), a)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(size)/64/1e3, "kB/export")
		})
	}
}

// BenchmarkShardCodec1M: one agent's export of a 1,000,000-record run
// (one agent, so its ledger holds every record), encoded then decoded.
func BenchmarkShardCodec1M(b *testing.B) {
	exports, _ := benchShardExports(b, 1, 1_000_000)
	e, err := decodeExport(exports[0])
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		for range b.N {
			if _, err := encodeExport(e); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(exports[0]))/1e3, "kB")
	})
	b.Run("decode", func(b *testing.B) {
		for range b.N {
			if _, err := decodeExport(exports[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
