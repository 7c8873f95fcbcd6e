package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxRate is the max_rate: block of a scenario, used by runs with
// load_mode max_rate: the offered rate rises in steps from Start, by Step
// records/s or by Factor times, up to Max; each step is a run of its own
// (fresh topic, group and members; own warm-up and measurement window).
// A step passes when completed_per_sec ≥ CompletedRatio × the offered rate
// and the completion p99 ≤ P99Bound; the search stops at the first step
// that fails (with Confirm: after one retry of it also fails).
//
//	max_rate:
//	  start: 100            # records/s of the first step, > 0 (required)
//	  step: 50              # records/s added per step, > 0 (or factor:)
//	  factor: 1.5           # or: each step's rate × factor, > 1 (one of step, factor)
//	  max: 1000             # highest rate tried, ≥ start (required)
//	  p99_bound: 500ms      # completion p99 bound [1s]
//	  completed_ratio: 0.995  # completed ÷ offered at least this, in (0, 1] [0.995]
//	  confirm: false        # retry a failing step once before stopping [false]
type MaxRate struct {
	Start          float64       `json:"start"`
	Step           float64       `json:"step,omitempty"`
	Factor         float64       `json:"factor,omitempty"`
	Max            float64       `json:"max"`
	P99Bound       time.Duration `json:"p99_bound"`
	CompletedRatio float64       `json:"completed_ratio"`
	Confirm        bool          `json:"confirm,omitempty"`
}

// MaxRateSteps bounds the length of a max_rate schedule.
const MaxRateSteps = 50

var maxRateKeys = []string{"start", "step", "factor", "max", "p99_bound", "completed_ratio", "confirm"}

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
	m := MaxRate{P99Bound: time.Second, CompletedRatio: 0.995}
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
			f, perr := strconv.ParseFloat(val.Value, 64)
			if perr != nil || val.Tag == "!!str" {
				err = fmt.Errorf("expected a number, got %q", val.Value)
			}
			*map[string]*float64{"start": &m.Start, "step": &m.Step, "factor": &m.Factor, "max": &m.Max,
				"completed_ratio": &m.CompletedRatio}[k.Value] = f
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

// Recommend is the recommend: block: name the value of Knob that gives the
// highest Maximize among runs that satisfy every Where clause, per consumer
// type and per combination of the other swept keys.
//
//	recommend:
//	  knob: max_poll_records                       # a swept scenario key (required)
//	  maximize: throughput.completed_per_sec       # a run.json field [throughput.completed_per_sec]
//	  where: ["latency.completion_ms.p99 <= 200ms", "broker.acquisition_lock_timeouts_total == 0"]
type Recommend struct {
	Knob     string   `json:"knob"`
	Maximize string   `json:"maximize"`
	Where    []Clause `json:"where,omitempty"`
}

// Clause is one constraint "FIELD OP VALUE": Field a resolved run.json path
// (the expect: vocabulary), Op one of <=, <, >=, >, ==, !=, Value in the
// field's unit (a duration is converted to milliseconds for *_ms fields and
// to seconds for phases.*_s).
type Clause struct {
	Field string  `json:"field"`
	Op    string  `json:"op"`
	Value float64 `json:"value"`
	Text  string  `json:"text"`
}

var recommendKeys = []string{"knob", "maximize", "where"}

var clauseRE = regexp.MustCompile(`^\s*([A-Za-z0-9_.]+)\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$`)

