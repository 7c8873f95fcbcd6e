package consumers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sharebench/sharebench/results"
)

// Fleet is a running consumer fleet whose membership and processing speed
// can change while it runs (scale events).
type Fleet struct {
	c       Config
	sampler Sampler
	rec     *results.Recorder
	g       *errgroup.Group
	gctx    context.Context
	slow    slowState
	rebal   *rebalanceWatch // consumer groups' partitions (stays empty for share groups)
	// newGroupMember gives a new member its group-type half.
	newGroupMember func(*member) groupMember
	// java runs the members in a client runner instead (Client java or
	// librdkafka, java_fleet.go); the methods below hand over to it.
	java *javaFleet

	// hold is closed by Release (nil without Config.Hold).
	hold       chan struct{}
	holdOnce   sync.Once
	releasedAt atomic.Int64 // Clock ns; 0 until released

	mu      sync.Mutex
	watches []*fetchWatch // every member's, ever
	// statsStripes hold the watches' figures (clientstats.go).
	statsStripes []*statsStripe
	// pool is the members' fetched records and decompression buffers
	// (pool.go); nil in continuous style, which does not recycle.
	pool    *fetchPool
	active  []*member // oldest first
	crashed []*member
	nextID  int
	joined  int // members started, for Config.IDs
}

