package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/vocab"
)

// Autoscale is the autoscale: block: a scaler inside the run that adds and
// removes members through the same join and leave (or crash) path as
// events:, from the group's lag. The same for every run; not a sweep
// dimension. See docs/autoscaling.md.
//
//	autoscale:
//	  signal: lag        # lag: smoothed lag per replica > threshold; etd: estimated time to drain > goal
//	  threshold: 500     # records per replica (signal lag)
//	  window: 5s         # the lag is smoothed over this window (a moving mean)
//	  out_after: 3s      # N: scale out once the signal has held this long
//	  in_after: 10s      # M (> N): scale in once the lag per replica stayed ≤ in_below this long
//	  cooldown: 10s      # no action within this time of the last one
//	  step: 1            # members added or removed per action
//	  min: 1
//	  max: 8
type Autoscale struct {
	// Signal is lag (the lag smoothed over window, divided by the
	// replicas, against threshold) or etd (the estimated time to drain,
	// smoothed lag ÷ (completed − produced records/s), against goal). [lag]
	Signal string `json:"signal"`
	// Threshold is the lag per replica (records) above which the scaler
	// scales out (signal lag; > 0).
	Threshold float64 `json:"threshold,omitempty"`
	// Goal is the drain time above which the scaler scales out (signal
	// etd; > 0).
	Goal time.Duration `json:"goal,omitempty"`
	// Window is the span the lag readings are averaged over (> 0, shorter
	// than duration). [10s]
	Window time.Duration `json:"window"`
	// OutAfter is N: how long the scale-out condition must hold. [10s]
	OutAfter time.Duration `json:"out_after"`
	// InAfter is M: how long the smoothed lag per replica must stay ≤
	// in_below before a scale-in; > out_after. [30s]
	InAfter time.Duration `json:"in_after"`
	// InBelow is "near zero": the smoothed lag per replica (records) at
	// or below which the scale-in clock runs. [threshold ÷ 10; 10 with etd]
	InBelow float64 `json:"in_below"`
	// Cooldown is the least time between two actions (≥ 0; rule 2 wants it
	// longer than a rebalance). [15s]
	Cooldown time.Duration `json:"cooldown"`
	// Step is the members added or removed by one action (≥ 1). [1]
	Step int `json:"step"`
	// Min is the fewest replicas (members); the run starts with members,
	// which must lie in [min, max]. [1]
	Min int `json:"min"`
	// Max is the most replicas (required). The harness also computes rule
	// 3's cap (a consumer group's partitions; a share group's
	// min(group.share.max.size, the members the lock ceiling feeds)),
	// prints it, and never goes past min(max, cap).
	Max int `json:"max"`
	// MaxLatency is rule 4: no scale-out while the time a record spends
	// with the consumers (in flight ÷ completions/s over the last poll,
	// Little's law) is above it, or, with a destination:, its mean write
	// time over the last poll: more consumers would only move the queue
	// downstream. 0: off. [0]
	MaxLatency time.Duration `json:"max_latency,omitempty"`
	// Poll is how often the scaler reads the lag and decides (≥ 100ms,
	// ≤ window). [1s]
	Poll time.Duration `json:"poll"`
	// Remove is how removed members go: leave (finish, commit or
	// acknowledge, leave the group) or crash (stop dead). [leave]
	Remove string `json:"remove"`
	// FlapWindow is the span within which an action reversed counts as a
	// flap (autoscale.flaps). [cooldown + in_after]
	FlapWindow time.Duration `json:"flap_window"`
}

// Autoscale signals.
const (
	SignalLag = "lag"
	SignalETD = "etd"
)

var autoscaleKeys = []string{"signal", "threshold", "goal", "window", "out_after", "in_after", "in_below",
	"cooldown", "step", "min", "max", "max_latency", "poll", "remove", "flap_window"}

