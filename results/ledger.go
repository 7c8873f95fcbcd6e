package results

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// Ledger remembers, for every (producer, sequence) a run may produce, whether
// the broker acknowledged it, whether a consumer was handed it, whether it was
// completed (and how often) and whether it was archived. Four bits per
// record plus a sparse map of repeat completions keep a 100M-record run in
// about 50 MB. All marks are lock-free except repeat completions, which are
// rare by nature.
type Ledger struct {
	producers []producerLedger
	mu        sync.Mutex
	repeats   map[recordID]int // extra completions beyond the first
	foreign   atomic.Int64     // stamped records outside the ledger's bounds
	// producedAcks counts produce acknowledgements independently of the
	// bitsets, so the audit can check its own arithmetic.
	producedAcks atomic.Int64
	// elsewhereHits counts deliveries reported as again only because
	// another shard delivered the record (ledgerelsewhere.go).
	elsewhereHits atomic.Int64
}

type recordID struct {
	producer uint32
	seq      uint64
}

type producerLedger struct {
	capacity  uint64
	produced  bitset
	delivered bitset
	completed bitset
	archived  bitset
	// deliverable marks never-delivered records the read-back after the
	// drain found still deliverable (StillDeliverable); nil until the
	// first mark, so a run that drained needs no fifth bitset.
	deliverable bitset
	// elsewhere marks records another shard of a sharded run delivered
	// (ledgerelsewhere.go); nil unless TrackDeliveredElsewhere.
	elsewhere bitset
}

type bitset []atomic.Uint64

func newBitset(n uint64) bitset { return make(bitset, (n+63)/64) }

// set marks bit i and reports whether it was already set.
func (b bitset) set(i uint64) (was bool) {
	mask := uint64(1) << (i % 64)
	return b[i/64].Or(mask)&mask != 0
}

func (b bitset) get(i uint64) bool { return b[i/64].Load()&(uint64(1)<<(i%64)) != 0 }

// NewLedger sizes a ledger for producers that each send at most perProducer
// records.
func NewLedger(producers int, perProducer uint64) *Ledger {
	l := &Ledger{producers: make([]producerLedger, producers), repeats: map[recordID]int{}}
	for i := range l.producers {
		l.producers[i] = producerLedger{
			capacity:  perProducer,
			produced:  newBitset(perProducer),
			delivered: newBitset(perProducer),
			completed: newBitset(perProducer),
			archived:  newBitset(perProducer),
		}
	}
	return l
}

func (l *Ledger) slot(p uint32, seq uint64) *producerLedger {
	if int(p) >= len(l.producers) || seq >= l.producers[p].capacity {
		l.foreign.Add(1)
		return nil
	}
	return &l.producers[p]
}

// Foreign counts a consumed record that this run did not produce (another
// run's stamp, or none).
func (l *Ledger) Foreign() { l.foreign.Add(1) }

// Produced marks a record the broker acknowledged.
func (l *Ledger) Produced(p uint32, seq uint64) {
	if s := l.slot(p, seq); s != nil {
		l.producedAcks.Add(1)
		s.produced.set(seq)
	}
}

// Delivered marks a record handed to a worker; it reports whether the record
// had been delivered before (a redelivery as the harness saw it): here, or
// on another shard as far as the delivery exchange has said
// (TrackDeliveredElsewhere).
func (l *Ledger) Delivered(p uint32, seq uint64) (again bool) {
	s := l.slot(p, seq)
	if s == nil {
		return false
	}
	if s.delivered.set(seq) {
		return true
	}
	if s.elsewhere != nil && s.elsewhere.get(seq) {
		l.elsewhereHits.Add(1)
		return true
	}
	return false
}

// Completed marks a record processed and accepted/committed; it reports
// whether this is a repeat completion (a duplicate).
func (l *Ledger) Completed(p uint32, seq uint64) (duplicate bool) {
	s := l.slot(p, seq)
	if s == nil {
		return false
	}
	if !s.completed.set(seq) {
		return false
	}
	l.mu.Lock()
	l.repeats[recordID{p, seq}]++
	l.mu.Unlock()
	return true
}

// Archived marks a record rejected, dead-lettered or archived by the
// delivery-count limit.
func (l *Ledger) Archived(p uint32, seq uint64) {
	if s := l.slot(p, seq); s != nil {
		s.archived.set(seq)
	}
}

