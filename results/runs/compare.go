package runs

import (
	"fmt"
	"math"
	"strings"
)

// Comparison is a candidate campaign measured against a baseline.
type Comparison struct {
	Baseline      string          `json:"baseline"`
	Candidate     string          `json:"candidate"`
	Thresholds    Thresholds      `json:"thresholds,omitempty"`
	Runs          []RunComparison `json:"runs"`
	BaselineOnly  []string        `json:"baseline_only,omitempty"`  // baseline runs with no candidate
	CandidateOnly []string        `json:"candidate_only,omitempty"` // candidate runs with no baseline
	Regressions   []string        `json:"regressions,omitempty"`    // one line per measure that crossed its threshold
}

// RunComparison is one run spec present in both: its trials on each side
// and the deltas of every measure.
type RunComparison struct {
	Run           string   `json:"run"`        // the first baseline run id
	MatchedBy     string   `json:"matched_by"` // "spec" or "run_id"
	BaselineRuns  []string `json:"baseline_runs"`
	CandidateRuns []string `json:"candidate_runs"`
	Deltas        []Delta  `json:"deltas"`
}

// Delta is one measure: baseline and candidate (means over trials), the
// relative change, the baseline noise band when it had several trials, and
// the verdict.
type Delta struct {
	Measure   string  `json:"measure"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	// ChangePct is (candidate − baseline) / baseline × 100; absent when
	// the baseline is 0.
	ChangePct *float64 `json:"change_pct,omitempty"`
	// Noise is the baseline spread [low, high]: the wider of min..max and
	// mean ± 2 sample standard deviations over its trials (repeat > 1).
	Noise        *[2]float64 `json:"noise,omitempty"`
	ThresholdPct *float64    `json:"threshold_pct,omitempty"`
	// Status: "same", "better", "worse", "within noise" or "REGRESSION"
	// (crossed its threshold outside the noise), or "no baseline".
	Status string `json:"status"`
}

// Status values of a Delta.
const (
	StatusSame        = "same"
	StatusBetter      = "better"
	StatusWorse       = "worse"
	StatusNoise       = "within noise"
	StatusRegression  = "REGRESSION"
	StatusNoBaseline  = "no baseline"
	MatchedBySpec     = "spec"
	MatchedByRunID    = "run_id"
	specIgnoredFields = "trial"
)

// Failed reports whether any measure crossed its threshold outside the noise.
func (c Comparison) Failed() bool { return len(c.Regressions) > 0 }

// Compare matches candidate runs to baseline runs by spec (trial ignored;
// the trials of one spec form a group), then by run id, and computes the
// delta of every measure. Deltas inside the baseline noise never fail.
func Compare(baseline, candidate []Record, th Thresholds) Comparison {
	c := Comparison{Thresholds: th}
	bGroups, bLeft := groupBySpec(baseline)
	cGroups, cLeft := groupBySpec(candidate)
	for _, g := range bGroups {
		if cg := findGroup(cGroups, g.key); cg != nil {
			cg.used = true
			c.addRun(MatchedBySpec, g.runs, cg.runs, th)
			continue
		}
		bLeft = append(bLeft, g.runs...)
	}
	for _, g := range cGroups {
		if !g.used {
			cLeft = append(cLeft, g.runs...)
		}
	}
	cByID := map[string]int{}
	for i, r := range cLeft {
		cByID[r.RunID] = i
	}
	matched := make([]bool, len(cLeft))
	for _, b := range bLeft {
		if i, ok := cByID[b.RunID]; ok && !matched[i] {
			matched[i] = true
			c.addRun(MatchedByRunID, []Record{b}, []Record{cLeft[i]}, th)
			continue
		}
		c.BaselineOnly = append(c.BaselineOnly, b.RunID)
	}
	for i, r := range cLeft {
		if !matched[i] {
			c.CandidateOnly = append(c.CandidateOnly, r.RunID)
		}
	}
	return c
}

type specGroup struct {
	key  string
	runs []Record
	used bool
}

// groupBySpec groups runs with the same spec (trial ignored) in first-seen
// order; runs without a spec are returned apart.
func groupBySpec(runs []Record) ([]*specGroup, []Record) {
	var groups []*specGroup
	var noSpec []Record
	for _, r := range runs {
		key := SpecKey(r, specIgnoredFields)
		if key == "" {
			noSpec = append(noSpec, r)
			continue
		}
		if g := findGroup(groups, key); g != nil {
			g.runs = append(g.runs, r)
			continue
		}
		groups = append(groups, &specGroup{key: key, runs: []Record{r}})
	}
	return groups, noSpec
}

func findGroup(groups []*specGroup, key string) *specGroup {
	for _, g := range groups {
		if g.key == key && !g.used {
			return g
		}
	}
	return nil
}

func runIDs(runs []Record) []string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	return ids
}

func (c *Comparison) addRun(by string, base, cand []Record, th Thresholds) {
	rc := RunComparison{Run: base[0].RunID, MatchedBy: by, BaselineRuns: runIDs(base), CandidateRuns: runIDs(cand)}
	for _, m := range Measures {
		d := compareMeasure(m, base, cand, th)
		rc.Deltas = append(rc.Deltas, d)
		if d.Status == StatusRegression {
			c.Regressions = append(c.Regressions, fmt.Sprintf("%s: %s %+.1f%% (baseline %.4g, candidate %.4g, threshold %+g%%)",
				rc.Run, m.Name, *d.ChangePct, d.Baseline, d.Candidate, *d.ThresholdPct))
		}
	}
	c.Runs = append(c.Runs, rc)
}

func values(m Measure, runs []Record) []float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = m.Value(r)
	}
	return v
}

func compareMeasure(m Measure, base, cand []Record, th Thresholds) Delta {
	bv := values(m, base)
	d := Delta{Measure: m.Name, Baseline: mean(bv), Candidate: mean(values(m, cand))}
	if t, ok := th[m.Name]; ok {
		d.ThresholdPct = &t
	}
	if len(bv) > 1 {
		lo, hi := noiseBand(bv)
		d.Noise = &[2]float64{lo, hi}
	}
	d.Status = deltaStatus(m, &d)
	return d
}

// deltaStatus sets ChangePct and decides the verdict of one delta.
func deltaStatus(m Measure, d *Delta) string {
	if d.Baseline == 0 {
		if d.Candidate == 0 {
			return StatusSame
		}
		return StatusNoBaseline
	}
	change := (d.Candidate - d.Baseline) / math.Abs(d.Baseline) * 100
	d.ChangePct = &change
	if d.Noise != nil && d.Candidate >= d.Noise[0] && d.Candidate <= d.Noise[1] {
		return StatusNoise
	}
	if t := d.ThresholdPct; t != nil && ((*t < 0 && change < *t) || (*t > 0 && change > *t)) {
		return StatusRegression
	}
	switch {
	case change == 0:
		return StatusSame
	case (change > 0) == m.HigherIsBetter:
		return StatusBetter
	default:
		return StatusWorse
	}
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// noiseBand is the wider of min..max and mean ± 2 sample standard
// deviations of the trials.
func noiseBand(v []float64) (lo, hi float64) {
	mu := mean(v)
	var ss float64
	lo, hi = v[0], v[0]
	for _, x := range v {
		ss += (x - mu) * (x - mu)
		lo, hi = min(lo, x), max(hi, x)
	}
	sd := math.Sqrt(ss / float64(len(v)-1))
	return min(lo, mu-2*sd), max(hi, mu+2*sd)
}

// RegressionSummary is one line naming every regression, for an error.
func (c Comparison) RegressionSummary() string {
	return fmt.Sprintf("%d regression(s) beyond threshold: %s", len(c.Regressions), strings.Join(c.Regressions, "; "))
}