// Start validates c and starts c.Members members. The fleet runs until ctx
// ends (then every member flushes and leaves) or a member fails.
func Start(ctx context.Context, c Config, rec *results.Recorder) (*Fleet, error) {
	sampler, err := NewSampler(c.Processing)
	if err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if c.Client.Runner() {
		start := startJava
		switch c.Client {
		case ClientLibrdkafka:
			start = startLibrdkafka
		case ClientSpring:
			start = startSpring
		}
		j, err := start(ctx, c, rec)
		if err != nil {
			return nil, err
		}
		return &Fleet{c: c, sampler: sampler, rec: rec, java: j}, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	f := &Fleet{c: c, sampler: sampler, rec: rec, g: g, gctx: gctx, rebal: newRebalanceWatch(rec)}
	if c.Hold {
		f.hold = make(chan struct{})
	}
	if c.Style == StyleBlocking { // the poll loop recycles what it settled
		f.pool = &fetchPool{}
	}
	f.newGroupMember = func(m *member) groupMember { return newConsumerGroupMember(m, f.rebal) }
	if c.Type == ShareGroup {
		f.newGroupMember = func(m *member) groupMember { return &shareGroupMember{member: m} }
	}
	f.Join(c.Members)
	return f, nil
}

// Run starts the fleet and consumes until ctx ends, then flushes
// acknowledgements/commits and leaves the group. It returns the first member
// error other than the context ending.
func Run(ctx context.Context, c Config, rec *results.Recorder) error {
	f, err := Start(ctx, c, rec)
	if err != nil {
		return err
	}
	return f.Wait()
}

// Wait waits for every member to stop and returns the first member error
// other than the context ending. Crashed members' connections are closed
// then.
func (f *Fleet) Wait() error {
	if f.java != nil {
		return f.java.Wait()
	}
	err := f.g.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.crashed {
		m.dialer.release()
	}
	return err
}

// Release lets held members (Config.Hold) consume, and returns the
// release time (Clock ns). A fleet without Hold consumes from the start;
// Release is then a no-op that returns the time of the call. Only the
// first call releases.
func (f *Fleet) Release() int64 {
	f.holdOnce.Do(func() {
		f.releasedAt.Store(f.rec.Clock.Now())
		if f.hold != nil {
			close(f.hold)
		}
	})
	return f.releasedAt.Load()
}

// holding is the channel a new member waits on: nil once released (members
// that join later consume at once) or without Hold.
func (f *Fleet) holding() <-chan struct{} {
	if f.hold == nil || f.releasedAt.Load() != 0 {
		return nil
	}
	return f.hold
}

// Generation is the highest consumer-group generation a member of the fleet
// was assigned partitions in (0: none yet, or a share group): the
// assignment rounds the group went through.
func (f *Fleet) Generation() int32 {
	if f.java != nil { // the Java runner's members report through their own watch
		return f.java.rebal.generation.Load()
	}
	return f.rebal.generation.Load()
}

// Members is the number of members running now.
func (f *Fleet) Members() int {
	if f.java != nil {
		return f.java.Members()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.active)
}

// Join starts n more members (each records its join request time) and
// returns their ids.
func (f *Fleet) Join(n int) []int {
	if f.java != nil {
		return f.java.Join(n)
	}
	f.mu.Lock()
	ids := nextIDs(n, f.c.IDs, &f.joined, &f.nextID)
	f.mu.Unlock()
	return f.JoinIDs(ids)
}

// nextIDs draws the ids of n members joining: Config.IDs first, then ids
// above the largest so far.
func nextIDs(n int, given []int, joined, next *int) []int {
	ids := make([]int, 0, n)
	for range n {
		id := *next
		if *joined < len(given) {
			id = given[*joined]
		}
		*joined++
		ids = append(ids, id)
		*next = max(*next, id) + 1
	}
	return ids
}

// JoinIDs starts members with the ids given (a sharded run's coordinator
// draws them, so they are distinct across agents) and returns them.
func (f *Fleet) JoinIDs(ids []int) []int {
	if f.java != nil {
		return f.java.JoinIDs(ids)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gctx.Err() != nil {
		return nil // the fleet is stopping: Wait may be returning
	}
	for _, id := range ids {
		f.nextID = max(f.nextID, id+1)
		mctx, stop := context.WithCancel(f.gctx)
		pctx, stopPolling := context.WithCancel(mctx)
		m := &member{id: id, c: f.c, sampler: f.sampler, rec: f.rec, memberRec: f.rec.MemberRecorder(),
			slow: &f.slow, pollCtx: pctx, stopPolling: stopPolling, stop: stop,
			dialer: &crashDialer{}, exited: make(chan struct{}), hold: f.holding(), pool: f.pool}
		m.fetches = newFetchWatch(f.rec.Clock, f.statsStripe())
		f.watches = append(f.watches, m.fetches)
		m.group = f.newGroupMember(m)
		m.memberRec.Joined(id, f.rec.Clock.Now())
		f.active = append(f.active, m)
		f.g.Go(func() error {
			defer close(m.exited)
			defer stop()
			// The member's goroutines, its client's included (started from
			// here), carry the profiler label sharebench=member: go tool
			// pprof -tagfocus sharebench=member on a --cpu-profile.
			var err error
			pprof.Do(mctx, pprof.Labels("sharebench", "member"), func(ctx context.Context) { err = m.run(ctx) })
			if mctx.Err() == nil && !m.crashed.Load() {
				m.memberRec.Left(f.rec.Clock.Now()) // left gracefully (Leave)
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("member %d: %w", id, err)
			}
			return nil
		})
	}
	return ids
}

// take removes the n oldest members from the active set.
func (f *Fleet) take(n int) ([]*member, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := checkTake(n, len(f.active), f.c.OneOfSeveral); err != nil {
		return nil, err
	}
	out := f.active[:n:n]
	f.active = f.active[n:]
	return out, nil
}

// Leave makes the n oldest members leave gracefully: each stops polling,
// finishes the records it holds, acknowledges or commits them and leaves
// the group. It returns when they have left (or ctx ends).
func (f *Fleet) Leave(ctx context.Context, n int) ([]int, error) {
	if f.java != nil {
		return f.java.Leave(ctx, n)
	}
	ms, err := f.take(n)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		m.stopPolling()
	}
	return ids(ms), waitMembers(ctx, ms)
}

// checkTake refuses removing n of active members: at least one must stay,
// unless the fleet is one of several (Config.OneOfSeveral), whose last
// member may go.
func checkTake(n, active int, oneOfSeveral bool) error {
	if n < 1 || n > active || (n == active && !oneOfSeveral) {
		return fmt.Errorf("consumers: cannot remove %d of %d members: at least one must stay", n, active)
	}
	return nil
}

func ids(ms []*member) []int {
	out := make([]int, len(ms))
	for i, m := range ms {
		out[i] = m.id
	}
	return out
}

// Crash stops the n oldest members dead: their connections are closed and
// new dials fail, so no acknowledgement, commit or leave request reaches the
// broker, which notices only by timeouts (share: acquisition locks expire;
// consumer group: the session times out). Their clients are still closed
// (bounded by CloseTimeout). It returns once they have stopped.
func (f *Fleet) Crash(ctx context.Context, n int) ([]int, error) {
	if f.java != nil {
		return f.java.Crash(ctx, n)
	}
	ms, err := f.take(n)
	if err != nil {
		return nil, err
	}
	now := f.rec.Clock.Now()
	f.mu.Lock()
	f.crashed = append(f.crashed, ms...)
	f.mu.Unlock()
	for _, m := range ms {
		m.crashed.Store(true)
		m.dialer.crash()
		m.memberRec.Crashed(now)
		f.rebal.crashed(m.id, now)
		m.stop()
	}
	return ids(ms), waitMembers(ctx, ms)
}

func waitMembers(ctx context.Context, ms []*member) error {
	for _, m := range ms {
		select {
		case <-m.exited:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// SlowDown multiplies every processing time by factor for d, from now.
func (f *Fleet) SlowDown(factor float64, d time.Duration) {
	if f.java != nil {
		f.java.SlowDown(factor, d)
		return
	}
	f.slow.set(factor, f.rec.Clock.Now()+int64(d))
}

// slowState is the fleet's processing-time multiplier and until when it
// applies (Clock ns).
type slowState struct {
	factor atomic.Uint64 // float64 bits
	until  atomic.Int64
}

func (s *slowState) set(factor float64, until int64) {
	s.factor.Store(math.Float64bits(factor))
	s.until.Store(until)
}

// scale applies the slow-down in force at now to d.
func (s *slowState) scale(d time.Duration, now int64) time.Duration {
	if s == nil || now >= s.until.Load() {
		return d
	}
	return time.Duration(float64(d) * math.Float64frombits(s.factor.Load()))
}
