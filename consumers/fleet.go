package consumers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/results"
)

// Config describes one consumer fleet. The same Config drives both consumer
// types; fields marked (share) are ignored by consumer groups.
type Config struct {
	Brokers []string
	Topic   string
	Group   string
	Share   bool // share group (KIP-932) instead of a consumer group
	Members int  // group members, each its own client
	Workers int  // workers per member processing a polled batch in parallel
	// MaxPollRecords is max.poll.records: the most records one poll hands
	// to the member (share: ShareMaxRecords, a soft limit under
	// batch_optimized).
	MaxPollRecords int
	// RecordLimit selects share.acquire.mode=record_limit (share): the
	// broker splits producer batches so a poll never exceeds MaxPollRecords.
	RecordLimit bool
	// ExplicitAck acknowledges each record as its worker finishes (share);
	// otherwise the next poll ACCEPTs the whole previous batch (implicit).
	ExplicitAck bool
	Processing  Processing
	// TransientRate is the per-attempt failure probability: share RELEASE
	// (redelivered, delivery count +1), consumer group retry in place.
	TransientRate float64
	// PoisonRate is the per-record probability that a record is poison:
	// share REJECT (archived), consumer group dead-lettered and skipped.
	// Poison is a property of the record, the same on every delivery.
	PoisonRate float64
	// DeliveryLimit is group.share.delivery.count.limit (share): a record
	// released at this delivery count is archived by the broker.
	DeliveryLimit int
	// Renew renews acquisition locks (share, explicit acks; KIP-1222): a
	// worker whose processing of a record runs past half of the time left
	// until the record's acquisition deadline sends AckRenew, and keeps
	// renewing until it is done.
	Renew bool
	// Continuous keeps the member polling while its workers are busy
	// (style continuous), holding at most MaxInFlight records (0: Workers ×
	// MaxPollRecords); otherwise the member processes each batch whole
	// before polling again (style blocking).
	Continuous  bool
	MaxInFlight int
	// CloseTimeout bounds the final commit/ack flush on shutdown (default 10s).
	CloseTimeout time.Duration
	// SessionTimeout is the consumer group's session.timeout.ms (0: franz-go's
	// 45s); a crashed member's partitions move after it. It must lie within
	// the broker's group.min/max.session.timeout.ms (6s–30min by default).
	// The heartbeat interval is a third of it.
	SessionTimeout time.Duration
}

// member is one group member: a client, its poll loop and its workers.
type member struct {
	id      int
	c       Config
	sampler Sampler
	rec     *results.Recorder
	shard   *results.MemberShard
	cl      *kgo.Client
	offsets *offsetTracker // consumer group only
	// done holds, per partition, consumer-group records a continuous member
	// finished whose offsets are not committed yet: they complete when a
	// commit covers them.
	doneMu sync.Mutex
	done   map[int32][]*handled
	// lockNs is the acquisition lock duration as seen by this member (share):
	// the largest deadline − poll time over its polls, a lower bound of the
	// broker's lock duration. Renewal deadlines are estimated with it.
	lockNs atomic.Int64

	// Scale events (see Fleet).
	slow        *slowState
	rebal       *rebalanceWatch
	pollCtx     context.Context // ends when the member should stop polling (Leave) or stop
	stopPolling context.CancelFunc
	stop        context.CancelFunc // ends the member at once (Crash)
	dialer      *crashDialer
	crashed     atomic.Bool
	exited      chan struct{}
}

// outcome is what a worker did with one record.
type outcome uint8

const (
	abandoned outcome = iota // shutdown came first; not acknowledged
	accepted
	released
	rejected
)

// handled is one record of a batch after its worker is done with it.
type handled struct {
	r         *kgo.Record
	st        results.Stamp
	delivered int64
	outcome   outcome
	foreign   bool  // not stamped by this run
	deadline  int64 // estimated acquisition deadline, Clock ns (share; 0 = none)
}

