package runs

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/scenarios"
)

func TestReplicaSeconds(t *testing.T) {
	// 2 replicas 0–10 s, 4 until 25 s, 3 until the window's end at 40 s:
	// 20 + 60 + 45 = 125.
	steps := []ReplicaStep{{0, 2}, {10, 4}, {25, 3}}
	if got := ReplicaSeconds(steps, 40); got != 125 {
		t.Errorf("replica-seconds %v, want 125", got)
	}
	// An action after the window's end costs nothing in it.
	if got := ReplicaSeconds(append(steps, ReplicaStep{50, 9}), 40); got != 125 {
		t.Errorf("with an action after the window: %v, want 125", got)
	}
	if got := ReplicaSeconds([]ReplicaStep{{0, 3}}, 12.5); got != 37.5 {
		t.Errorf("constant 3 over 12.5 s: %v, want 37.5", got)
	}
}

func TestFlaps(t *testing.T) {
	acts := []ScaleAction{{AtSec: 5, Action: "out"}, {AtSec: 8, Action: "in"}, {AtSec: 9, Action: "out"}, {AtSec: 30, Action: "in"},
		{AtSec: 31, Action: "in"}, {AtSec: 33, Action: "out"}}
	// Reversals 3 s, 1 s, 21 s and 2 s apart; in → in is no reversal.
	for _, tc := range []struct {
		within float64
		want   int
	}{{10, 3}, {2, 1}, {1, 0}, {0, 0}, {22, 4}} {
		if got := Flaps(acts, tc.within); got != tc.want {
			t.Errorf("within %v s: %d flaps, want %d", tc.within, got, tc.want)
		}
	}
}

func TestSpikeRecoveryAndDrain(t *testing.T) {
	d := func(at float64, lag int64, from int, above bool) blocks.Decision {
		return blocks.Decision{AtSec: at, Lag: lag, From: from, Above: above}
	}
	ds := []blocks.Decision{d(8, 0, 1, false), d(10, 900, 1, true), d(11, 2000, 2, true), d(12, 1500, 2, true),
		{AtSec: 13, Reason: "lag reading failed"}, d(14, 300, 3, false), d(15, 100, 3, false), d(16, 20, 3, false), d(17, 0, 3, false)}
	if r := SpikeRecovery(ds, 10); r == nil || *r != 4 {
		t.Errorf("spike recovery %v, want 4 s (above from 10 s to 12 s, below at 14 s)", r)
	}
	if r := SpikeRecovery(ds[:4], 10); r != nil {
		t.Errorf("still above at the end: %v, want nil", *r)
	}
	if r := SpikeRecovery([]blocks.Decision{d(10, 0, 1, false)}, 10); r == nil || *r != 0 {
		t.Errorf("never above: %v, want 0", r)
	}
	// The spike ends at 12 s; lag per replica ≤ 10 first at 16 s (20 ÷ 3 = 6.7).
	if dr := DrainTime(ds, 10, 12, 10); dr == nil || *dr != 6 {
		t.Errorf("drain %v, want 6 s", dr)
	}
	if dr := DrainTime(ds[:6], 10, 12, 10); dr != nil {
		t.Errorf("not drained: %v, want nil", *dr)
	}
}

// AutoscaleFigures on a constructed run: the decisions, the actions'
// events and the schedule give every figure of the block.
func TestAutoscaleFigures(t *testing.T) {
	ds := []blocks.Decision{
		{AtSec: 20, Action: "hold", From: 1, To: 1, Lag: 50},
		{AtSec: 22, Action: "out", From: 1, To: 2, Lag: 3000, Above: true, Reason: "lag per replica 3000 > 500 for 3.0s"},
		{AtSec: 26, Action: "out", From: 2, To: 3, Lag: 2500, Above: true, Reason: "lag per replica 1250 > 500 for 7.0s"},
		{AtSec: 30, Action: "hold", From: 3, To: 3, Lag: 60},
		{AtSec: 45, Action: "in", From: 3, To: 2, Lag: 0, Reason: "lag per replica 0 ≤ 50 for 10.0s"},
	}
	reports := []EventReport{{RebalancePauseMaxS: 0.4}, {RebalancePauseMaxS: 1.5, Redeliveries: 3}, {RebalancePauseMaxS: 0.2, Redeliveries: 17}}
	a := AutoscaleFigures(AutoscaleInput{
		Policy: scenarios.Autoscale{Goal: 15 * time.Second, InBelow: 50, FlapWindow: 20 * time.Second},
		Cap:    scenarios.ReplicaCap{Replicas: 4}, MaxReplicas: 4, Start: 1, WindowSec: 60, Decisions: ds,
		Schedule:     []scenarios.RateStep{{Duration: 20 * time.Second, From: 100, To: 100}, {Duration: 5 * time.Second, From: 900, To: 900, Spike: true}},
		Reports:      reports,
		ActionEvents: []int{0, 1, 2},
	})
	// 1 × 22 + 2 × 4 + 3 × 19 + 2 × 15 = 117.
	if a.ReplicaSeconds != 117 || a.ScaleOuts != 2 || a.ScaleIns != 1 || a.PeakReplicas != 3 || a.Flaps != 1 {
		t.Errorf("figures %+v", a)
	}
	if a.RedeliveredScaleIn != 17 || a.PauseMaxSec != 1.5 || a.Actions[1].Trigger != "lag per replica 1250 > 500 for 7.0s" {
		t.Errorf("action costs %+v", a.Actions)
	}
	// Spike 20–25 s: above at 22 s, not at 30 s → 10 s; drained (60 ÷ 3 ≤ 50) at 30 s → 10 s ≤ goal 15 s.
	if a.SpikeRecoverySec == nil || *a.SpikeRecoverySec != 10 || a.DrainSec == nil || *a.DrainSec != 10 || !a.WithinGoal {
		t.Errorf("spike recovery %v, drain %v, within goal %v", a.SpikeRecoverySec, a.DrainSec, a.WithinGoal)
	}
}
