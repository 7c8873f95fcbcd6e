package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxRateMode is load_mode max_rate: each rate of the max_rate: schedule is
// a run of its own (a rate run at that rate: fresh topic, group and
// members, its own warm-up, window and drain), judged step by step; the
// search stops at the first step that fails.
type maxRateMode struct{}

func (maxRateMode) Name() LoadMode { return LoadMaxRate }

// problems: a max_rate: block whose schedule fits the harness, windows of
// whole seconds, events that fit them, one process.
func (maxRateMode) problems(r RunSpec, p *problems) {
	r.checkWindow(p)
	if r.MaxRate == nil {
		p.addf("max_rate", "required with load_mode max_rate: a map like {start: 100, step: 50, max: 500, p99_bound: 500ms}")
	} else {
		r.checkMaxRate(p)
	}
	r.checkUnusedBacklog(p)
	r.checkEvents(p)
}

// Plan: every step of the schedule, each with its warm-up and window.
func (maxRateMode) Plan(r RunSpec) Plan {
	steps := 0
	if r.MaxRate != nil {
		steps = len(r.MaxRate.Schedule())
	}
	d := time.Duration(steps) * (r.Warmup + r.Duration)
	return Plan{Load: d, Text: fmt.Sprintf("max_rate: up to %d step(s) of %s warm-up + %s window = up to %s, each drain up to %s",
		steps, r.Warmup, r.Duration, d, r.DrainTimeout)}
}

// Sizing: the highest step, the one that produces the most.
func (maxRateMode) Sizing(r RunSpec) (Sizing, error) {
	if r.MaxRate == nil {
		return Sizing{}, errors.New("max_rate: no max_rate block")
	}
	sched := r.MaxRate.Schedule()
	if len(sched) == 0 {
		return Sizing{}, errors.New("max_rate: the schedule has no step")
	}
	return Sizing{Rate: sched[len(sched)-1], Span: r.scheduleSpan()}, nil
}

// AtRate is one step of a max_rate search: r as a rate run at rate.
func (r RunSpec) AtRate(rate float64) RunSpec {
	r.LoadMode, r.Rate, r.MaxRate = LoadRate, rate, nil
	return r
}

// MaxRate is the max_rate: block of a scenario, used by runs with
// load_mode max_rate: the offered rate rises in steps from Start, by Step
// records/s or by Factor times, up to Max; each step is a run of its own
// (fresh topic, group and members; own warm-up and measurement window).
// A step passes when completed_per_sec ≥ CompletedRatio × the offered rate
// and the completion p99 ≤ P99Bound; the schedule stops at the first step
// that fails (with Confirm: after one retry of it also fails). Then the
// search bisects between the highest passing and the lowest failing rate
// until their gap is at most Precision of the passing one, and measures the
// answer once more to confirm it (runs.SearchMaxRate). Precision 0 keeps
// the schedule's steps only.
//
//	max_rate:
//	  start: 100            # records/s of the first step, > 0 (required)
//	  step: 50              # records/s added per step, > 0 (or factor:)
//	  factor: 1.5           # or: each step's rate × factor, > 1 (one of step, factor)
//	  max: 1000             # highest rate tried, ≥ start (required)
//	  p99_bound: 500ms      # completion p99 bound [1s]
//	  completed_ratio: 0.995  # completed ÷ offered at least this, in (0, 1] [0.995]
//	  confirm: false        # retry a failing step once before stopping [false]
//	  precision: 0.05       # bisect until the gap ≤ this × the found rate, in [0, 0.5]; 0: no bisection [0.05]
type MaxRate struct {
	Start          float64       `json:"start"`
	Step           float64       `json:"step,omitempty"`
	Factor         float64       `json:"factor,omitempty"`
	Max            float64       `json:"max"`
	P99Bound       time.Duration `json:"p99_bound"`
	CompletedRatio float64       `json:"completed_ratio"`
	Confirm        bool          `json:"confirm,omitempty"`
	Precision      float64       `json:"precision"`
}

