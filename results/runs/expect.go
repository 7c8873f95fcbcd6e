package runs

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// ExpectationOutcome is an evaluated expectation: campaign.json
// "expectations".
type ExpectationOutcome struct {
	Name     string     `json:"name"`
	Claim    string     `json:"claim"` // the claim in words: "share/consumer throughput.completed_per_sec ≥ 2"
	Met      bool       `json:"met"`
	Measured []Measured `json:"measured"`
	Detail   string     `json:"detail,omitempty"` // why it is not met or skipped, or what was compared
	// Skipped: the claim is about one client's runs (where: {client: X}, or
	// per: client) and the campaign has no run of it to check (the campaign
	// did not run that client, or the client refuses those settings).
	// Neither met nor a failure: the verdict passes over it and says so.
	Skipped bool `json:"skipped,omitempty"`
}

// Measured is one value an expectation checked: a run's field, or the ratio
// of a pair ("r02-share/r01-consumer").
type Measured struct {
	Run   string  `json:"run"`
	Value float64 `json:"value"`
	Met   bool    `json:"met"`
}

// EvaluateExpectations checks a scenario's expectations against the
// campaign's runs. A per: client expectation gives one outcome for each
// client the campaign ran. A claim with no run (or pair) to check, or a
// field a run lacks, is not met, except a claim about one client's runs
// when the campaign has none of them: that one is skipped, with the reason.
func EvaluateExpectations(recs []Record, exps []scenarios.Expectation) []ExpectationOutcome {
	out := make([]ExpectationOutcome, 0, len(exps))
	for _, e := range exps {
		if !e.PerClient {
			out = append(out, evaluate(recs, e, ""))
			continue
		}
		for _, c := range campaignClients(recs) {
			out = append(out, evaluate(recs, e.ForClient(c), e.ClientSkips[c]))
		}
	}
	return out
}

