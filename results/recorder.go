package results

import (
	"sync"
	"sync/atomic"

	"github.com/HdrHistogram/hdrhistogram-go"
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
// members each take their own shard (ProducerShard, MemberShard) so the hot
// path contends only with itself; shards merge when the run ends.
type Recorder struct {
	Clock  *Clock
	Run    uint64 // RunTag stamped into this run's records
	window atomic.Pointer[Window]
	// clientClock is the Java runner's clock alignment (client.go).
	clientClock atomic.Pointer[ClientClock]
	Ledger      *Ledger
	Series      *Series

	mu        sync.Mutex
	producers []*ProducerShard
	members   []*MemberShard
	pauses    []RebalancePause

	// Interval logs (.hlog) of the whole run, one-second intervals.
	completionLog, publishLog *IntervalLog

	order orderTracker // order per key and partition (order.go)

	absorbed absorbedState // shard exports absorbed (absorb.go)
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

// ProducerShard records one producer's sends.
type ProducerShard struct {
	r           *Recorder
	mu          sync.Mutex
	publish     *hdrhistogram.Histogram // broker ack − actual send
	publishLog  *IntervalShard          // publish.hlog, every ack of the run
	scheduleLag *hdrhistogram.Histogram // actual send − intended send
	Sent        atomic.Int64
	Acked       atomic.Int64
	AckedWindow atomic.Int64 // acked records whose intended send time is in the window
	Failed      atomic.Int64
}

// ProducerShard returns a new shard for one producer.
func (r *Recorder) ProducerShard() *ProducerShard {
	s := &ProducerShard{r: r, publish: NewLatencyHistogram(), scheduleLag: NewLatencyHistogram(),
		publishLog: r.publishLog.Shard()}
	r.mu.Lock()
	r.producers = append(r.producers, s)
	r.mu.Unlock()
	return s
}

// Acked records a produce acknowledged by the broker at ackNs.
func (s *ProducerShard) RecordAck(st Stamp, ackNs int64) {
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
		RecordNanos(s.publish, ackNs-st.Sent)
		RecordNanos(s.scheduleLag, st.Sent-st.Intended)
	}
	s.mu.Unlock()
}

// RecordFailure counts a produce the client gave up on.
func (s *ProducerShard) RecordFailure() { s.Failed.Add(1) }

// MemberShard records one consumer member's deliveries and completions.
type MemberShard struct {
	r             *Recorder
	mu            sync.Mutex
	delivery      *hdrhistogram.Histogram // handed to a worker − intended send
	completion    *hdrhistogram.Histogram // completed − intended send
	queue         *hdrhistogram.Histogram // handed to a worker − broker append time
	hold          *hdrhistogram.Histogram // completed − handed to a worker
	pollSize      *hdrhistogram.Histogram // records per non-empty poll (count, not µs)
	completionLog *IntervalShard          // completion.hlog, every completion of the run

	Polls, EmptyPolls atomic.Int64
	polled            atomic.Int64 // records returned by polls
	Delivered         atomic.Int64
	Completed         atomic.Int64 // completions at any time
	CompletedInWindow atomic.Int64
	Redelivered       atomic.Int64
	Released          atomic.Int64
	Rejected          atomic.Int64
	Retried           atomic.Int64
	LockExpired       atomic.Int64
	Renewals          atomic.Int64 // share RENEW acknowledgements sent (lock renewals)
	Duplicates        atomic.Int64
	AckErrors         atomic.Int64 // acknowledgements or commits the broker refused
	PollErrors        atomic.Int64 // polls that returned an error
	// DeliveryCounts[i] counts deliveries with delivery count i+1 (the last
	// slot holds every count beyond).
	DeliveryCounts [10]atomic.Int64

	// firstDelivery and lastFinish are this member's earliest delivery and
	// latest completion or archive, Clock ns (0: none yet); Recorder.Span
	// combines them.
	firstDelivery, lastFinish atomic.Int64
	life                      memberLife
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

// MemberShard returns a new shard for one consumer member.
func (r *Recorder) MemberShard() *MemberShard {
	s := &MemberShard{r: r, delivery: NewLatencyHistogram(), completion: NewLatencyHistogram(),
		queue: NewLatencyHistogram(), hold: NewLatencyHistogram(), pollSize: hdrhistogram.New(1, 1_000_000, 3),
		completionLog: r.completionLog.Shard()}
	r.mu.Lock()
	r.members = append(r.members, s)
	r.mu.Unlock()
	return s
}

// RecordPoll counts one poll that returned n records.
func (s *MemberShard) RecordPoll(n int) {
	s.Polls.Add(1)
	s.polled.Add(int64(n))
	if n == 0 {
		s.EmptyPolls.Add(1)
		return
	}
	s.mu.Lock()
	_ = s.pollSize.RecordValue(int64(n))
	s.mu.Unlock()
}

// RecordDelivery records a record handed to a worker at nowNs. deliveryCount
// is the broker's count for share groups (1 on first delivery) and 0 for
// consumer groups; appendNs is the broker's log-append time.
func (s *MemberShard) RecordDelivery(st Stamp, deliveryCount int32, appendNs, nowNs int64) {
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
	s.mu.Lock()
	RecordNanos(s.delivery, nowNs-st.Intended)
	RecordNanos(s.queue, nowNs-appendNs)
	s.mu.Unlock()
}

// RecordCompletion records a record processed and accepted (share) or
// committed-eligible (consumer group) at nowNs, handed to its worker at
// deliveredNs. lockExpired says the completion came after the record's
// acquisition deadline.
func (s *MemberShard) RecordCompletion(st Stamp, deliveredNs, nowNs int64, lockExpired bool) {
	s.Completed.Add(1)
	storeMax(&s.lastFinish, nowNs)
	if s.r.Ledger.Completed(st.Producer, st.Seq) {
		s.Duplicates.Add(1)
	}
	s.r.Series.Add(Completed, nowNs, 1)
	if lockExpired {
		s.LockExpired.Add(1)
		s.r.Series.Add(LockExpired, nowNs, 1)
	}
	if s.r.inWindow(nowNs) {
		s.CompletedInWindow.Add(1)
	}
	s.mu.Lock()
	s.completionLog.Record(nowNs, nowNs-st.Intended)
	RecordNanos(s.hold, nowNs-deliveredNs)
	if s.r.inWindow(st.Intended) {
		RecordNanos(s.completion, nowNs-st.Intended)
	}
	s.mu.Unlock()
}

// RecordRelease records a transient failure handed back to the broker
// (share RELEASE). archived says the broker will archive it instead of
// redelivering (the delivery count reached the limit).
func (s *MemberShard) RecordRelease(st Stamp, nowNs int64, archived bool) {
	s.Released.Add(1)
	s.r.Series.Add(Released, nowNs, 1)
	if archived {
		s.r.Ledger.Archived(st.Producer, st.Seq)
		storeMax(&s.lastFinish, nowNs)
	}
}

// RecordRetry counts a transient failure retried in place (consumer group).
func (s *MemberShard) RecordRetry(nowNs int64) {
	s.Retried.Add(1)
	s.r.Series.Add(Redelivered, nowNs, 1)
}

// RecordReject records a poison record: share REJECT, or a consumer-group
// dead letter that is skipped.
func (s *MemberShard) RecordReject(st Stamp, nowNs int64) {
	s.Rejected.Add(1)
	s.r.Ledger.Archived(st.Producer, st.Seq)
	storeMax(&s.lastFinish, nowNs)
	s.r.Series.Add(Rejected, nowNs, 1)
}

// Merged is the union of every shard of a run.
type Merged struct {
	Publish, ScheduleLag                     *hdrhistogram.Histogram
	Delivery, Completion, Queue, Hold        *hdrhistogram.Histogram
	PollSize                                 *hdrhistogram.Histogram
	Sent, Acked, AckedWindow, ProduceFailed  int64
	Polls, EmptyPolls, Delivered, Completed  int64
	CompletedInWindow, Redelivered, Released int64
	Rejected, Retried, LockExpired           int64
	Duplicates, AckErrors, PollErrors        int64
	Renewals                                 int64
	DeliveryCounts                           [10]int64
	PerMember                                []int64 // completions per member, in shard order
	Members                                  []MemberTimes
	Pauses                                   []RebalancePause
	// IntervalLogs are the encoded .hlog files by name ("completion.hlog").
	IntervalLogs map[string][]byte
	// IntervalLogErr says why an interval log could not be encoded.
	IntervalLogErr error
	// Order is the order audit (order.go); nil when nothing was checked.
	Order *OrderAudit
}

// Merge folds all shards together.
func (r *Recorder) Merge() Merged {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := Merged{Publish: NewLatencyHistogram(), ScheduleLag: NewLatencyHistogram(),
		Delivery: NewLatencyHistogram(), Completion: NewLatencyHistogram(),
		Queue: NewLatencyHistogram(), Hold: NewLatencyHistogram(), PollSize: hdrhistogram.New(1, 1_000_000, 3)}
	var publishPieces, completionPieces []*intervalPiece
	for _, p := range r.producers {
		p.mu.Lock()
		publishPieces = append(publishPieces, p.publishLog.piece())
		if p.publish != nil { // nil: absorbed (the histograms are in r.absorbed)
			m.Publish.Merge(p.publish)
			m.ScheduleLag.Merge(p.scheduleLag)
		}
		p.mu.Unlock()
		m.Sent += p.Sent.Load()
		m.Acked += p.Acked.Load()
		m.AckedWindow += p.AckedWindow.Load()
		m.ProduceFailed += p.Failed.Load()
	}
	for _, s := range r.members {
		s.mu.Lock()
		completionPieces = append(completionPieces, s.completionLog.piece())
		if s.delivery != nil { // nil: absorbed
			m.Delivery.Merge(s.delivery)
			m.Completion.Merge(s.completion)
			m.Queue.Merge(s.queue)
			m.Hold.Merge(s.hold)
			m.PollSize.Merge(s.pollSize)
		}
		s.mu.Unlock()
		m.Polls += s.Polls.Load()
		m.EmptyPolls += s.EmptyPolls.Load()
		m.Delivered += s.Delivered.Load()
		m.Completed += s.Completed.Load()
		m.CompletedInWindow += s.CompletedInWindow.Load()
		m.Redelivered += s.Redelivered.Load()
		m.Released += s.Released.Load()
		m.Rejected += s.Rejected.Load()
		m.Retried += s.Retried.Load()
		m.LockExpired += s.LockExpired.Load()
		m.Renewals += s.Renewals.Load()
		m.Duplicates += s.Duplicates.Load()
		m.AckErrors += s.AckErrors.Load()
		m.PollErrors += s.PollErrors.Load()
		for i := range s.DeliveryCounts {
			m.DeliveryCounts[i] += s.DeliveryCounts[i].Load()
		}
		m.PerMember = append(m.PerMember, s.Completed.Load())
	}
	if a := &r.absorbed; a.shards != nil {
		m.Publish.Merge(a.publish)
		m.ScheduleLag.Merge(a.scheduleLag)
		m.Delivery.Merge(a.delivery)
		m.Completion.Merge(a.completion)
		m.Queue.Merge(a.queue)
		m.Hold.Merge(a.hold)
		m.PollSize.Merge(a.pollSize)
		m.Duplicates += a.crossDuplicates
		m.Redelivered += a.crossRedelivered
	}
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

// LiveCounts are a run's counters so far, summed over the shards without
// touching the histograms: cheap enough to read on every metrics scrape.
type LiveCounts struct {
	Produced    int64 // produce acknowledgements
	Delivered   int64
	Completed   int64
	Redelivered int64 // deliveries with delivery count > 1, or seen again (consumer group)
	Released    int64
	Rejected    int64
}

// InFlight is deliveries minus finishes (completions, releases, rejects):
// records held by the consumers now, as timeseries.csv's in_flight.
func (c LiveCounts) InFlight() int64 { return c.Delivered - c.Completed - c.Released - c.Rejected }

// Counts returns the counters so far; they equal Merge's once the run ends.
func (r *Recorder) Counts() LiveCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	var c LiveCounts
	for _, p := range r.producers {
		c.Produced += p.Acked.Load()
	}
	for _, s := range r.members {
		c.Delivered += s.Delivered.Load()
		c.Completed += s.Completed.Load()
		c.Redelivered += s.Redelivered.Load()
		c.Released += s.Released.Load()
		c.Rejected += s.Rejected.Load()
	}
	c.Redelivered += r.absorbed.crossRedelivered
	return c
}
