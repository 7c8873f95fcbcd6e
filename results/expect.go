package results

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Expectation is one claim a scenario makes about its runs, checked after the
// campaign. It is the plain form of scenarios.Expectation (results must not
// import scenarios): Field is a dotted path into run.json
// ("throughput.completed_per_sec", "audit.lost") or a derived field (see
// DerivedFields). Without Numerator it bounds Field in every run Runs
// selects; with Numerator and Denominator it bounds the ratio of Field
// between paired runs (same spec except the keys the two sides name).
type Expectation struct {
	Name        string
	Field       string
	Runs        Selector  // measure claims
	Numerator   *Selector // ratio claims: both set
	Denominator *Selector
	Min, Max    *float64 // inclusive bounds; at least one is set
}

// Selector picks runs by consumer type ("consumer", "share" or "all"/"") and
// by spec values (Where: scenario key → value as written by
// scenarios.RunSpec.Value, e.g. "max_poll_records": "1000",
// "processing.time": "10ms").
type Selector struct {
	Type  string
	Where map[string]string
}

// ExpectationOutcome is an evaluated expectation: campaign.json
// "expectations".
type ExpectationOutcome struct {
	Name     string     `json:"name"`
	Claim    string     `json:"claim"` // the claim in words: "share/consumer throughput.completed_per_sec ≥ 2"
	Met      bool       `json:"met"`
	Measured []Measured `json:"measured"`
	Detail   string     `json:"detail,omitempty"` // why it is not met, or what was compared
}

// Measured is one value an expectation checked: a run's field, or the ratio
// of a pair ("r02-share/r01-consumer").
type Measured struct {
	Run   string  `json:"run"`
	Value float64 `json:"value"`
	Met   bool    `json:"met"`
}

// DerivedFields are expectation fields computed from run.json figures rather
// than stored in it.
var DerivedFields = map[string]func(RunRecord) (float64, bool){
	// event_summary.redeliveries_beyond_held: redeliveries caused by the
	// events − records the crashed members held (as their clients saw them):
	// ≥ 0 when every held record came back; records acquired by a fetch
	// whose response the crashed member never read come back too.
	"event_summary.redeliveries_beyond_held": func(r RunRecord) (float64, bool) {
		if r.EventSummary == nil {
			return 0, false
		}
		return float64(r.EventSummary.Redeliveries - r.EventSummary.HeldByCrashed), true
	},
	// audit.archived_ratio: archived ÷ produced.
	"audit.archived_ratio": func(r RunRecord) (float64, bool) {
		if r.Audit.Produced == 0 {
			return 0, false
		}
		return float64(r.Audit.Archived) / float64(r.Audit.Produced), true
	},
}

// EvaluateExpectations checks every expectation against the campaign's runs.
// A claim with no run (or pair) to check, or a field a run lacks, is not met.
func EvaluateExpectations(runs []RunRecord, exps []Expectation) []ExpectationOutcome {
	out := make([]ExpectationOutcome, 0, len(exps))
	for _, e := range exps {
		var o ExpectationOutcome
		if e.Numerator != nil && e.Denominator != nil {
			o = evaluateRatio(runs, e)
		} else {
			o = evaluateMeasure(runs, e)
		}
		o.Name, o.Claim = e.Name, e.Claim()
		out = append(out, o)
	}
	return out
}

func evaluateMeasure(runs []RunRecord, e Expectation) ExpectationOutcome {
	sel := selectRuns(runs, e.Runs)
	if len(sel) == 0 {
		return ExpectationOutcome{Detail: "no run matches " + e.Runs.String()}
	}
	o := ExpectationOutcome{Met: true}
	var problems []string
	for _, r := range sel {
		v, ok := FieldValue(r, e.Field)
		if !ok {
			o.Met = false
			problems = append(problems, fmt.Sprintf("%s has no %s", r.RunID, e.Field))
			continue
		}
		m := Measured{Run: r.RunID, Value: v, Met: e.within(v)}
		o.Met = o.Met && m.Met
		o.Measured = append(o.Measured, m)
	}
	o.Detail = strings.Join(problems, "; ")
	return o
}

func evaluateRatio(runs []RunRecord, e Expectation) ExpectationOutcome {
	pairs := pairBy(runs, *e.Numerator, *e.Denominator)
	if len(pairs) == 0 {
		return ExpectationOutcome{Detail: fmt.Sprintf("no pair of runs %s / %s with otherwise equal settings",
			e.Numerator, e.Denominator)}
	}
	o := ExpectationOutcome{Met: true}
	var problems []string
	for _, p := range pairs {
		id := p[0].RunID + "/" + p[1].RunID
		num, ok1 := FieldValue(p[0], e.Field)
		den, ok2 := FieldValue(p[1], e.Field)
		if !ok1 || !ok2 || den == 0 {
			o.Met = false
			problems = append(problems, fmt.Sprintf("%s: ratio undefined (%s %g / %g)", id, e.Field, num, den))
			continue
		}
		m := Measured{Run: id, Value: num / den, Met: e.within(num / den)}
		o.Met = o.Met && m.Met
		o.Measured = append(o.Measured, m)
		problems = append(problems, fmt.Sprintf("%s: %.4g / %.4g", id, num, den))
	}
	o.Detail = strings.Join(problems, "; ")
	return o
}