// StillDeliverable marks a record that Kafka could still deliver when the
// drain stopped: it was in the log at or past the group's delivery
// position (a consumer group's committed offset, a share group's
// share-partition start offset, and the log start offset). The audit
// counts a never-delivered record so marked as undelivered, every other
// never-delivered record as lost. Call it once the fleets have stopped.
func (l *Ledger) StillDeliverable(p uint32, seq uint64) {
	if int(p) >= len(l.producers) || seq >= l.producers[p].capacity {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &l.producers[p]
	if s.deliverable == nil {
		s.deliverable = newBitset(s.capacity)
	}
	s.deliverable.set(seq)
}

// Audit classifies every record the broker acknowledged exactly once.
type Audit struct {
	Produced      int64 `json:"produced"`       // produce acknowledgements received
	CompletedOnce int64 `json:"completed_once"` // completed exactly once
	Duplicates    int64 `json:"duplicates"`     // records completed more than once
	// DuplicateCompletions is the number of completions beyond the first,
	// summed over duplicated records.
	DuplicateCompletions int64 `json:"duplicate_completions"`
	Archived             int64 `json:"archived"`  // rejected / dead-lettered / delivery-limit, never completed
	InFlight             int64 `json:"in_flight"` // delivered, neither completed nor archived at the end
	// Lost are records never delivered that Kafka can no longer deliver:
	// deleted (retention, DeleteRecords) before delivery, or committed
	// past (consumer group) or moved past by the share-partition start
	// offset (share group) without being processed. Files written before
	// Undelivered existed count every never-delivered record here.
	Lost int64 `json:"lost"`
	// Undelivered are records never delivered that Kafka could still
	// deliver when the drain stopped (a drain that timed out): nothing
	// was lost, the run stopped first (StillDeliverable).
	Undelivered int64 `json:"undelivered"`
	// Unacknowledged counts records a consumer saw whose produce was never
	// acknowledged (a produce that timed out on the client yet reached the log).
	Unacknowledged int64 `json:"unacknowledged"`
	Foreign        int64 `json:"foreign"` // stamped records outside this run's bounds
	Balanced       bool  `json:"balanced"`
	// Order is the order audit (order.go): records finished out of produce
	// order per key and per partition. Set from Merged.Order; absent when
	// nothing was checked.
	Order           *OrderAudit `json:"order,omitempty"`
	DeadLetterAudit             // the DLQ read back (deadletter.go); absent without a dead_letter: block
}

// Audit walks the ledger. Call it once the run's fleets have stopped.
func (l *Ledger) Audit() Audit {
	var a Audit
	l.mu.Lock()
	defer l.mu.Unlock()
	for pi := range l.producers {
		s := &l.producers[pi]
		for w := range s.produced {
			prod := s.produced[w].Load()
			done := s.completed[w].Load()
			arch := s.archived[w].Load()
			dlv := s.delivered[w].Load()
			a.CompletedOnce += int64(bits.OnesCount64(prod & done))
			a.Archived += int64(bits.OnesCount64(prod &^ done & arch))
			a.InFlight += int64(bits.OnesCount64(prod &^ done &^ arch & dlv))
			never := prod &^ done &^ arch &^ dlv
			if s.deliverable != nil {
				a.Undelivered += int64(bits.OnesCount64(never & s.deliverable[w].Load()))
				never &^= s.deliverable[w].Load()
			}
			a.Lost += int64(bits.OnesCount64(never))
			a.Unacknowledged += int64(bits.OnesCount64((done | arch | dlv) &^ prod))
		}
	}
	for id, extra := range l.repeats {
		if l.producers[id.producer].produced.get(id.seq) {
			a.Duplicates++
			a.CompletedOnce--
			a.DuplicateCompletions += int64(extra)
		}
	}
	a.Produced = l.producedAcks.Load()
	a.Foreign = l.foreign.Load()
	a.Balanced = a.Balances()
	return a
}

// Categorized is the sum of the categories every produced record is put in
// exactly once: completed once, duplicates, archived, in flight, lost and
// undelivered; a balanced audit's equals Produced.
func (a Audit) Categorized() int64 {
	return a.CompletedOnce + a.Duplicates + a.Archived + a.InFlight + a.Lost + a.Undelivered
}

// Balances recomputes Balanced from the counts: the categories add up to
// produced and no consumed record was unacknowledged or foreign
// (docs/explanation/measurement.md#audit).
func (a Audit) Balances() bool {
	return a.Categorized() == a.Produced && a.Unacknowledged == 0 && a.Foreign == 0
}

// NeverDelivered counts the records the broker acknowledged that no
// consumer was handed (lost + undelivered).
func (a Audit) NeverDelivered() int64 { return a.Lost + a.Undelivered }

// ProducedUnique, CompletedUnique and FinishedUnique count the records
// marked produced, completed, and completed or archived: each record once,
// however often it was marked. They walk the bitsets (one atomic load per
// 64 records of the ledger's capacity, about 0.2 ms for 10M records) and
// take no lock, so they suit a progress poll (a sharded run's agents report
// them while draining), not the per-record path.
func (l *Ledger) ProducedUnique() int64 {
	return l.popcount(func(s *producerLedger, w int) uint64 { return s.produced[w].Load() })
}

// CompletedUnique: see ProducedUnique.
func (l *Ledger) CompletedUnique() int64 {
	return l.popcount(func(s *producerLedger, w int) uint64 { return s.completed[w].Load() })
}

// FinishedUnique: see ProducedUnique.
func (l *Ledger) FinishedUnique() int64 {
	return l.popcount(func(s *producerLedger, w int) uint64 { return s.completed[w].Load() | s.archived[w].Load() })
}

func (l *Ledger) popcount(word func(*producerLedger, int) uint64) int64 {
	var n int64
	for pi := range l.producers {
		s := &l.producers[pi]
		for w := range s.produced {
			n += int64(bits.OnesCount64(word(s, w)))
		}
	}
	return n
}
