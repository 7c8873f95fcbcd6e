package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/vocab"
)

// Autoscale is the autoscale: block, declared once in package blocks
// with its defaults and bounds; it is campaign/autoscale's policy too.
type Autoscale = blocks.Autoscale

// autoscaleKeys are the keys of the autoscale: block.
var autoscaleKeys = blocks.Keys(blocks.AutoscaleDefaults)

// autoscale reads the autoscale: block.
func (c *fileChecker) autoscale(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "autoscale: expected a map like {signal: lag, threshold: 500, max: 8}, got %s", nodeKind(v))
		return
	}
	a := blocks.AutoscaleDefaults
	names := blocks.Names(autoscaleKeys)
	ok := true
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		if !slices.Contains(names, k.Value) {
			c.errorf(k.Line, "unknown key %q in autoscale%s", k.Value, suggest(k.Value, names))
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
		key := blocks.Find(autoscaleKeys, k.Value)
		f := blocks.Field(&a, key)
		switch {
		case key.Enum != nil:
			if !slices.Contains(key.Enum, val.Value) {
				bad("expected %s, got %q", blocks.Or(key.Enum), val.Value)
			}
			f.SetString(val.Value)
		// The values are parsed here and range-checked by checkAutoscale,
		// which a run.json's spec passes through too (RunSpec.Validate).
		case key.Type.Kind() == reflect.Float64:
			n, err := parseFinite(val.Value)
			if err != nil {
				bad("expected a finite number of records %s, got %q", recordsBound(key), val.Value)
			}
			f.SetFloat(n)
		case key.Type.Kind() == reflect.Int:
			n, err := strconv.Atoi(val.Value)
			if err != nil {
				bad("expected an integer from %s to %d (the harness's member limit), got %q", key.Min, maxMembersLimit, val.Value)
			}
			f.SetInt(int64(n))
		default: // durations
			d, err := time.ParseDuration(val.Value)
			if err != nil {
				bad("expected a Go duration ≥ 0 and ≤ 168h like 10s, got %q", val.Value)
			}
			f.SetInt(int64(d))
		}
	}
	if !ok {
		return
	}
	if a.Signal == blocks.SignalLag && !seen["threshold"] {
		c.errorf(v.Line, "autoscale.threshold: required with signal lag: the lag per replica (records) above which to scale out")
		return
	}
	if a.Signal == blocks.SignalETD && !seen["goal"] {
		c.errorf(v.Line, "autoscale.goal: required with signal etd: the time to drain (a Go duration) above which to scale out")
		return
	}
	if !seen["max"] {
		c.errorf(v.Line, "autoscale.max: required: the most replicas (members) the scaler may run")
		return
	}
	a.Derive(maxPhase) // no run outlasts maxPhase, nor need its flap window
	c.info.autoscale = &a
}

// recordsBound is the range of a record count: threshold's (> 0) and
// in_below's (≥ 0).
func recordsBound(k blocks.Key) string {
	if k.Gt != "" {
		return "> " + k.Gt
	}
	return "≥ " + k.Min
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
	checkAutoscaleValues(a, p)
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
	if poll := blocks.Find(autoscaleKeys, "poll").Min; a.Poll < blocks.Duration(poll) || a.Poll > a.Window {
		p.addf("autoscale.poll", "must be ≥ %s and ≤ window (%v), got %v", poll, a.Window, a.Poll)
	}
	if goal := blocks.Find(autoscaleKeys, "goal").Gt; a.Signal == blocks.SignalETD && a.Goal <= blocks.Duration(goal) {
		p.addf("autoscale.goal", "must be > %s with signal etd, got %v", goal, a.Goal)
	}
	if a.Remove == blocks.RemoveCrash && r.Client.Runner() {
		p.addf("autoscale.remove", "crash needs client franz-go: the %s runner starts the members a crash takes in processes of their own, named from events: before the run; use remove: leave", r.Client)
	}
	if c := r.AutoscaleCap(); c.Replicas <= a.Min {
		p.addf("autoscale.max", "the cap of rule 3 is %d replicas (%s), not above min (%d): the scaler could never scale out", c.Replicas, c.Why, a.Min)
	}
}

// checkAutoscaleValues checks each value of the block against its range: a
// scenario file's and a run.json's alike.
func checkAutoscaleValues(a *Autoscale, p *problems) {
	for _, k := range autoscaleKeys {
		f := blocks.Field(a, k)
		switch {
		case k.Enum != nil:
		case k.Type.Kind() == reflect.Float64:
			n, lo := f.Float(), blocks.Float(k.Min+k.Gt)
			// Written so that NaN fails too.
			if !(n >= lo && n <= math.MaxFloat64) || (k.Gt != "" && a.Signal == blocks.SignalLag && n == lo) {
				p.addf("autoscale."+k.Name, "expected a finite number of records %s, got %s", recordsBound(k), num(n))
			}
		case k.Type.Kind() == reflect.Int:
			if n := int(f.Int()); n < blocks.Int(k.Min) || n > maxMembersLimit {
				p.addf("autoscale."+k.Name, "expected an integer from %s to %d (the harness's member limit), got %d", k.Min, maxMembersLimit, n)
			}
		default:
			if d := time.Duration(f.Int()); d < 0 || d > maxPhase {
				p.addf("autoscale."+k.Name, "expected a Go duration ≥ 0 and ≤ 168h (7 days, the harness's limit), got %v", d)
			}
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
