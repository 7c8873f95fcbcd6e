package results

import (
	"sync"
	"testing"
)

func TestLedgerAuditClassifiesEveryRecordOnce(t *testing.T) {
	// 2 producers × 100 records. Producer 0: all produced; 0-59 completed
	// once, 60-69 completed twice, 70-79 archived, 80-89 delivered only,
	// 90-99 never delivered. Producer 1: 0-49 produced and completed.
	l := NewLedger(2, 100)
	for s := uint64(0); s < 100; s++ {
		l.Produced(0, s)
	}
	for s := uint64(0); s < 90; s++ {
		l.Delivered(0, s)
	}
	for s := uint64(0); s < 70; s++ {
		if l.Completed(0, s) {
			t.Fatalf("first completion of %d reported as duplicate", s)
		}
	}
	for s := uint64(60); s < 70; s++ {
		if !l.Completed(0, s) {
			t.Fatalf("second completion of %d not reported as duplicate", s)
		}
	}
	for s := uint64(70); s < 80; s++ {
		l.Archived(0, s)
	}
	for s := uint64(0); s < 50; s++ {
		l.Produced(1, s)
		l.Delivered(1, s)
		l.Completed(1, s)
	}
	got := l.Audit()
	want := Audit{Produced: 150, CompletedOnce: 60 + 50, Duplicates: 10, DuplicateCompletions: 10,
		Archived: 10, InFlight: 10, Lost: 10, Balanced: true}
	if got != want {
		t.Fatalf("audit\n got %+v\nwant %+v", got, want)
	}
}

func TestLedgerUnbalancedWhenAConsumedRecordWasNeverAcked(t *testing.T) {
	l := NewLedger(1, 10)
	l.Produced(0, 0)
	l.Completed(0, 0)
	l.Completed(0, 1) // consumed, but its produce was never acknowledged
	a := l.Audit()
	if a.Balanced || a.Unacknowledged != 1 {
		t.Fatalf("want unbalanced with 1 unacknowledged, got %+v", a)
	}
}

func TestLedgerUnbalancedOnDoubleProduceAck(t *testing.T) {
	l := NewLedger(1, 10)
	l.Produced(0, 3)
	l.Produced(0, 3)
	if a := l.Audit(); a.Balanced || a.Produced != 2 {
		t.Fatalf("a record acknowledged twice must unbalance the audit, got %+v", a)
	}
}

func TestLedgerOutOfBoundsIsForeign(t *testing.T) {
	l := NewLedger(1, 10)
	l.Completed(0, 10)
	l.Delivered(5, 0)
	l.Foreign()
	if a := l.Audit(); a.Foreign != 3 || a.Balanced {
		t.Fatalf("want 3 foreign and unbalanced, got %+v", a)
	}
}

func TestLedgerConcurrentMarks(t *testing.T) {
	const n = 10000
	l := NewLedger(4, n)
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := uint64(0); s < n; s++ {
				l.Produced(uint32(p), s)
				l.Delivered(uint32(p), s)
				l.Completed(uint32(p), s)
			}
		}()
	}
	wg.Wait()
	if a := l.Audit(); a.CompletedOnce != 4*n || !a.Balanced {
		t.Fatalf("got %+v", a)
	}
}

func TestLedgerUniqueCounts(t *testing.T) {
	l := NewLedger(3, 130)
	for _, seq := range []uint64{0, 63, 64, 129} {
		l.Produced(1, seq)
		l.Produced(1, seq) // twice: still one record
	}
	l.Produced(2, 5)
	l.Produced(3, 0)   // foreign: outside the ledger
	l.Completed(1, 0)  // completed
	l.Completed(1, 0)  // again: a duplicate, one record
	l.Completed(2, 5)  // completed
	l.Archived(1, 129) // archived, not completed
	l.Archived(2, 5)   // archived and completed: one finished record
	if got := l.ProducedUnique(); got != 5 {
		t.Errorf("produced unique %d, want 5", got)
	}
	if got := l.CompletedUnique(); got != 2 {
		t.Errorf("completed unique %d, want 2", got)
	}
	if got := l.FinishedUnique(); got != 3 {
		t.Errorf("finished unique %d, want 3", got)
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

func TestLedgerStillDeliverableSplitsNeverDelivered(t *testing.T) {
	// 1 producer × 200 records, all produced. 0-99 completed; 100-199
	// never delivered. The read-back found 150-199 still in the log past
	// the group's position (and 0-9, already completed, and one seq past
	// the ledger's bounds): 50 undelivered, 50 lost, nothing else moves.
	l := NewLedger(1, 200)
	for s := uint64(0); s < 200; s++ {
		l.Produced(0, s)
	}
	for s := uint64(0); s < 100; s++ {
		l.Delivered(0, s)
		l.Completed(0, s)
	}
	if a := l.Audit(); a.Lost != 100 || a.Undelivered != 0 {
		t.Fatalf("before the read-back: lost %d, undelivered %d, want 100 and 0 (no evidence, no undelivered)", a.Lost, a.Undelivered)
	}
	for s := uint64(150); s < 200; s++ {
		l.StillDeliverable(0, s)
	}
	for s := uint64(0); s < 10; s++ {
		l.StillDeliverable(0, s)
	}
	l.StillDeliverable(0, 500)
	l.StillDeliverable(3, 1)
	got := l.Audit()
	want := Audit{Produced: 200, CompletedOnce: 100, Lost: 50, Undelivered: 50, Balanced: true}
	if got != want {
		t.Fatalf("audit\n got %+v\nwant %+v", got, want)
	}
	if got.NeverDelivered() != 100 || got.Categorized() != 200 {
		t.Errorf("never delivered %d, classified %d, want 100 and 200", got.NeverDelivered(), got.Categorized())
	}
}
