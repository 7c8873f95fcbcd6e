package results

import (
	"bytes"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Tests added for mutants that survived `make mutate`.

func TestWindowSeconds(t *testing.T) {
	if got := (Window{Start: 1e9, End: 3.5e9}).Seconds(); got != 2.5 {
		t.Errorf("seconds %v, want 2.5", got)
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

// Span: a member's earliest delivery stays the earliest, a member without
// deliveries does not reset it, and delivery without a finish is no span.
func TestSpanMinMaxAndEmptyMembers(t *testing.T) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, 10), NewSeries(0, 10))
	a := r.MemberRecorder()
	st := Stamp{Run: 1, Seq: 1}
	a.RecordDelivery(st, 1, 0, 300)
	a.RecordDelivery(st, 2, 0, 500)
	a.RecordDelivery(st, 2, 0, 200)
	if _, _, ok := r.Span(); ok {
		t.Error("span ok with deliveries but no finish")
	}
	a.RecordCompletion(st, 500, 900, false)
	a.RecordCompletion(st, 500, 700, false)
	r.MemberRecorder() // never delivered anything
	first, last, ok := r.Span()
	if !ok || first != 200 || last != 900 {
		t.Errorf("span %d..%d ok %v, want 200..900", first, last, ok)
	}
}

// A crashed member held what its polls returned minus what it finished.
func TestCrashedMemberHeld(t *testing.T) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, 10), NewSeries(0, 10))
	m := r.MemberRecorder()
	m.Joined(3, 10)
	m.RecordPoll(5)
	m.RecordPoll(2)
	for i := range 3 {
		st := Stamp{Run: 1, Seq: uint64(i)}
		m.RecordDelivery(st, 1, 0, 20)
		m.RecordCompletion(st, 20, 30, false)
	}
	m.RecordRelease(Stamp{Run: 1, Seq: 3}, 30, false)
	m.RecordReject(Stamp{Run: 1, Seq: 4}, 30)
	m.Crashed(40)
	got := r.Merge().Members
	if len(got) != 1 || !got[0].Crashed || got[0].HeldAtCrash != 7-3-1-1 || got[0].LeftNs != 40 || got[0].ID != 3 {
		t.Errorf("members %+v, want crashed at 40 holding 2", got)
	}
}

// The ledger's bit addressing across words, and the producer bound.
func TestLedgerBitAddressing(t *testing.T) {
	l := NewLedger(1, 200)
	for s := uint64(0); s < 200; s++ {
		if s != 129 {
			l.Produced(0, s)
		}
	}
	l.Completed(0, 64)
	l.Completed(0, 64) // a duplicate of a produced record
	l.Completed(0, 129)
	l.Completed(0, 129) // completed twice but never acknowledged
	a := l.Audit()
	if a.Duplicates != 1 || a.DuplicateCompletions != 1 || a.Unacknowledged != 1 || a.Produced != 199 {
		t.Errorf("audit %+v, want 1 duplicate, 1 unacknowledged, 199 produced", a)
	}
	l2 := NewLedger(1, 10)
	l2.Delivered(1, 0) // producer index = number of producers
	if a := l2.Audit(); a.Foreign != 1 {
		t.Errorf("producer 1 of 1: foreign %d, want 1", a.Foreign)
	}
}

// A stamp fills exactly StampSize bytes: a value of that size is stamped
// and decoded.
func TestStampExactSize(t *testing.T) {
	b := make([]byte, StampSize)
	st := Stamp{Run: 7, Producer: 1, Seq: 2, Intended: 3, Sent: 4}
	st.Put(b)
	if got, err := DecodeStamp(b); err != nil || got != st {
		t.Errorf("exact-size stamp: %+v %v", got, err)
	}
}

// Below 2048 µs the histogram is exact: the millisecond figures are the
// recorded values to the microsecond.
func TestSummarizeMillisExactBelow2ms(t *testing.T) {
	h := NewLatencyHistogram()
	RecordNanos(h, 1_500_000)
	p := SummarizeMillis(h)
	if p.P50 != 1.5 || p.P9999 != 1.5 || p.Max != 1.5 || p.Mean != 1.5 {
		t.Errorf("percentiles %+v, want 1.5 ms", p)
	}
	txt, err := PercentileText(h)
	if err != nil || !bytes.Contains(txt, []byte("1.500")) {
		t.Errorf("hgrm %q %v: want the value in ms (1.500)", txt, err)
	}
}
