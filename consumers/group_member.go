package consumers

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// consumerGroupMember is a consumer-group member: it owns partitions, retries
// transient failures in place, dead-letters poison records, and commits each
// partition's contiguous completed prefix after processing. In blocking
// style rebalances wait for a poll boundary (BlockRebalanceOnPoll); in
// continuous style (continuous.go) a revocation commits what is complete
// first.
type consumerGroupMember struct {
	*member
	offsets *offsetTracker
	rebal   *rebalanceWatch // the fleet's, shared by its members
	// done holds, per partition, records a continuous member finished whose
	// offsets are not committed yet: they complete when a commit covers
	// them.
	doneMu sync.Mutex
	done   map[int32][]*handled
}

var _ groupMember = (*consumerGroupMember)(nil)

func newConsumerGroupMember(m *member, rebal *rebalanceWatch) *consumerGroupMember {
	return &consumerGroupMember{member: m, offsets: newOffsetTracker(), rebal: rebal, done: map[int32][]*handled{}}
}

func (g *consumerGroupMember) options() []kgo.Opt {
	opts := []kgo.Opt{kgo.ConsumerGroup(g.c.Group),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.OnPartitionsLost(g.lost),
		kgo.OnPartitionsAssigned(g.assigned)}
	opts = append(opts, g.protocolOptions()...)
	if g.c.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(g.c.SessionTimeout), kgo.HeartbeatInterval(g.c.SessionTimeout/3))
	}
	if g.c.Style == StyleContinuous {
		// Records are in flight across polls, so rebalances cannot wait for
		// a poll boundary: a revocation commits the completed prefix first.
		return append(opts, kgo.OnPartitionsRevoked(g.revoked))
	}
	if g.autoCommit() {
		return append(opts, kgo.BlockRebalanceOnPoll(), kgo.OnPartitionsRevoked(g.revokedAuto))
	}
	return append(opts, kgo.BlockRebalanceOnPoll(), kgo.OnPartitionsRevoked(g.lost))
}

func (g *consumerGroupMember) consume(ctx context.Context, workers []*worker) error {
	if g.c.Style == StyleContinuous {
		return g.runContinuous(ctx, workers)
	}
	return g.pollLoop(ctx, workers, g.c.MaxPollRecords)
}

func (g *consumerGroupMember) received(recs []*kgo.Record) {
	for _, r := range recs {
		g.offsets.handed(r.Partition, r.Offset, r.LeaderEpoch)
	}
}

// handle processes the record until an attempt does not fail transiently
// (each failure is a retry in place), then marks its offset finished. A
// continuous member keeps the record until a commit covers it.
func (g *consumerGroupMember) handle(ctx context.Context, h *handled, w *worker) {
	if !g.begin(h) {
		g.offsets.finished(h.r.Partition, h.r.Offset)
		return
	}
	poison := isPoison(h.st, g.c.PoisonRate)
	if isStuck(h.st, g.c.StuckRate) {
		g.wedge(ctx, h) // unfinished: the committed prefix stops before it
		return
	}
	for {
		if !w.sleep(ctx, g.rec.Clock, g.processingTime(w.rng)) {
			h.outcome = abandoned // unfinished: the committed prefix stops before it
			return
		}
		h.outcome = g.verdict(poison, w.rng)
		if !g.write(ctx, h) {
			if g.crashed.Load() {
				h.outcome = abandoned // a crashed member writes nothing more
				return
			}
			h.outcome = released // a failed write is retried in place, as a transient failure
		}
		if h.outcome != released {
			break
		}
		g.memberRec.RecordRetry(g.rec.Clock.Now())
	}
	g.processed(h)
	if g.c.Style == StyleContinuous {
		g.doneMu.Lock()
		g.done[h.r.Partition] = append(g.done[h.r.Partition], h)
		g.doneMu.Unlock()
	}
	g.offsets.finished(h.r.Partition, h.r.Offset)
}

