package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// RateStep is one piece of the producers' rate over the measurement window
// (the top-level rate_schedule: list, expanded: repeats written out, k6
// targets resolved). The rate goes linearly from From to To records/s
// over Duration; From == To is a step. Spike marks a step as the load
// spike the autoscale figures measure from (autoscale.spike_recovery_s).
type RateStep struct {
	Duration time.Duration `json:"duration"`
	From     float64       `json:"from"`
	To       float64       `json:"to"`
	Spike    bool          `json:"spike,omitempty"`
}

// rateStepKeys are the keys of one rate_schedule: item.
var rateStepKeys = []string{"duration", "rate", "from", "to", "target", "spike", "repeat", "steps"}

// maxRateSteps bounds the expanded schedule.
const maxRateSteps = 10000

// rateSchedule reads the rate_schedule: list. Each item is one of
//
//	{duration: 20s, rate: 200}               a step
//	{duration: 5s, rate: 2000, spike: true}  a step that is the spike
//	{duration: 10s, from: 200, to: 1000}     a linear ramp
//	{duration: 30s, target: 500}             a k6 stage: a ramp from the previous rate
//	{repeat: 3, steps: [ ... ]}              the steps (no repeat inside) 3 times
func (c *fileChecker) rateSchedule(v *yaml.Node) {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		c.errorf(v.Line, "rate_schedule: expected a non-empty list of steps like - {duration: 20s, rate: 200}, got %s", nodeKind(v))
		return
	}
	if n := writtenSteps(v); n > maxRateSteps {
		c.errorf(v.Line, "rate_schedule: %d steps once repeats and aliases are written out; the harness's limit is %d", n, maxRateSteps)
		return
	}
	var out []RateStep
	prev, ok := -1.0, true
	for i, item := range v.Content {
		where := fmt.Sprintf("rate_schedule[%d]", i+1)
		steps, good := c.rateItem(where, resolve(item), &prev, true)
		ok = ok && good
		out = append(out, steps...)
	}
	if ok {
		c.info.rateSchedule = out
	}
}

// writtenSteps counts the steps of a rate_schedule: list as it expands,
// each alias (*anchor) counted as the item it names and each repeat as its
// count times its steps, without expanding anything: a 35 KB file that
// aliases a {repeat: 10000} item thousands of times is refused from its
// count, not after it was built. A repeat count that is not an integer in
// range counts once (rateItem refuses it). The count cannot overflow: a
// scenario file of at most MaxFileBytes holds fewer than 2^20 items and
// steps, and a repeat is at most maxRateSteps.
func writtenSteps(v *yaml.Node) int {
	n := 0
	for _, item := range v.Content {
		item = resolve(item)
		var repeat, steps *yaml.Node
		for i := 0; item.Kind == yaml.MappingNode && i+1 < len(item.Content); i += 2 {
			switch item.Content[i].Value {
			case "repeat":
				repeat = resolve(item.Content[i+1])
			case "steps":
				steps = resolve(item.Content[i+1])
			}
		}
		if repeat != nil && steps != nil {
			if r, err := strconv.Atoi(repeat.Value); err == nil && r >= 1 && r <= maxRateSteps && len(steps.Content) > 0 {
				n += r * len(steps.Content)
				continue
			}
		}
		n++
	}
	return n
}