// DefaultMaxRatePrecision is max_rate.precision when the file leaves it out:
// the search ends within 5 % of the limit.
const DefaultMaxRatePrecision = 0.05

// MaxRateSteps bounds the length of a max_rate schedule.
const MaxRateSteps = 50

var maxRateKeys = []string{"start", "step", "factor", "max", "p99_bound", "completed_ratio", "confirm", "precision"}

// Schedule is the offered rates in order: start, then +step (or ×factor)
// while ≤ max.
func (m MaxRate) Schedule() []float64 {
	var out []float64
	for r := m.Start; r <= m.Max*(1+1e-9) && len(out) < MaxRateSteps; {
		out = append(out, r)
		if m.Factor > 0 {
			r *= m.Factor
		} else {
			r += m.Step
		}
	}
	return out
}

// problems checks the block; keys are prefixed "max_rate.".
func (m MaxRate) problems() []string {
	var p problems
	if !(m.Start > 0) || math.IsInf(m.Start, 0) {
		p.addf("max_rate.start", "required: the first step's records/s, a number > 0, got %s", formatScalar(m.Start))
	}
	switch {
	case m.Step != 0 && m.Factor != 0:
		p.addf("max_rate.step", "give step (records/s added) or factor (rate multiplied), not both")
	case m.Step == 0 && m.Factor == 0:
		p.addf("max_rate.step", "required: step (records/s added per step, > 0) or factor (> 1)")
	case m.Step < 0:
		p.addf("max_rate.step", "must be > 0 records/s, got %s", formatScalar(m.Step))
	case m.Factor != 0 && !(m.Factor > 1):
		p.addf("max_rate.factor", "must be > 1, got %s", formatScalar(m.Factor))
	}
	if !(m.Max >= m.Start) || math.IsInf(m.Max, 0) {
		p.addf("max_rate.max", "required: the highest rate to try, a number ≥ start (%s), got %s", formatScalar(m.Start), formatScalar(m.Max))
	}
	if m.P99Bound <= 0 {
		p.addf("max_rate.p99_bound", "must be a duration > 0 like 500ms, got %v", m.P99Bound)
	}
	if !(m.CompletedRatio > 0 && m.CompletedRatio <= 1) {
		p.addf("max_rate.completed_ratio", "must be in (0, 1], got %s", formatScalar(m.CompletedRatio))
	}
	if !(m.Precision >= 0 && m.Precision <= 0.5) {
		p.addf("max_rate.precision", "must be in [0, 0.5] (the bisection's end: gap ÷ found rate; 0 for no bisection), got %s", formatScalar(m.Precision))
	}
	if len(p) == 0 {
		if n := m.stepCount(); n > MaxRateSteps {
			p.addf("max_rate", "the schedule from %s to %s has %d steps; the limit is %d: raise step or factor, or lower max",
				formatScalar(m.Start), formatScalar(m.Max), n, MaxRateSteps)
		}
	}
	return p
}

func (m MaxRate) stepCount() int {
	if m.Factor > 0 {
		return int(math.Floor(math.Log(m.Max/m.Start)/math.Log(m.Factor)+1e-9)) + 1
	}
	return int(math.Floor((m.Max-m.Start)/m.Step+1e-9)) + 1
}

