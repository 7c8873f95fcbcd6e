package results

import (
	"strings"
	"testing"
	"time"
)

// A hand-made run: 10 records intended 100 ms apart from t0; the window is
// [t0+200ms, t0+700ms). Each is acked 2 ms after its send (sent 1 ms late),
// delivered 5 ms and completed 15 ms after its intended time.
func TestRecorderWindowAndLatencies(t *testing.T) {
	const ms = int64(1e6)
	t0 := int64(1_000_000_000_000)
	series := NewSeries(t0, 5)
	r := NewRecorder(NewClock(), 42, NewLedger(1, 10), series)
	r.SetWindow(Window{Start: t0 + 200*ms, End: t0 + 700*ms})
	p := r.ProducerRecorder()
	m := r.MemberRecorder()
	for i := int64(0); i < 10; i++ {
		st := Stamp{Run: 42, Seq: uint64(i), Intended: t0 + i*100*ms, Sent: t0 + i*100*ms + ms}
		p.RecordAck(st, st.Sent+2*ms)
		m.RecordPoll(1, 0)
		m.RecordDelivery(st, 1, st.Sent+2*ms, st.Intended+5*ms)
		m.RecordCompletion(st, st.Intended+5*ms, st.Intended+15*ms, false)
	}
	m.RecordPoll(0, 0)
	got := r.Merge()
	// Intended times 200..600 ms are in the window: records 2-6.
	if got.Completion.TotalCount() != 5 || got.Publish.TotalCount() != 5 || got.AckedWindow != 5 {
		t.Fatalf("window counts: completion %d publish %d acked %d", got.Completion.TotalCount(), got.Publish.TotalCount(), got.AckedWindow)
	}
	// Completions at i*100+15 ms in [200, 700): i = 2..6.
	if got.CompletedInWindow != 5 {
		t.Fatalf("completed in window %d", got.CompletedInWindow)
	}
	if p := SummarizeMillis(got.Completion); p.P50 < 14.98 || p.P50 > 15.02 {
		t.Fatalf("completion p50 %v, want 15", p.P50)
	}
	if p := SummarizeMillis(got.Publish); p.Max < 1.99 || p.Max > 2.01 {
		t.Fatalf("publish max %v, want 2", p.Max)
	}
	if p := SummarizeMillis(got.ScheduleLag); p.Max < 0.99 || p.Max > 1.01 {
		t.Fatalf("schedule lag %v, want 1", p.Max)
	}
	if got.Polls != 11 || got.EmptyPolls != 1 || got.DeliveryCounts[0] != 10 {
		t.Fatalf("polls %d empty %d dc1 %d", got.Polls, got.EmptyPolls, got.DeliveryCounts[0])
	}
	// Seconds 0 holds records 0-9 (all within the first second).
	if series.Count(Completed, 0) != 10 || series.Total(Produced, 0, 5) != 10 {
		t.Fatalf("series completed %d produced %d", series.Count(Completed, 0), series.Total(Produced, 0, 5))
	}
	var b strings.Builder
	if err := series.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "second,produced,delivered,completed,redelivered,released,rejected,lock_expired,in_flight," +
		"lag,broker_cpu_percent,broker_heap_used_bytes,harness_cpu_percent,harness_rss_bytes,broker_rss_bytes,lag_unread\n" +
		"0,10,10,10,0,0,0,0,0,,,,,,,\n"
	if b.String() != want {
		t.Fatalf("csv\n%q\nwant\n%q", b.String(), want)
	}
}

func TestRedeliveriesAndReleases(t *testing.T) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, 4), NewSeries(0, 2))
	m := r.MemberRecorder()
	st := Stamp{Run: 1, Seq: 2}
	m.RecordDelivery(st, 1, 0, 0)
	m.RecordRelease(st, 0, false)
	m.RecordDelivery(st, 2, 0, 0)
	m.RecordRelease(st, 0, true) // limit reached: archived
	r.Ledger.Produced(0, 2)
	got := r.Merge()
	a := r.Ledger.Audit()
	if got.Redelivered != 1 || got.Released != 2 || got.DeliveryCounts[1] != 1 || a.Archived != 1 || !a.Balanced {
		t.Fatalf("merged %+v audit %+v", got, a)
	}
}

func TestSeriesThirds(t *testing.T) {
	s := NewSeries(0, 20)
	for sec := int64(0); sec < 20; sec++ {
		s.Add(Completed, sec*1e9+5e8, sec) // sec events in second sec
	}
	// Window [2 s, 11 s): buckets 2..10, thirds 2-4, 5-7, 8-10.
	got := s.Thirds(Completed, Window{Start: 2e9, End: 11e9})
	if got != [3]int64{2 + 3 + 4, 5 + 6 + 7, 8 + 9 + 10} {
		t.Fatalf("thirds %v", got)
	}
}

func TestRecorderSpan(t *testing.T) {
	clock := NewClock()
	series := NewSeries(clock.Now(), 10)
	r := NewRecorder(clock, 7, NewLedger(1, 10), series)
	if _, _, ok := r.Span(); ok {
		t.Fatal("span before any delivery")
	}
	a, b := r.MemberRecorder(), r.MemberRecorder()
	st := Stamp{Run: 7, Seq: 1}
	a.RecordDelivery(st, 1, 100, 500)
	b.RecordDelivery(st, 1, 100, 300)
	a.RecordCompletion(st, 500, 900, false)
	b.RecordReject(Stamp{Run: 7, Seq: 2}, 1200)
	first, last, ok := r.Span()
	if !ok || first != 300 || last != 1200 {
		t.Errorf("span %d..%d ok %v, want 300..1200", first, last, ok)
	}
}

// TestPollGap: a non-empty poll after the member finished records since
// its previous one ends a gap measured from the latest finish; the first
// poll, empty polls and a poll with no finish since the previous one record
// none.
func TestPollGap(t *testing.T) {
	clock := NewClock()
	r := NewRecorder(clock, 7, NewLedger(1, 10), NewSeries(clock.Now(), 10))
	m := r.MemberRecorder()
	const ms = int64(time.Millisecond)
	t0 := clock.Now()
	m.RecordPoll(2, t0) // the first poll: no batch before it
	m.RecordCompletion(Stamp{Run: 7, Seq: 1}, t0, t0+3*ms, false)
	m.RecordCompletion(Stamp{Run: 7, Seq: 2}, t0, t0+5*ms, false)
	m.RecordPoll(0, t0+6*ms)  // empty: waits on
	m.RecordPoll(1, t0+12*ms) // 7 ms after the batch's last completion
	m.RecordPoll(1, t0+20*ms) // nothing finished since: no gap
	m.RecordCompletion(Stamp{Run: 7, Seq: 3}, t0, t0+21*ms, false)
	m.RecordPoll(1, t0+22*ms) // 1 ms
	h := r.Merge().PollGap
	if h.TotalCount() != 2 || h.Max() < 6_990 || h.Max() > 7_010 || h.Min() < 990 || h.Min() > 1_010 {
		t.Errorf("gaps: %d recorded, min %d µs, max %d µs; want 2: 1,000 and 7,000 µs", h.TotalCount(), h.Min(), h.Max())
	}
}

func TestWindowSeconds(t *testing.T) {
	if got := (Window{Start: 1e9, End: 3.5e9}).Seconds(); got != 2.5 {
		t.Errorf("seconds %v, want 2.5", got)
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
	m.RecordPoll(5, 0)
	m.RecordPoll(2, 0)
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
