//go:build integration && long

package campaign

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/campaign/shard"
)

// An agent killed mid-run fails the run with its shard named; no agent is
// left running and the run's topics (data, control, results) are deleted.
func TestShardedKilledShard(t *testing.T) {
	l := &pidLauncher{Local: &shard.Local{Binary: agentBinary(t), Grace: 2 * time.Second}, killShard: 1,
		killAfter: 2 * time.Second, killed: make(chan struct{})}
	spec := shardSpec(t, "consumer", 3) // forms faster than a share group
	_, err := runSharded(t, spec, "killed", l)
	select {
	case <-l.killed:
	case <-time.After(time.Minute):
		t.Fatal("the killer never saw the start")
	}
	if err == nil {
		t.Fatal("a run with a killed agent succeeded")
	}
	t.Logf("error: %v", err)
	if !strings.Contains(err.Error(), "shard 1 failed") || !strings.Contains(err.Error(), "signal: killed") ||
		strings.Contains(err.Error(), "before the group formed") {
		t.Errorf("error %q: want shard 1 failed, killed, after the start", err)
	}
	l.checkGone(t)
	if left := runTopics(t, "killed"); len(left) > 0 {
		t.Errorf("topics left: %v", left)
	}
}

// Ctrl-C in the middle of a sharded run (the context ends) stops every
// agent and deletes the run's topics.
func TestShardedInterrupted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l := &pidLauncher{Local: &shard.Local{Binary: agentBinary(t), Grace: 2 * time.Second}, killShard: 0,
		killAfter: time.Second, killed: make(chan struct{}), interrupt: cancel}
	_, err := runShardedCtx(ctx, t, shardSpec(t, "consumer", 2), "interrupted", l)
	<-l.killed
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: error %v, want context canceled", err)
	}
	l.checkGone(t)
	if left := runTopics(t, "interrupted"); len(left) > 0 {
		t.Errorf("topics left: %v", left)
	}
}

// An agent whose clock runs 2 s ahead has its offset measured as about
// -2 s, within its stated uncertainty; the latencies, corrected by it, stay
// those of a normal run (milliseconds, not seconds).
func TestShardedClockSkew(t *testing.T) {
	const skew = 2 * time.Second
	l := &pidLauncher{Local: &shard.Local{Binary: agentBinary(t), ShardEnv: func(i int) []string {
		if i == 1 {
			return []string{"SHAREBENCH_AGENT_CLOCK_SKEW=" + skew.String()}
		}
		return nil
	}}, killShard: -1}
	m, err := runSharded(t, shardSpec(t, "share", 3), "skew", l)
	if err != nil {
		t.Fatal(err)
	}
	l.checkGone(t)
	r := m.Record
	for _, p := range r.Shards.PerShard {
		want := 0.0
		if p.Shard == 1 {
			want = -float64(skew) / 1e6
		}
		// The true offset lies within ±uncertainty of the estimate; 1 ms
		// more allows for the two processes' clocks reading the wall time
		// at different instants of an NTP slew.
		if d := math.Abs(p.OffsetMs - want); d > p.UncertaintyMs+1 {
			t.Errorf("shard %d: offset %.3f ms, want %.0f ± %.3f ms", p.Shard, p.OffsetMs, want, p.UncertaintyMs)
		}
	}
	lat := r.Latency.CompletionMs
	t.Logf("completion p50 %.1f p99 %.1f max %.1f; shards %+v", lat.P50, lat.P99, lat.Max, r.Shards.PerShard)
	// Uncorrected, the records sent on shard 1 and completed elsewhere (and
	// the reverse) would be off by 2 s: about a third of them, so p99 would
	// be above 2000 ms.
	if lat.P50 <= 0 || lat.P99 > 1500 {
		t.Errorf("completion latency p50 %.1f p99 %.1f ms: the 2 s skew leaked into them", lat.P50, lat.P99)
	}
	if !r.Audit.Balanced || r.Audit.Lost != 0 {
		t.Errorf("audit %+v", r.Audit)
	}
}
