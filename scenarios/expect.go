package scenarios

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/vocab"
)

// Expectation is one item of a scenario's expect: list, a claim the report
// checks after the campaign and marks met or not met with the measured
// values. Exactly one of Measure and Ratio is set.
//
//	expect:
//	  - name: share group keeps up where partitions cap the consumer group
//	    ratio: {measure: completed_per_sec, numerator: share, denominator: consumer, min: 2.0}
//	  - name: consumer group reaches its worker ceiling
//	    measure: {runs: consumer, field: efficiency, min: 0.9, max: 1.05}
//	  - name: no record lost
//	    measure: {runs: all, field: audit.lost, max: 0}
//
// per: client checks the claim once for each client the campaign ran, as if
// every selector had where: {client: <that client>}.
type Expectation struct {
	Name    string        `json:"name"`
	Measure *MeasureClaim `json:"measure,omitempty"`
	Ratio   *RatioClaim   `json:"ratio,omitempty"`
	// PerClient is per: client.
	PerClient bool `json:"per_client,omitempty"`
	// ClientSkips says, for a per-client expectation, why a client of the
	// scenario has no run the claim picks (Load fills it): "client
	// librdkafka refuses these runs: renew: client librdkafka has no RENEW
	// acknowledgement ...". The evaluation reports such a client SKIPPED
	// with this reason.
	ClientSkips map[string]string `json:"client_skips,omitempty"`
}

// ForClient is the expectation narrowed to one client's runs: every
// selector gains where client=c, and the name ends in "(client c)".
func (e Expectation) ForClient(c string) Expectation {
	out := Expectation{Name: fmt.Sprintf("%s (client %s)", e.Name, c)}
	switch {
	case e.Measure != nil:
		m := *e.Measure
		m.RunSelector = m.RunSelector.withClient(c)
		out.Measure = &m
	case e.Ratio != nil:
		r := *e.Ratio
		r.Numerator, r.Denominator = r.Numerator.withClient(c), r.Denominator.withClient(c)
		out.Ratio = &r
	}
	return out
}

// Selectors are the expectation's run selectors: the measure's, or the
// ratio's numerator and denominator.
func (e Expectation) Selectors() []RunSelector {
	var out []RunSelector
	for _, s := range e.selectors() {
		out = append(out, s.sel)
	}
	return out
}

func (s RunSelector) withClient(c string) RunSelector {
	w := make(map[string]string, len(s.Where)+1)
	for k, v := range s.Where {
		w[k] = v
	}
	w["client"] = c
	s.Where = w
	return s
}

// RunSelector picks runs: Runs is the consumer type ("consumer", "share" or
// "all", the default); Where narrows by other scenario keys, the values
// written as RunSpec.Value formats them ({max_poll_records: "1000"},
// {processing.time: "10ms"}, {broker_config.group.share.max.size: "500"}).
type RunSelector struct {
	Runs  string            `json:"runs"`
	Where map[string]string `json:"where,omitempty"`
}

