package results

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Window is the measurement window of a run in Clock nanoseconds: records
// whose intended send time falls in [Start, End) are measured; completions
// in [Start, End) make the throughput.
type Window struct {
	Start, End int64
}

// Contains reports whether ns lies in the window.
func (w Window) Contains(ns int64) bool { return ns >= w.Start && ns < w.End }

// Seconds is the window's length.
func (w Window) Seconds() float64 { return float64(w.End-w.Start) / 1e9 }

// Recorder gathers everything one run measures. Producers and consumer
// members each take their own part (ProducerRecorder, MemberRecorder) so the
// hot path contends only with itself; the parts merge when the run ends.
type Recorder struct {
	Clock  *Clock
	Run    uint64 // RunTag stamped into this run's records
	window atomic.Pointer[Window]
	// clientClock is the Java runner's clock alignment (client.go).
	clientClock atomic.Pointer[ClientClock]
	Ledger      *Ledger
	Series      *Series

	mu        sync.Mutex
	producers []*ProducerRecorder
	members   []*MemberRecorder
	// stripes hold the members' histograms: member i records into stripe
	// i mod MemberStripes() (memberStripe).
	stripes []*memberStripe
	pauses  []RebalancePause
	// openPauses are pauses no assignment has ended yet, by partition, and
	// assignments every partition assignment, in order (OpenPause).
	openPauses  map[int32]RebalancePause
	assignments []PartitionAssigned

	// Interval logs (.hlog) of the whole run, one-second intervals.
	completionLog, publishLog *IntervalLog

	order orderTracker // order per key and partition (order.go)

	absorbed absorbedState // shard exports absorbed (absorb.go)

	// clientSettings are the consumer client's resolved settings (client.go).
	clientSettings atomic.Pointer[ClientSettings]
}

// NewRecorder prepares a recorder; series covers the run's maximum length.
// The measurement window starts empty: SetWindow fixes it once the group is
// ready and the schedule's start is known.
func NewRecorder(clock *Clock, run uint64, ledger *Ledger, series *Series) *Recorder {
	r := &Recorder{Clock: clock, Run: run, Ledger: ledger, Series: series,
		completionLog: NewIntervalLog("completion", series.start),
		publishLog:    NewIntervalLog("publish", series.start)}
	r.window.Store(&Window{})
	return r
}

// SetWindow fixes the measurement window.
func (r *Recorder) SetWindow(w Window) { r.window.Store(&w) }

// Window returns the measurement window.
func (r *Recorder) Window() Window { return *r.window.Load() }

func (r *Recorder) inWindow(ns int64) bool { return r.window.Load().Contains(ns) }

// ProducerRecorder records one producer's sends: its part of the Recorder,
// so producers contend only with themselves.
type ProducerRecorder struct {
	r  *Recorder
	mu sync.Mutex
	h  ProducerHistograms // nil histograms: absorbed (they are in r.absorbed)
	// publishLog is publish.hlog's writer, every ack of the run.
	publishLog *IntervalWriter
	ProducerCounts[atomic.Int64]
}

// ProducerRecorder returns a new recorder for one producer.
func (r *Recorder) ProducerRecorder() *ProducerRecorder {
	s := &ProducerRecorder{r: r, h: newHistograms[ProducerHistograms](), publishLog: r.publishLog.Writer()}
	r.mu.Lock()
	r.producers = append(r.producers, s)
	r.mu.Unlock()
	return s
}

// Acked records a produce acknowledged by the broker at ackNs.
func (s *ProducerRecorder) RecordAck(st Stamp, ackNs int64) {
	s.Acked.Add(1)
	s.r.Ledger.Produced(st.Producer, st.Seq)
	s.r.Series.Add(Produced, ackNs, 1)
	in := s.r.inWindow(st.Intended)
	if in {
		s.AckedWindow.Add(1)
	}
	s.mu.Lock()
	s.publishLog.Record(ackNs, ackNs-st.Sent)
	if in {
		RecordNanos(s.h.Publish, ackNs-st.Sent)
		RecordNanos(s.h.ScheduleLag, st.Sent-st.Intended)
	}
	s.mu.Unlock()
}

