package runs

import (
	"math"
	"strings"

	"github.com/sharebench/sharebench/scenarios"
)

// ScaleDecision is one decision of the run's scaler with its inputs (the
// scaler's log: campaign/autoscale.Decision), At from the start of the
// measurement window.
type ScaleDecision struct {
	AtSec      float64 `json:"at_s"`
	Action     string  `json:"action"` // hold, out, in, blocked
	From       int     `json:"from"`
	To         int     `json:"to"`
	Lag        int64   `json:"lag"`
	Smoothed   float64 `json:"smoothed_lag"`
	PerReplica float64 `json:"lag_per_replica"`
	ETDSec     float64 `json:"etd_s"` // -1: infinite
	Above      bool    `json:"above"`
	HeldSec    float64 `json:"held_s"`
	// LatencyMs is rule 4's input (held time by Little's law; 0: none).
	LatencyMs float64 `json:"latency_ms,omitempty"`
	Reason    string  `json:"reason,omitempty"`
}

// ScaleAction is one action the scaler took, with its trigger and what it
// cost (from the event the action fired, events[]).
type ScaleAction struct {
	AtSec   float64 `json:"at_s"`
	Action  string  `json:"action"` // out or in
	From    int     `json:"from"`
	To      int     `json:"to"`
	Trigger string  `json:"trigger"`
	// PauseMaxSec is the longest rebalance pause that began in the
	// action's effect span (consumer groups); Redeliveries the records
	// redelivered in it.
	PauseMaxSec  float64 `json:"pause_max_s"`
	Redeliveries int64   `json:"redeliveries"`
}

// ReplicaStep is a change of the replicas (members), from the start of the
// measurement window.
type ReplicaStep struct {
	AtSec    float64 `json:"at_s"`
	Replicas int     `json:"replicas"`
}

// Autoscale is run.json's autoscale block: what the scaler did and the
// figures a team decides on (docs/measurement.md, "Autoscaling").
type Autoscale struct {
	// Cap is rule 3's cap; MaxReplicas the scaler's bound, min(max, cap).
	Cap         scenarios.ReplicaCap `json:"cap"`
	MaxReplicas int                  `json:"max_replicas"`
	Replicas    []ReplicaStep        `json:"replicas"`
	Actions     []ScaleAction        `json:"actions"`
	Decisions   []ScaleDecision      `json:"decisions"`

	ScaleOuts    int `json:"scale_outs"`
	ScaleIns     int `json:"scale_ins"`
	Flaps        int `json:"flaps"`
	PeakReplicas int `json:"peak_replicas"`
	// ReplicaSeconds is ∫ replicas dt over the measurement window: the
	// cost.
	ReplicaSeconds float64 `json:"replica_seconds"`
	// SpikeRecoverySec is from the start of the first spike step of
	// rate_schedule to the first decision at which the scale-out condition
	// no longer held (lag per replica ≤ threshold, or ETD ≤ goal), after
	// it had held; 0 when it never held; nil: not back before the window
	// ended, or no spike.
	SpikeRecoverySec *float64 `json:"spike_recovery_s,omitempty"`
	// DrainSec is from the spike's start to the first reading after the
	// spike's end with the lag per replica ≤ in_below (the spike's backlog
	// drained); nil: not drained in the window, or no spike. GoalSec is
	// autoscale.goal (0: none) and WithinGoal whether DrainSec ≤ GoalSec.
	DrainSec   *float64 `json:"drain_s,omitempty"`
	GoalSec    float64  `json:"goal_s,omitempty"`
	WithinGoal bool     `json:"within_goal"`
	// RedeliveredScaleIn sums the redeliveries of the scale-in actions;
	// PauseMaxSec is the longest rebalance pause of any action.
	RedeliveredScaleIn int64   `json:"redelivered_scale_in"`
	PauseMaxSec        float64 `json:"action_pause_max_s"`
}

// AutoscaleInput is what the autoscale figures are computed from.
type AutoscaleInput struct {
	Policy      scenarios.Autoscale
	Cap         scenarios.ReplicaCap
	MaxReplicas int
	Start       int // members at the window's start
	WindowSec   float64
	Decisions   []ScaleDecision
	// Schedule locates the spike (the first step with spike: true).
	Schedule []scenarios.RateStep
	// Reports are the run's analysed events; ActionEvents maps each action
	// (by index) to its event's index in Reports (-1: none).
	Reports      []EventReport
	ActionEvents []int
}

