package results

import "testing"

// The per-record path: every produced record is stamped, every consumed one
// decoded, and each lands in histograms, the ledger and the time series.

func BenchmarkStampPut(b *testing.B) {
	buf := make([]byte, 256)
	st := Stamp{Run: 1, Producer: 2, Seq: 3, Intended: 4, Sent: 5}
	b.SetBytes(StampSize)
	for i := 0; i < b.N; i++ {
		st.Seq = uint64(i)
		st.Put(buf)
	}
}

func BenchmarkStampDecode(b *testing.B) {
	buf := make([]byte, 256)
	Stamp{Run: 1, Producer: 2, Seq: 3, Intended: 4, Sent: 5}.Put(buf)
	b.SetBytes(StampSize)
	for i := 0; i < b.N; i++ {
		if _, err := DecodeStamp(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	h := NewLatencyHistogram()
	for i := 0; i < b.N; i++ {
		RecordNanos(h, int64(i%100000)*1000+500)
	}
}

func BenchmarkLedgerProducedDeliveredCompleted(b *testing.B) {
	l := NewLedger(1, uint64(b.N)+1)
	for i := 0; i < b.N; i++ {
		s := uint64(i)
		l.Produced(0, s)
		l.Delivered(0, s)
		l.Completed(0, s)
	}
}

// BenchmarkMemberRecordPath is the full consumer-side cost of one record:
// delivery + completion into a member shard (histograms, ledger, series).
func BenchmarkMemberRecordPath(b *testing.B) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, uint64(b.N)+1), NewSeries(0, 60))
	r.SetWindow(Window{Start: 0, End: 1 << 62})
	m := r.MemberRecorder()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st := Stamp{Run: 1, Seq: uint64(i), Intended: int64(i), Sent: int64(i) + 10}
		m.RecordDelivery(st, 1, int64(i)+20, int64(i)+1e6)
		m.RecordCompletion(st, int64(i)+1e6, int64(i)+2e6, false)
	}
}

func BenchmarkLedgerAudit1M(b *testing.B) {
	l := NewLedger(4, 250000)
	for p := uint32(0); p < 4; p++ {
		for s := uint64(0); s < 250000; s++ {
			l.Produced(p, s)
			l.Completed(p, s)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if a := l.Audit(); !a.Balanced {
			b.Fatal(a)
		}
	}
}