// RecordFailure counts a produce the client gave up on.
func (s *ProducerRecorder) RecordFailure() { s.ProduceFailed.Add(1) }

// MemberRecorder records one consumer member's deliveries and completions:
// its part of the Recorder, as ProducerRecorder. Its counters are its own;
// its histograms are those of its stripe, shared with the members
// MemberStripes() apart (issue 27: a member's own five latency histograms
// were about 1 MB, most of the harness's memory at 1,000 members, and no
// figure reads one member's histograms: every report merges them).
type MemberRecorder struct {
	r      *Recorder
	stripe *memberStripe
	// owner: the first member on its stripe, which carries the stripe's
	// histograms in a shard export (the others carry empty ones).
	owner bool
	MemberCounts[atomic.Int64]

	// firstDelivery and lastFinish are this member's earliest delivery and
	// latest completion or archive, Clock ns (0: none yet); Recorder.Span
	// combines them.
	firstDelivery, lastFinish atomic.Int64
	// lastPoll is when this member's latest non-empty poll returned, Clock
	// ns (0: none yet): RecordPoll measures a poll gap when the member
	// finished records after it.
	lastPoll atomic.Int64
	life     memberLife
}

// Span returns the earliest delivery and the latest finish (completion or
// archive) of the run so far, Clock ns; ok is false before any record was
// both delivered and finished. A backlog run's drain is this span.
func (r *Recorder) Span() (first, last int64, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.members {
		if f := s.firstDelivery.Load(); f != 0 && (first == 0 || f < first) {
			first = f
		}
		last = max(last, s.lastFinish.Load())
	}
	return first, last, first != 0 && last != 0
}

// storeMin lowers v to ns (0 counts as unset); storeMax raises it.
func storeMin(v *atomic.Int64, ns int64) {
	for {
		cur := v.Load()
		if cur != 0 && cur <= ns || v.CompareAndSwap(cur, ns) {
			return
		}
	}
}

func storeMax(v *atomic.Int64, ns int64) {
	for {
		cur := v.Load()
		if cur >= ns || v.CompareAndSwap(cur, ns) {
			return
		}
	}
}

// memberStripe is the histograms a few members record into: the members'
// part of the run's histograms, merged with the others when the run ends.
// Its lock is taken per record, as a member's own was: members on one
// stripe contend as the workers of one member do.
type memberStripe struct {
	mu sync.Mutex
	h  MemberHistograms
	// completionLog is completion.hlog's writer, every completion of the run.
	completionLog *IntervalWriter
}

// MemberStripes is how many histogram stripes a recorder gives its members:
// two per CPU the Go scheduler uses (so members recording at the same
// moment rarely share one), at least 8 and at most 64. A run's members
// hold min(members, MemberStripes()) sets of histograms, whatever their number.
func MemberStripes() int { return min(64, max(8, 2*runtime.GOMAXPROCS(0))) }

// MemberRecorder returns a new recorder for one consumer member.
func (r *Recorder) MemberRecorder() *MemberRecorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &MemberRecorder{r: r}
	if i := len(r.members) % MemberStripes(); i < len(r.stripes) {
		s.stripe = r.stripes[i]
	} else {
		s.stripe = &memberStripe{h: newHistograms[MemberHistograms](), completionLog: r.completionLog.Writer()}
		s.owner = true
		r.stripes = append(r.stripes, s.stripe)
	}
	r.members = append(r.members, s)
	return s
}

// RecordPoll counts one poll that returned n records at nowNs. A
// non-empty poll after the member finished records since its previous
// non-empty poll ends a poll gap, recorded from the latest of those
// finishes: in blocking style the time between a batch's last completion
// and the next batch, when the member's workers (and their destination
// connections) wait.
func (s *MemberRecorder) RecordPoll(n int, nowNs int64) {
	s.Polls.Add(1)
	s.Polled.Add(int64(n))
	if n == 0 {
		s.EmptyPolls.Add(1)
		return
	}
	prev := s.lastPoll.Swap(nowNs)
	finish := s.lastFinish.Load()
	st := s.stripe
	st.mu.Lock()
	_ = st.h.PollSize.RecordValue(int64(n))
	if prev != 0 && finish > prev && nowNs >= finish {
		RecordNanos(st.h.PollGap, nowNs-finish)
	}
	st.mu.Unlock()
}