// RecomputeExpectations evaluates the scenario's expect: claims (the
// scenario campaign.json holds) on recs, the figures of the run.json
// files, in place of the outcomes campaign.json states (stated): a claim
// read from campaign.json would trust whatever it says was met. An outcome
// whose status the recomputation changes says what campaign.json stated;
// a stated outcome of no claim of the scenario is NOT MET (nothing to
// recompute it from). A campaign.json without its scenario keeps the
// outcomes it states: there is no claim to evaluate.
func RecomputeExpectations(stated []ExpectationOutcome, sc *scenarios.Scenario, recs []Record) []ExpectationOutcome {
	if sc == nil {
		return stated
	}
	out := EvaluateExpectations(recs, sc.Expectations)
	byName := map[string]ExpectationOutcome{}
	for _, o := range stated {
		byName[o.Name] = o
	}
	for i, o := range out {
		if s, ok := byName[o.Name]; ok && s.Status() != o.Status() {
			out[i].Detail = strings.TrimPrefix(o.Detail+"; ", "; ") + fmt.Sprintf("campaign.json stated %s; recomputed from run.json", s.Status())
		}
		delete(byName, o.Name)
	}
	for _, s := range stated {
		if _, left := byName[s.Name]; left {
			out = append(out, ExpectationOutcome{Name: s.Name, Claim: s.Claim,
				Detail: fmt.Sprintf("campaign.json states it %s, but the scenario has no such expect: claim to recompute it from run.json", s.Status())})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func evaluate(recs []Record, e scenarios.Expectation, skipReason string) ExpectationOutcome {
	var o ExpectationOutcome
	switch {
	case clientMissing(recs, e) != "":
		o = ExpectationOutcome{Skipped: true, Detail: clientMissing(recs, e)}
		if skipReason != "" {
			o.Detail += ": " + skipReason
		}
	case e.Ratio != nil:
		o = evaluateRatio(recs, *e.Ratio)
	case e.Measure != nil:
		o = evaluateMeasure(recs, *e.Measure)
	default:
		o = ExpectationOutcome{Detail: "neither measure nor ratio"}
	}
	o.Name, o.Claim = e.Name, Claim(e)
	return o
}

// clientMissing is "no share run where client=librdkafka, renew=auto" when
// one of the expectation's selectors names a client and picks no run of the
// campaign; "" otherwise.
func clientMissing(recs []Record, e scenarios.Expectation) string {
	for _, sel := range e.Selectors() {
		if _, named := sel.Where["client"]; named && len(selectRuns(recs, sel)) == 0 {
			return "skipped: no " + selectorText(sel) + " run in this campaign"
		}
	}
	return ""
}

// campaignClients are the clients the campaign's runs used, in
// vocab.Clients order.
func campaignClients(recs []Record) []string {
	var out []string
	for _, c := range vocab.Clients {
		for _, r := range recs {
			if r.Spec != nil && r.Spec.Value("client") == string(c) {
				out = append(out, string(c))
				break
			}
		}
	}
	return out
}

func evaluateMeasure(recs []Record, e scenarios.MeasureClaim) ExpectationOutcome {
	sel := selectRuns(recs, e.RunSelector)
	if len(sel) == 0 {
		return ExpectationOutcome{Detail: "no run matches " + selectorText(e.RunSelector)}
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
		m := Measured{Run: r.RunID, Value: v, Met: within(e.Bounds, v)}
		o.Met = o.Met && m.Met
		o.Measured = append(o.Measured, m)
	}
	o.Detail = strings.Join(problems, "; ")
	return o
}

func evaluateRatio(recs []Record, e scenarios.RatioClaim) ExpectationOutcome {
	pairs := pairBy(recs, e.Numerator, e.Denominator)
	if len(pairs) == 0 {
		return ExpectationOutcome{Detail: fmt.Sprintf("no pair of runs %s / %s with otherwise equal settings",
			selectorText(e.Numerator), selectorText(e.Denominator))}
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
		m := Measured{Run: id, Value: num / den, Met: within(e.Bounds, num/den)}
		o.Met = o.Met && m.Met
		o.Measured = append(o.Measured, m)
		problems = append(problems, fmt.Sprintf("%s: %.4g / %.4g", id, num, den))
	}
	o.Detail = strings.Join(problems, "; ")
	return o
}

func within(b scenarios.Bounds, v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	return (b.Min == nil || v >= *b.Min) && (b.Max == nil || v <= *b.Max)
}

// Claim states an expectation in words: "consumer runs: ceiling.efficiency
// in [0.9, 1.05]", "share / consumer throughput.completed_per_sec ≥ 2".
func Claim(e scenarios.Expectation) string {
	var b scenarios.Bounds
	switch {
	case e.Ratio != nil:
		b = e.Ratio.Bounds
	case e.Measure != nil:
		b = e.Measure.Bounds
	}
	var bound string
	switch {
	case b.Min != nil && b.Max != nil && *b.Min == *b.Max:
		bound = "= " + num(*b.Min)
	case b.Min != nil && b.Max != nil:
		bound = fmt.Sprintf("in [%s, %s]", num(*b.Min), num(*b.Max))
	case b.Min != nil:
		bound = "≥ " + num(*b.Min)
	case b.Max != nil:
		bound = "≤ " + num(*b.Max)
	}
	switch {
	case e.Ratio != nil:
		return fmt.Sprintf("%s / %s %s %s", selectorText(e.Ratio.Numerator), selectorText(e.Ratio.Denominator), e.Ratio.Field, bound)
	case e.Measure != nil:
		return fmt.Sprintf("%s runs: %s %s", selectorText(e.Measure.RunSelector), e.Measure.Field, bound)
	}
	return bound
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// selectorText is "share", "all", "share where max_poll_records=200".
func selectorText(s scenarios.RunSelector) string {
	t := s.Runs
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

func matches(s scenarios.RunSelector, r Record) bool {
	if s.Runs != "" && s.Runs != "all" && string(r.ConsumerType) != s.Runs {
		return false
	}
	for k, want := range s.Where {
		if r.Spec == nil || SpecValue(*r.Spec, k) != want {
			return false
		}
	}
	return true
}

func selectRuns(runs []Record, s scenarios.RunSelector) []Record {
	var out []Record
	for _, r := range runs {
		if matches(s, r) {
			out = append(out, r)
		}
	}
	return out
}

// pairBy pairs each numerator run with the first unused denominator run
// whose spec is equal apart from the keys the selectors name (and the
// consumer type when the two sides differ in it). Consumer vs share without
// Where is exactly Pairs.
func pairBy(runs []Record, num, den scenarios.RunSelector) [][2]Record {
	var out [][2]Record
	if len(num.Where) == 0 && len(den.Where) == 0 && typePair(num.Runs, den.Runs) {
		for _, p := range Pairs(runs) {
			if num.Runs == string(vocab.ShareGroup) {
				out = append(out, [2]Record{p.Share, p.Consumer})
			} else {
				out = append(out, [2]Record{p.Consumer, p.Share})
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
	if num.Runs != den.Runs {
		ignore = append(ignore, "consumer_type")
	}
	dens := selectRuns(runs, den)
	used := make([]bool, len(dens))
	for _, n := range selectRuns(runs, num) {
		key := SpecKey(n, ignore...)
		for i, d := range dens {
			if !used[i] && d.RunID != n.RunID && SpecKey(d, ignore...) == key {
				used[i] = true
				out = append(out, [2]Record{n, d})
				break
			}
		}
	}
	return out
}

func typePair(a, b string) bool {
	return a == "share" && b == "consumer" || a == "consumer" && b == "share"
}

// MeasuredText lists an outcome's measured values: "r01-consumer 0.95,
// r03-consumer 0.82 ✗" (✗ marks a value outside the bounds).
func (o ExpectationOutcome) MeasuredText() string {
	parts := make([]string, 0, len(o.Measured))
	for _, m := range o.Measured {
		s := fmt.Sprintf("%s %.4g", m.Run, m.Value)
		if !m.Met {
			s += " ✗"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "nothing measured"
	}
	return strings.Join(parts, ", ")
}

// Status is "MET", "NOT MET" or "SKIPPED".
func (o ExpectationOutcome) Status() string {
	switch {
	case o.Skipped:
		return "SKIPPED"
	case o.Met:
		return "MET"
	}
	return "NOT MET"
}

// Line is the outcome in one line after its status: name, claim, measured
// values and, when not met, why.
func (o ExpectationOutcome) Line() string {
	s := fmt.Sprintf("%s: %s: measured %s", o.Name, o.Claim, o.MeasuredText())
	if (!o.Met || o.Skipped) && o.Detail != "" {
		s += " (" + o.Detail + ")"
	}
	return s
}
