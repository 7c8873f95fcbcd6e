package autoscale

import (
	"math"
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
)

func secs(n int) time.Duration { return time.Duration(n) * time.Second }

// series makes one reading per second from the lags given.
func series(lags ...int64) []Reading {
	out := make([]Reading, len(lags))
	for i, l := range lags {
		out[i] = Reading{At: secs(i), OK: true, Lag: l}
	}
	return out
}

func repeatLag(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

type act struct {
	at       int
	a        blocks.Action
	from, to int
}

func actions(ds []Decision) []act {
	var out []act
	for _, d := range ds {
		if d.Action == blocks.Out || d.Action == blocks.In {
			out = append(out, act{int(d.AtSec), d.Action, d.From, d.To})
		}
	}
	return out
}

func sameActs(t *testing.T, got, want []act) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("actions %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("action %d: %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

var spikePolicy = Policy{Signal: blocks.SignalLag, Threshold: 100, Window: secs(3), OutAfter: secs(2), InAfter: secs(5),
	InBelow: 10, Cooldown: secs(4), Step: 1, Min: 1, Max: 4}

// A spike of lag 1000 from 5 s to 14 s, worked by hand: the 3 s mean per
// replica passes 100 at 5 s, holds N = 2 s → out at 7 s; the cooldown
// (4 s) spaces the next outs to 11 s and 15 s (at 15 s the mean is still
// 667 ÷ 3 = 222 > 100); the lag is 0 from 15 s, so the mean is ≤ 10 from
// 17 s, held M = 5 s → in at 22 s, then one step per cooldown.
func TestReplaySpike(t *testing.T) {
	lags := append(append(repeatLag(0, 5), repeatLag(1000, 10)...), repeatLag(0, 20)...)
	ds, err := Replay(spikePolicy, series(lags...), 1)
	if err != nil {
		t.Fatal(err)
	}
	sameActs(t, actions(ds), []act{{7, blocks.Out, 1, 2}, {11, blocks.Out, 2, 3}, {15, blocks.Out, 3, 4}, {22, blocks.In, 4, 3}, {26, blocks.In, 3, 2}, {30, blocks.In, 2, 1}})
	d := ds[7]
	if d.Smoothed != 1000 || d.PerReplica != d.Smoothed || d.HeldSec != 2 || d.Lag != 1000 {
		t.Errorf("decision at 7 s carries its inputs wrong: %+v", d)
	}
	if d.Reason != "lag per replica 1000 > 100 for 2.0s" {
		t.Errorf("reason %q", d.Reason)
	}
	for _, d := range ds[:3] {
		if d.Action != blocks.Hold {
			t.Errorf("acted at %v before the window filled: %+v", d.AtSec, d)
		}
	}
}

// Noise without cooldown flaps: lag 500 for 2 s, 0 for 3 s, again and
// again; with a 1 s window, N = 1 s and M = 2 s the scaler goes out on the
// second noisy second and in on the third quiet one, every 5 s.
func TestReplayNoiseFlapsWithoutCooldown(t *testing.T) {
	var lags []int64
	for range 4 {
		lags = append(lags, 500, 500, 0, 0, 0)
	}
	p := Policy{Signal: blocks.SignalLag, Threshold: 100, Window: secs(1), OutAfter: secs(1), InAfter: secs(2), InBelow: 10, Step: 1, Min: 1, Max: 4}
	ds, err := Replay(p, series(lags...), 2)
	if err != nil {
		t.Fatal(err)
	}
	sameActs(t, actions(ds), []act{{4, blocks.In, 2, 1}, {6, blocks.Out, 1, 2}, {9, blocks.In, 2, 1}, {11, blocks.Out, 1, 2}, {14, blocks.In, 2, 1}, {16, blocks.Out, 1, 2}, {19, blocks.In, 2, 1}})
	// The same noise with a 10 s cooldown: the in at 4 s, then nothing
	// until 14 s, when the out condition held (15 s, 16 s: out).
	p.Cooldown = secs(10)
	ds, _ = Replay(p, series(lags...), 2)
	sameActs(t, actions(ds), []act{{4, blocks.In, 2, 1}, {16, blocks.Out, 1, 2}})
}

// Rule 4 and the cap block a scale-out, and say why; a failed reading is
// skipped, never read as 0.
func TestBlockedAndFailedReadings(t *testing.T) {
	p := spikePolicy
	p.MaxLatency = 50 * time.Millisecond
	rs := series(append(repeatLag(0, 3), repeatLag(1000, 5)...)...)
	for i := range rs {
		rs[i].Latency = 80 * time.Millisecond
	}
	ds, _ := Replay(p, rs, 1)
	if got := actions(ds); len(got) != 0 {
		t.Fatalf("scaled out under rule 4: %v", got)
	}
	if d := ds[5]; d.Action != blocks.Blocked || d.Reason != "rule 4: processing latency 80ms > 50ms" {
		t.Errorf("decision at 5 s: %+v", d)
	}
	// At 4 replicas the mean per replica passes 100 at 4 s (667 ÷ 4), held 2 s at 6 s.
	ds, _ = Replay(spikePolicy, series(append(repeatLag(0, 3), repeatLag(1000, 5)...)...), 4)
	if d := ds[6]; d.Action != blocks.Blocked || d.Reason != "at max 4 replicas" {
		t.Errorf("at max: %+v", d)
	}
	s, _ := New(spikePolicy)
	for _, r := range series(0, 0, 0, 0) {
		r.Replicas = 1
		s.Observe(r)
	}
	d := s.Observe(Reading{At: secs(4), OK: false, Replicas: 1})
	if d.Action != blocks.Hold || d.Reason != "lag reading failed" {
		t.Errorf("failed reading: %+v", d)
	}
	if d := s.Observe(Reading{At: secs(5), OK: true, Replicas: 1, Lag: 30}); d.Smoothed != 15 {
		t.Errorf("mean over 3 s (0), 4 s (failed), 5 s (30) = %v, want 15 (the failed reading left out)", d.Smoothed)
	}
}

// ETD: lag ÷ (completed − produced). Consumption below production is an
// infinite time to drain, above any goal.
func TestETD(t *testing.T) {
	p := Policy{Signal: blocks.SignalETD, Goal: secs(20), Window: secs(2), OutAfter: secs(1), InAfter: secs(3), InBelow: 10, Step: 2, Min: 1, Max: 8,
		Cooldown: secs(10)}
	rs := make([]Reading, 6)
	for i := range rs {
		rs[i] = Reading{At: secs(i), OK: true, Lag: 3000, ProducedPerSec: 500, CompletedPerSec: 600} // 3000 ÷ 100 = 30 s
	}
	rs[5].CompletedPerSec, rs[4].CompletedPerSec = 400, 400
	ds, err := Replay(p, rs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ds[2].ETDSec != 30 {
		t.Errorf("etd %v, want 30", ds[2].ETDSec)
	}
	sameActs(t, actions(ds), []act{{3, blocks.Out, 1, 3}})
	if ds[5].ETDSec != -1 || ds[5].Action != blocks.Hold {
		t.Errorf("consumption below production: %+v, want etd -1 (infinite)", ds[5])
	}
	p.Goal = secs(40)
	ds, _ = Replay(p, rs[:4], 1)
	if got := actions(ds); len(got) != 0 || math.Abs(ds[3].ETDSec-30) > 1e-9 {
		t.Errorf("30 s under a 40 s goal acted: %v", got)
	}
}

func TestNewRefusesPoliciesThatCannotAct(t *testing.T) {
	for _, p := range []Policy{
		{Signal: blocks.SignalLag, Threshold: 1, Window: secs(1), OutAfter: 1, InAfter: 2, Step: 1, Min: 2, Max: 2},
		{Signal: blocks.SignalLag, Threshold: 1, Window: secs(1), OutAfter: 2, InAfter: 2, Step: 1, Min: 1, Max: 2},
		{Signal: "cpu", Threshold: 1, Window: secs(1), OutAfter: 1, InAfter: 2, Step: 1, Min: 1, Max: 2},
		{Signal: blocks.SignalETD, Window: secs(1), OutAfter: 1, InAfter: 2, Step: 1, Min: 1, Max: 2},
	} {
		if _, err := New(p); err == nil {
			t.Errorf("policy %+v accepted", p)
		}
	}
}
