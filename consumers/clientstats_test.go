package consumers

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/results"
)

// A record's buffered time is its hand-over less the buffering of its
// response's span (the response and partition it came in), whatever order
// the hand-overs come in; a foreign record is handed over untimed, and the
// spans of a partition the member lost are forgotten.
func TestFetchWatchTimesRecordsByResponse(t *testing.T) {
	const gap = 50 * time.Millisecond // between the two responses, at least
	clock := results.NewClock()
	w := newFetchWatch(clock, nil)
	rec := func(p int32, off int64) *kgo.Record { return &kgo.Record{Topic: "t", Partition: p, Offset: off} }
	response := func(recs ...*kgo.Record) {
		w.OnBrokerE2E(kgo.BrokerMetadata{NodeID: 1}, int16(kmsg.Fetch), kgo.BrokerE2E{})
		for _, r := range recs {
			w.OnFetchRecordBuffered(r)
		}
	}
	first := []*kgo.Record{rec(0, 0), rec(0, 1), rec(0, 2), rec(1, 0), rec(1, 1)}
	response(first...)
	time.Sleep(gap)
	t2 := clock.Now()
	// The second response: partition 0 again (offset 1 redelivered, as a
	// share group does after a release), and partition 2.
	second := []*kgo.Record{rec(0, 1), rec(0, 3), rec(0, 4), rec(2, 0), rec(2, 1)}
	response(second...)

	// HDR buckets at 3 significant digits are about 1 ms wide at 1 s.
	const later = int64(time.Second)
	hand := t2 + later
	// Out of order: the second response's offset 3 before the first's.
	w.handed(second[1], hand)
	for _, r := range first {
		if r.Partition == 1 && r.Offset == 1 {
			w.handed(r, -1) // foreign: handed over, not timed
			continue
		}
		w.handed(r, hand)
	}
	w.handed(second[0], hand) // the redelivered offset 1: the second response's
	w.handed(second[2], hand)
	w.forget([]int32{2}) // partition 2 lost before its records were polled
	w.handed(second[3], hand)
	w.handed(second[4], hand)

	var old, recent int64
	for _, bar := range w.st.stats.Buffered.Distribution() {
		switch {
		case bar.Count == 0:
		case bar.From >= (later+int64(gap))/1000-2000:
			old += bar.Count
		case bar.To <= later/1000+2000:
			recent += bar.Count
		default:
			t.Errorf("%d readings in [%d, %d] µs: want about %d µs (first response) or %d µs (second)",
				bar.Count, bar.From, bar.To, (later+int64(gap))/1000, later/1000)
		}
	}
	if old != 4 || recent != 3 {
		t.Errorf("timed %d records of the first response and %d of the second, want 4 (one foreign) and 3 (partition 2 forgotten)", old, recent)
	}
	for p, ps := range w.spans {
		if len(ps.q) != 0 {
			t.Errorf("partition %d: %d spans left after every record was handed over: %+v", p, len(ps.q), ps.q)
		}
	}
}

// A partition's spans stay bounded when the client drops records that are
// never handed over and nothing forgets them.
func TestFetchWatchBoundsSpans(t *testing.T) {
	w := newFetchWatch(results.NewClock(), nil)
	for i := range 3 * maxSpans {
		w.OnBrokerE2E(kgo.BrokerMetadata{NodeID: 1}, int16(kmsg.Fetch), kgo.BrokerE2E{})
		w.OnFetchRecordBuffered(&kgo.Record{Partition: 0, Offset: int64(i)})
	}
	if n := len(w.spans[0].q); n != maxSpans {
		t.Errorf("%d spans kept, want %d", n, maxSpans)
	}
	w.handed(&kgo.Record{Partition: 0, Offset: 3*maxSpans - 1}, w.clock.Now())
	if n := w.st.stats.Buffered.TotalCount(); n != 1 {
		t.Errorf("%d readings, want the newest record's 1", n)
	}
}
