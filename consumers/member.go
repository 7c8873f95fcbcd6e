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

	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/results"
)

// groupMember is what a member does its own way per group type: a
// *consumerGroupMember (group_member.go) or a *shareGroupMember
// (share_member.go). member, the part both share, runs the client, the
// blocking poll loop and the workers, and calls these.
type groupMember interface {
	// options are the group's client options, after the common ones.
	options() []kgo.Opt
	// consume is the poll loop until the member stops polling.
	consume(ctx context.Context, workers []*worker) error
	// received is told of a poll's records before any worker sees them.
	received(recs []*kgo.Record)
	// handle runs one record through processing and the group's outcome
	// policy; a worker calls it.
	handle(ctx context.Context, h *handled, w *worker)
	// settle tells the broker what became of a fully handled batch
	// (blocking style).
	settle(ctx context.Context, batch []handled)
	// allowRebalance lets a rebalance blocked on the last poll proceed
	// (consumer groups; a no-op for share groups).
	allowRebalance()
	// flush sends what the member still owes the broker on shutdown (not
	// after a crash).
	flush(ctx context.Context)
}

// member is one group member: a client, its poll loop and its workers.
type member struct {
	id        int
	c         Config
	sampler   Sampler
	rec       *results.Recorder
	memberRec *results.MemberRecorder // this member's counters and histograms
	cl        *kgo.Client
	group     groupMember // the group-type half, chosen once by the fleet

	// Scale events (see Fleet).
	slow        *slowState
	pollCtx     context.Context // ends when the member should stop polling (Leave) or stop
	stopPolling context.CancelFunc
	stop        context.CancelFunc // ends the member at once (Crash)
	dialer      *crashDialer
	crashed     atomic.Bool
	exited      chan struct{}
	// hold, when not nil, holds consumption until it is closed (Config.Hold).
	hold <-chan struct{}
	// fetches watches the client's fetch responses (ClientStats).
	fetches *fetchWatch
	// busy counts the workers inside a record now, wedged those a stuck
	// record holds (MemberState).
	busy, wedged atomic.Int64
	// client is cl for readers outside the member's goroutine (MemberState).
	client atomic.Pointer[kgo.Client]
	// dest is the member's destination writer (nil without one;
	// destination.go).
	dest RecordWriter
	// pool, when not nil, is where the client takes fetched records and
	// decompression buffers from; the poll loop recycles a poll's records
	// into it once the batch is settled (pool.go).
	pool *fetchPool
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

// lockExpired reports whether now is past the record's acquisition deadline
// (as renewed, when the worker renewed the lock).
func (h *handled) lockExpired(now int64) bool { return h.deadline > 0 && now > h.deadline }

// recordSettled records, at one instant, what became of each of a settled
// batch's own records: completed (accepted) or rejected (REJECT, or dead
// letter for a consumer group); abandoned ones go to onAbandoned (nil:
// left alone). Both members' settle use it.
func (m *member) recordSettled(batch []handled, onAbandoned func(*handled)) {
	now := m.rec.Clock.Now()
	done := m.memberRec.BeginCompletions(now)
	for i := range batch {
		if h := &batch[i]; !h.foreign && h.outcome == accepted {
			done.Add(h.st, h.delivered, h.lockExpired(now))
		}
	}
	done.End()
	for i := range batch {
		h := &batch[i]
		if h.foreign {
			continue
		}
		switch h.outcome {
		case rejected:
			m.memberRec.RecordReject(h.st, now)
		case abandoned:
			if onAbandoned != nil {
				onAbandoned(h)
			}
		}
	}
}

func (m *member) run(ctx context.Context) error {
	if err := m.openDestination(ctx); err != nil {
		return err
	}
	cl, err := kgo.NewClient(append(m.clientOpts(), m.group.options()...)...)
	if err != nil {
		m.closeDestination()
		return err
	}
	m.cl = cl
	m.client.Store(cl)
	m.rec.SetClientSettings(m.franzGoSettings(cl))
	m.fetches.watchLeaders(ctx, cl, m.c.Topic)
	defer m.close()
	if m.hold != nil {
		// Formation first: joined, but nothing fetched (so nothing acquired)
		// and nothing polled until the fleet is released.
		cl.PauseFetchTopics(m.c.Topic)
		select {
		case <-m.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
		cl.ResumeFetchTopics(m.c.Topic)
	}
	return m.group.consume(ctx, newWorkers(m.rec.Run, m.id, m.c.Workers))
}

// clientOpts are the client options of both group types.
func (m *member) clientOpts() []kgo.Opt {
	// DisableClientMetrics: no KIP-714 client-metrics pushes. Where a broker
	// subscribes clients to them, every member's client kept a gzip
	// compressor and a goroutine for them: about 0.7 MiB a member on kfake
	// (BenchmarkShareMembersFootprint, issue 27), memory that grows with the
	// members a run measures, and requests neither group type's workload makes.
	opts := []kgo.Opt{kgo.SeedBrokers(m.c.Brokers...), kgo.ConsumeTopics(m.c.Topic), kgo.ClientID(fmt.Sprintf("sharebench-%d", m.id)),
		kgo.Dialer(m.dial), kgo.DisableClientMetrics()}
	if m.fetches != nil {
		opts = append(opts, kgo.WithHooks(m.fetches))
	}
	if m.pool != nil {
		opts = append(opts, kgo.WithPools(m.pool))
	}
	opts = append(opts, m.c.Conn...)
	return append(opts, m.c.Fetch.options()...)
}

// options are the client options of the fetch settings that are set.
func (f Fetch) options() []kgo.Opt {
	var opts []kgo.Opt
	if f.Prefetch != nil {
		n := -1 // a fetch per broker in flight or buffered
		if !*f.Prefetch {
			n = 0 // fetch only when polled
		}
		opts = append(opts, kgo.MaxConcurrentFetches(n))
	}
	if f.MaxBytes > 0 {
		opts = append(opts, kgo.FetchMaxBytes(f.MaxBytes))
	}
	if f.MaxPartitionBytes > 0 {
		opts = append(opts, kgo.FetchMaxPartitionBytes(f.MaxPartitionBytes))
	}
	if f.MaxWait > 0 {
		opts = append(opts, kgo.FetchMaxWait(f.MaxWait))
	}
	if f.MinBytes > 0 {
		opts = append(opts, kgo.FetchMinBytes(f.MinBytes))
	}
	return opts
}

// pollLoop is style blocking: poll at most n records (-1: everything
// fetched), process the batch on the workers, settle it, poll again.
func (m *member) pollLoop(ctx context.Context, workers []*worker, n int) error {
	for m.pollCtx.Err() == nil {
		recs, err := m.poll(m.pollCtx, n)
		if m.pollCtx.Err() != nil {
			break // the poll that shutdown (or leaving) cut short is not a poll of the run
		}
		if err != nil {
			// franz-go retries what can be retried; what reaches us is
			// counted and the member keeps polling, as a service would.
			// Records that came with the error are processed below: the
			// client's position is already past them, so dropping them
			// would leave them unread until the partition moved.
			m.memberRec.PollErrors.Add(1)
		}
		if len(recs) == 0 {
			// Nothing to settle: let a rebalance that waited for this poll
			// (BlockRebalanceOnPoll) go ahead, or it waits forever and the
			// partitions it revokes are never assigned again.
			m.group.allowRebalance()
			if err != nil {
				retry.Sleep(ctx, 100*time.Millisecond)
			} else {
				m.memberRec.RecordPoll(0, 0)
			}
			continue
		}
		m.memberRec.RecordPoll(len(recs), m.rec.Clock.Now())
		m.fetches.settle(false)
		m.group.received(recs)
		m.group.settle(ctx, m.processBatch(ctx, recs, workers))
		if m.pool != nil {
			// Settled: nothing reads these records any more (a share
			// group's implicit ACCEPT at the next poll is kept by the
			// client apart from them).
			for _, r := range recs {
				r.Recycle()
			}
		}
	}
	return ctx.Err()
}

// poll returns at most n records (-1: everything fetched) and the first
// fetch error beside them: a fetch can carry both (one partition's records,
// another's error).
func (m *member) poll(ctx context.Context, n int) ([]*kgo.Record, error) {
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

// processBatch hands the batch to the member's workers and waits until every
// record has an outcome (blocking style: the member polls again only when the
// whole batch is done).
func (m *member) processBatch(ctx context.Context, recs []*kgo.Record, workers []*worker) []handled {
	batch := make([]handled, len(recs))
	for i, r := range recs {
		batch[i].r = r
	}
	for _, w := range workers {
		w.idle() // the poll was real time: a new batch starts from now
	}
	if m.c.Workers == 1 { // one worker: in this goroutine, none started per batch
		for i := range batch {
			m.busy.Add(1)
			m.group.handle(ctx, &batch[i], workers[0])
			m.busy.Add(-1)
		}
		return batch
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(m.c.Workers, len(recs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(batch); i = int(next.Add(1) - 1) {
				m.busy.Add(1)
				m.group.handle(ctx, &batch[i], workers[w])
				m.busy.Add(-1)
			}
		}()
	}
	wg.Wait()
	return batch
}

// begin decodes the record's stamp and records its delivery. A record that
// is not this run's is counted as foreign and marked accepted, and begin
// reports false: the caller lets it go unprocessed.
func (m *member) begin(h *handled) bool {
	st, err := results.DecodeStamp(h.r.Value)
	if err != nil || st.Run != m.rec.Run {
		m.fetches.handed(h.r, -1) // handed over, not timed
		m.rec.Ledger.Foreign()
		h.foreign, h.outcome = true, accepted
		return false
	}
	h.st = st
	h.delivered = m.rec.Clock.Now()
	m.fetches.handed(h.r, h.delivered)
	m.memberRec.RecordDelivery(st, h.r.DeliveryCount(), h.r.Timestamp.UnixNano(), h.delivered)
	return true
}

// processingTime draws one attempt's processing time, slowed down if a
// slow-down is in force.
func (m *member) processingTime(rng *rand.Rand) time.Duration {
	d := m.sampler.Sample(rng)
	if m.slow == nil || m.slow.until.Load() == 0 {
		return d // no slow-down was ever set: no clock reading per record (issue 27.2)
	}
	return m.slow.scale(d, m.rec.Clock.Now())
}

// verdict is the outcome of a finished processing attempt: poison records
// are rejected, an attempt fails transiently (released) at TransientRate,
// and the rest are accepted.
func (m *member) verdict(poison bool, rng *rand.Rand) outcome {
	switch {
	case poison:
		return rejected
	case m.c.TransientRate > 0 && rng.Float64() < m.c.TransientRate:
		return released
	default:
		return accepted
	}
}

// close flushes what the member owes the broker, then leaves the group.
func (m *member) close() {
	d := m.c.closeTimeout()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	defer m.closeDestination()
	if m.crashed.Load() {
		m.closeCrashed(d)
		return
	}
	m.group.flush(ctx)
	m.cl.Close()
}

// isPoison decides, from the record's identity alone, whether it is poison,
// so every delivery of the same record agrees.
func isPoison(st results.Stamp, rate float64) bool { return recordDraw(st, 0, rate) }

// isStuck reports whether the record wedges its worker (Config.StuckRate):
// a draw of its own, independent of isPoison's.
func isStuck(st results.Stamp, rate float64) bool { return recordDraw(st, 0x5eed_57c6, rate) }

// wedge holds the worker on a stuck record until the member stops: the
// record is abandoned (never acknowledged, never completed).
func (m *member) wedge(ctx context.Context, h *handled) {
	m.wedged.Add(1)
	<-ctx.Done()
	h.outcome = abandoned
}

// recordDraw is a per-record coin with probability rate, the same on every
// delivery of the record: a hash of its stamp and salt.
func recordDraw(st results.Stamp, salt uint64, rate float64) bool {
	if rate <= 0 {
		return false
	}
	x := st.Run ^ uint64(st.Producer)<<40 ^ st.Seq ^ salt<<20
	x += 0x9e3779b97f4a7c15 // splitmix64 finaliser
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11)/(1<<53) < rate
}