// RecordDelivery records a record handed to a worker at nowNs. deliveryCount
// is the broker's count for share groups (1 on first delivery) and 0 for
// consumer groups; appendNs is the broker's log-append time.
func (s *MemberRecorder) RecordDelivery(st Stamp, deliveryCount int32, appendNs, nowNs int64) {
	s.Delivered.Add(1)
	storeMin(&s.firstDelivery, nowNs)
	s.life.noteDelivery(nowNs)
	again := s.r.Ledger.Delivered(st.Producer, st.Seq)
	s.r.Series.Add(Delivered, nowNs, 1)
	if deliveryCount > 1 || (deliveryCount == 0 && again) {
		s.Redelivered.Add(1)
		s.r.Series.Add(Redelivered, nowNs, 1)
	}
	if deliveryCount > 0 {
		s.DeliveryCounts[min(int(deliveryCount), len(s.DeliveryCounts))-1].Add(1)
	}
	if !s.r.inWindow(st.Intended) {
		return
	}
	sp := s.stripe
	sp.mu.Lock()
	RecordNanos(sp.h.Delivery, nowNs-st.Intended)
	RecordNanos(sp.h.Queue, nowNs-appendNs)
	sp.mu.Unlock()
}

// RecordCompletion records a record processed and accepted (share) or
// committed-eligible (consumer group) at nowNs, handed to its worker at
// deliveredNs. lockExpired says the completion came after the record's
// acquisition deadline.
func (s *MemberRecorder) RecordCompletion(st Stamp, deliveredNs, nowNs int64, lockExpired bool) {
	b := s.BeginCompletions(nowNs)
	b.Add(st, deliveredNs, lockExpired)
	b.End()
}

// Completions records a batch of completions at one instant, as
// RecordCompletion does one by one: the member's counters, the run's time
// series and the stripe's lock are taken once per batch instead of once per
// record (issue 27.2). BeginCompletions takes the stripe's lock and End
// releases it: nothing between them may record into the member.
type Completions struct {
	s          *MemberRecorder
	now        int64
	n, expired int64
}

// BeginCompletions starts a batch of completions at nowNs.
func (s *MemberRecorder) BeginCompletions(nowNs int64) Completions {
	s.stripe.mu.Lock()
	return Completions{s: s, now: nowNs}
}

// Add records one completion of the batch: the record handed to its worker
// at deliveredNs, completed after its acquisition deadline if lockExpired.
func (b *Completions) Add(st Stamp, deliveredNs int64, lockExpired bool) {
	s := b.s
	if s.r.Ledger.Completed(st.Producer, st.Seq) {
		s.Duplicates.Add(1)
	}
	b.n++
	if lockExpired {
		b.expired++
	}
	sp := s.stripe
	sp.completionLog.Record(b.now, b.now-st.Intended)
	RecordNanos(sp.h.Hold, b.now-deliveredNs)
	if s.r.inWindow(st.Intended) {
		RecordNanos(sp.h.Completion, b.now-st.Intended)
	}
}

// End releases the stripe and adds the batch's counts.
func (b *Completions) End() {
	s := b.s
	s.stripe.mu.Unlock()
	if b.n == 0 {
		return
	}
	s.Completed.Add(b.n)
	storeMax(&s.lastFinish, b.now)
	s.r.Series.Add(Completed, b.now, b.n)
	if b.expired > 0 {
		s.LockExpired.Add(b.expired)
		s.r.Series.Add(LockExpired, b.now, b.expired)
	}
	if s.r.inWindow(b.now) {
		s.CompletedInWindow.Add(b.n)
		s.LockExpiredInWindow.Add(b.expired)
	}
}

// RecordDestinationWrite records one record's write to the destination,
// which took d nanoseconds (the wait for a connection and a batch
// included), of which conn was the record's share of its statement's time
// on a connection; failed says it failed. Every write counts, in and out
// of the window: the destination's capacity is read from all.
func (s *MemberRecorder) RecordDestinationWrite(d, conn int64, failed bool) {
	if failed {
		s.DestinationWriteErrors.Add(1)
	} else {
		s.DestinationWrites.Add(1)
		s.DestinationConnNanos.Add(conn)
	}
	s.DestinationWriteNanos.Add(d)
	sp := s.stripe
	sp.mu.Lock()
	RecordNanos(sp.h.DestinationWrite, d)
	sp.mu.Unlock()
}

