package consumers

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// commitInterval is how often a continuous consumer-group member commits
// its completed prefix.
const commitInterval = 20 * time.Millisecond

// runContinuous is style continuous (consumer groups): the member keeps
// polling while its workers are busy, holding at most MaxInFlight records
// (polled, not finished), and a committer commits each partition's
// contiguous completed prefix every commitInterval. A record completes when
// the commit covering it is issued, as in blocking style.
func (m *member) runContinuous(ctx context.Context, rngs []*rand.Rand) error {
	limit := m.c.MaxInFlight
	if limit <= 0 {
		limit = m.c.Workers * m.c.MaxPollRecords
	}
	m.done = map[int32][]*handled{}
	slots := make(chan struct{}, limit) // one token per record held
	work := make(chan *handled, limit)
	var wg sync.WaitGroup
	for w := range m.c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				m.handle(ctx, h, rngs[w])
				<-slots
			}
		}()
	}
	commitDone := make(chan struct{})
	go func() {
		defer close(commitDone)
		t := time.NewTicker(commitInterval)
		defer t.Stop()
		for {
			select {
			case <-m.pollCtx.Done():
				return
			case <-t.C:
				m.commitDone(context.WithoutCancel(ctx), false)
			}
		}
	}()
	defer func() {
		close(work)
		wg.Wait()
		<-commitDone
		m.commitDone(context.Background(), false) // what finished last; close() commits it synchronously
	}()
	for m.pollCtx.Err() == nil {
		free := limit - len(slots)
		if free == 0 {
			// Full: wait for a worker to finish a record.
			select {
			case slots <- struct{}{}:
				<-slots
			case <-m.pollCtx.Done():
			}
			continue
		}
		recs, err := m.pollN(m.pollCtx, min(free, m.c.MaxPollRecords))
		if m.pollCtx.Err() != nil {
			break
		}
		if err != nil {
			// Counted; records that came with the error are still handed
			// out (the client's position is past them).
			m.shard.PollErrors.Add(1)
			if len(recs) == 0 {
				sleepCtx(ctx, 100*time.Millisecond)
				continue
			}
		}
		m.shard.RecordPoll(len(recs))
		for _, r := range recs {
			m.offsets.handed(r.Partition, r.Offset, r.LeaderEpoch)
			slots <- struct{}{}
			work <- &handled{r: r}
		}
	}
	return ctx.Err()
}

// commitDone commits every partition's completed prefix and records the
// finished records it covers as completed (or dead-lettered) now.
func (m *member) commitDone(ctx context.Context, sync bool) {
	if m.crashed.Load() {
		return
	}
	points := m.offsets.committable()
	if len(points) == 0 {
		return
	}
	now := m.rec.Clock.Now()
	m.doneMu.Lock()
	for p, cp := range points {
		keep := m.done[p][:0]
		for _, h := range m.done[p] {
			switch {
			case h.r.Offset >= cp.offset:
				keep = append(keep, h)
			case h.foreign:
			case h.outcome == accepted:
				m.shard.RecordCompletion(h.st, h.delivered, now, false)
			case h.outcome == rejected:
				m.shard.RecordReject(h.st, now)
			}
		}
		m.done[p] = keep
	}
	m.doneMu.Unlock()
	m.commitPoints(ctx, points, sync)
}