// ParseClause parses "latency.completion_ms.p99 <= 200ms" or
// "lock_expired_completions==0". The field may be written by its last part
// when unique, as in expect:.
func ParseClause(s string) (Clause, error) {
	m := clauseRE.FindStringSubmatch(s)
	if m == nil {
		return Clause{}, fmt.Errorf("clause %q: expected FIELD OP VALUE like \"latency.completion_ms.p99 <= 200ms\" (OP one of <=, <, >=, >, ==, !=)", s)
	}
	field, err := resolveField(m[1])
	if err != nil {
		return Clause{}, fmt.Errorf("clause %q: %w", s, err)
	}
	c := Clause{Field: field, Op: m[2], Text: strings.TrimSpace(s)}
	if f, err := strconv.ParseFloat(m[3], 64); err == nil {
		c.Value = f
		return c, nil
	}
	d, err := time.ParseDuration(m[3])
	switch {
	case err != nil:
		return c, fmt.Errorf("clause %q: value %q: expected a number or a duration like 200ms", s, m[3])
	case figureUnit(field) == "ms":
		c.Value = float64(d) / float64(time.Millisecond)
	case figureUnit(field) == "s":
		c.Value = d.Seconds()
	default:
		return c, fmt.Errorf("clause %q: value %q: %s is not a time, give a number", s, m[3], field)
	}
	return c, nil
}

// ParseRecommend builds a recommendation query from its parts (as the CLI
// gets them): the knob must be a scenario key, maximize a run.json field
// ("" = throughput.completed_per_sec), each where a clause.
func ParseRecommend(knob, maximize string, where []string) (Recommend, error) {
	r := Recommend{Knob: knob, Maximize: "throughput.completed_per_sec"}
	if knob == "" {
		return r, fmt.Errorf("knob: required; a swept scenario key like max_poll_records")
	}
	if _, err := whereValue(knob, nil); err != nil && strings.HasPrefix(err.Error(), "unknown key") {
		return r, fmt.Errorf("knob: %w", err)
	}
	if maximize != "" {
		f, err := resolveField(maximize)
		if err != nil {
			return r, fmt.Errorf("maximize: %w", err)
		}
		r.Maximize = f
	}
	for i, w := range where {
		c, err := ParseClause(w)
		if err != nil {
			return r, fmt.Errorf("where[%d]: %w", i+1, err)
		}
		r.Where = append(r.Where, c)
	}
	return r, nil
}

// recommend reads the recommend: block.
func (c *fileChecker) recommend(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "recommend: expected a map like {knob: max_poll_records, maximize: completed_per_sec, where: [\"latency.completion_ms.p99 <= 200ms\"]}, got %s", nodeKind(v))
		return
	}
	var knob, maximize string
	var where []string
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		switch k.Value {
		case "knob", "maximize":
			if val.Kind != yaml.ScalarNode || isNull(val) {
				c.errorf(val.Line, "recommend.%s: expected a single value, got %s", k.Value, nodeKind(val))
				return
			}
			if k.Value == "knob" {
				knob = val.Value
			} else {
				maximize = val.Value
			}
		case "where":
			items := []*yaml.Node{val}
			if val.Kind == yaml.SequenceNode {
				items = val.Content
			}
			for _, it := range items {
				if it = resolve(it); it.Kind != yaml.ScalarNode || isNull(it) {
					c.errorf(it.Line, "recommend.where: a list of clauses like \"latency.completion_ms.p99 <= 200ms\", got %s", nodeKind(it))
					return
				}
				where = append(where, it.Value)
			}
		default:
			c.errorf(k.Line, "unknown key %q in recommend%s", k.Value, suggest(k.Value, recommendKeys))
			return
		}
	}
	r, err := ParseRecommend(knob, maximize, where)
	if err != nil {
		c.errorf(v.Line, "recommend.%v", err)
		return
	}
	c.info.recommend = &r
}

// checkTuning checks that max_rate: and recommend: fit the runs: max_rate
// is used by some run, and the recommend knob is swept.
func (s *Scenario) checkTuning(mr *MaxRate) error {
	if mr != nil && !slices.ContainsFunc(s.Runs, func(r RunSpec) bool { return r.LoadMode == LoadMaxRate }) {
		return fmt.Errorf("max_rate: given, but no run has load_mode max_rate; add load_mode: max_rate or remove the block")
	}
	if s.Recommend != nil && !slices.Contains(s.Dimensions, s.Recommend.Knob) {
		return fmt.Errorf("recommend.knob: %q has one value in this scenario (swept: %s); make it a list to compare its values",
			s.Recommend.Knob, strings.Join(s.Dimensions, ", "))
	}
	return nil
}
