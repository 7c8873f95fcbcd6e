package consumers

import (
	"context"
	"sync"
	"time"

	"github.com/sharebench/sharebench/internal/retry"
)

// commitInterval is how often a continuous consumer-group member commits
// its completed prefix.
const commitInterval = 20 * time.Millisecond

// runContinuous is style continuous (consumer groups): the member keeps
// polling while its workers are busy, holding at most MaxInFlight records
// (polled, not finished), and a committer commits each partition's
// contiguous completed prefix every commitInterval. A record completes when
// the commit covering it is issued, as in blocking style.
func (g *consumerGroupMember) runContinuous(ctx context.Context, workers []*worker) error {
	limit := g.c.MaxInFlight
	if limit <= 0 {
		limit = g.c.Workers * g.c.MaxPollRecords
	}
	slots := make(chan struct{}, limit) // one token per record held
	work := make(chan *handled, limit)
	waitWorkers := g.startWorkers(ctx, workers, work, slots)
	committerDone := g.startCommitter(ctx)
	defer func() {
		close(work)
		waitWorkers()
		<-committerDone
		g.commitDone(context.Background(), false) // what finished last; close() commits it synchronously
	}()
	for g.pollCtx.Err() == nil {
		free := limit - len(slots)
		if free == 0 {
			// Full: wait for a worker to finish a record.
			select {
			case slots <- struct{}{}:
				<-slots
			case <-g.pollCtx.Done():
			}
			continue
		}
		recs, err := g.poll(g.pollCtx, min(free, g.c.MaxPollRecords))
		if g.pollCtx.Err() != nil {
			break
		}
		if err != nil {
			// Counted; records that came with the error are still handed
			// out (the client's position is past them).
			g.memberRec.PollErrors.Add(1)
			if len(recs) == 0 {
				retry.Sleep(ctx, 100*time.Millisecond)
				continue
			}
		}
		g.memberRec.RecordPoll(len(recs), g.rec.Clock.Now())
		for _, r := range recs {
			g.offsets.handed(r.Partition, r.Offset, r.LeaderEpoch)
			slots <- struct{}{}
			work <- &handled{r: r}
		}
	}
	return ctx.Err()
}

// startWorkers starts the member's workers on work; each frees a slot when
// it is done with a record. The returned wait returns once work is closed
// and every worker has returned.
func (g *consumerGroupMember) startWorkers(ctx context.Context, workers []*worker, work <-chan *handled, slots <-chan struct{}) (wait func()) {
	var wg sync.WaitGroup
	for w := range g.c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				g.handle(ctx, h, workers[w])
				<-slots
			}
		}()
	}
	return wg.Wait
}

// startCommitter commits the completed prefix every commitInterval until the
// member stops polling; the returned channel closes when it has stopped.
func (g *consumerGroupMember) startCommitter(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(commitInterval)
		defer t.Stop()
		for {
			select {
			case <-g.pollCtx.Done():
				return
			case <-t.C:
				g.commitDone(context.WithoutCancel(ctx), false)
			}
		}
	}()
	return done
}

// commitDone commits every partition's completed prefix and records the
// finished records it covers as completed (or dead-lettered) now.
func (g *consumerGroupMember) commitDone(ctx context.Context, sync bool) {
	if g.crashed.Load() {
		return
	}
	points := g.offsets.committable()
	if len(points) == 0 {
		return
	}
	now := g.rec.Clock.Now()
	g.doneMu.Lock()
	for p, cp := range points {
		keep := g.done[p][:0]
		for _, h := range g.done[p] {
			switch {
			case h.r.Offset >= cp.offset:
				keep = append(keep, h)
			case h.foreign:
			case h.outcome == accepted:
				g.memberRec.RecordCompletion(h.st, h.delivered, now, false)
			case h.outcome == rejected:
				g.memberRec.RecordReject(h.st, now)
			}
		}
		g.done[p] = keep
	}
	g.doneMu.Unlock()
	g.commitPoints(ctx, points, sync)
}
