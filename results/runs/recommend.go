package runs

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sharebench/sharebench/scenarios"
)

// clauseHolds reports whether v satisfies the clause.
func clauseHolds(c scenarios.Clause, v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	switch c.Op {
	case "<=":
		return v <= c.Value
	case "<":
		return v < c.Value
	case ">=":
		return v >= c.Value
	case ">":
		return v > c.Value
	case "==":
		return v == c.Value
	case "!=":
		return v != c.Value
	}
	return false
}

// QueryText states a recommend: query in words: "best max_poll_records by
// highest throughput.completed_per_sec where latency.completion_ms.p99 <= 200".
func QueryText(q scenarios.Recommend) string {
	s := fmt.Sprintf("best %s by highest %s", q.Knob, q.Maximize)
	if len(q.Where) > 0 {
		var cs []string
		for _, c := range q.Where {
			cs = append(cs, fmt.Sprintf("%s %s %s", c.Field, c.Op, num(c.Value)))
		}
		s += " where " + strings.Join(cs, " and ")
	}
	return s
}

// Recommendation is a query's answer (campaign.json "recommendations").
type Recommendation struct {
	Query  scenarios.Recommend `json:"query"`
	Groups []RecommendGroup    `json:"groups"`
}

// RecommendGroup is the answer for one consumer type (and one combination
// of the other swept keys). Best is "" when no candidate qualifies.
type RecommendGroup struct {
	Label      string      `json:"label"` // "share" or "share members=4"
	Best       string      `json:"best,omitempty"`
	Figure     float64     `json:"figure,omitempty"` // Maximize at Best (mean over trials)
	Tied       []string    `json:"tied,omitempty"`   // other knob values with the same figure
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one knob value of a group: the mean of each figure over its
// runs (trials), and the clauses it fails with the measured values.
type Candidate struct {
	Value    string             `json:"value"`
	Runs     []string           `json:"runs"`
	Figure   float64            `json:"figure"`
	Measured map[string]float64 `json:"measured"` // clause field → mean value
	Excluded []string           `json:"excluded,omitempty"`
}

// Qualifies reports whether the candidate passed every clause.
func (c Candidate) Qualifies() bool { return len(c.Excluded) == 0 }

// Recommend answers the query over the runs. Runs are grouped by consumer
// type and by the values of the other keys that differ between runs
// (trials are averaged); within a group each value of the knob is a
// candidate. A candidate is excluded by every clause its mean figures fail
// ("latency.completion_ms.p99 <= 200: measured 412.3"); the best is the
// qualifying candidate with the highest mean Maximize, ties going to the
// smaller knob value (listed in Tied). An error names a knob no run varies
// or a field no run has.
func Recommend(runs []Record, q scenarios.Recommend) (Recommendation, error) {
	out := Recommendation{Query: q}
	if len(runs) == 0 {
		return out, fmt.Errorf("recommend: no runs")
	}
	for _, f := range append([]string{q.Maximize}, clauseFields(q.Where)...) {
		if _, ok := FieldValue(runs[0], f); !ok {
			return out, fmt.Errorf("recommend: field %q: not a number in run.json", f)
		}
	}
	specs := make([]map[string]string, len(runs))
	for i, r := range runs {
		specs[i] = SpecValues(r.Spec)
	}
	dims, values := SweptDimensions(specs)
	if !containsString(dims, q.Knob) {
		return out, fmt.Errorf("recommend: knob %q: the runs do not vary it (swept: %s)", q.Knob, listOrNone(dims))
	}
	type group struct {
		label string
		byVal map[string][]int
	}
	var groups []*group
	index := map[string]*group{}
	for i, r := range runs {
		label := string(r.ConsumerType)
		for _, d := range dims {
			if d != q.Knob {
				label += " " + d + "=" + specs[i][d]
			}
		}
		g := index[label]
		if g == nil {
			g = &group{label: label, byVal: map[string][]int{}}
			index[label] = g
			groups = append(groups, g)
		}
		v := specs[i][q.Knob]
		g.byVal[v] = append(g.byVal[v], i)
	}
	for _, g := range groups {
		rg := RecommendGroup{Label: g.label}
		for _, v := range values[q.Knob] {
			idx, ok := g.byVal[v]
			if !ok {
				continue
			}
			rg.Candidates = append(rg.Candidates, candidate(runs, idx, v, q))
		}
		pickBest(&rg)
		out.Groups = append(out.Groups, rg)
	}
	return out, nil
}

func candidate(runs []Record, idx []int, value string, q scenarios.Recommend) Candidate {
	c := Candidate{Value: value, Measured: map[string]float64{}}
	mean := func(field string) float64 {
		var sum float64
		for _, i := range idx {
			v, _ := FieldValue(runs[i], field)
			sum += v
		}
		return sum / float64(len(idx))
	}
	for _, i := range idx {
		c.Runs = append(c.Runs, runs[i].RunID)
	}
	c.Figure = mean(q.Maximize)
	for _, cl := range q.Where {
		v := mean(cl.Field)
		c.Measured[cl.Field] = v
		if !clauseHolds(cl, v) {
			c.Excluded = append(c.Excluded, fmt.Sprintf("%s: measured %.4g", cl.Text, v))
		}
	}
	return c
}

// pickBest sets Best, Figure and Tied from the qualifying candidates, which
// are in ascending knob order.
func pickBest(g *RecommendGroup) {
	best := -1
	for i, c := range g.Candidates {
		if c.Qualifies() && (best < 0 || c.Figure > g.Candidates[best].Figure) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	g.Best, g.Figure = g.Candidates[best].Value, g.Candidates[best].Figure
	for i, c := range g.Candidates {
		if i != best && c.Qualifies() && c.Figure == g.Figure {
			g.Tied = append(g.Tied, c.Value)
		}
	}
}

// Lines states the recommendation, one line per group then one per
// excluded candidate: "share: max_poll_records=50 (completed_per_sec 812.3)",
// "share: none qualifies", "  max_poll_records=200 excluded: ...".
func (r Recommendation) Lines() []string {
	var out []string
	for _, g := range r.Groups {
		var s string
		if g.Best == "" {
			s = fmt.Sprintf("%s: none qualifies (%d candidate(s) all excluded)", g.Label, len(g.Candidates))
		} else {
			s = fmt.Sprintf("%s: %s=%s (%s %.4g)", g.Label, r.Query.Knob, g.Best, r.Query.Maximize, g.Figure)
			if len(g.Tied) > 0 {
				s += fmt.Sprintf("; tied with %s=%s, the smaller value is named", r.Query.Knob, strings.Join(g.Tied, ", "))
			}
		}
		out = append(out, s)
		for _, c := range g.Candidates {
			if !c.Qualifies() {
				out = append(out, fmt.Sprintf("  %s=%s excluded by %s", r.Query.Knob, c.Value, strings.Join(c.Excluded, "; ")))
			}
		}
	}
	return out
}

func clauseFields(cs []scenarios.Clause) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Field)
	}
	return out
}

func containsString(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}
