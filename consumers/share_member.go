package consumers

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/internal/retry"
)

// shareGroupMember is a share-group (KIP-932) member: it acquires records,
// acknowledges each one (ACCEPT, RELEASE, REJECT; explicitly as its worker
// finishes, or implicitly by the next poll) and, with Renew, renews the
// acquisition locks of records it is still processing.
type shareGroupMember struct {
	*member
	// lockNs is the acquisition lock duration as seen by this member: the
	// largest deadline − poll time over its polls, a lower bound of the
	// broker's lock duration. Renewal deadlines are estimated with it.
	lockNs atomic.Int64
}

var _ groupMember = (*shareGroupMember)(nil)

func (s *shareGroupMember) options() []kgo.Opt {
	opts := []kgo.Opt{kgo.ShareGroup(s.c.Group), kgo.ShareMaxRecords(int32(s.c.MaxPollRecords)),
		kgo.ShareAckCallback(func(_ *kgo.Client, res kgo.ShareAckResults) {
			for _, r := range res {
				if r.Err == nil || s.crashed.Load() {
					continue
				}
				if ackRefusedForExpiredLock(r.Err) {
					s.memberRec.AckLockExpired.Add(1)
				} else {
					s.memberRec.AckErrors.Add(1)
				}
			}
		})}
	if s.c.Acquire == AcquireRecordLimit {
		opts = append(opts, kgo.ShareMaxRecordsStrict())
	}
	return opts
}

// ackRefusedForExpiredLock reports whether a share acknowledgement's error
// is the broker's refusal of records no longer acquired by this member:
// INVALID_RECORD_STATE, which Kafka answers when a record's acquisition lock
// expired (it is available again, or acquired by another member) before the
// acknowledgement arrived.
func ackRefusedForExpiredLock(err error) bool { return errors.Is(err, kerr.InvalidRecordState) }

// consume polls in blocking style only (Config.validate refuses continuous).
func (s *shareGroupMember) consume(ctx context.Context, workers []*worker) error {
	return s.pollLoop(ctx, workers, s.pollLimit())
}

// pollLimit is how many records a poll takes. Under batch_optimized the
// broker may hand over whole producer batches beyond max.poll.records, and
// the member takes everything fetched (-1), as the Java share consumer does.
func (s *shareGroupMember) pollLimit() int {
	if s.c.Acquire == AcquireRecordLimit {
		return s.c.MaxPollRecords
	}
	return -1
}

func (s *shareGroupMember) received(recs []*kgo.Record) { s.noteLock(recs) }

func (s *shareGroupMember) handle(ctx context.Context, h *handled, w *worker) {
	if !s.begin(h) {
		if s.c.Ack == AckExplicit {
			h.r.Ack(kgo.AckAccept)
		}
		return
	}
	if d := h.r.AcquisitionDeadline(); !d.IsZero() {
		h.deadline = d.UnixNano()
	}
	poison := isPoison(h.st, s.c.PoisonRate)
	if isStuck(h.st, s.c.StuckRate) {
		s.wedge(ctx, h)
		return
	}
	if !s.process(ctx, h, w.end(s.rec.Clock, s.processingTime(w.rng))) {
		h.outcome = abandoned
		return
	}
	h.outcome = s.verdict(poison, w.rng)
	if !s.write(ctx, h) {
		// Handed back, never dropped: explicit mode RELEASEs it now; in
		// implicit mode settle releases what was not accepted.
		h.outcome = released
		if s.c.Ack == AckImplicit || s.crashed.Load() {
			h.outcome = abandoned
		}
	}
	s.processed(h)
	if s.c.Ack == AckExplicit {
		s.ackNow(h)
	}
}

