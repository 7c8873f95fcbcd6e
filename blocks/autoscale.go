package blocks

import (
	"math"
	"time"
)

// Autoscale is the autoscale: block: a scaler inside the run that adds and
// removes members through the same join and leave (or crash) path as
// events:, from the group's lag. The same for every run; not a sweep
// dimension. It is also the decision rule's policy (campaign/autoscale),
// with Max bounded by rule 3's cap. Each key's default and values come
// from AutoscaleDefaults and the struct's tags. See docs/how-to/test-autoscaling.md.
//
//	autoscale:
//	  signal: lag        # lag: smoothed lag per replica > threshold; etd: estimated time to drain > goal
//	  threshold: 500     # records per replica (signal lag)
//	  window: 5s         # the lag is smoothed over this window (a moving mean)
//	  out_after: 3s      # N: scale out once the signal has held this long
//	  in_after: 20s      # M (> N): scale in once the lag per replica stayed ≤ in_below this long
//	  cooldown: 8s       # no action within this time of the last one
//	  step: 2            # members added or removed per action
//	  min: 2
//	  max: 8
type Autoscale struct {
	// Signal is lag (the lag smoothed over window, divided by the
	// replicas, against threshold) or etd (the estimated time to drain,
	// smoothed lag ÷ (completed − produced records/s), against goal).
	Signal Signal `json:"signal" key:"signal"`
	// Threshold is the lag per replica (records) above which the scaler
	// scales out (signal lag).
	Threshold float64 `json:"threshold,omitempty" key:"threshold" gt:"0"`
	// Goal is the drain time above which the scaler scales out (signal
	// etd).
	Goal time.Duration `json:"goal,omitempty" key:"goal" gt:"0"`
	// Window is the span the lag readings are averaged over (> 0, shorter
	// than duration).
	Window time.Duration `json:"window" key:"window"`
	// OutAfter is N: how long the scale-out condition must hold.
	OutAfter time.Duration `json:"out_after" key:"out_after"`
	// InAfter is M: how long the smoothed lag per replica must stay ≤
	// in_below before a scale-in; > out_after.
	InAfter time.Duration `json:"in_after" key:"in_after"`
	// InBelow is "near zero": the smoothed lag per replica (records) at
	// or below which the scale-in clock runs. Left out: threshold ÷ 10, or
	// 10 with etd.
	InBelow float64 `json:"in_below" key:"in_below" min:"0"`
	// Cooldown is the least time between two actions (≥ 0; rule 2 wants it
	// longer than a rebalance).
	Cooldown time.Duration `json:"cooldown" key:"cooldown"`
	// Step is the members added or removed by one action.
	Step int `json:"step" key:"step" min:"1"`
	// Min is the fewest replicas (members); the run starts with members,
	// which must lie in [min, max].
	Min int `json:"min" key:"min" min:"1"`
	// Max is the most replicas (required). The harness also computes rule
	// 3's cap (a consumer group's partitions; a share group's
	// min(group.share.max.size, the members the lock ceiling feeds)),
	// prints it, and never goes past min(max, cap).
	Max int `json:"max" key:"max" min:"1" required:""`
	// MaxLatency is rule 4: no scale-out while the time a record spends
	// with the consumers (in flight ÷ completions/s over the last poll,
	// Little's law) is above it, or, with a destination:, its mean write
	// time over the last poll: more consumers would only move the queue
	// downstream. 0: off.
	MaxLatency time.Duration `json:"max_latency,omitempty" key:"max_latency"`
	// Poll is how often the scaler reads the lag and decides (≤ window).
	Poll time.Duration `json:"poll" key:"poll" min:"100ms"`
	// Remove is how removed members go: leave (finish, commit or
	// acknowledge, leave the group) or crash (stop dead).
	Remove Removal `json:"remove" key:"remove"`
	// FlapWindow is the span within which an action reversed counts as a
	// flap (autoscale.flaps). Left out: cooldown + in_after.
	FlapWindow time.Duration `json:"flap_window" key:"flap_window"`
}

// AutoscaleDefaults is the autoscale: block's defaults. InBelow and
// FlapWindow are -1: derived from the other keys when left out.
var AutoscaleDefaults = Autoscale{Signal: SignalLag, Window: 10 * time.Second, OutAfter: 10 * time.Second, InAfter: 30 * time.Second,
	Cooldown: 15 * time.Second, Step: 1, Min: 1, Poll: time.Second, Remove: RemoveLeave, InBelow: -1, FlapWindow: -1}

// Signal chooses what triggers a scale-out (autoscale.signal).
type Signal string

const (
	// SignalLag: the lag smoothed over Window, divided by the replicas,
	// above Threshold (records per replica).
	SignalLag Signal = "lag"
	// SignalETD: the estimated time to drain, smoothed lag ÷ (completed −
	// produced records/s), above Goal. With consumption at or below
	// production it is infinite: above any goal.
	SignalETD Signal = "etd"
)

// Values are the signals.
func (Signal) Values() []string { return values(SignalLag, SignalETD) }

// Removal is how the scaler removes members (autoscale.remove).
type Removal string

const (
	// RemoveLeave: the members finish, commit or acknowledge, and leave.
	RemoveLeave Removal = "leave"
	// RemoveCrash: the members stop dead.
	RemoveCrash Removal = "crash"
)

// Values are the removals.
func (Removal) Values() []string { return values(RemoveLeave, RemoveCrash) }

// Action is what a scaler's decision does.
type Action string

const (
	Hold    Action = "hold"    // nothing
	Out     Action = "out"     // add replicas
	In      Action = "in"      // remove replicas
	Blocked Action = "blocked" // a scale-out rule 4 or the cap held back
)

// Values are the actions.
func (Action) Values() []string { return values(Hold, Out, In, Blocked) }

// Decision is the scaler's answer to one reading, with its inputs, so a
// run's log replays: campaign/autoscale returns it and run.json keeps it
// (autoscale.decisions[]). AtSec is from the start of the measurement
// window.
type Decision struct {
	AtSec    float64 `json:"at_s"`
	Action   Action  `json:"action"`
	From     int     `json:"from"`
	To       int     `json:"to"`
	Lag      int64   `json:"lag"`
	Smoothed float64 `json:"smoothed_lag"`
	// PerReplica is Smoothed ÷ From; ETDSec the estimated time to drain
	// (-1: infinite: consumption not above production).
	PerReplica float64 `json:"lag_per_replica"`
	ETDSec     float64 `json:"etd_s"`
	// Above is the scale-out condition (rule 1) on this reading.
	Above bool `json:"above"`
	// HeldSec is how long the condition that acted had held.
	HeldSec float64 `json:"held_s"`
	// LatencyMs is rule 4's input (0: none).
	LatencyMs float64 `json:"latency_ms,omitempty"`
	Reason    string  `json:"reason,omitempty"`
}

// Derive fills the defaults that follow from other keys, when left out
// (-1): in_below is threshold ÷ 10 with signal lag (10 records with etd or
// an unusable threshold), flap_window cooldown + in_after, at most
// longest. The values stay in range so that a check blames only the
// value given.
func (a *Autoscale) Derive(longest time.Duration) {
	if a.InBelow < 0 {
		a.InBelow = 10
		if a.Signal == SignalLag && a.Threshold > 0 && a.Threshold <= math.MaxFloat64 {
			a.InBelow = a.Threshold / 10
		}
	}
	if a.FlapWindow < 0 {
		a.FlapWindow = min(max(a.Cooldown+a.InAfter, 0), longest)
	}
}
