package campaign

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/campaign/autoscale"
	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// countFleet is a fleet whose member count follows its joins and leaves.
type countFleet struct {
	n, next int
	calls   []string
}

func (f *countFleet) Join(n int) []int {
	f.calls = append(f.calls, "join")
	var ids []int
	for range n {
		ids = append(ids, f.next)
		f.next++
	}
	f.n += n
	return ids
}
func (f *countFleet) Leave(_ context.Context, n int) ([]int, error) {
	f.calls = append(f.calls, "leave")
	f.n -= n
	return []int{0}, nil
}
func (f *countFleet) Crash(_ context.Context, n int) ([]int, error) {
	f.calls = append(f.calls, "crash")
	f.n -= n
	return []int{0}, nil
}
func (f *countFleet) SlowDown(float64, time.Duration) {}
func (f *countFleet) Members() int                    { return f.n }

// The scaler wiring: readings from the lag sampler and the counters, the
// decision carried out on the fleet, recorded as a decision and as an
// event labelled for the per-event analysis.
func TestScalerActsThroughTheFleet(t *testing.T) {
	spec := scenarios.RunSpec{ConsumerType: "share", Partitions: 2, Fleet: scenarios.Fleet{Workers: 1, Members: 1},
		Autoscale: &scenarios.Autoscale{Signal: "lag", Threshold: 100, InBelow: 10, Window: time.Second, OutAfter: time.Second,
			InAfter: 2 * time.Second, Cooldown: 3 * time.Second, Step: 2, Min: 1, Max: 5, Poll: time.Second, Remove: "leave"}}
	fl := &countFleet{n: 1, next: 1}
	lag := int64(0)
	var out strings.Builder
	sc := &scaler{spec: spec, fleet: fl, clock: results.NewClock(), log: &out, latency: heldTime,
		lag: func() (collectors.LagSample, bool) { return collectors.LagSample{At: time.Now(), Lag: lag}, true }}
	var err error
	if sc.rule, err = autoscale.New(policy(spec)); err != nil {
		t.Fatal(err)
	}
	sc.start = fl.Members()
	prev := results.Counts{}
	now := results.Counts{}
	now.Completed, now.Acked, now.Delivered = 100, 150, 120 // 20 in flight at 100/s: 200 ms held
	for i, l := range []int64{0, 500, 500, 500, 0, 0, 0} {
		lag = l
		sc.step(context.Background(), 0, int64(i)*int64(time.Second), prev, now, time.Second)
	}
	log, events := sc.stop()
	if got := strings.Join(fl.calls, ","); got != "join,leave" {
		t.Fatalf("fleet calls %q, want join,leave (log:\n%s)", got, out.String())
	}
	if len(log.Decisions) != 7 || log.Decisions[2].Action != "out" || log.Decisions[2].To != 3 || log.Decisions[2].LatencyMs != 200 {
		t.Errorf("decisions %+v", log.Decisions)
	}
	if log.Start != 1 || log.MaxReplicas != 5 || log.Cap.Replicas != 200 {
		t.Errorf("log %+v, want start 1, max 5 and the share cap 200 (group.share.max.size)", log)
	}
	if len(events) != 2 || events[0].Label != "autoscale out 1→3" || events[0].Action != "join" || events[1].Action != "leave" ||
		!strings.HasPrefix(events[1].Label, runs.ScalerLabel) {
		t.Errorf("events %+v", events)
	}
	if !strings.Contains(out.String(), "autoscale +2.0s: out 1→3: lag 500, smoothed 500, per replica 500") {
		t.Errorf("console:\n%s", out.String())
	}
}

// The scaler's events join the scheduled ones in the order they started,
// so the per-event analysis sees one timeline.
func TestMergeEvents(t *testing.T) {
	fired := []runs.Event{{Label: "join 2", StartNs: 10}, {Label: "slow ×2", StartNs: 30}}
	scaled := []runs.Event{{Label: "autoscale out 1→3", StartNs: 20}, {Label: "autoscale in 3→1", StartNs: 40}}
	got := mergeEvents(fired, scaled)
	want := []string{"join 2", "autoscale out 1→3", "slow ×2", "autoscale in 3→1"}
	for i, w := range want {
		if got[i].Label != w {
			t.Fatalf("merged %v, want labels %v", got, want)
		}
	}
	if ids := runs.ScalerEvents([]runs.EventReport{{Event: got[0]}, {Event: got[1]}, {Event: got[2]}, {Event: got[3]}}); len(ids) != 2 || ids[0] != 1 || ids[1] != 3 {
		t.Errorf("scaler events at %v, want [1 3]", ids)
	}
	// Little's law: 30 in flight at 60 completions/s is 500 ms held.
	var prev, now results.Counts
	now.Completed, now.Delivered = 120, 150
	prev.Completed = 60
	if h := heldTime(prev, now, time.Second); h != 500*time.Millisecond {
		t.Errorf("held time %v, want 500ms", h)
	}
	if h := heldTime(now, now, time.Second); h != 0 {
		t.Errorf("held time without completions %v, want 0", h)
	}
}

// Rule 4's input: a run with a destination holds the scaler to the mean
// write time of the last poll, one without to the held time.
func TestScalerLatencyIsTheDestinationsWithOne(t *testing.T) {
	var prev, now results.Counts
	prev.DestinationWrites, prev.DestinationWriteNanos = 100, int64(100*time.Millisecond)
	now.DestinationWrites, now.DestinationWriteErrors = 130, 10 // 40 writes finished, 10 of them failed
	now.DestinationWriteNanos = prev.DestinationWriteNanos + int64(40*25*time.Millisecond)
	if d := destinationWriteTime(prev, now, time.Second); d != 25*time.Millisecond {
		t.Errorf("mean write time %v, want 25ms", d)
	}
	if d := destinationWriteTime(now, now, time.Second); d != 0 {
		t.Errorf("no write finished: %v, want 0", d)
	}
	spec := scenarios.RunSpec{ConsumerType: "share", Partitions: 2, Fleet: scenarios.Fleet{Workers: 1, Members: 1},
		Autoscale: &scenarios.Autoscale{Signal: "lag", Threshold: 100, InBelow: 10, Window: time.Second, OutAfter: time.Second,
			InAfter: 2 * time.Second, Cooldown: 3 * time.Second, Step: 1, Min: 1, Max: 5, Poll: time.Second, Remove: "leave",
			MaxLatency: 20 * time.Millisecond}}
	for _, dest := range []bool{false, true} {
		s := spec
		if dest {
			s.Destination = &scenarios.Destination{}
		}
		sc, err := newScaler(s, &countFleet{n: 1}, nil, nil, results.NewClock(), &strings.Builder{})
		if err != nil {
			t.Fatal(err)
		}
		got := sc.latency(prev, now, time.Second)
		want := heldTime(prev, now, time.Second)
		if dest {
			want = 25 * time.Millisecond
		}
		if got != want {
			t.Errorf("destination %v: latency %v, want %v", dest, got, want)
		}
	}
}