// rateItem parses one item; prev is the rate the previous step ended at
// (-1: none yet), which a target ramps from.
func (c *fileChecker) rateItem(where string, n *yaml.Node, prev *float64, top bool) ([]RateStep, bool) {
	c.info.lines[where] = n.Line
	if n.Kind != yaml.MappingNode {
		c.errorf(n.Line, "%s: expected a map like {duration: 20s, rate: 200}, got %s", where, nodeKind(n))
		return nil, false
	}
	ok := true
	bad := func(line int, key, format string, args ...any) {
		c.errorf(line, "%s.%s: %s", where, key, fmt.Sprintf(format, args...))
		ok = false
	}
	st := RateStep{}
	seen := map[string]bool{}
	rates := map[string]float64{}
	repeat := 0
	var steps *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], resolve(n.Content[i+1])
		if !slices.Contains(rateStepKeys, k.Value) {
			c.errorf(k.Line, "%s: unknown key %q%s", where, k.Value, suggest(k.Value, rateStepKeys))
			ok = false
			continue
		}
		seen[k.Value] = true
		if k.Value == "steps" {
			steps = val
			continue
		}
		if val.Kind != yaml.ScalarNode || isNull(val) {
			bad(val.Line, k.Value, "expected a single value, got %s (rate_schedule is not swept)", nodeKind(val))
			continue
		}
		switch k.Value {
		case "duration":
			d, err := time.ParseDuration(val.Value)
			if err != nil || d <= 0 || d > maxPhase {
				bad(val.Line, k.Value, "expected a Go duration > 0 and ≤ 168h like 20s, got %q", val.Value)
			}
			st.Duration = d
		case "rate", "from", "to", "target":
			f, err := parseFinite(val.Value)
			if err != nil || f < 0 || f > maxRateLimit {
				bad(val.Line, k.Value, "expected records/s from 0 to %d (the harness's limit), got %q", maxRateLimit, val.Value)
			}
			rates[k.Value] = f
		case "spike":
			b, err := strconv.ParseBool(val.Value)
			if err != nil {
				bad(val.Line, k.Value, "expected true or false, got %q", val.Value)
			}
			st.Spike = b
		case "repeat":
			r, err := strconv.Atoi(val.Value)
			if err != nil || r < 1 || r > maxRateSteps {
				bad(val.Line, k.Value, "expected an integer from 1 to %d, got %q", maxRateSteps, val.Value)
			}
			repeat = r
		}
	}
	if !ok {
		return nil, false
	}
	if seen["repeat"] || seen["steps"] {
		return c.rateRepeat(where, n, seen, repeat, steps, prev, top)
	}
	switch {
	case !seen["duration"]:
		bad(n.Line, "duration", "required: how long the step lasts, a Go duration like 20s")
	case seen["rate"] && !seen["from"] && !seen["to"] && !seen["target"]:
		st.From, st.To = rates["rate"], rates["rate"]
	case seen["from"] && seen["to"] && !seen["rate"] && !seen["target"]:
		st.From, st.To = rates["from"], rates["to"]
	case seen["target"] && !seen["rate"] && !seen["from"] && !seen["to"]:
		if *prev < 0 {
			bad(n.Line, "target", "a k6 stage ramps from the previous step's rate, and this is the first step: give {from: R, to: %s} or a step before it", num(rates["target"]))
		}
		st.From, st.To = *prev, rates["target"]
	default:
		c.errorf(n.Line, "%s: give rate (a step), from and to (a ramp) or target (a k6 stage: a ramp from the previous rate), one of the three, got %s",
			where, strings.Join(present(seen, "rate", "from", "to", "target"), ", "))
		ok = false
	}
	if st.Spike && st.From != st.To {
		bad(n.Line, "spike", "marks a step (rate: R), not a ramp")
	}
	if !ok {
		return nil, false
	}
	*prev = st.To
	return []RateStep{st}, true
}

// rateRepeat parses {repeat: N, steps: [...]}.
func (c *fileChecker) rateRepeat(where string, n *yaml.Node, seen map[string]bool, repeat int, steps *yaml.Node, prev *float64, top bool) ([]RateStep, bool) {
	if !top {
		c.errorf(n.Line, "%s: a repeat inside a repeat; write the inner steps out", where)
		return nil, false
	}
	for _, k := range []string{"duration", "rate", "from", "to", "target", "spike"} {
		if seen[k] {
			c.errorf(n.Line, "%s.%s: not used with repeat; put it in one of the steps", where, k)
			return nil, false
		}
	}
	if !seen["repeat"] || steps == nil || steps.Kind != yaml.SequenceNode || len(steps.Content) == 0 {
		c.errorf(n.Line, "%s: a repeat needs repeat: N and steps: a non-empty list of steps", where)
		return nil, false
	}
	var once []RateStep
	var target []bool // once[j] is a k6 stage: it ramps from the step before it
	for j, s := range steps.Content {
		s = resolve(s)
		got, ok := c.rateItem(fmt.Sprintf("%s.steps[%d]", where, j+1), s, prev, false)
		if !ok {
			return nil, false
		}
		once = append(once, got...)
		target = append(target, hasKey(s, "target"))
	}
	// Every iteration after the first ramps its k6 stages from where the
	// previous one ended, as k6's stages do (not from the rate before the
	// repeat again, which would draw a sawtooth).
	out := make([]RateStep, 0, repeat*len(once))
	for i := range repeat {
		for j, st := range once {
			if i > 0 && target[j] {
				st.From = out[len(out)-1].To
			}
			if st.Spike && st.From != st.To {
				c.errorf(n.Line, "%s.steps[%d].spike: marks a step (rate: R), not a ramp: iteration %d of the repeat ramps it from %s to %s",
					where, j+1, i+1, num(st.From), num(st.To))
				return nil, false
			}
			out = append(out, st)
		}
	}
	return out, true
}