func (e Expectation) within(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	return (e.Min == nil || v >= *e.Min) && (e.Max == nil || v <= *e.Max)
}

// Claim states the expectation in words: "consumer runs: ceiling.efficiency
// in [0.9, 1.05]", "share/consumer throughput.completed_per_sec ≥ 2".
func (e Expectation) Claim() string {
	var bound string
	switch {
	case e.Min != nil && e.Max != nil && *e.Min == *e.Max:
		bound = "= " + num(*e.Min)
	case e.Min != nil && e.Max != nil:
		bound = fmt.Sprintf("in [%s, %s]", num(*e.Min), num(*e.Max))
	case e.Min != nil:
		bound = "≥ " + num(*e.Min)
	case e.Max != nil:
		bound = "≤ " + num(*e.Max)
	}
	if e.Numerator != nil && e.Denominator != nil {
		return fmt.Sprintf("%s / %s %s %s", e.Numerator, e.Denominator, e.Field, bound)
	}
	return fmt.Sprintf("%s runs: %s %s", e.Runs, e.Field, bound)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// String is "share", "all", "share where max_poll_records=200".
func (s Selector) String() string {
	t := s.Type
	if t == "" {
		t = "all"
	}
	if len(s.Where) == 0 {
		return t
	}
	keys := sortedWhere(s.Where)
	kv := make([]string, len(keys))
	for i, k := range keys {
		kv[i] = k + "=" + s.Where[k]
	}
	return t + " where " + strings.Join(kv, ", ")
}

func sortedWhere(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s Selector) matches(r RunRecord) bool {
	if s.Type != "" && s.Type != "all" && r.ConsumerType != s.Type {
		return false
	}
	for k, want := range s.Where {
		if !specMatches(r.Spec, k, want) {
			return false
		}
	}
	return true
}

func selectRuns(runs []RunRecord, s Selector) []RunRecord {
	var out []RunRecord
	for _, r := range runs {
		if s.matches(r) {
			out = append(out, r)
		}
	}
	return out
}

// pairBy pairs each numerator run with the first unused denominator run
// whose spec is equal apart from the keys the selectors name (and the
// consumer type when the two sides differ in it). Consumer vs share without
// Where is exactly Pairs.
func pairBy(runs []RunRecord, num, den Selector) [][2]RunRecord {
	var out [][2]RunRecord
	if len(num.Where) == 0 && len(den.Where) == 0 && typePair(num.Type, den.Type) {
		for _, p := range Pairs(runs) {
			if num.Type == "share" {
				out = append(out, [2]RunRecord{p.Share, p.Consumer})
			} else {
				out = append(out, [2]RunRecord{p.Consumer, p.Share})
			}
		}
		return out
	}
	ignore := []string{}
	for _, w := range []map[string]string{num.Where, den.Where} {
		for k := range w {
			top, _, _ := strings.Cut(k, ".")
			ignore = append(ignore, top)
		}
	}
	if num.Type != den.Type {
		ignore = append(ignore, "consumer_type")
	}
	dens := selectRuns(runs, den)
	used := make([]bool, len(dens))
	for _, n := range selectRuns(runs, num) {
		key := SpecKey(n, ignore...)
		for i, d := range dens {
			if !used[i] && d.RunID != n.RunID && SpecKey(d, ignore...) == key {
				used[i] = true
				out = append(out, [2]RunRecord{n, d})
				break
			}
		}
	}
	return out
}

func typePair(a, b string) bool {
	return a == "share" && b == "consumer" || a == "consumer" && b == "share"
}

// specValuer is implemented by scenarios.RunSpec (Value formats a scenario
// key's value as a scenario file writes it).
type specValuer interface{ Value(key string) string }

// specMatches says whether the run spec's value of key is want. A spec read
// back from run.json is a map: its values are compared as JSON scalars, with
// durations (nanoseconds in JSON) compared to want parsed as a Go duration.
func specMatches(spec any, key, want string) bool {
	if sv, ok := spec.(specValuer); ok {
		return sv.Value(key) == want
	}
	m, ok := spec.(map[string]any)
	if !ok {
		return false
	}
	var got any = m
	if sub, ok := strings.CutPrefix(key, "broker_config."); ok {
		bc, _ := m["broker_config"].(map[string]any)
		got = bc[sub]
	} else {
		for _, part := range strings.Split(key, ".") {
			mm, _ := got.(map[string]any)
			got = mm[part]
		}
	}
	s := fmt.Sprint(got)
	if f, ok := toNumber(got); ok {
		s = strconv.FormatFloat(f, 'f', -1, 64)
		if d, err := time.ParseDuration(want); err == nil && f == float64(d) {
			return true
		}
	}
	return got != nil && s == want
}

func toNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// FieldValue reads a numeric field of a run by its dotted run.json path
// ("latency.completion_ms.p99"; booleans read as 0 or 1) or a DerivedFields
// name. ok is false when the path names no number.
func FieldValue(r RunRecord, path string) (float64, bool) {
	if f, ok := DerivedFields[path]; ok {
		return f(r)
	}
	v := reflect.ValueOf(r)
	for _, part := range strings.Split(path, ".") {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return 0, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return 0, false
		}
		f, ok := fieldByJSONName(v, part)
		if !ok {
			return 0, false
		}
		v = f
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(v.Int()), true
	case reflect.Bool:
		if v.Bool() {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func fieldByJSONName(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}
