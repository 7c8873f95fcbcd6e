package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

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
	if _, err := strconv.ParseFloat(m[3], 64); err == nil { // a number, not a duration
		f, err := parseFinite(m[3])
		if err != nil {
			return c, fmt.Errorf("clause %q: value %w", s, err)
		}
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
				if c.longList("recommend.where", val, maxExpectations, "each clause is checked against every run, as an expectation is") {
					return
				}
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