func (m *member) run(ctx context.Context) error {
	cl, err := kgo.NewClient(m.clientOpts()...)
	if err != nil {
		return err
	}
	m.cl = cl
	defer m.close()
	workerRNGs := make([]*rand.Rand, m.c.Workers)
	for w := range workerRNGs {
		workerRNGs[w] = rand.New(rand.NewPCG(m.rec.Run, uint64(m.id<<16|w)))
	}
	if m.c.Continuous {
		return m.runContinuous(ctx, workerRNGs)
	}
	for m.pollCtx.Err() == nil {
		recs, err := m.poll(m.pollCtx)
		if m.pollCtx.Err() != nil {
			break // the poll that shutdown (or leaving) cut short is not a poll of the run
		}
		if err != nil {
			// franz-go retries what can be retried; what reaches us is
			// counted and the member keeps polling, as a service would.
			// Records that came with the error are processed below: the
			// client's position is already past them, so dropping them
			// would leave them unread until the partition moved.
			m.shard.PollErrors.Add(1)
		}
		if len(recs) == 0 {
			// Nothing to settle: let a rebalance that waited for this poll
			// (BlockRebalanceOnPoll) go ahead, or it waits forever and the
			// partitions it revokes are never assigned again.
			m.allowRebalance()
			if err != nil {
				sleepCtx(ctx, 100*time.Millisecond)
			} else {
				m.shard.RecordPoll(0)
			}
			continue
		}
		m.shard.RecordPoll(len(recs))
		batch := m.processBatch(ctx, recs, workerRNGs)
		if err := m.settle(ctx, batch); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (m *member) clientOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(m.c.Brokers...), kgo.ConsumeTopics(m.c.Topic), kgo.ClientID(fmt.Sprintf("sharebench-%d", m.id)),
		kgo.Dialer(m.dialer.dial)}
	if m.c.Share {
		opts = append(opts, kgo.ShareGroup(m.c.Group), kgo.ShareMaxRecords(int32(m.c.MaxPollRecords)),
			kgo.ShareAckCallback(func(_ *kgo.Client, res kgo.ShareAckResults) {
				for _, r := range res {
					if r.Err != nil && !m.crashed.Load() {
						m.shard.AckErrors.Add(1)
					}
				}
			}))
		if m.c.RecordLimit {
			opts = append(opts, kgo.ShareMaxRecordsStrict())
		}
		return opts
	}
	m.offsets = newOffsetTracker()
	opts = append(opts, kgo.ConsumerGroup(m.c.Group), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.OnPartitionsLost(m.lost),
		kgo.OnPartitionsAssigned(m.assigned))
	if m.c.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(m.c.SessionTimeout), kgo.HeartbeatInterval(m.c.SessionTimeout/3))
	}
	if m.c.Continuous {
		// Records are in flight across polls, so rebalances cannot wait for
		// a poll boundary: a revocation commits the completed prefix first.
		return append(opts, kgo.OnPartitionsRevoked(m.revoked))
	}
	return append(opts, kgo.BlockRebalanceOnPoll(), kgo.OnPartitionsRevoked(m.lost))
}

func (m *member) forget(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	m.offsets.forget(lost[m.c.Topic])
	if m.c.Continuous {
		m.doneMu.Lock()
		for _, p := range lost[m.c.Topic] {
			delete(m.done, p) // finished but uncommitted: the next owner redelivers them
		}
		m.doneMu.Unlock()
	}
}

// revoked (continuous) commits what is complete on the revoked partitions
// before they go, then forgets them; records still being processed there
// are redelivered to the next owner.
func (m *member) revoked(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	m.commitDone(context.WithoutCancel(ctx), true)
	m.lost(ctx, cl, revoked)
}

// poll returns the next batch. Under batch_optimized the share broker may
// hand over whole producer batches beyond max.poll.records, and the member
// takes everything fetched, as the Java share consumer does.
func (m *member) poll(ctx context.Context) ([]*kgo.Record, error) {
	return m.pollN(ctx, m.c.MaxPollRecords)
}

// pollN is poll with at most n records (consumer groups, record_limit). It
// returns the records fetched and the first fetch error beside them: a
// fetch can carry both (one partition's records, another's error).
func (m *member) pollN(ctx context.Context, n int) ([]*kgo.Record, error) {
	if m.c.Share && !m.c.RecordLimit {
		n = -1
	}
	fs := m.cl.PollRecords(ctx, n)
	var firstErr error
	fs.EachError(func(topic string, p int32, err error) {
		if errors.Is(err, context.Canceled) || errors.Is(err, kgo.ErrClientClosed) || ctx.Err() != nil {
			return
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("poll %s[%d]: %w", topic, p, err)
		}
	})
	return fs.Records(), firstErr
}

// allowRebalance lets a consumer-group rebalance blocked on the last poll
// proceed (a no-op for share groups and continuous members, which do not
// block rebalances).
func (m *member) allowRebalance() {
	if !m.c.Share && !m.c.Continuous {
		m.cl.AllowRebalance()
	}
}