// autoscale reads the autoscale: block.
func (c *fileChecker) autoscale(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "autoscale: expected a map like {signal: lag, threshold: 500, max: 8}, got %s", nodeKind(v))
		return
	}
	a := Autoscale{Signal: SignalLag, Window: 10 * time.Second, OutAfter: 10 * time.Second, InAfter: 30 * time.Second,
		Cooldown: 15 * time.Second, Step: 1, Min: 1, Poll: time.Second, Remove: ActionLeave, InBelow: -1, FlapWindow: -1}
	ok := true
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		if !slices.Contains(autoscaleKeys, k.Value) {
			c.errorf(k.Line, "unknown key %q in autoscale%s", k.Value, suggest(k.Value, autoscaleKeys))
			ok = false
			continue
		}
		c.info.lines["autoscale."+k.Value] = k.Line
		seen[k.Value] = true
		if val.Kind != yaml.ScalarNode || isNull(val) {
			c.errorf(val.Line, "autoscale.%s: expected a single value, got %s (autoscale is not swept)", k.Value, nodeKind(val))
			ok = false
			continue
		}
		bad := func(format string, args ...any) {
			c.errorf(val.Line, "autoscale.%s: %s", k.Value, fmt.Sprintf(format, args...))
			ok = false
		}
		switch k.Value {
		case "signal":
			a.Signal = val.Value
			if a.Signal != SignalLag && a.Signal != SignalETD {
				bad("expected lag or etd, got %q", val.Value)
			}
		case "remove":
			a.Remove = val.Value
			if a.Remove != ActionLeave && a.Remove != ActionCrash {
				bad("expected leave or crash, got %q", val.Value)
			}
		// The values are parsed here and range-checked by checkAutoscale,
		// which a run.json's spec passes through too (RunSpec.Validate).
		case "threshold", "in_below":
			f, err := parseFinite(val.Value)
			if err != nil {
				bad("expected a finite number of records %s, got %q", recordsBound(k.Value), val.Value)
			}
			*a.records(k.Value) = f
		case "step", "min", "max":
			n, err := strconv.Atoi(val.Value)
			if err != nil {
				bad("expected an integer from 1 to %d (the harness's member limit), got %q", maxMembersLimit, val.Value)
			}
			*a.count(k.Value) = n
		default: // durations
			d, err := time.ParseDuration(val.Value)
			if err != nil {
				bad("expected a Go duration ≥ 0 and ≤ 168h like 10s, got %q", val.Value)
			}
			*a.duration(k.Value) = d
		}
	}
	if !ok {
		return
	}
	if a.Signal == SignalLag && !seen["threshold"] {
		c.errorf(v.Line, "autoscale.threshold: required with signal lag: the lag per replica (records) above which to scale out")
		return
	}
	if a.Signal == SignalETD && !seen["goal"] {
		c.errorf(v.Line, "autoscale.goal: required with signal etd: the time to drain (a Go duration) above which to scale out")
		return
	}
	if !seen["max"] {
		c.errorf(v.Line, "autoscale.max: required: the most replicas (members) the scaler may run")
		return
	}
	// The defaults below are derived from values checkAutoscale may yet
	// refuse; they stay in range so that only the value given is blamed.
	if a.InBelow < 0 {
		a.InBelow = 10
		if a.Signal == SignalLag && a.Threshold > 0 && a.Threshold <= math.MaxFloat64 {
			a.InBelow = a.Threshold / 10
		}
	}
	if a.FlapWindow < 0 { // no run outlasts maxPhase, nor need its flap window
		a.FlapWindow = min(max(a.Cooldown+a.InAfter, 0), maxPhase)
	}
	c.info.autoscale = &a
}

// autoscaleDurations, autoscaleRecords and autoscaleCounts are the keys of
// the block's durations, record counts (float) and replica counts.
var (
	autoscaleDurations = []string{"goal", "window", "out_after", "in_after", "cooldown", "max_latency", "poll", "flap_window"}
	autoscaleRecords   = []string{"threshold", "in_below"}
	autoscaleCounts    = []string{"step", "min", "max"}
)

// recordsBound is the range of threshold (> 0) and in_below (≥ 0).
func recordsBound(key string) string {
	if key == "threshold" {
		return "> 0"
	}
	return "≥ 0"
}

func (a *Autoscale) records(key string) *float64 {
	if key == "threshold" {
		return &a.Threshold
	}
	return &a.InBelow
}

func (a *Autoscale) count(key string) *int {
	switch key {
	case "step":
		return &a.Step
	case "min":
		return &a.Min
	default:
		return &a.Max
	}
}

func (a *Autoscale) duration(key string) *time.Duration {
	switch key {
	case "goal":
		return &a.Goal
	case "window":
		return &a.Window
	case "out_after":
		return &a.OutAfter
	case "in_after":
		return &a.InAfter
	case "cooldown":
		return &a.Cooldown
	case "max_latency":
		return &a.MaxLatency
	case "poll":
		return &a.Poll
	default:
		return &a.FlapWindow
	}
}

// checkAutoscale refuses a policy that can never act on the run, with the
// reason.
func (r RunSpec) checkAutoscale(p *problems) {
	a := r.Autoscale
	if a == nil {
		return
	}
	if r.LoadMode != "" && r.LoadMode != LoadRate {
		return // ignored; checkRateModeUse refuses a scenario with no rate run
	}
	a.checkValues(p)
	if a.Max <= a.Min {
		p.addf("autoscale.max", "must be > min (%d): with max ≤ min the scaler can never act, got %d", a.Min, a.Max)
	}
	if r.Members < a.Min || r.Members > a.Max {
		p.addf("autoscale.min", "the run starts with members %d, which must lie in [min, max] = [%d, %d]", r.Members, a.Min, a.Max)
	}
	if a.InAfter <= a.OutAfter {
		p.addf("autoscale.in_after", "must be > out_after (%v): scale in only after the lag stayed low longer than it took to scale out (M > N), got %v", a.OutAfter, a.InAfter)
	}
	if a.Window <= 0 || a.Window >= r.Duration {
		p.addf("autoscale.window", "must be > 0 and shorter than duration (%v): the scaler decides only once a window of readings is in, got %v", r.Duration, a.Window)
	}
	if a.Window+a.OutAfter >= r.Duration {
		p.addf("autoscale.out_after", "window (%v) + out_after (%v) reach past duration (%v): the scaler could never scale out", a.Window, a.OutAfter, r.Duration)
	}
	if a.Poll < 100*time.Millisecond || a.Poll > a.Window {
		p.addf("autoscale.poll", "must be ≥ 100ms and ≤ window (%v), got %v", a.Window, a.Poll)
	}
	if a.Signal == SignalETD && a.Goal <= 0 {
		p.addf("autoscale.goal", "must be > 0 with signal etd, got %v", a.Goal)
	}
	if a.Remove == ActionCrash && r.Client.Runner() {
		p.addf("autoscale.remove", "crash needs client franz-go: the %s runner starts the members a crash takes in processes of their own, named from events: before the run; use remove: leave", r.Client)
	}
	if c := r.AutoscaleCap(); c.Replicas <= a.Min {
		p.addf("autoscale.max", "the cap of rule 3 is %d replicas (%s), not above min (%d): the scaler could never scale out", c.Replicas, c.Why, a.Min)
	}
}

