package campaign

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/scenarios"
)

// inProcess runs agents as goroutines calling Agent: the whole protocol in
// one test process, on kfake (not Kafka). fail, when ≥ 0, makes that shard
// return an error right after its hello; skew shifts one shard's clock.
type inProcess struct {
	skewShard int
	skew      time.Duration
	fail      int
	// tokens makes it a shard.TokenCarrier: each agent gets its token;
	// tamper rewrites one shard's messages before they are signed (an
	// agent that lies).
	tokens bool
	tamper map[int]func(*shard.Msg)
}

func (p inProcess) Name() string { return "in-process" }

func (p inProcess) CarriesTokens() bool { return p.tokens }

func (p inProcess) Start(ctx context.Context, a shard.AgentArgs) (shard.Agents, error) {
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ag := &goAgents{exited: make(chan shard.Exit, a.Shards), cancel: cancel}
	for i := range a.Shards {
		o := AgentOptions{Bootstrap: a.Bootstrap, ControlTopic: a.ControlTopic, ResultsTopic: a.ResultsTopic, Shard: i, Shards: a.Shards}
		if i == p.skewShard {
			o.ClockSkew = p.skew
		}
		if i < len(a.Tokens) {
			o.Token = a.Tokens[i]
		}
		o.tamper = p.tamper[i]
		ag.wg.Add(1)
		go func() {
			defer ag.wg.Done()
			var err error
			if i == p.fail {
				err = failingAgent(actx, o)
			} else {
				err = Agent(actx, o)
			}
			ag.exited <- shard.Exit{Shard: i, Err: err}
		}()
	}
	go func() { ag.wg.Wait(); close(ag.exited) }()
	return ag, nil
}

// failingAgent says hello, then fails as an agent does: failed, an error.
func failingAgent(ctx context.Context, o AgentOptions) error {
	bus, err := shard.NewBus(ctx, o.Bootstrap, o.ControlTopic, o.ResultsTopic)
	if err != nil {
		return err
	}
	defer bus.Close()
	if err := bus.Send(ctx, shard.Msg{Type: shard.TypeHello, Shard: o.Shard, Version: shard.ProtocolVersion}); err != nil {
		return err
	}
	_ = bus.Send(ctx, shard.Msg{Type: shard.TypeFailed, Shard: o.Shard, Error: "disk on fire"})
	return errors.New("disk on fire")
}

