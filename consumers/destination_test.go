package consumers

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

// fakeWriter is a destination that remembers what was written and fails
// every failEvery-th write (0: never).
type fakeWriter struct {
	mu        sync.Mutex
	calls     int
	failEvery int
	written   map[uint64]int // by sequence
	closed    bool
}

func (w *fakeWriter) Write(_ context.Context, r results.DestinationRecord) (time.Duration, error) {
	time.Sleep(time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	if w.failEvery > 0 && w.calls%w.failEvery == 0 {
		return 0, errors.New("destination down (test)")
	}
	w.written[r.Seq]++
	return 100 * time.Microsecond, nil
}

func (w *fakeWriter) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// On kfake (not Kafka): every completed record was written before it
// completed, failed writes are counted and their records handed back and
// completed later (never dropped), and the write times are in the
// histogram; both group types.
func TestDestinationWritesBeforeAcknowledgement(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  GroupType
		ack  AckMode
	}{{"consumer group", ConsumerGroup, AckImplicit}, {"share explicit", ShareGroup, AckExplicit}, {"share implicit", ShareGroup, AckImplicit}} {
		t.Run(c.name, func(t *testing.T) {
			const n = 60
			f := newFakeRun(t, 2, n, nil)
			f.c.Type, f.c.Ack, f.c.Members, f.c.Workers, f.c.MaxPollRecords = c.typ, c.ack, 2, 2, 5
			var writers []*fakeWriter
			var mu sync.Mutex
			f.c.Destination = func(context.Context) (RecordWriter, error) {
				w := &fakeWriter{failEvery: 7, written: map[uint64]int{}}
				mu.Lock()
				writers = append(writers, w)
				mu.Unlock()
				return w, nil
			}
			m := f.run(t, 300*time.Millisecond, 20*time.Second)
			written := map[uint64]int{}
			var calls int
			for _, w := range writers {
				if !w.closed {
					t.Error("a member's writer was not closed")
				}
				calls += w.calls
				for s, k := range w.written {
					written[s] += k
				}
			}
			a := f.rec.Ledger.Audit()
			if a.CompletedOnce+a.Duplicates != n {
				t.Fatalf("completed %d of %d", a.CompletedOnce+a.Duplicates, n)
			}
			for s := range uint64(n) {
				if written[s] == 0 {
					t.Errorf("record %d completed, never written", s)
				}
			}
			if m.DestinationWriteErrors == 0 || m.DestinationWriteErrors+m.DestinationWrites != int64(calls) {
				t.Errorf("write errors %d + writes %d, want > 0 and %d calls", m.DestinationWriteErrors, m.DestinationWrites, calls)
			}
			if m.DestinationWrite.TotalCount() != int64(calls) || m.DestinationWrite.Min() < 900 {
				t.Errorf("write histogram: %d values, min %d µs; want %d, ≥ 1 ms", m.DestinationWrite.TotalCount(), m.DestinationWrite.Min(), calls)
			}
			// A failed write is retried: at least one more write than
			// records, and the hold time includes the 1 ms write.
			if m.DestinationConnNanos != m.DestinationWrites*int64(100*time.Microsecond) {
				t.Errorf("connection time %d ns for %d writes of 100 µs", m.DestinationConnNanos, m.DestinationWrites)
			}
			if m.DestinationWrites < n {
				t.Errorf("writes %d < %d records", m.DestinationWrites, n)
			}
			if m.Hold.Min() < 900 {
				t.Errorf("hold min %d µs, want ≥ the 1 ms write", m.Hold.Min())
			}
		})
	}
}
