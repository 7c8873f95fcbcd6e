package results

import (
	"testing"
)

// Tests that pin each figure of docs/explanation/measurement.md to an independent
// expectation: fixtures whose records tell the rules apart.

const ms = int64(1e6)

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if d := got - want; d > want*0.002+0.002 || d < -want*0.002-0.002 {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// Coordinated omission: the schedule is 1 record/ms, the producer is
// blocked for the first 100 ms and then sends the 100 overdue records at
// once (at 100 ms). Latencies measured from the intended time show the
// stall (delivery up to ~100 ms, schedule lag up to ~100 ms); measured from
// the actual send they would be ~0.
func TestStallShowsInLatencyFromIntendedTime(t *testing.T) {
	t0 := int64(1_000_000_000_000)
	r := NewRecorder(NewClock(), 1, NewLedger(1, 200), NewSeries(t0, 5))
	r.SetWindow(Window{Start: t0, End: t0 + 200*ms})
	p, m := r.ProducerRecorder(), r.MemberRecorder()
	for i := int64(0); i < 200; i++ {
		intended := t0 + i*ms
		sent := max(intended, t0+100*ms) // blocked until 100 ms
		st := Stamp{Run: 1, Seq: uint64(i), Intended: intended, Sent: sent}
		p.RecordAck(st, sent+ms)
		m.RecordDelivery(st, 1, sent+ms, sent+2*ms)
		m.RecordCompletion(st, sent+2*ms, sent+3*ms, false)
	}
	g := r.Merge()
	d, c, lag, pub := SummarizeMillis(g.Delivery), SummarizeMillis(g.Completion), SummarizeMillis(g.ScheduleLag), SummarizeMillis(g.Publish)
	near(t, "delivery max", d.Max, 102)   // record 0: intended 0, delivered 102 ms
	near(t, "completion max", c.Max, 103) // completed 103 ms
	near(t, "schedule lag max", lag.Max, 100)
	near(t, "publish max", pub.Max, 1) // broker ack − actual send: the stall is not the broker's
	near(t, "delivery p50", d.P50, 2)  // the second half was on time
	if d.P90 < 50 && d.Mean < 20 {
		t.Errorf("delivery p90 %v mean %v: the stall is hidden", d.P90, d.Mean)
	}
}

// The window rules: latencies and produced count select records by their
// intended send time; completed_per_sec counts completions by completion
// time. Record A is intended before the window and completed inside it; B
// is intended inside and completed after it.
func TestWindowSelectionRules(t *testing.T) {
	t0 := int64(1_000_000_000_000)
	r := NewRecorder(NewClock(), 1, NewLedger(1, 2), NewSeries(t0, 10))
	w := Window{Start: t0 + 1000*ms, End: t0 + 2000*ms}
	r.SetWindow(w)
	p, m := r.ProducerRecorder(), r.MemberRecorder()
	a := Stamp{Run: 1, Seq: 0, Intended: t0 + 900*ms, Sent: t0 + 900*ms}
	b := Stamp{Run: 1, Seq: 1, Intended: t0 + 1900*ms, Sent: t0 + 1900*ms}
	p.RecordAck(a, a.Sent+ms)
	p.RecordAck(b, b.Sent+ms)
	m.RecordDelivery(a, 1, a.Sent+ms, t0+1100*ms)
	m.RecordCompletion(a, t0+1100*ms, t0+1150*ms, false) // completed in the window
	m.RecordDelivery(b, 1, b.Sent+ms, t0+2100*ms)
	m.RecordCompletion(b, t0+2100*ms, t0+2400*ms, false) // completed after it
	g := r.Merge()
	if g.CompletedInWindow != 1 {
		t.Errorf("completed in window %d, want 1 (A, by completion time)", g.CompletedInWindow)
	}
	if g.Completion.TotalCount() != 1 || g.Delivery.TotalCount() != 1 || g.Queue.TotalCount() != 1 {
		t.Fatalf("completion %d delivery %d queue %d, want 1 each (B, by intended time)",
			g.Completion.TotalCount(), g.Delivery.TotalCount(), g.Queue.TotalCount())
	}
	near(t, "completion (B: 2400−1900)", SummarizeMillis(g.Completion).Max, 500)
	near(t, "delivery (B: 2100−1900)", SummarizeMillis(g.Delivery).Max, 200)
	if g.AckedWindow != 1 || g.Acked != 2 || g.Publish.TotalCount() != 1 || g.ScheduleLag.TotalCount() != 1 {
		t.Errorf("acked %d in window %d publish %d schedule lag %d, want 2, 1, 1, 1", g.Acked, g.AckedWindow, g.Publish.TotalCount(), g.ScheduleLag.TotalCount())
	}
	// hold counts every record, in the window or not.
	if g.Hold.TotalCount() != 2 {
		t.Errorf("hold count %d, want 2 (all records)", g.Hold.TotalCount())
	}
	// A completion exactly at the window's end is outside it ([Start, End)).
	r2 := NewRecorder(NewClock(), 1, NewLedger(1, 2), NewSeries(t0, 10))
	r2.SetWindow(w)
	m2 := r2.MemberRecorder()
	m2.RecordCompletion(Stamp{Run: 1, Seq: 0, Intended: w.Start}, w.Start, w.End, false)
	m2.RecordCompletion(Stamp{Run: 1, Seq: 1, Intended: w.End}, w.Start, w.Start, false)
	if g := r2.Merge(); g.CompletedInWindow != 1 || g.Completion.TotalCount() != 1 {
		t.Errorf("edges: completed in window %d completion count %d, want 1 and 1", g.CompletedInWindow, g.Completion.TotalCount())
	}
}

// Every latency formula on one record whose times are all different:
// intended 0, sent 3, broker append 7, acked 12, delivered 20, completed 50
// (ms): delivery 20−0, queue 20−7, hold 50−20, completion 50−0, publish
// 12−3, schedule lag 3−0.
func TestLatencyFormulas(t *testing.T) {
	t0 := int64(1_000_000_000_000)
	r := NewRecorder(NewClock(), 1, NewLedger(1, 1), NewSeries(t0, 5))
	r.SetWindow(Window{Start: t0, End: t0 + 1000*ms})
	p, m := r.ProducerRecorder(), r.MemberRecorder()
	st := Stamp{Run: 1, Seq: 0, Intended: t0, Sent: t0 + 3*ms}
	p.RecordAck(st, t0+12*ms)
	m.RecordDelivery(st, 1, t0+7*ms, t0+20*ms)
	m.RecordCompletion(st, t0+20*ms, t0+50*ms, false)
	g := r.Merge()
	for _, c := range []struct {
		name string
		got  Percentiles
		want float64
	}{
		{"delivery", SummarizeMillis(g.Delivery), 20},
		{"queue", SummarizeMillis(g.Queue), 13},
		{"hold", SummarizeMillis(g.Hold), 30},
		{"completion", SummarizeMillis(g.Completion), 50},
		{"publish", SummarizeMillis(g.Publish), 9},
		{"schedule lag", SummarizeMillis(g.ScheduleLag), 3},
	} {
		if c.got.Count != 1 {
			t.Errorf("%s count %d", c.name, c.got.Count)
		}
		near(t, c.name, c.got.Max, c.want)
	}
}

// p50, p90, p99, p99.9, p99.99 and max each read a different value: 100,000
// records, value k ms for the records ranked in the k-th slice.
func TestPercentilesEachDistinct(t *testing.T) {
	h := NewLatencyHistogram()
	add := func(n int, msv int64) {
		for range n {
			RecordNanos(h, msv*ms)
		}
	}
	add(50000, 1) // up to p50
	add(40000, 2) // p50..p90
	add(9000, 3)  // p90..p99
	add(900, 4)   // p99..p99.9
	add(90, 5)    // p99.9..p99.99
	add(9, 6)     // p99.99..
	add(1, 7)     // max
	p := SummarizeMillis(h)
	near(t, "p50", p.P50, 1)
	near(t, "p90", p.P90, 2)
	near(t, "p99", p.P99, 3)
	near(t, "p99.9", p.P999, 4)
	near(t, "p99.99", p.P9999, 5)
	near(t, "max", p.Max, 7)
	near(t, "mean", p.Mean, (50000*1+40000*2+9000*3+900*4+90*5+9*6+7)/100000.0)
	if p.Count != 100000 {
		t.Errorf("count %d", p.Count)
	}
	if (SummarizeMillis(NewLatencyHistogram()) != Percentiles{}) {
		t.Error("empty histogram: want zero percentiles")
	}
}

// Counters with non-zero values, each different, on two members: every
// counter must land in its own field and in per-member order.
func TestCountersNonZero(t *testing.T) {
	t0 := int64(1_000_000_000_000)
	series := NewSeries(t0, 5)
	r := NewRecorder(NewClock(), 1, NewLedger(2, 100), series)
	r.SetWindow(Window{Start: t0, End: t0 + 4000*ms})
	p0, p1 := r.ProducerRecorder(), r.ProducerRecorder()
	a, b := r.MemberRecorder(), r.MemberRecorder()
	for i := range 3 {
		p0.RecordFailure()
		if i < 2 {
			p1.RecordFailure()
		}
	}
	p0.Sent.Add(9)
	st := func(seq int) Stamp { return Stamp{Run: 1, Producer: 0, Seq: uint64(seq), Intended: t0} }
	for i := range 7 {
		p0.RecordAck(st(i), t0+ms)
	}
	a.AckErrors.Add(4)
	b.AckErrors.Add(1)
	a.PollErrors.Add(2)
	a.Renewals.Add(6)
	a.RecordPoll(3, t0)
	a.RecordPoll(0, t0)
	a.RecordPoll(4, t0)
	b.RecordPoll(1, t0)
	// a: records 0-3 delivered; 0 and 1 completed (1 after its lock
	// expired); 1 completed twice (a duplicate); 2 redelivered (count 3)
	// and released; 3 rejected. b: records 4-6, delivery count 2, completed.
	for i := range 4 {
		a.RecordDelivery(st(i), 1, t0, t0+ms)
	}
	a.RecordCompletion(st(0), t0+ms, t0+2*ms, false)
	a.RecordCompletion(st(1), t0+ms, t0+2*ms, true)
	a.RecordCompletion(st(1), t0+ms, t0+3*ms, true)
	a.RecordDelivery(st(2), 3, t0, t0+ms)
	a.RecordRelease(st(2), t0+ms, false)
	a.RecordReject(st(3), t0+ms)
	a.RecordRetry(t0 + ms)
	// destination writes: a 2 ok + 1 failed, b 3 ok.
	a.RecordDestinationWrite(2*ms, ms, false)
	a.RecordDestinationWrite(4*ms, 2*ms, false)
	a.RecordDestinationWrite(9*ms, 5*ms, true)
	for i := 4; i < 7; i++ {
		b.RecordDestinationWrite(ms, ms/2, false)
		b.RecordDelivery(st(i), 2, t0, t0+ms)
		b.RecordCompletion(st(i), t0+ms, t0+2*ms, false)
	}
	g := r.Merge()
	want := map[string][2]int64{
		"ProduceFailed": {g.ProduceFailed, 5}, "Sent": {g.Sent, 9}, "Acked": {g.Acked, 7},
		"AckErrors": {g.AckErrors, 5}, "PollErrors": {g.PollErrors, 2}, "Renewals": {g.Renewals, 6},
		"Polls": {g.Polls, 4}, "EmptyPolls": {g.EmptyPolls, 1},
		"Delivered": {g.Delivered, 8}, "Completed": {g.Completed, 6}, "CompletedInWindow": {g.CompletedInWindow, 6},
		"LockExpired": {g.LockExpired, 2}, "LockExpiredInWindow": {g.LockExpiredInWindow, 2}, "Duplicates": {g.Duplicates, 1},
		"Redelivered": {g.Redelivered, 4}, "Released": {g.Released, 1}, "Rejected": {g.Rejected, 1}, "Retried": {g.Retried, 1},
		"DestinationWrites": {g.DestinationWrites, 5}, "DestinationWriteErrors": {g.DestinationWriteErrors, 1},
		"DestinationWriteNanos": {g.DestinationWriteNanos, (2 + 4 + 9 + 3) * ms}, "DestinationConnNanos": {g.DestinationConnNanos, 3*ms + 3*ms/2},
		"DestinationWrite count": {g.DestinationWrite.TotalCount(), 6}, "DestinationWrite max µs": {g.DestinationWrite.Max() / 1000 * 1000, 9000},
		"DeliveryCounts[0]": {g.DeliveryCounts[0], 4}, "DeliveryCounts[1]": {g.DeliveryCounts[1], 3}, "DeliveryCounts[2]": {g.DeliveryCounts[2], 1},
	}
	for name, v := range want {
		if v[0] != v[1] {
			t.Errorf("%s = %d, want %d", name, v[0], v[1])
		}
	}
	if len(g.PerMember) != 2 || g.PerMember[0] != 3 || g.PerMember[1] != 3 {
		t.Errorf("per member %v, want [3 3]", g.PerMember)
	}
	// records per non-empty poll: 3, 4, 1 → mean 8/3.
	if g.PollSize.TotalCount() != 3 || g.PollSize.Max() != 4 || g.PollSize.Min() != 1 {
		t.Errorf("poll sizes count %d min %d max %d", g.PollSize.TotalCount(), g.PollSize.Min(), g.PollSize.Max())
	}
	near(t, "records per poll", g.PollSize.Mean(), 8.0/3)
	// The series columns see the same events.
	for c, want := range map[Counter]int64{Produced: 7, Delivered: 8, Completed: 6, Redelivered: 5, Released: 1, Rejected: 1, LockExpired: 2} {
		if got := series.Total(c, 0, series.Len()); got != want {
			t.Errorf("series %s = %d, want %d", c, got, want)
		}
	}
	lc := r.Counts()
	if lc.Acked != 7 || lc.Delivered != 8 || lc.Completed != 6 || lc.Redelivered != 4 || lc.Released != 1 || lc.Rejected != 1 || lc.InFlight() != 0 {
		t.Errorf("live counts %+v in flight %d", lc, lc.InFlight())
	}
	// A delivery count beyond the slots lands in the last one; a consumer
	// group's second delivery (count 0) is a redelivery.
	c := r.MemberRecorder()
	c.RecordDelivery(st(10), 42, t0, t0)
	c.RecordDelivery(st(11), 0, t0, t0)
	c.RecordDelivery(st(11), 0, t0, t0)
	g = r.Merge()
	if g.DeliveryCounts[9] != 1 || g.Redelivered != 6 {
		t.Errorf("last slot %d redelivered %d, want 1 and 6", g.DeliveryCounts[9], g.Redelivered)
	}
}
