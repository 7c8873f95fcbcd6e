package results

import (
	"sync"
	"testing"
)

// finish feeds processed records to a member shard: (producer, key, key
// sequence, partition, offset, intended ms).
type finished struct {
	prod         uint32
	key, kseq    uint64
	part         int32
	off          int64
	intendedMs   int64
	keyed, noOff bool
}

func orderOf(t *testing.T, members [][]finished) *OrderAudit {
	t.Helper()
	r := NewRecorder(NewClock(), 1, NewLedger(2, 100), NewSeries(0, 5))
	var wg sync.WaitGroup
	for _, recs := range members {
		s := r.MemberRecorder()
		wg.Add(1)
		go func() { // each member on its own goroutine, in its own order
			defer wg.Done()
			for _, f := range recs {
				off := f.off
				if f.noOff {
					off = -1
				}
				s.RecordProcessed(Stamp{Producer: f.prod, Intended: f.intendedMs * 1e6},
					OrderPoint{Keyed: f.keyed, Key: f.key, KeySeq: f.kseq, Partition: f.part, Offset: off})
			}
		}()
	}
	wg.Wait()
	return r.Merge().Order
}

func TestOrderInOrderIsClean(t *testing.T) {
	var recs []finished
	for i := range 50 {
		recs = append(recs, finished{keyed: true, key: uint64(i % 5), kseq: uint64(i / 5), part: int32(i % 5 % 2), off: int64(i), intendedMs: int64(i)})
	}
	o := orderOf(t, [][]finished{recs})
	if o == nil || !o.Keyed || o.Violations != 0 || o.Partition.Violations != 0 || o.Checked != 50 || o.Streams != 5 ||
		o.Partition.Streams != 2 || o.Affected != 0 || o.MaxDisplacementRecords != 0 {
		t.Fatalf("in-order run: %+v", o)
	}
}

func TestOrderKnownDisplacements(t *testing.T) {
	// Key 7 of producer 0: sequences finished 0, 3, 1, 2, 4 → 1 and 2 are
	// behind the front 3 by 2 and 1 records, and 30−10 = 20 ms at most.
	// Key 7 of producer 1 is its own stream: 0 after 5 is 5 behind, 50 ms.
	// Key 8: in order. Partition 0 (offsets): 0,1,2,3,4 in key-7 order
	// → offsets 10, 13, 11, 12, 14 → 2 violations, max 2 records.
	k := func(prod uint32, key, seq uint64, off int64, ms int64) finished {
		return finished{prod: prod, keyed: true, key: key, kseq: seq, off: off, intendedMs: ms}
	}
	o := orderOf(t, [][]finished{{
		k(0, 7, 0, 10, 0), k(0, 7, 3, 13, 30), k(0, 7, 1, 11, 10), k(0, 7, 2, 12, 20), k(0, 7, 4, 14, 40),
		{prod: 1, keyed: true, key: 7, kseq: 5, part: 1, off: 5, intendedMs: 55},
		{prod: 1, keyed: true, key: 7, kseq: 0, part: 1, off: 0, intendedMs: 5},
		{keyed: true, key: 8, kseq: 0, part: 2, off: 0}, {keyed: true, key: 8, kseq: 1, part: 2, off: 1, intendedMs: 1},
	}})
	if o.Violations != 3 || o.Streams != 3 || o.Affected != 2 || o.MaxDisplacementRecords != 5 || o.MaxDisplacementMs != 50 {
		t.Errorf("per key: %+v", o.OrderFigures)
	}
	if got := o.AffectedShare; got < 0.66 || got > 0.67 {
		t.Errorf("affected share %v, want 2/3", got)
	}
	p := o.Partition
	if p.Violations != 3 || p.Streams != 3 || p.Affected != 2 || p.MaxDisplacementRecords != 5 || p.MaxDisplacementMs != 50 {
		t.Errorf("per partition: %+v", p)
	}
}

func TestOrderAcrossMembers(t *testing.T) {
	// A share group: two members finish one key's records. Member A
	// finishes 0..9, member B (later in time: it runs after A here)
	// finishes 10..19 except it finishes 5 again last: a replay 14 behind
	// the front 19, 140 ms.
	var a, b []finished
	for i := range 10 {
		a = append(a, finished{keyed: true, key: 1, kseq: uint64(i), noOff: true, intendedMs: int64(i * 10)})
		b = append(b, finished{keyed: true, key: 1, kseq: uint64(10 + i), noOff: true, intendedMs: int64(100 + i*10)})
	}
	b = append(b, finished{keyed: true, key: 1, kseq: 5, noOff: true, intendedMs: 50})
	r := NewRecorder(NewClock(), 1, NewLedger(1, 100), NewSeries(0, 5))
	for _, recs := range [][]finished{a, b} {
		s := r.MemberRecorder()
		for _, f := range recs {
			s.RecordProcessed(Stamp{Intended: f.intendedMs * 1e6}, OrderPoint{Keyed: true, Key: f.key, KeySeq: f.kseq, Offset: -1})
		}
	}
	o := r.Order()
	if o.Violations != 1 || o.MaxDisplacementRecords != 14 || o.MaxDisplacementMs != 140 || o.Partition.Checked != 0 || o.AffectedShare != 1 {
		t.Fatalf("%+v", o)
	}
}

func TestOrderNothingChecked(t *testing.T) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, 1), NewSeries(0, 5))
	if o := r.Merge().Order; o != nil {
		t.Fatalf("no records: %+v", o)
	}
	if id, ok := KeyID(KeyBytes(12345)); !ok || id != 12345 {
		t.Fatal("key round trip")
	}
	if _, ok := KeyID([]byte("short")); ok {
		t.Fatal("a 5-byte key is not a key id")
	}
}

func BenchmarkRecordProcessed(b *testing.B) {
	r := NewRecorder(NewClock(), 1, NewLedger(1, 1), NewSeries(0, 5))
	b.RunParallel(func(pb *testing.PB) {
		s := r.MemberRecorder()
		var i uint64
		for pb.Next() {
			i++
			s.RecordProcessed(Stamp{Intended: int64(i)}, OrderPoint{Keyed: true, Key: i % 1000, KeySeq: i, Partition: int32(i % 8), Offset: int64(i)})
		}
	})
}
