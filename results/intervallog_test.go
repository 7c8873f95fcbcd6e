package results

import (
	"bytes"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The log must read back with HdrHistogram's own log reader: one interval
// per second that had observations, holding exactly what was recorded then.
func TestIntervalLogReadsBackWithHdrReader(t *testing.T) {
	start := int64(1_700_000_000) * 1e9
	l := NewIntervalLog("completion", start)
	// Second 0: 100 × 1 ms. Second 1: nothing. Second 2: 50 × 5 ms.
	for i := int64(0); i < 100; i++ {
		l.Record(start+i*1e6, 1e6)
	}
	for i := int64(0); i < 50; i++ {
		l.Record(start+2e9+i*1e6, 5e6)
	}
	b, err := l.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	r := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
	var got []*hdrhistogram.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("read: %v\n%s", err, b)
		}
		if h == nil {
			break
		}
		got = append(got, h)
	}
	if len(got) != 2 {
		t.Fatalf("%d intervals, want 2 (the empty second is skipped)\n%s", len(got), b)
	}
	if got[0].TotalCount() != 100 || !got[0].ValuesAreEquivalent(got[0].ValueAtQuantile(50), 1000) {
		t.Errorf("interval 0: count %d p50 %d µs, want 100 and 1000", got[0].TotalCount(), got[0].ValueAtQuantile(50))
	}
	if got[1].TotalCount() != 50 || !got[1].ValuesAreEquivalent(got[1].ValueAtQuantile(50), 5000) {
		t.Errorf("interval 1: count %d p50 %d µs, want 50 and 5000", got[1].TotalCount(), got[1].ValueAtQuantile(50))
	}
	if s := got[1].StartTimeMs() - got[0].StartTimeMs(); s != 2000 {
		t.Errorf("intervals %d ms apart, want 2000", s)
	}
	if !bytes.Contains(b, []byte("#[StartTime:")) || !bytes.Contains(b, []byte("Tag=completion")) {
		t.Errorf("header or tag missing:\n%s", b)
	}
}

// Shards of one log: every observation lands in the interval of its time
// whichever shard recorded it, intervals are written in order, and Bytes
// does not change the log (recording goes on; a second call adds nothing).
func TestIntervalLogShardsMerge(t *testing.T) {
	start := int64(1_700_000_000) * 1e9
	l := NewIntervalLog("completion", start)
	a, b := l.Writer(), l.Writer()
	for sec := int64(0); sec < 10; sec++ {
		for i := int64(0); i < 10; i++ {
			a.Record(start+sec*1e9+i*1e6, (sec+1)*1e6)
			b.Record(start+sec*1e9+i*1e6+5e5, (sec+1)*1e6)
		}
	}
	read := func() []*hdrhistogram.Histogram {
		b, err := l.bytesWith([]*intervalPiece{a.piece(), b.piece()})
		if err != nil {
			t.Fatal(err)
		}
		r := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
		var got []*hdrhistogram.Histogram
		for {
			h, err := r.NextIntervalHistogram()
			if err != nil {
				t.Fatal(err)
			}
			if h == nil {
				return got
			}
			got = append(got, h)
		}
	}
	got := read()
	if len(got) != 10 {
		t.Fatalf("%d intervals, want 10", len(got))
	}
	for i, h := range got {
		if h.TotalCount() != 20 || !h.ValuesAreEquivalent(h.Max(), int64(i+1)*1000) || h.StartTimeMs() != (start+int64(i)*1e9)/1e6 {
			t.Errorf("interval %d: count %d max %d start %d", i, h.TotalCount(), h.Max(), h.StartTimeMs())
		}
	}
	if again := read(); len(again) != 10 || again[9].TotalCount() != 20 {
		t.Errorf("second read: %d intervals", len(again))
	}
}

// The interval logs hold the same values as the histograms: publish = ack
// − actual send, completion = completion − intended send.
func TestIntervalLogValues(t *testing.T) {
	t0 := int64(1_000_000_000_000)
	r := NewRecorder(NewClock(), 1, NewLedger(1, 1), NewSeries(t0, 5))
	r.SetWindow(Window{Start: t0, End: t0 + 1000*ms})
	p, m := r.ProducerRecorder(), r.MemberRecorder()
	st := Stamp{Run: 1, Seq: 0, Intended: t0, Sent: t0 + 3*ms}
	p.RecordAck(st, t0+12*ms)
	m.RecordDelivery(st, 1, t0+7*ms, t0+20*ms)
	m.RecordCompletion(st, t0+20*ms, t0+50*ms, false)
	g := r.Merge()
	for name, want := range map[string]int64{"publish.hlog": 9000, "completion.hlog": 50000} {
		h, err := hdrhistogram.NewHistogramLogReader(bytes.NewReader(g.IntervalLogs[name])).NextIntervalHistogram()
		if err != nil || h == nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.TotalCount() != 1 || !h.ValuesAreEquivalent(h.Max(), want) {
			t.Errorf("%s: count %d max %d µs, want 1 and %d", name, h.TotalCount(), h.Max(), want)
		}
	}
}