// maxRate reads the max_rate: block.
func (c *fileChecker) maxRate(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "max_rate: expected a map like {start: 100, step: 50, max: 500, p99_bound: 500ms}, got %s", nodeKind(v))
		return
	}
	m := MaxRate{P99Bound: time.Second, CompletedRatio: 0.995, Precision: DefaultMaxRatePrecision}
	bad := false
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		key := "max_rate." + k.Value
		if !slices.Contains(maxRateKeys, k.Value) {
			c.errorf(k.Line, "unknown key %q in max_rate%s", k.Value, suggest(k.Value, maxRateKeys))
			bad = true
			continue
		}
		if val.Kind != yaml.ScalarNode || isNull(val) {
			c.errorf(val.Line, "%s: expected a single value, got %s (max_rate is not swept)", key, nodeKind(val))
			bad = true
			continue
		}
		var err error
		switch k.Value {
		case "p99_bound":
			m.P99Bound, err = time.ParseDuration(val.Value)
			if err != nil {
				err = fmt.Errorf(`expected a Go duration like "500ms", got %q`, val.Value)
			}
		case "confirm":
			m.Confirm, err = strconv.ParseBool(val.Value)
			if err != nil {
				err = fmt.Errorf("expected true or false, got %q", val.Value)
			}
		default:
			f, perr := parseFinite(val.Value)
			if perr != nil || val.Tag == "!!str" {
				err = fmt.Errorf("expected a finite number, got %q", val.Value)
			}
			*map[string]*float64{"start": &m.Start, "step": &m.Step, "factor": &m.Factor, "max": &m.Max,
				"completed_ratio": &m.CompletedRatio, "precision": &m.Precision}[k.Value] = f
		}
		if err != nil {
			c.errorf(val.Line, "%s: %v", key, err)
			bad = true
		}
	}
	if bad {
		return
	}
	for _, p := range m.problems() {
		c.errorf(v.Line, "%s", p)
		bad = true
	}
	if !bad {
		c.info.maxRate = &m
	}
}

// checkMaxRate checks the max_rate: block of a max_rate run: its own rules
// (MaxRate.problems), the rate limit, a schedule of at most MaxRateSteps
// steps counted without integer overflow, and a first step that gives every
// producer a record in the measurement window.
func (r RunSpec) checkMaxRate(p *problems) {
	m := *r.MaxRate
	*p = append(*p, m.problems()...)
	for _, f := range []struct {
		key string
		v   float64
	}{{"max_rate.start", m.Start}, {"max_rate.step", m.Step}, {"max_rate.max", m.Max}} {
		if f.v > maxRateLimit && !math.IsInf(f.v, 0) {
			p.addf(f.key, "must be ≤ %d records/s (the harness's limit), got %s", maxRateLimit, num(f.v))
		}
	}
	// MaxRate.problems lets a NaN or infinite step or factor through.
	if math.IsNaN(m.Step) || math.IsInf(m.Step, 0) {
		p.addf("max_rate.step", "must be a finite number > 0 records/s, got %s", num(m.Step))
	}
	if math.IsNaN(m.Factor) || math.IsInf(m.Factor, 0) {
		p.addf("max_rate.factor", "must be a finite number > 1, got %s", num(m.Factor))
	}
	if !(m.Start > 0 && m.Max >= m.Start && m.Max <= maxRateLimit) {
		return
	}
	var steps float64
	switch {
	case m.Factor > 1 && !math.IsInf(m.Factor, 0):
		steps = math.Floor(math.Log(m.Max/m.Start)/math.Log(m.Factor)+1e-9) + 1
	case m.Step > 0 && m.Factor == 0:
		steps = math.Floor((m.Max-m.Start)/m.Step+1e-9) + 1
	default:
		return
	}
	if steps > MaxRateSteps {
		p.addf("max_rate", "the schedule from %s to %s has %s steps; the limit is %d: raise step or factor, or lower max",
			num(m.Start), num(m.Max), strconv.FormatFloat(steps, 'g', 3, 64), MaxRateSteps)
	}
	if r.Producers >= 1 && r.Duration >= minWindow && r.Duration <= maxPhase {
		if n := m.Start * r.Duration.Seconds(); n < float64(r.Producers) {
			p.addf("max_rate.start", "%s records/s for duration %v is %s records in the measurement window, fewer than the %d producers; "+
				"every producer must send at least one record in it: raise start or duration, or lower producers",
				num(m.Start), r.Duration, num(n), r.Producers)
		}
	}
}
