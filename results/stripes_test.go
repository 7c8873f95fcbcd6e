package results

import (
	"testing"
)

// TestStripedMembersMergeAndExport: with three times MemberStripes()
// members, every record is in the merged histograms and the interval log,
// whether read from the recorder (Merge) or from its shard export absorbed
// by a coordinator; and each member keeps its own counters.
func TestStripedMembersMergeAndExport(t *testing.T) {
	const perMember = 7
	n := 3 * MemberStripes()
	r := NewRecorder(NewClock(), 1, NewLedger(1, uint64(n*perMember)), NewSeries(0, 10))
	r.SetWindow(Window{Start: 0, End: 1 << 62})
	ms := make([]*MemberRecorder, n)
	for i := range ms {
		ms[i] = r.MemberRecorder()
	}
	if len(r.stripes) != MemberStripes() {
		t.Fatalf("%d members made %d stripes, want %d", n, len(r.stripes), MemberStripes())
	}
	seq := uint64(0)
	for i, m := range ms {
		for k := range perMember {
			// Member i's latencies are i+1 ms, so the merged maximum says
			// the last member's records are in it.
			t0 := int64(k) * 1e9
			st := Stamp{Run: 1, Seq: seq, Intended: t0}
			seq++
			m.RecordPoll(1, 0)
			m.RecordDelivery(st, 1, t0, t0+int64(i+1)*1e6)
			m.RecordCompletion(st, t0+int64(i+1)*1e6, t0+int64(i+1)*1e6, false)
		}
	}
	check := func(how string, got Merged) {
		t.Helper()
		want := int64(n * perMember)
		for name, h := range map[string]int64{
			"delivery": got.Delivery.TotalCount(), "completion": got.Completion.TotalCount(),
			"queue": got.Queue.TotalCount(), "hold": got.Hold.TotalCount(), "poll size": got.PollSize.TotalCount(),
		} {
			if h != want {
				t.Errorf("%s: %s histogram holds %d records, want %d", how, name, h, want)
			}
		}
		if max := got.Completion.Max(); max < int64(n)*1000 || max > int64(n)*1001 {
			t.Errorf("%s: completion max %d µs, want the last member's %d ms", how, max, n)
		}
		if got.Completed != want {
			t.Errorf("%s: %d completed, want %d", how, got.Completed, want)
		}
		if len(got.IntervalLogs["completion.hlog"]) == 0 {
			t.Errorf("%s: no completion interval log", how)
		}
	}
	m := r.Merge()
	check("merge", m)
	for i, c := range m.PerMember {
		if c != perMember {
			t.Errorf("member %d: %d completions, want its own %d", i, c, perMember)
		}
	}
	coord := NewRecorder(NewClock(), 1, NewLedger(1, uint64(n*perMember)), NewSeries(0, 10))
	coord.SetWindow(Window{Start: 0, End: 1 << 62})
	e, err := r.Export()
	if err != nil {
		t.Fatal(err)
	}
	b, err := encodeExport(e)
	if err != nil {
		t.Fatal(err)
	}
	d, err := decodeExport(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := coord.Absorb(d); err != nil {
		t.Fatal(err)
	}
	check("export, absorbed", coord.Merge())
}