// ackNow acknowledges one record as its worker finishes (explicit mode).
func (s *shareGroupMember) ackNow(h *handled) {
	if s.crashed.Load() {
		return // nothing reaches the broker any more
	}
	now := s.rec.Clock.Now()
	switch h.outcome {
	case accepted:
		h.r.Ack(kgo.AckAccept)
		s.memberRec.RecordCompletion(h.st, h.delivered, now, h.lockExpired(now))
	case released:
		h.r.Ack(kgo.AckRelease)
		s.memberRec.RecordRelease(h.st, now, int(h.r.DeliveryCount()) >= s.c.DeliveryLimit)
	case rejected:
		h.r.Ack(kgo.AckReject)
		s.memberRec.RecordReject(h.st, now)
	}
}

// settle (implicit mode) records the batch's outcomes: the next poll's
// implicit ACCEPT is what completes the records. Unprocessed records are
// released so that ACCEPT never covers them. Explicit mode has already
// acknowledged each record.
func (s *shareGroupMember) settle(_ context.Context, batch []handled) {
	if s.c.Ack == AckExplicit || s.crashed.Load() {
		return
	}
	s.recordSettled(batch, func(h *handled) { h.r.Ack(kgo.AckRelease) })
}

// allowRebalance: share groups have no rebalances to unblock.
func (s *shareGroupMember) allowRebalance() {}

// flush sends the implicit ACCEPT of the last, fully processed batch (in
// implicit mode) and every acknowledgement not yet sent.
func (s *shareGroupMember) flush(ctx context.Context) {
	if s.c.Ack == AckImplicit {
		s.cl.MarkAcks(kgo.AckAccept)
	}
	_ = s.cl.FlushAcks(ctx)
}

// renewing reports whether workers renew acquisition locks.
func (s *shareGroupMember) renewing() bool { return s.c.Ack == AckExplicit && s.c.Renew }

// noteLock updates the member's view of the lock duration from a poll's
// records: deadline − now is the lock the broker granted minus the time
// the response took to arrive, so the largest value seen is a lower bound.
func (s *shareGroupMember) noteLock(recs []*kgo.Record) {
	if !s.renewing() {
		return
	}
	now := s.rec.Clock.Now()
	for _, r := range recs {
		d := r.AcquisitionDeadline()
		if d.IsZero() {
			continue
		}
		if left := d.UnixNano() - now; left > s.lockNs.Load() {
			s.lockNs.Store(left) // only this member's poll loop writes
		}
	}
}

// minRenewGap keeps the renewal loop from spinning when a deadline is
// already (nearly) due.
const minRenewGap = 5 * time.Millisecond

// process is one processing attempt, ending at end (Clock ns; the worker's
// work clock set it; 0: no processing). Without renewal it is a sleep; with renewal it is a
// sleep that wakes at the renewal points: whenever the attempt would run
// past half of the time left until the record's (estimated) deadline, the
// worker wakes there, renews the lock and sleeps on. The attempt ends at
// end either way, so renewing does not lengthen it. It reports whether the
// attempt finished (false: shutdown came first).
func (s *shareGroupMember) process(ctx context.Context, h *handled, end int64) bool {
	if end == 0 {
		return ctx.Err() == nil
	}
	for {
		now := s.rec.Clock.Now()
		if now >= end {
			return ctx.Err() == nil
		}
		if !s.renewing() || h.deadline == 0 {
			return retry.Sleep(ctx, time.Duration(end-now))
		}
		renewAt := now + max((h.deadline-now)/2, int64(minRenewGap))
		if renewAt >= end {
			return retry.Sleep(ctx, time.Duration(end-now))
		}
		if !retry.Sleep(ctx, time.Duration(renewAt-now)) {
			return false
		}
		s.renew(ctx, h)
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
func (s *shareGroupMember) renew(ctx context.Context, h *handled) {
	sent := s.rec.Clock.Now()
	h.r.Ack(kgo.AckRenew)
	s.memberRec.Renewals.Add(1)
	fctx, cancel := context.WithTimeout(ctx, renewTimeout)
	err := s.cl.FlushAcks(fctx)
	cancel()
	if lock := s.lockNs.Load(); err == nil && lock > 0 {
		h.deadline = max(h.deadline, sent+lock)
	}
}
