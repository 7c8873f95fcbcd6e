package runs

import (
	"fmt"
	"math"
	"strings"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/scenarios"
)

// ScaleAction is one action the scaler took, with its trigger and what it
// cost (from the event the action fired, events[]).
type ScaleAction struct {
	AtSec   float64       `json:"at_s"`
	Action  blocks.Action `json:"action"` // out or in
	From    int           `json:"from"`
	To      int           `json:"to"`
	Trigger string        `json:"trigger"`
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
// figures a team decides on (docs/explanation/measurement.md, "Autoscaling").
type Autoscale struct {
	// Cap is rule 3's cap; MaxReplicas the scaler's bound, min(max, cap).
	Cap         scenarios.ReplicaCap `json:"cap"`
	MaxReplicas int                  `json:"max_replicas"`
	Replicas    []ReplicaStep        `json:"replicas"`
	Actions     []ScaleAction        `json:"actions"`
	Decisions   []blocks.Decision    `json:"decisions"`

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
	Decisions   []blocks.Decision
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
		if d.Action != blocks.Out && d.Action != blocks.In {
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
		if d.Action == blocks.Out {
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
func SpikeRecovery(ds []blocks.Decision, start float64) *float64 {
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
func DrainTime(ds []blocks.Decision, start, end, inBelow float64) *float64 {
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
	Decisions   []blocks.Decision
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

// autoscaleProblems recomputes the autoscale block from the scaler's
// decisions (AutoscaleFigures, docs/explanation/measurement.md "Autoscaling"): the
// block is there exactly when the spec's rate run has an autoscale:
// block; its bound is min(max, rule 3's cap); every decision is one the
// rule can make (hold and blocked keep the replicas, out adds step up to
// the bound, in removes step down to min), at finite, non-decreasing
// times with finite inputs ≥ 0; the run starts with members in [min, max]
// and, with no events beside the scaler, only the scaler changes them,
// so every replica count stays in [min, max]; and every figure of the
// block (actions, replicas, counts, cost, spike and drain times) is what
// the decisions, the spec's schedule and the actions' events make.
func autoscaleProblems(r Record, bad func(string, ...any)) {
	var p *scenarios.Autoscale
	if r.Spec != nil {
		p = r.Spec.Autoscale
	}
	a := r.Autoscale
	switch {
	case a == nil && p != nil && (r.Spec.LoadMode == "" || r.Spec.LoadMode == scenarios.LoadRate):
		bad("autoscale absent from run.json, but the spec has an autoscale: block: the scaler's decisions and figures are missing")
		return
	case a == nil:
		return
	case p == nil:
		bad("autoscale block in run.json, but the spec has no autoscale: block")
		return
	}
	if c := r.Spec.AutoscaleCap(); a.Cap.Replicas != c.Replicas {
		bad("autoscale.cap.replicas = %d, but rule 3's cap of the spec is %d (%s)", a.Cap.Replicas, c.Replicas, c.Why)
	}
	if want := min(p.Max, a.Cap.Replicas); a.MaxReplicas != want {
		bad("autoscale.max_replicas = %d, but min(autoscale.max %d, cap %d) = %d", a.MaxReplicas, p.Max, a.Cap.Replicas, want)
	}
	steady := len(r.Spec.Events) == 0 // only the scaler changes the members
	within := func(name string, n int) {
		if steady && (n < p.Min || n > p.Max) {
			bad("%s = %d replicas, outside the policy's [min, max] = [%d, %d] (no event changes the members)", name, n, p.Min, p.Max)
		}
	}
	last := 0.0
	for i, d := range a.Decisions {
		at := fmt.Sprintf("autoscale.decisions[%d]", i)
		for _, f := range []struct {
			name string
			v    float64
		}{{"at_s", d.AtSec}, {"smoothed_lag", d.Smoothed}, {"lag_per_replica", d.PerReplica}, {"held_s", d.HeldSec}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
				bad("%s.%s = %g: expected a finite number ≥ 0", at, f.name, f.v)
			}
		}
		if d.AtSec < last {
			bad("%s.at_s = %g is before the decision before it (%g s): the scaler decides in time order", at, d.AtSec, last)
		}
		last = max(last, d.AtSec)
		if d.Lag < 0 || d.From < 0 || math.IsNaN(d.ETDSec) || math.IsInf(d.ETDSec, 0) || d.ETDSec < 0 && d.ETDSec != -1 {
			bad("%s: lag %d, from %d, etd_s %g: expected lag and replicas ≥ 0 and etd_s ≥ 0 or -1 (infinite)", at, d.Lag, d.From, d.ETDSec)
		}
		if math.IsNaN(d.LatencyMs) || math.IsInf(d.LatencyMs, 0) { // Little's law over racing counters may dip below 0
			bad("%s.latency_ms = %g: expected a finite number", at, d.LatencyMs)
		}
		switch d.Action {
		case blocks.Hold, blocks.Blocked:
			if d.To != d.From {
				bad("%s: %s from %d to %d: a %s keeps the replicas", at, d.Action, d.From, d.To, d.Action)
			}
		case blocks.Out:
			if want := min(d.From+p.Step, a.MaxReplicas); d.From >= a.MaxReplicas || d.To != want {
				bad("%s: out from %d to %d: a scale-out adds step %d up to max_replicas %d", at, d.From, d.To, p.Step, a.MaxReplicas)
			}
		case blocks.In:
			if want := max(d.From-p.Step, p.Min); d.From <= p.Min || d.To != want {
				bad("%s: in from %d to %d: a scale-in removes step %d down to min %d", at, d.From, d.To, p.Step, p.Min)
			}
		default:
			bad("%s.action = %q: expected %s", at, d.Action, blocks.Or(d.Action.Values()))
		}
		within(at+".from", d.From)
		within(at+".to", d.To)
	}
	if len(a.Replicas) == 0 {
		bad("autoscale.replicas is empty: expected the members at the window's start first")
		return
	}
	start := a.Replicas[0].Replicas
	if start < p.Min || start > p.Max {
		bad("autoscale.replicas[0] = %d: the run starts with members in [min, max] = [%d, %d]", start, p.Min, p.Max)
	}
	want := AutoscaleFigures(AutoscaleInput{Policy: *p, Cap: a.Cap, MaxReplicas: a.MaxReplicas, Start: start,
		WindowSec: r.Phases.MeasureSec, Decisions: a.Decisions, Schedule: r.Spec.RateSchedule, Reports: r.Events, ActionEvents: ScalerEvents(r.Events)})
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"scale_outs", a.ScaleOuts, want.ScaleOuts}, {"scale_ins", a.ScaleIns, want.ScaleIns}, {"flaps", a.Flaps, want.Flaps},
		{"peak_replicas", a.PeakReplicas, want.PeakReplicas}, {"replica_seconds", a.ReplicaSeconds, want.ReplicaSeconds},
		{"spike_recovery_s", absentOr(a.SpikeRecoverySec), absentOr(want.SpikeRecoverySec)}, {"drain_s", absentOr(a.DrainSec), absentOr(want.DrainSec)},
		{"goal_s", a.GoalSec, want.GoalSec}, {"within_goal", a.WithinGoal, want.WithinGoal},
		{"redelivered_scale_in", a.RedeliveredScaleIn, want.RedeliveredScaleIn}, {"action_pause_max_s", a.PauseMaxSec, want.PauseMaxSec},
		{"replicas", fmt.Sprint(a.Replicas), fmt.Sprint(want.Replicas)}, {"actions", fmt.Sprint(a.Actions), fmt.Sprint(want.Actions)},
	} {
		if f.got != f.want {
			bad("autoscale.%s = %v, but the decisions make %v", f.name, f.got, f.want)
		}
	}
}

// absentOr spells an absent figure as "absent", a present one as its value.
func absentOr(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(*v)
}
