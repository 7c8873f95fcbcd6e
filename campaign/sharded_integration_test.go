//go:build integration

package campaign

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/scenarios"
)

// agentBinary builds the sharebench binary the agents run.
func agentBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sharebench")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/sharebench").CombinedOutput(); err != nil {
		t.Fatalf("build sharebench: %v\n%s", err, out)
	}
	return bin
}

func shardSpec(t *testing.T, typ string, shards int) scenarios.RunSpec {
	t.Helper()
	sc, err := scenarios.LoadBytes("sharded", []byte(`name: sharded
consumer_type: `+typ+`
partitions: 4
producers: 3
rate: 600
message_size: 128
members: 6
workers: 1
max_poll_records: 20
processing: {model: constant, time: 1ms}
warmup: 1s
duration: 4s
drain_timeout: 60s
nodes: 1
broker_heap: 768m
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Runs[0]
	s.Shards = shards
	return s
}

// runSharded runs spec on the shared broker with its agents started by l.
func runSharded(t *testing.T, spec scenarios.RunSpec, id string, l shard.Launcher) (*Measured, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return runShardedCtx(ctx, t, spec, id, l)
}

func runShardedCtx(ctx context.Context, t *testing.T, spec scenarios.RunSpec, id string, l shard.Launcher) (*Measured, error) {
	t.Helper()
	cl := needKafka(t)
	rn := runner{cl: cl, log: testLog(t), env: environment(ctx, cl, nil),
		progress: runProgress{p: NoProgress{}, run: 1, recs: 1, id: id}, shards: ShardOptions{Launcher: l}}
	return rn.runOne(ctx, spec, id)
}

// pidLauncher remembers the agents' pids and can kill one mid-run.
type pidLauncher struct {
	*shard.Local
	mu   sync.Mutex
	pids []int
	// killShard, when ≥ 0, is SIGKILLed killAfter after the coordinator
	// sent start (read from the control topic); interrupt, when set, is
	// called instead (Ctrl-C).
	killShard int
	interrupt func()
	killAfter time.Duration
	killed    chan struct{}
}

func (p *pidLauncher) Start(ctx context.Context, a shard.AgentArgs) (shard.Agents, error) {
	ag, err := p.Local.Start(ctx, a)
	if err != nil {
		return nil, err
	}
	pids := ag.(interface{ PIDs() []int }).PIDs()
	p.mu.Lock()
	p.pids = append(p.pids, pids...)
	p.mu.Unlock()
	if p.killShard >= 0 {
		go p.killAfterStart(a, pids[p.killShard])
	}
	return ag, nil
}

// killAfterStart waits for the produce command on the control topic, then
// kills victim once killAfter has passed.
func (p *pidLauncher) killAfterStart(a shard.AgentArgs, victim int) {
	defer close(p.killed)
	cl, err := kgo.NewClient(kgo.SeedBrokers(a.Bootstrap...), kgo.ConsumeTopics(a.ControlTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		started := false
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			if m, err := shard.Decode(r.Value); err == nil && m.Type == shard.TypeProduce {
				started = true
			}
		})
		if started {
			time.Sleep(p.killAfter)
			if p.interrupt != nil {
				p.interrupt()
				return
			}
			_ = syscall.Kill(victim, syscall.SIGKILL)
			return
		}
	}
}

func (p *pidLauncher) checkGone(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.pids) == 0 {
		t.Fatal("no agent was started")
	}
	for _, pid := range p.pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("agent pid %d still running after the run", pid)
		}
	}
}

// runTopics lists the broker's topics of run id (its topic, control and
// results topics).
func runTopics(t *testing.T, id string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(needKafka(t).Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// A deleted topic leaves the broker's metadata a moment after the
	// delete is acknowledged: look again for up to 15 s before calling it
	// left behind.
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		td, err := kadm.NewClient(cl).ListTopics(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, name := range td.Names() {
			if strings.HasPrefix(name, "sharebench-"+id+"-") {
				out = append(out, name)
			}
		}
		if len(out) == 0 || time.Now().After(deadline) {
			return out
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// The same small scenario in one process and over 3 agents gives the same
// totals: every scheduled record produced once and completed once, the
// audit balanced, no duplicate for a consumer group, and the completed
// rate within 10 % of the single run's (both run below their ceiling, so
// both complete what is offered).
func TestShardedMatchesSingle(t *testing.T) {
	for _, typ := range []string{"consumer", "share"} {
		t.Run(typ, func(t *testing.T) {
			l := &pidLauncher{Local: &shard.Local{Binary: agentBinary(t)}, killShard: -1}
			single := runMeasured(t, shardSpec(t, typ, 1), "single-"+typ)
			id := "sharded-" + typ
			m, err := runSharded(t, shardSpec(t, typ, 3), id, l)
			if err != nil {
				t.Fatalf("sharded run: %v", err)
			}
			l.checkGone(t)
			one, three := single.Record, m.Record
			t.Logf("single: %.1f/s audit %+v p50 %.1f p99 %.1f", one.Throughput.CompletedPerSec, one.Audit, one.Latency.CompletionMs.P50, one.Latency.CompletionMs.P99)
			t.Logf("3 shards: %.1f/s audit %+v p50 %.1f p99 %.1f shards %+v", three.Throughput.CompletedPerSec, three.Audit,
				three.Latency.CompletionMs.P50, three.Latency.CompletionMs.P99, three.Shards)
			if three.Shards == nil || three.Shards.Count != 3 || three.Shards.Launcher != "local" || len(three.Shards.PerShard) != 3 {
				t.Fatalf("shards record %+v, want 3 local agents", three.Shards)
			}
			a := three.Audit
			if !a.Balanced || a.Lost != 0 || a.InFlight != 0 || a.Produced != one.Audit.Produced || a.CompletedOnce+a.Duplicates != a.Produced {
				t.Errorf("sharded audit %+v; single produced %d: want the same records, balanced, all completed", a, one.Audit.Produced)
			}
			if typ == "consumer" && a.Duplicates != 0 {
				t.Errorf("consumer group over 3 agents completed %d records twice", a.Duplicates)
			}
			var acked, completed int64
			for _, p := range three.Shards.PerShard {
				acked += p.Acked
				completed += p.Completed
				if p.Pings < 8 || p.UncertaintyMs <= 0 {
					t.Errorf("shard %d: %d pings, uncertainty %.3f ms", p.Shard, p.Pings, p.UncertaintyMs)
				}
			}
			if acked != a.Produced || completed != three.Outcomes.Completed {
				t.Errorf("per-shard acked %d completed %d; merged produced %d completed %d", acked, completed, a.Produced, three.Outcomes.Completed)
			}
			if r := three.Throughput.CompletedPerSec / one.Throughput.CompletedPerSec; math.Abs(r-1) > 0.10 {
				t.Errorf("completed/s: 3 shards %.1f vs one process %.1f (ratio %.3f): want within 10 %%",
					three.Throughput.CompletedPerSec, one.Throughput.CompletedPerSec, r)
			}
			if left := runTopics(t, id); len(left) > 0 {
				t.Errorf("topics left: %v", left)
			}
		})
	}
}

// A consumer-group member crash over 2 agents (in-process, on the real
// broker) reads as in one process (TestConsumerJoinAndCrashOnKafka): 2
// members on 2 partitions, one per agent, so the crashed member's
// partition can only move to the other agent's member. Processing slows
// ×8 from +3 s for 4 s (80 ms a record, 2 workers: 25 records/s against
// the 50/s a partition receives), so the crashed member holds its poll
// batch at +4 s. The other agent re-reads the held records after the
// session timeout (6 s, the broker's minimum): the delivery exchange makes
// them redeliveries in the series at their second, and the pause opened
// on the crashed member's agent ends at the assignment on the other's.
func TestShardedConsumerCrashOnKafka(t *testing.T) {
	needKafka(t)
	s := baseSpec()
	s.ConsumerType, s.Partitions, s.Members, s.Workers, s.MaxPollRecords = "consumer", 2, 2, 2, 10
	s.Rate, s.Producers, s.Warmup, s.Duration = 100, 2, 2*time.Second, 16*time.Second
	s.Shards = 2
	const session = 6 * time.Second
	s.Events = []scenarios.Event{
		{At: 3 * time.Second, Action: scenarios.ActionSlow, Factor: 8, Duration: 4 * time.Second},
		{At: 4 * time.Second, Action: scenarios.ActionCrash, Members: 1},
	}
	m, err := runSharded(t, s, "sharded-crash", inProcess{skewShard: -1, fail: -1, tokens: true})
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	if len(r.Events) != 2 {
		t.Fatalf("events %+v", r.Events)
	}
	crash := r.Events[1]
	first := math.NaN()
	if crash.FirstRedeliverySec != nil {
		first = *crash.FirstRedeliverySec
	}
	t.Logf("crash: held %d, redeliveries %d, first %.2fs after the crash, pauses %d, longest %.2fs", crash.HeldByCrashed, crash.Redeliveries,
		first, crash.RebalancePauses, crash.RebalancePauseMaxS)
	if crash.Error != "" {
		t.Fatalf("crash: %s", crash.Error)
	}
	if crash.HeldByCrashed <= 0 {
		t.Errorf("crash: the crashed member held %d records, want > 0 (a slowed member always holds its poll batch)", crash.HeldByCrashed)
	}
	if crash.Redeliveries < crash.HeldByCrashed {
		t.Errorf("crash: %d redeliveries in the series, want ≥ the %d records the crashed member held", crash.Redeliveries, crash.HeldByCrashed)
	}
	lo, hi := (session - 2*time.Second).Seconds(), (session + 6*time.Second).Seconds()
	if crash.FirstRedeliverySec == nil {
		t.Errorf("crash: no redelivery at a second, after the crash of a member holding %d records", crash.HeldByCrashed)
	} else if v := *crash.FirstRedeliverySec; v < lo || v > hi {
		t.Errorf("crash: first redelivery %.1fs after the crash, want within [%.0f, %.0f] s of the 6 s session timeout", v, lo, hi)
	}
	if crash.RebalancePauses < 1 || crash.RebalancePauseMaxS < 4 {
		t.Errorf("crash: %d pauses, longest %.1fs: want the crashed member's partition paused ≥ 4 s (its 6 s session) until the other agent's member took it",
			crash.RebalancePauses, crash.RebalancePauseMaxS)
	}
	if !r.Audit.Balanced || r.Audit.Lost != 0 || r.Outcomes.Redelivered < crash.Redeliveries {
		t.Errorf("audit %+v, redelivered %d: want balanced, nothing lost, the total at least the event's", r.Audit, r.Outcomes.Redelivered)
	}
}