// Bounds are inclusive; at least one is set.
type Bounds struct {
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

// MeasureClaim bounds Field in every selected run:
// {runs: consumer, where: {...}, field: ceiling.efficiency, min: 0.9, max: 1.05}.
type MeasureClaim struct {
	RunSelector
	Field string `json:"field"`
	Bounds
}

// RatioClaim bounds Field(numerator run) / Field(denominator run) over pairs
// of runs whose settings are equal apart from what the two sides select by:
// {measure: completed_per_sec, numerator: share, denominator: consumer, min: 2}.
// A side is a consumer type or a selector map {runs: share, where: {members: 8}};
// a where: beside numerator and denominator applies to both sides.
type RatioClaim struct {
	Field       string      `json:"measure"`
	Numerator   RunSelector `json:"numerator"`
	Denominator RunSelector `json:"denominator"`
	Bounds
}

// whereKey checks a where: key and normalizes its value to RunSpec.Value's
// format.
func whereValue(key string, v any) (string, error) {
	top, sub, nested := strings.Cut(key, ".")
	k, ok := knobByKey(top)
	switch {
	case !ok:
		return "", fmt.Errorf("unknown key %q%s", key, suggest(key, whereKeys()))
	case isSettingsMap(top) && nested && sub != "":
		return formatScalar(v), nil
	case top == "processing" && nested && slices.Contains(processingKeys[1:], sub):
		k.kind = kindDuration
	case top == "processing" && sub == "model":
		k.kind = kindString
	case nested || isSettingsMap(top):
		return "", fmt.Errorf("unknown key %q%s", key, suggest(key, whereKeys()))
	}
	c, err := scalar(k.kind, v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	switch k.kind {
	case kindDuration:
		d, _ := time.ParseDuration(c.(string))
		return d.String(), nil
	case kindSize:
		if s, ok := c.(string); ok {
			n, _ := parseSize(s)
			return strconv.Itoa(n), nil
		}
	}
	return formatScalar(c), nil
}

func whereKeys() []string {
	var keys []string
	for _, k := range knobs {
		if k.kind != kindBrokerConfig && k.kind != kindGroupConfig && k.kind != kindProcessing {
			keys = append(keys, k.key)
		}
	}
	for _, p := range processingKeys {
		keys = append(keys, "processing."+p)
	}
	return append(keys, "broker_config.<kafka broker setting>", "group_config.<share group setting>")
}

// selects reports whether the run is one the selector picks.
func (s RunSelector) selects(r RunSpec) bool {
	if s.Runs != "all" && s.Runs != "" && string(r.ConsumerType) != s.Runs {
		return false
	}
	for k, want := range s.Where {
		if r.Value(k) != want {
			return false
		}
	}
	return true
}

// String is "share" or "share where max_poll_records=200".
func (s RunSelector) String() string {
	if len(s.Where) == 0 {
		return s.Runs
	}
	keys := make([]string, 0, len(s.Where))
	for k := range s.Where {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + s.Where[k]
	}
	return s.Runs + " where " + strings.Join(keys, ", ")
}

// unmatched lists the selectors of the expectations that pick no run of
// the scenario, as "expect[2] (name): numerator share where members=3". A
// selector that names a client none of the scenario's runs uses is not
// listed: it is a claim about that client's runs, for `--set client=...`,
// and the evaluation reports it SKIPPED when the campaign has none.
func (s *Scenario) unmatched() []string {
	var out []string
	clients := s.clients()
	for i, e := range s.Expectations {
		for _, side := range e.selectors() {
			if c, named := side.sel.Where["client"]; named && !slices.Contains(clients, c) {
				continue
			}
			if !slices.ContainsFunc(s.Runs, side.sel.selects) {
				out = append(out, fmt.Sprintf("expect[%d] (%s): %s %s matches no run of the scenario",
					i+1, e.Name, side.role, side.sel))
			}
		}
	}
	return out
}

// clients are the clients the scenario's runs use, in vocab.Clients order.
func (s *Scenario) clients() []string {
	var out []string
	for _, c := range vocab.Clients {
		if slices.ContainsFunc(s.Runs, func(r RunSpec) bool { return r.Value("client") == string(c) }) {
			out = append(out, string(c))
		}
	}
	return out
}

// explainClientSkips fills ClientSkips: for each per-client expectation and
// each client of the scenario that none of its runs lets the claim check,
// the reason: the client's refusal of the runs the claim picks for the
// other clients (librdkafka and renew auto), else that the scenario has no
// such run.
func (s *Scenario) explainClientSkips() {
	clients := s.clients()
	for i := range s.Expectations {
		e := &s.Expectations[i]
		if !e.PerClient {
			continue
		}
		for _, c := range clients {
			if why := s.clientSkip(*e, c); why != "" {
				if e.ClientSkips == nil {
					e.ClientSkips = map[string]string{}
				}
				e.ClientSkips[c] = why
			}
		}
	}
}

func (s *Scenario) clientSkip(e Expectation, c string) string {
	for _, sel := range e.Selectors() {
		if slices.ContainsFunc(s.Runs, sel.withClient(c).selects) {
			continue
		}
		for _, r := range s.Runs {
			if !sel.selects(r) {
				continue
			}
			r.Client = vocab.Client(c)
			var refusals []string
			for _, p := range r.problems() {
				if strings.Contains(p, "client "+c) {
					refusals = append(refusals, p)
				}
			}
			if len(refusals) > 0 {
				return fmt.Sprintf("client %s refuses these runs: %s", c, strings.Join(refusals, "; "))
			}
		}
		return fmt.Sprintf("the scenario has no %s run with client %s", sel, c)
	}
	return ""
}

type roleSelector struct {
	role string
	sel  RunSelector
}

func (e Expectation) selectors() []roleSelector {
	if e.Ratio != nil {
		return []roleSelector{{"ratio.numerator", e.Ratio.Numerator}, {"ratio.denominator", e.Ratio.Denominator}}
	}
	if e.Measure != nil {
		return []roleSelector{{"measure.runs", e.Measure.RunSelector}}
	}
	return nil
}
