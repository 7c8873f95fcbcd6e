package producer

import (
	"testing"

	"github.com/sharebench/sharebench/results"
)

// BenchmarkProducerRecordPath is the producer's per-record work outside the
// client: the schedule's due time, the stamp into a fresh value, and the
// acknowledgement into the producer's shard (ledger, histograms, interval
// log, series), on one producer.
func BenchmarkProducerRecordPath(b *testing.B) {
	scheds, _ := FleetSchedules(0, 10000, 1) // 10,000 records/s: an interval every 10,000 records
	rec := results.NewRecorder(results.NewClock(), 1, results.NewLedger(1, uint64(b.N)+1), results.NewSeries(0, b.N/10000+2))
	rec.SetWindow(results.Window{Start: 0, End: 1 << 62})
	shard := rec.ProducerRecorder()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		due := scheds[0].Due(uint64(i))
		v := make([]byte, 256)
		st := results.Stamp{Run: 1, Seq: uint64(i), Intended: due, Sent: due + 1000}
		st.Put(v)
		shard.Sent.Add(1)
		shard.RecordAck(st, due+2e6)
	}
}