type goAgents struct {
	exited chan shard.Exit
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (g *goAgents) Exited() <-chan shard.Exit  { return g.exited }
func (g *goAgents) Stop(context.Context) error { g.cancel(); g.wg.Wait(); return nil }

func shardedRun(ctx context.Context, t *testing.T, l shard.Launcher, shards int) (*Measured, error) {
	_, cl := startKfake(t)
	s := baseSpec()
	s.Members, s.Producers, s.Rate, s.Shards = 3, 3, 300, shards
	s.Processing.Time = time.Millisecond
	s.Warmup, s.Duration = time.Second, 2*time.Second
	rn := runner{cl: cl, log: testLog(t), env: environment(ctx, cl, nil),
		progress: runProgress{p: NoProgress{}, run: 1, recs: 1, id: "kfake-sharded"}, shards: ShardOptions{Launcher: l}}
	return rn.runOne(ctx, s, "kfake-sharded")
}

// The protocol end to end on kfake (not Kafka), agents in-process: three
// shards produce and complete every scheduled record once, the merged audit
// balances, an agent whose clock is 1.5 s ahead has it measured within its
// uncertainty and the completion latencies stay in milliseconds.
func TestShardedProtocolOnKfake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const skew = 1500 * time.Millisecond
	// Tokens on: every message is signed and checked, and the skewed
	// shard's offset passes the coordinator's physical bounds.
	m, err := shardedRun(ctx, t, inProcess{skewShard: 2, skew: skew, fail: -1, tokens: true}, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	// 300 records/s over 3 s of warm-up and window, split over 3 producers.
	if a := r.Audit; !a.Balanced || a.Produced != 900 || a.CompletedOnce != 900 {
		t.Errorf("audit %+v, want 900 produced and completed once", a)
	}
	if r.Shards == nil || r.Shards.Count != 3 || r.Shards.Launcher != "in-process" {
		t.Fatalf("shards record %+v", r.Shards)
	}
	// The merge decodes and absorbs 900 records' marks and three recorders:
	// it takes some time, and far less than the run.
	if r.Shards.MergeSec <= 0 || r.Shards.MergeSec > 10 {
		t.Errorf("shards.merge_s %v, want in (0, 10] s", r.Shards.MergeSec)
	}
	for _, p := range r.Shards.PerShard {
		want := 0.0
		if p.Shard == 2 {
			want = -float64(skew) / 1e6
		}
		if d := math.Abs(p.OffsetMs - want); d > p.UncertaintyMs+1 {
			t.Errorf("shard %d: offset %.3f ms, want %.0f ± %.3f", p.Shard, p.OffsetMs, want, p.UncertaintyMs)
		}
		if p.Acked != 300 || len(p.Producers) != 1 || p.Producers[0] != p.Shard || len(p.Members) != 1 {
			t.Errorf("shard %d: %+v, want producer and member %d with 300 acks", p.Shard, p, p.Shard)
		}
	}
	if b := r.Latency.BufferedMs; b.Count < 900 { // the agents' client statistics, added up
		t.Errorf("buffered time over %d records, want every one of 900", b.Count)
	}
	// Uncorrected, a third of the records would be 1.5 s off: p99 ≥ 1500 ms.
	if lat := r.Latency.CompletionMs; lat.P99 > 1200 || lat.P50 <= 0 {
		t.Errorf("completion latency %+v: the skew leaked into it", lat)
	}
}

// A shard that fails fails the run with its shard and message named.
func TestShardedFailureNamesTheShard(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := shardedRun(ctx, t, inProcess{skewShard: -1, fail: 1}, 2)
	if err == nil || !strings.Contains(err.Error(), "shard 1 failed: disk on fire") {
		t.Fatalf("error %v, want shard 1 failed: disk on fire", err)
	}
}

// An agent that exited 0 is given doneGrace for its done message to arrive
// through the broker (the exit is seen first); after that the run fails.
func TestLateDone(t *testing.T) {
	c := &coord{n: 2, done: map[int]*shard.Progress{0: {}}, cleanExit: map[int]cleanExit{
		0: {at: time.Now().Add(-time.Minute)}, // its done arrived
		1: {at: time.Now(), output: "bye"}}}   // within the grace
	if err := c.lateDone(); err != nil {
		t.Fatalf("within the grace: %v", err)
	}
	c.cleanExit[1] = cleanExit{at: time.Now().Add(-doneGrace - time.Second), output: "bye"}
	if err := c.lateDone(); err == nil || !strings.Contains(err.Error(), "shard 1 failed: exited before sending its results") {
		t.Fatalf("after the grace: %v", err)
	}
}

// shardedSpec runs s split over shards in-process agents on kfake (not
// Kafka).
func shardedSpec(ctx context.Context, t *testing.T, s scenarios.RunSpec, shards int) *Measured {
	t.Helper()
	_, cl := startKfake(t)
	s.Shards = shards
	rn := runner{cl: cl, log: testLog(t), env: environment(ctx, cl, nil),
		progress: runProgress{p: NoProgress{}, run: 1, recs: 1, id: "kfake-sharded"},
		shards:   ShardOptions{Launcher: inProcess{skewShard: -1, fail: -1, tokens: true}}}
	m, err := rn.runOne(ctx, s, "kfake-sharded")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A backlog drain split over two agents: one fill by both shards'
// producers, the group formed across agents, the drain ended on the
// merged count; every record completed once (kfake, not Kafka).
func TestShardedBacklogOnKfake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := baseSpec()
	s.LoadMode, s.BacklogRecords, s.Producers, s.Members = scenarios.LoadBacklog, 3000, 2, 3
	s.Processing.Time = time.Millisecond
	r := shardedSpec(ctx, t, s, 2).Record
	if a := r.Audit; !a.Balanced || a.Produced != 3000 || a.CompletedOnce != 3000 {
		t.Errorf("audit %+v, want 3000 produced and completed once", a)
	}
	if ph := r.Phases; ph.DrainSec <= 0 || ph.FillSec <= 0 || ph.DrainTimedOut {
		t.Errorf("phases %+v, want a fill and a drain that ended", ph)
	}
	if r.Shards == nil || r.Shards.Count != 2 || r.Shards.PerShard[0].Acked+r.Shards.PerShard[1].Acked != 3000 {
		t.Errorf("shards %+v, want the 3000 acks split over both", r.Shards)
	}
}

// Events addressed to members on any agent: a join lands on the shard
// running fewest, a leave takes the run's oldest member wherever it runs,
// and the ids stay distinct across shards (kfake, not Kafka).
func TestShardedEventsOnKfake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := baseSpec()
	s.Members, s.Producers, s.Rate = 3, 2, 200
	s.Processing.Time = time.Millisecond
	s.Warmup, s.Duration = time.Second, 4*time.Second
	s.Events = []scenarios.Event{{At: time.Second, Action: scenarios.ActionJoin, Members: 2},
		{At: 2 * time.Second, Action: scenarios.ActionLeave, Members: 2}}
	r := shardedSpec(ctx, t, s, 2).Record
	if a := r.Audit; !a.Balanced || a.Lost != 0 || a.Produced != 1000 {
		t.Errorf("audit %+v, want 1000 produced, balanced, none lost", a)
	}
	if len(r.Events) != 2 {
		t.Fatalf("events %+v, want 2", r.Events)
	}
	// Members 0, 2 on shard 0 and 1 on shard 1: the joiners take ids 3 and
	// 4 (one on each shard); the leave takes the oldest, 0 and 1.
	join, leave := r.Events[0], r.Events[1]
	if join.Error != "" || !slices.Equal(join.Members, []int{3, 4}) {
		t.Errorf("join %+v, want members [3 4]", join)
	}
	if leave.Error != "" || !slices.Equal(leave.Members, []int{0, 1}) {
		t.Errorf("leave %+v, want members [0 1]", leave)
	}
}

// Once the run's context ends, a wait still under way on the agents (an
// event's join, bounded by commandTimeout) returns at once with the end,
// and the end is not reported as an agent's failure.
func TestCoordWaitEndsWithTheRun(t *testing.T) {
	c := &coord{n: 2, changed: make(chan struct{}), exitErr: make(chan error, 1), replies: map[int]map[int]shard.Reply{}}
	done := make(chan error, 1)
	go func() {
		done <- c.until(context.Background(), commandTimeout, "its reply", func(i int) bool { return false })
	}()
	time.Sleep(50 * time.Millisecond)
	if c.handled(nil, nil) {
		t.Fatal("a step without failure stopped the pump")
	}
	if !c.handled(context.Canceled, context.Canceled) {
		t.Fatal("the run's end did not stop the pump")
	}
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("wait ended with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait outlived the run's end")
	}
	select {
	case err := <-c.exitErr:
		t.Fatalf("the run's end reported as a failure: %v", err)
	default:
	}
}