// RecordRelease records a transient failure handed back to the broker
// (share RELEASE). archived says the broker will archive it instead of
// redelivering (the delivery count reached the limit).
func (s *MemberRecorder) RecordRelease(st Stamp, nowNs int64, archived bool) {
	s.Released.Add(1)
	s.r.Series.Add(Released, nowNs, 1)
	if archived {
		s.r.Ledger.Archived(st.Producer, st.Seq)
		storeMax(&s.lastFinish, nowNs)
	}
}

// RecordRetry counts a transient failure retried in place (consumer group).
func (s *MemberRecorder) RecordRetry(nowNs int64) {
	s.Retried.Add(1)
	s.r.Series.Add(Redelivered, nowNs, 1)
}

// RecordReject records a poison record: share REJECT, or a consumer-group
// dead letter that is skipped.
func (s *MemberRecorder) RecordReject(st Stamp, nowNs int64) {
	s.Rejected.Add(1)
	s.r.Ledger.Archived(st.Producer, st.Seq)
	storeMax(&s.lastFinish, nowNs)
	s.r.Series.Add(Rejected, nowNs, 1)
}

// Merged is the union of every producer's and member's recorder of a run.
type Merged struct {
	Snapshot          // every counter and histogram, summed
	PerMember []int64 // completions per member, in recorder order
	Members   []MemberTimes
	Pauses    []RebalancePause
	// IntervalLogs are the encoded .hlog files by name ("completion.hlog").
	IntervalLogs map[string][]byte
	// IntervalLogErr says why an interval log could not be encoded.
	IntervalLogErr error
	// Order is the order audit (order.go); nil when nothing was checked.
	Order *OrderAudit
}

// Merge folds every producer's and member's recorder together.
func (r *Recorder) Merge() Merged {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := Merged{Snapshot: NewSnapshot()}
	var publishPieces, completionPieces []*intervalPiece
	for _, p := range r.producers {
		p.mu.Lock()
		publishPieces = append(publishPieces, p.publishLog.piece())
		mergeHistograms(&m.ProducerHistograms, &p.h)
		p.mu.Unlock()
		loadCounts(&m.ProducerCounts, &p.ProducerCounts)
	}
	for _, st := range r.stripes {
		st.mu.Lock()
		completionPieces = append(completionPieces, st.completionLog.piece())
		mergeHistograms(&m.MemberHistograms, &st.h)
		st.mu.Unlock()
	}
	for _, s := range r.members {
		loadCounts(&m.MemberCounts, &s.MemberCounts)
		m.PerMember = append(m.PerMember, s.Completed.Load())
	}
	m.Snapshot.Merge(&r.absorbed.Snapshot)
	m.Members = r.memberTimes()
	m.Pauses = r.sortedPauses()
	m.Order = r.order.audit(r.absorbed.orderSources)
	m.IntervalLogs = map[string][]byte{}
	for _, l := range []struct {
		name   string
		log    *IntervalLog
		pieces []*intervalPiece
	}{{"completion.hlog", r.completionLog, completionPieces}, {"publish.hlog", r.publishLog, publishPieces}} {
		b, err := l.log.bytesWith(l.pieces)
		if err != nil {
			m.IntervalLogErr = err
			continue
		}
		m.IntervalLogs[l.name] = b
	}
	return m
}

// Counts returns the counters so far, summed over the producers' and
// members' recorders without touching the histograms: cheap enough to read
// on every metrics scrape. They equal Merge's once the run ends.
func (r *Recorder) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	var c Counts
	for _, p := range r.producers {
		loadCounts(&c.ProducerCounts, &p.ProducerCounts)
	}
	for _, s := range r.members {
		loadCounts(&c.MemberCounts, &s.MemberCounts)
	}
	addCounts(&c.ProducerCounts, &r.absorbed.ProducerCounts)
	addCounts(&c.MemberCounts, &r.absorbed.MemberCounts)
	return c
}