// AutoscaleFigures computes the block from the decisions.
func AutoscaleFigures(in AutoscaleInput) *Autoscale {
	a := &Autoscale{Cap: in.Cap, MaxReplicas: in.MaxReplicas, Decisions: in.Decisions, PeakReplicas: in.Start,
		GoalSec: in.Policy.Goal.Seconds(), Replicas: []ReplicaStep{{AtSec: 0, Replicas: in.Start}}}
	n := 0
	for _, d := range in.Decisions {
		if d.Action != "out" && d.Action != "in" {
			continue
		}
		act := ScaleAction{AtSec: d.AtSec, Action: d.Action, From: d.From, To: d.To, Trigger: d.Reason}
		if n < len(in.ActionEvents) && in.ActionEvents[n] >= 0 && in.ActionEvents[n] < len(in.Reports) {
			e := in.Reports[in.ActionEvents[n]]
			act.PauseMaxSec, act.Redeliveries = e.RebalancePauseMaxS, e.Redeliveries
		}
		n++
		a.Actions = append(a.Actions, act)
		a.Replicas = append(a.Replicas, ReplicaStep{AtSec: d.AtSec, Replicas: d.To})
		a.PeakReplicas = max(a.PeakReplicas, d.To)
		if d.Action == "out" {
			a.ScaleOuts++
		} else {
			a.ScaleIns++
			a.RedeliveredScaleIn += act.Redeliveries
		}
		a.PauseMaxSec = max(a.PauseMaxSec, act.PauseMaxSec)
	}
	a.Flaps = Flaps(a.Actions, in.Policy.FlapWindow.Seconds())
	a.ReplicaSeconds = ReplicaSeconds(a.Replicas, in.WindowSec)
	if start, end, ok := spike(in.Schedule); ok {
		a.SpikeRecoverySec = SpikeRecovery(in.Decisions, start)
		a.DrainSec = DrainTime(in.Decisions, start, end, in.Policy.InBelow)
		a.WithinGoal = a.DrainSec != nil && a.GoalSec > 0 && *a.DrainSec <= a.GoalSec
	}
	return a
}

// spike is the first spike step's start and end in the window (s).
func spike(steps []scenarios.RateStep) (start, end float64, ok bool) {
	t := 0.0
	for _, s := range steps {
		if s.Spike {
			return t, t + s.Duration.Seconds(), true
		}
		t += s.Duration.Seconds()
	}
	return 0, 0, false
}

// ReplicaSeconds integrates the replicas (a step function starting at
// steps[0]) over [0, windowSec].
func ReplicaSeconds(steps []ReplicaStep, windowSec float64) float64 {
	total := 0.0
	for i, s := range steps {
		from := math.Max(s.AtSec, 0)
		to := windowSec
		if i+1 < len(steps) {
			to = math.Min(steps[i+1].AtSec, windowSec)
		}
		if to > from {
			total += float64(s.Replicas) * (to - from)
		}
	}
	return total
}

// Flaps counts the actions that reverse the one before them (in after out,
// out after in) less than within seconds after it.
func Flaps(actions []ScaleAction, within float64) int {
	n := 0
	for i := 1; i < len(actions); i++ {
		if actions[i].Action != actions[i-1].Action && actions[i].AtSec-actions[i-1].AtSec < within {
			n++
		}
	}
	return n
}

// SpikeRecovery is from start to the first decision at or after it whose
// scale-out condition no longer holds after it had held there: 0 when it
// never held from start on; nil when it still held at the last decision.
func SpikeRecovery(ds []ScaleDecision, start float64) *float64 {
	above := false
	for _, d := range ds {
		if d.AtSec < start || strings.HasPrefix(d.Reason, "lag reading failed") {
			continue
		}
		if d.Above {
			above = true
		} else if above {
			v := d.AtSec - start
			return &v
		}
	}
	if above {
		return nil
	}
	v := 0.0
	return &v
}

// DrainTime is from start to the first reading at or after end whose lag
// per replica (the raw reading ÷ the replicas) is ≤ inBelow; nil when none.
func DrainTime(ds []ScaleDecision, start, end, inBelow float64) *float64 {
	for _, d := range ds {
		if d.AtSec < end || strings.HasPrefix(d.Reason, "lag reading failed") {
			continue
		}
		if float64(d.Lag)/float64(max(d.From, 1)) <= inBelow {
			v := d.AtSec - start
			return &v
		}
	}
	return nil
}

// ScalerLog is what campaign's scaler recorded: the members at the
// window's start, rule 3's cap, the bound it kept and every decision.
type ScalerLog struct {
	Start       int
	Cap         scenarios.ReplicaCap
	MaxReplicas int
	Decisions   []ScaleDecision
}

// ScalerLabel starts the label of every event a scaler action fired.
const ScalerLabel = "autoscale "

// ScalerEvents maps the scaler's actions, in order, to their events in
// reports (those labelled ScalerLabel…).
func ScalerEvents(reports []EventReport) []int {
	var out []int
	for i, e := range reports {
		if strings.HasPrefix(e.Label, ScalerLabel) {
			out = append(out, i)
		}
	}
	return out
}