// processBatch hands the batch to the member's workers and waits until every
// record has an outcome (blocking style: the member polls again only when the
// whole batch is done).
func (m *member) processBatch(ctx context.Context, recs []*kgo.Record, rngs []*rand.Rand) []handled {
	batch := make([]handled, len(recs))
	m.noteLock(recs)
	for i, r := range recs {
		batch[i].r = r
		if m.offsets != nil {
			m.offsets.handed(r.Partition, r.Offset, r.LeaderEpoch)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(m.c.Workers, len(recs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(batch); i = int(next.Add(1) - 1) {
				m.handle(ctx, &batch[i], rngs[w])
			}
		}()
	}
	wg.Wait()
	return batch
}

// handle runs one record through processing and its outcome policy.
func (m *member) handle(ctx context.Context, h *handled, rng *rand.Rand) {
	st, err := results.DecodeStamp(h.r.Value)
	if err != nil || st.Run != m.rec.Run {
		// Not this run's record: count it and let it go unprocessed.
		m.rec.Ledger.Foreign()
		h.foreign, h.outcome = true, accepted
		if m.c.Share && m.c.ExplicitAck {
			h.r.Ack(kgo.AckAccept)
		}
		if m.offsets != nil {
			m.offsets.finished(h.r.Partition, h.r.Offset)
		}
		return
	}
	h.st = st
	h.delivered = m.rec.Clock.Now()
	if d := h.r.AcquisitionDeadline(); !d.IsZero() {
		h.deadline = d.UnixNano()
	}
	m.shard.RecordDelivery(st, h.r.DeliveryCount(), h.r.Timestamp.UnixNano(), h.delivered)
	poison := isPoison(st, m.c.PoisonRate)
	for {
		if !m.process(ctx, h, m.slow.scale(m.sampler.Sample(rng), m.rec.Clock.Now())) {
			h.outcome = abandoned
			return
		}
		switch {
		case poison:
			h.outcome = rejected
		case m.c.TransientRate > 0 && rng.Float64() < m.c.TransientRate:
			if !m.c.Share {
				m.shard.RecordRetry(m.rec.Clock.Now())
				continue // retry in place
			}
			h.outcome = released
		default:
			h.outcome = accepted
		}
		break
	}
	if m.c.Share && m.c.ExplicitAck {
		m.ackNow(h)
	}
	if m.offsets != nil {
		if m.c.Continuous && (h.outcome == accepted || h.outcome == rejected) {
			m.doneMu.Lock()
			m.done[h.r.Partition] = append(m.done[h.r.Partition], h)
			m.doneMu.Unlock()
		}
		m.offsets.finished(h.r.Partition, h.r.Offset)
	}
}

// ackNow acknowledges one record as its worker finishes (explicit mode).
func (m *member) ackNow(h *handled) {
	if m.crashed.Load() {
		return // nothing reaches the broker any more
	}
	now := m.rec.Clock.Now()
	switch h.outcome {
	case accepted:
		h.r.Ack(kgo.AckAccept)
		m.shard.RecordCompletion(h.st, h.delivered, now, h.lockExpired(now))
	case released:
		h.r.Ack(kgo.AckRelease)
		m.shard.RecordRelease(h.st, now, int(h.r.DeliveryCount()) >= m.c.DeliveryLimit)
	case rejected:
		h.r.Ack(kgo.AckReject)
		m.shard.RecordReject(h.st, now)
	}
}

// lockExpired reports whether now is past the record's acquisition deadline
// (as renewed, when the worker renewed the lock).
func (h *handled) lockExpired(now int64) bool { return h.deadline > 0 && now > h.deadline }

// renewing reports whether workers renew acquisition locks.
func (m *member) renewing() bool { return m.c.Share && m.c.ExplicitAck && m.c.Renew }

// noteLock updates the member's view of the lock duration from a poll's
// records: deadline − now is the lock the broker granted minus the time
// the response took to arrive, so the largest value seen is a lower bound.
func (m *member) noteLock(recs []*kgo.Record) {
	if !m.renewing() {
		return
	}
	now := m.rec.Clock.Now()
	for _, r := range recs {
		d := r.AcquisitionDeadline()
		if d.IsZero() {
			continue
		}
		if left := d.UnixNano() - now; left > m.lockNs.Load() {
			m.lockNs.Store(left) // only this member's poll loop writes
		}
	}
}

// minRenewGap keeps the renewal loop from spinning when a deadline is
// already (nearly) due.
const minRenewGap = 5 * time.Millisecond

// process is one processing attempt of d. Without renewal it is a sleep;
// with renewal it is a sleep that wakes at the renewal points: whenever the
// attempt would run past half of the time left until the record's
// (estimated) deadline, the worker wakes there, renews the lock and sleeps
// on. The attempt ends at start + d either way, so renewing does not lengthen
// it. It reports whether the attempt finished (false: shutdown came first).
func (m *member) process(ctx context.Context, h *handled, d time.Duration) bool {
	if !m.renewing() || h.deadline == 0 {
		return sleepCtx(ctx, d)
	}
	end := m.rec.Clock.Now() + int64(d)
	for {
		now := m.rec.Clock.Now()
		if now >= end {
			return ctx.Err() == nil
		}
		renewAt := now + max((h.deadline-now)/2, int64(minRenewGap))
		if renewAt >= end {
			return sleepCtx(ctx, time.Duration(end-now))
		}
		if !sleepCtx(ctx, time.Duration(renewAt-now)) {
			return false
		}
		m.renew(ctx, h)
	}
}

// renewTimeout bounds how long a worker waits for a renewal to reach the
// broker; processing time runs on meanwhile.
const renewTimeout = time.Second

// renew sends AckRenew for the record and flushes it at once (franz-go would
// otherwise hold it up to a second, and a renew issued while an earlier one
// is in flight is dropped). Once the flush completes the estimated deadline
// moves to the renewal's send time + the lock duration: the broker restarts
// the lock when the renewal arrives, so the estimate errs early. A flush that
// does not complete leaves the deadline alone, so the loop renews again soon.
func (m *member) renew(ctx context.Context, h *handled) {
	sent := m.rec.Clock.Now()
	h.r.Ack(kgo.AckRenew)
	m.shard.Renewals.Add(1)
	fctx, cancel := context.WithTimeout(ctx, renewTimeout)
	err := m.cl.FlushAcks(fctx)
	cancel()
	if lock := m.lockNs.Load(); err == nil && lock > 0 {
		h.deadline = max(h.deadline, sent+lock)
	}
}

// settle tells the broker what became of the batch: consumer groups commit
// the contiguous completed prefix, implicit share mode leaves the ACCEPT to
// the next poll (so that is when the records complete), explicit share mode
// has already acknowledged each record.
func (m *member) settle(ctx context.Context, batch []handled) error {
	if m.c.Share && m.c.ExplicitAck || m.crashed.Load() {
		return nil
	}
	now := m.rec.Clock.Now()
	for i := range batch {
		h := &batch[i]
		if h.foreign {
			continue
		}
		switch h.outcome {
		case accepted:
			m.shard.RecordCompletion(h.st, h.delivered, now, m.c.Share && h.lockExpired(now))
		case rejected:
			m.shard.RecordReject(h.st, now) // consumer group dead letter
		case abandoned:
			if m.c.Share {
				h.r.Ack(kgo.AckRelease) // never let the implicit ACCEPT cover unprocessed records
			}
		}
	}
	if m.c.Share {
		return nil
	}
	// Not bound to ctx: a commit issued for processed records must not be
	// cancelled by shutdown (close waits for it with a final sync commit).
	m.commit(context.WithoutCancel(ctx), false)
	m.cl.AllowRebalance()
	return nil
}

// commit commits the completed prefix of every partition. Asynchronous
// commits let the member poll again at once (franz-go orders them and never
// cancels one); sync waits for this and every earlier commit.
func (m *member) commit(ctx context.Context, sync bool) {
	points := m.offsets.committable()
	if sync {
		points = m.offsets.latestPoints()
	}
	m.commitPoints(ctx, points, sync)
}

// commitPoints commits the given points (see commit).
func (m *member) commitPoints(ctx context.Context, points map[int32]commitPoint, sync bool) {
	if len(points) == 0 {
		return
	}
	offs := map[string]map[int32]kgo.EpochOffset{m.c.Topic: {}}
	for p, cp := range points {
		offs[m.c.Topic][p] = kgo.EpochOffset{Epoch: cp.epoch, Offset: cp.offset}
	}
	done := func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if m.crashed.Load() {
			return // a crashed member's failures are the crash, not errors of the run
		}
		if err != nil {
			if ctx.Err() == nil {
				m.shard.AckErrors.Add(1)
			}
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					m.shard.AckErrors.Add(1)
				}
			}
		}
	}
	if sync {
		m.cl.CommitOffsetsSync(ctx, offs, done)
	} else {
		m.cl.CommitOffsets(ctx, offs, done)
	}
}

// close flushes what the member owes the broker, then leaves the group.
func (m *member) close() {
	d := m.c.CloseTimeout
	if d <= 0 {
		d = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if m.crashed.Load() {
		m.closeCrashed(d)
		return
	}
	if m.c.Share {
		if !m.c.ExplicitAck {
			m.cl.MarkAcks(kgo.AckAccept) // the implicit ACCEPT of the last, fully processed batch
		}
		_ = m.cl.FlushAcks(ctx)
	} else {
		m.commit(ctx, true)
		// The last poll (cut short by shutdown) may hold rebalances blocked;
		// leaving the group needs them allowed.
		m.cl.AllowRebalance()
	}
	m.cl.Close()
}

// sleepCtx sleeps d unless ctx ends first; it reports whether it slept fully.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// isPoison decides, from the record's identity alone, whether it is poison,
// so every delivery of the same record agrees.
func isPoison(st results.Stamp, rate float64) bool {
	if rate <= 0 {
		return false
	}
	x := st.Run ^ uint64(st.Producer)<<40 ^ st.Seq
	x += 0x9e3779b97f4a7c15 // splitmix64 finaliser
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11)/(1<<53) < rate
}