// settle records the batch's records as completed (or dead-lettered) now,
// commits the contiguous completed prefix, and lets a rebalance that waited
// for this batch proceed.
func (g *consumerGroupMember) settle(ctx context.Context, batch []handled) {
	if g.crashed.Load() {
		return
	}
	g.recordSettled(batch, nil) // rejected: dead-lettered
	// Not bound to ctx: a commit issued for processed records must not be
	// cancelled by shutdown (close waits for it with a final sync commit).
	if !g.autoCommit() {
		g.commit(context.WithoutCancel(ctx), false)
	}
	g.cl.AllowRebalance()
}

func (g *consumerGroupMember) allowRebalance() { g.cl.AllowRebalance() }

// flush commits the latest commit point of every partition synchronously.
// The last poll (cut short by shutdown) may hold rebalances blocked; leaving
// the group needs them allowed.
func (g *consumerGroupMember) flush(ctx context.Context) {
	g.commit(ctx, true)
	g.cl.AllowRebalance()
}

// commit commits the completed prefix of every partition. Asynchronous
// commits let the member poll again at once (franz-go orders them and never
// cancels one); sync waits for this and every earlier commit.
func (g *consumerGroupMember) commit(ctx context.Context, sync bool) {
	points := g.offsets.committable()
	if sync {
		points = g.offsets.latestPoints()
	}
	g.commitPoints(ctx, points, sync)
}

// commitPoints commits the given points (see commit).
func (g *consumerGroupMember) commitPoints(ctx context.Context, points map[int32]commitPoint, sync bool) {
	if len(points) == 0 {
		return
	}
	offs := map[string]map[int32]kgo.EpochOffset{g.c.Topic: {}}
	for p, cp := range points {
		offs[g.c.Topic][p] = kgo.EpochOffset{Epoch: cp.epoch, Offset: cp.offset}
	}
	done := func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		g.countCommitErrors(ctx, resp, err)
	}
	if sync {
		g.cl.CommitOffsetsSync(ctx, offs, done)
	} else {
		g.cl.CommitOffsets(ctx, offs, done)
	}
}

// countCommitErrors counts a commit's failure, or its failed partitions, as
// acknowledgement errors.
func (g *consumerGroupMember) countCommitErrors(ctx context.Context, resp *kmsg.OffsetCommitResponse, err error) {
	if g.crashed.Load() {
		return // a crashed member's failures are the crash, not errors of the run
	}
	if err != nil {
		if ctx.Err() == nil {
			g.memberRec.AckErrors.Add(1)
		}
		return
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				g.memberRec.AckErrors.Add(1)
			}
		}
	}
}

// assigned feeds the fleet's rebalance watch.
func (g *consumerGroupMember) assigned(_ context.Context, cl *kgo.Client, got map[string][]int32) {
	_, gen := cl.GroupMetadata()
	g.rebal.sawGeneration(gen)
	g.rebal.assigned(g.id, got[g.c.Topic])
	g.fetches.forget(got[g.c.Topic]) // nothing buffered before the assignment is handed over
}

// lost notes partitions revoked from or lost by the member in the rebalance
// watch (unless the member crashed: the watch noted that already) and
// forgets them: their unfinished and uncommitted records are redelivered to
// the next owner.
func (g *consumerGroupMember) lost(_ context.Context, _ *kgo.Client, gone map[string][]int32) {
	if !g.crashed.Load() {
		g.rebal.revoked(g.id, gone[g.c.Topic])
	}
	g.offsets.forget(gone[g.c.Topic])
	g.fetches.forget(gone[g.c.Topic]) // franz-go discards their buffered records
	if g.c.Style == StyleContinuous {
		g.doneMu.Lock()
		for _, p := range gone[g.c.Topic] {
			delete(g.done, p) // finished but uncommitted: the next owner redelivers them
		}
		g.doneMu.Unlock()
	}
}

// revoked (continuous) commits what is complete on the revoked partitions
// before they go, then forgets them; records still being processed there
// are redelivered to the next owner.
func (g *consumerGroupMember) revoked(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	g.commitDone(context.WithoutCancel(ctx), true)
	g.lost(ctx, cl, revoked)
}