// hasKey reports whether map node n holds key.
func hasKey(n *yaml.Node, key string) bool {
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func present(seen map[string]bool, keys ...string) []string {
	var out []string
	for _, k := range keys {
		if seen[k] {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return []string{"none of them"}
	}
	return out
}

// ScheduleLength is the time the rate schedule covers.
func ScheduleLength(steps []RateStep) time.Duration {
	var d time.Duration
	for _, s := range steps {
		d += s.Duration
	}
	return d
}

// ScheduledRecords is how many records the rate schedule sends in the
// first d of the window (after the last step, its end rate holds).
func ScheduledRecords(steps []RateStep, d time.Duration) float64 {
	n, t := 0.0, time.Duration(0)
	for _, s := range steps {
		if t >= d {
			return n
		}
		dt := min(s.Duration, d-t)
		r := s.From + (s.To-s.From)*float64(dt)/float64(s.Duration)
		n += dt.Seconds() * (s.From + r) / 2
		t += s.Duration
	}
	if t < d && len(steps) > 0 {
		n += (d - t).Seconds() * steps[len(steps)-1].To
	}
	return n
}

// ScheduledRateAt is the schedule's rate at offset t into the window.
func ScheduledRateAt(steps []RateStep, t time.Duration) float64 {
	var start time.Duration
	for _, s := range steps {
		if t < start+s.Duration {
			return s.From + (s.To-s.From)*float64(t-start)/float64(s.Duration)
		}
		start += s.Duration
	}
	if len(steps) == 0 {
		return 0
	}
	return steps[len(steps)-1].To
}

// PeakRate is the highest rate of the schedule.
func PeakRate(steps []RateStep) float64 {
	p := 0.0
	for _, s := range steps {
		p = max(p, s.From, s.To)
	}
	return p
}

// rateBesideSchedule refuses a rate given beside a rate_schedule:, in the
// file, the environment or --set: the schedule replaces it (the run's rate
// becomes the schedule's peak), so it would be ignored without a word.
func (l *loader) rateBesideSchedule() error {
	if l.file.rateSchedule == nil {
		return nil
	}
	if _, inFile := l.file.lines["rate"]; !inFile && l.origin["rate"] == "" {
		return nil
	}
	return fmt.Errorf("%s: rate: ignored beside rate_schedule (%s), which replaces it (the run's rate is the schedule's peak); "+
		"remove rate, or change the schedule's steps", l.where("rate"), l.where("rate_schedule"))
}

// checkRateSchedule checks the schedule against the run: it fits the
// window, and every producer sends at least one record in it.
func (r RunSpec) checkRateSchedule(p *problems) {
	if len(r.RateSchedule) == 0 {
		return
	}
	if r.LoadMode != "" && r.LoadMode != LoadRate {
		return // ignored; checkRateModeUse refuses a scenario with no rate run
	}
	if l := ScheduleLength(r.RateSchedule); l > r.Duration {
		p.addf("rate_schedule", "lasts %v, longer than duration (%v): the steps after the window would never be sent; shorten them or raise duration", l, r.Duration)
	}
	if n := ScheduledRecords(r.RateSchedule, r.Duration); n < float64(r.Producers) {
		p.addf("rate_schedule", "sends %s records in the measurement window, fewer than the %d producers; every producer must send at least one record in it",
			num(n), r.Producers)
	}
}