// checkValues checks each value of the block against its range: a
// scenario file's and a run.json's alike.
func (a *Autoscale) checkValues(p *problems) {
	for _, k := range autoscaleRecords {
		f := *a.records(k)
		// Written so that NaN fails too.
		if !(f >= 0 && f <= math.MaxFloat64) || (k == "threshold" && a.Signal == SignalLag && f == 0) {
			p.addf("autoscale."+k, "expected a finite number of records %s, got %s", recordsBound(k), num(f))
		}
	}
	for _, k := range autoscaleCounts {
		if n := *a.count(k); n < 1 || n > maxMembersLimit {
			p.addf("autoscale."+k, "expected an integer from 1 to %d (the harness's member limit), got %d", maxMembersLimit, n)
		}
	}
	for _, k := range autoscaleDurations {
		if d := *a.duration(k); d < 0 || d > maxPhase {
			p.addf("autoscale."+k, "expected a Go duration ≥ 0 and ≤ 168h (7 days, the harness's limit), got %v", d)
		}
	}
}

// ReplicaCap is rule 3's cap on the replicas (members) worth running.
type ReplicaCap struct {
	Replicas int    `json:"replicas"`
	Why      string `json:"why"`
}

// AutoscaleCap computes rule 3's cap for the run's group type. A consumer
// group: the partitions (one replica is one member, one consumer client:
// partitions ÷ consumer clients per replica, and sharebench runs one
// client per member however many workers it has). A share group: the
// smaller of group.share.max.size and the members that reach the lock
// ceiling, share-partitions × locks ÷ W, at workers × 1000 ÷ P records/s
// each; W is taken as the mean processing time P (the hold time's floor),
// so the cap is the most the locks allow: ceil(partitions × locks ÷ workers).
func (r RunSpec) AutoscaleCap() ReplicaCap {
	if r.ConsumerType != vocab.ShareGroup {
		return ReplicaCap{Replicas: r.Partitions, Why: fmt.Sprintf("consumer group: %d partitions ÷ 1 consumer client per replica", r.Partitions)}
	}
	maxSize := r.ShareGroupMaxSize()
	locks := r.RecordLocks()
	byLocks := math.MaxInt32
	if locks > 0 && r.Workers > 0 {
		byLocks = int(math.Ceil(float64(r.Partitions*locks) / float64(r.Workers)))
	}
	if maxSize > 0 && maxSize <= byLocks {
		return ReplicaCap{Replicas: maxSize, Why: fmt.Sprintf("share group: group.share.max.size %d (the lock ceiling allows %d: %d partitions × %d locks ÷ %d workers)",
			maxSize, byLocks, r.Partitions, locks, r.Workers)}
	}
	return ReplicaCap{Replicas: byLocks, Why: fmt.Sprintf("share group: lock ceiling, %d partitions × %d locks ÷ %d workers (group.share.max.size %d)",
		r.Partitions, locks, r.Workers, maxSize)}
}

// AutoscaleMax is the most replicas the scaler runs: min(max, the cap).
func (r RunSpec) AutoscaleMax() int {
	if r.Autoscale == nil {
		return r.Members
	}
	return min(r.Autoscale.Max, r.AutoscaleCap().Replicas)
}

// checkRateModeUse refuses rate_schedule: and autoscale: blocks no run
// uses: both act on load_mode rate runs only (the others ignore them).
func (s *Scenario) checkRateModeUse(schedule, scaler bool) error {
	if !schedule && !scaler {
		return nil
	}
	if slices.ContainsFunc(s.Runs, func(r RunSpec) bool { return r.LoadMode == "" || r.LoadMode == LoadRate }) {
		return nil
	}
	key := "rate_schedule"
	if !schedule {
		key = "autoscale"
	}
	return fmt.Errorf("%s: given, but no run has load_mode rate (it acts on the measurement window of a rate run); use load_mode rate or remove the block", key)
}

// ChangesMembers reports whether the group's membership changes during the
// window: events, or a scaler. Such a run's figures are analysed per event
// (each scaler action is one) and skip the checks a steady group passes.
func (r RunSpec) ChangesMembers() bool { return len(r.Events) > 0 || r.Autoscale != nil }
