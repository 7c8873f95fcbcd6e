package runs

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// DefaultAlpha is the significance level of the noise-aware verdict.
const DefaultAlpha = 0.05

// Comparison is a candidate campaign measured against a baseline.
type Comparison struct {
	Baseline      string       `json:"baseline"`
	Candidate     string       `json:"candidate"`
	Thresholds    Thresholds   `json:"thresholds,omitempty"`
	DenyFlags     []Code       `json:"deny_flags"`
	Alpha         float64      `json:"alpha"`
	Runs          []PairedRuns `json:"runs"`
	BaselineOnly  []string     `json:"baseline_only,omitempty"`  // baseline runs with no candidate
	CandidateOnly []string     `json:"candidate_only,omitempty"` // candidate runs with no baseline
	// Failures are the correctness gates that failed, one line per reason
	// naming the side, the run and the figure: lost records, an unbalanced
	// audit, a denied validity flag, an expectation NOT MET, a run missing
	// on one side. They fail the comparison whatever the thresholds.
	Failures    []string `json:"failures,omitempty"`
	Regressions []string `json:"regressions,omitempty"` // one line per measure that crossed its threshold
	// Inconclusive lists the measures whose trials cannot tell whether the
	// threshold was crossed; they fail unless AllowInconclusive.
	Inconclusive      []string `json:"inconclusive,omitempty"`
	AllowInconclusive bool     `json:"allow_inconclusive,omitempty"`
}

// PairedRuns is one run spec present in both: its trials on each side
// and the deltas of every measure.
type PairedRuns struct {
	Run           string   `json:"run"`        // the first baseline run id
	MatchedBy     string   `json:"matched_by"` // "spec" or "run_id"
	BaselineRuns  []string `json:"baseline_runs"`
	CandidateRuns []string `json:"candidate_runs"`
	Deltas        []Delta  `json:"deltas"`
}

// Delta is one measure: the median of each side's trials with their
// min..max, the relative change of the medians, the one-sided Mann-Whitney
// test when a side has several trials, and the verdict.
type Delta struct {
	Measure   string  `json:"measure"`
	Baseline  float64 `json:"baseline"`  // median of the baseline trials
	Candidate float64 `json:"candidate"` // median of the candidate trials
	// BaselineRange and CandidateRange are min and max of each side's trials.
	BaselineRange  [2]float64 `json:"baseline_range"`
	CandidateRange [2]float64 `json:"candidate_range"`
	// ChangePct is (candidate − baseline) / |baseline| × 100 of the
	// medians; absent when the baseline is 0.
	ChangePct *float64 `json:"change_pct,omitempty"`
	// SpreadPct is the wider of the two sides' max − min, in percent of
	// |baseline median|; absent with one trial a side.
	SpreadPct *float64 `json:"spread_pct,omitempty"`
	// Test is the one-sided Mann-Whitney U test "the candidate is worse";
	// absent with one trial a side.
	Test         *MannWhitneyResult `json:"test,omitempty"`
	ThresholdPct *float64           `json:"threshold_pct,omitempty"`
	// Status: "same", "better", "worse", "REGRESSION", "INCONCLUSIVE" or
	// "no baseline".
	Status string `json:"status"`
	// Note says how the verdict was reached ("single trial: no noise
	// estimate", the p-value, why it is inconclusive).
	Note string `json:"note,omitempty"`
}

// Status values of a Delta.
const (
	StatusSame         = "same"
	StatusBetter       = "better"
	StatusWorse        = "worse"
	StatusRegression   = "REGRESSION"
	StatusInconclusive = "INCONCLUSIVE"
	StatusNoBaseline   = "no baseline"
	MatchedBySpec      = "spec"
	MatchedByRunID     = "run_id"
	specIgnoredFields  = "trial"
	// NoteSingleTrial marks a verdict on one trial a side.
	NoteSingleTrial = "single trial: no noise estimate"
)

// CompareOptions are the rules of a comparison.
type CompareOptions struct {
	Thresholds Thresholds
	// DenyFlags are the validity flag codes that fail a run (nil: none;
	// DefaultDenyFlags is the command's default).
	DenyFlags []Code
	// Alpha is the significance level of the Mann-Whitney test (0: DefaultAlpha).
	Alpha float64
	// AllowInconclusive reports inconclusive measures without failing.
	AllowInconclusive bool
}

// Failed reports whether a correctness gate failed, a measure crossed its
// threshold, or (unless allowed) a measure was inconclusive.
func (c Comparison) Failed() bool {
	return len(c.Failures)+len(c.Regressions) > 0 || len(c.Inconclusive) > 0 && !c.AllowInconclusive
}

// Empty reports whether no run spec was matched: nothing was compared.
func (c Comparison) Empty() bool { return len(c.Runs) == 0 }

// Compare compares with the thresholds and the default deny list; see
// CompareSides.
func Compare(baseline, candidate []Record, th Thresholds) Comparison {
	return CompareSides(Side{Runs: baseline}, Side{Runs: candidate},
		CompareOptions{Thresholds: th, DenyFlags: DefaultDenyFlags})
}

// CompareSides matches candidate runs to baseline runs by spec (trial
// ignored; the trials of one spec form a group), then by run id, computes
// the delta of every measure and applies the correctness gates to both
// sides (GateProblems; expectations of each side's campaign).
func CompareSides(base, cand Side, opt CompareOptions) Comparison {
	if opt.Alpha == 0 {
		opt.Alpha = DefaultAlpha
	}
	th := opt.Thresholds
	c := Comparison{Baseline: base.Path, Candidate: cand.Path, Thresholds: th, DenyFlags: opt.DenyFlags,
		Alpha: opt.Alpha, AllowInconclusive: opt.AllowInconclusive}
	if c.DenyFlags == nil {
		c.DenyFlags = []Code{}
	}
	for _, s := range []struct {
		name string
		side Side
	}{{"candidate", cand}, {"baseline", base}} {
		for _, r := range s.side.Runs {
			for _, p := range Problems(r, opt.DenyFlags) {
				c.Failures = append(c.Failures, s.name+" "+p)
			}
		}
		for _, p := range ExpectationProblems(s.side.Expectations) {
			c.Failures = append(c.Failures, s.name+" "+p)
		}
	}
	bGroups, bLeft := groupBySpec(base.Runs)
	cGroups, cLeft := groupBySpec(cand.Runs)
	for _, g := range bGroups {
		if cg := findGroup(cGroups, g.key); cg != nil {
			cg.used = true
			c.addRun(MatchedBySpec, g.runs, cg.runs, opt)
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
			c.addRun(MatchedByRunID, []Record{b}, []Record{cLeft[i]}, opt)
			continue
		}
		c.BaselineOnly = append(c.BaselineOnly, b.RunID)
		c.Failures = append(c.Failures, fmt.Sprintf("baseline run %s: missing in the candidate (no candidate run with the same spec or run id)", b.RunID))
	}
	for i, r := range cLeft {
		if !matched[i] {
			c.CandidateOnly = append(c.CandidateOnly, r.RunID)
			c.Failures = append(c.Failures, fmt.Sprintf("candidate run %s: missing in the baseline (no baseline run with the same spec or run id)", r.RunID))
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

func (c *Comparison) addRun(by string, base, cand []Record, opt CompareOptions) {
	rc := PairedRuns{Run: base[0].RunID, MatchedBy: by, BaselineRuns: runIDs(base), CandidateRuns: runIDs(cand)}
	for _, m := range Measures() {
		d := compareMeasure(m, values(m, base), values(m, cand), opt)
		rc.Deltas = append(rc.Deltas, d)
		switch d.Status {
		case StatusRegression:
			c.Regressions = append(c.Regressions, fmt.Sprintf("%s: %s %+.1f%% (baseline %s, candidate %s, threshold %+g%%; %s)",
				rc.Run, m.Name, *d.ChangePct, sideText(d.Baseline, d.BaselineRange, len(base)),
				sideText(d.Candidate, d.CandidateRange, len(cand)), *d.ThresholdPct, d.Note))
		case StatusInconclusive:
			c.Inconclusive = append(c.Inconclusive, fmt.Sprintf("%s: %s %+.1f%% (baseline %s, candidate %s, threshold %+g%%): %s",
				rc.Run, m.Name, *d.ChangePct, sideText(d.Baseline, d.BaselineRange, len(base)),
				sideText(d.Candidate, d.CandidateRange, len(cand)), *d.ThresholdPct, d.Note))
		}
	}
	c.Runs = append(c.Runs, rc)
}

// sideText is "1000" for one trial, "median 1000 (900–1100, 3 trials)" for several.
func sideText(median float64, rng [2]float64, n int) string {
	if n == 1 {
		return fmt.Sprintf("%.4g", median)
	}
	return fmt.Sprintf("median %.4g (%.4g–%.4g, %d trials)", median, rng[0], rng[1], n)
}

func values(m Measure, runs []Record) []float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = m.Value(r)
	}
	return v
}

// compareMeasure decides one measure. With a threshold T (the tolerated
// worsening in percent) and W the change of the medians in the measure's
// bad direction (positive: worse):
//
//   - one trial a side: REGRESSION when W > T ("single trial: no noise
//     estimate");
//   - otherwise, with p the one-sided Mann-Whitney p-value of "the
//     candidate is worse" and p' that of "the candidate is better":
//     REGRESSION when W > T and p ≤ α; else "better" when W < 0 and
//     p' ≤ α; else INCONCLUSIVE when the spread (the wider side's
//     max − min, in % of |baseline median|) exceeds T, or when W > T (the
//     test does not confirm it); else same/better/worse by the medians.
//
// Without a threshold the status only says the direction of the change.
func compareMeasure(m Measure, bv, cv []float64, opt CompareOptions) Delta {
	d := Delta{Measure: m.Name, Baseline: median(bv), Candidate: median(cv),
		BaselineRange: minMax(bv), CandidateRange: minMax(cv)}
	t, hasThreshold := opt.Thresholds[m.Name]
	if hasThreshold {
		d.ThresholdPct = &t
	}
	if d.Baseline == 0 {
		d.Status = StatusNoBaseline
		if d.Candidate == 0 {
			d.Status = StatusSame
		}
		return d
	}
	change := (d.Candidate - d.Baseline) / math.Abs(d.Baseline) * 100
	d.ChangePct = &change
	worse := change // W: positive when worse
	if m.HigherIsBetter {
		worse = -change
	}
	direction := StatusSame
	switch {
	case worse > 0:
		direction = StatusWorse
	case worse < 0:
		direction = StatusBetter
	}
	tol := math.Abs(t)
	single := len(bv) == 1 && len(cv) == 1
	if single {
		d.Note = NoteSingleTrial
		d.Status = direction
		if hasThreshold && worse > tol {
			d.Status = StatusRegression
		}
		return d
	}
	// Orient the values so that greater is worse, then test.
	bo, co := oriented(m, bv), oriented(m, cv)
	test := MannWhitney(bo, co)
	better := MannWhitney(co, bo)
	d.Test = &test
	spread := max(d.BaselineRange[1]-d.BaselineRange[0], d.CandidateRange[1]-d.CandidateRange[0]) / math.Abs(d.Baseline) * 100
	d.SpreadPct = &spread
	d.Note = fmt.Sprintf("Mann-Whitney U %g, p %.3g (%s)", test.U, test.P, exactness(test))
	d.Status = direction
	if !hasThreshold {
		return d
	}
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	switch {
	case worse > tol && test.P <= alpha:
		d.Status = StatusRegression
		d.Note = fmt.Sprintf("worse at α=%g: Mann-Whitney p %.3g (%s)", alpha, test.P, exactness(test))
	case worse < 0 && better.P <= alpha:
		d.Status = StatusBetter
	case spread > tol:
		d.Status = StatusInconclusive
		d.Note = fmt.Sprintf("the trial spread %.1f%% is wider than the threshold %g%%: add trials (repeat) or widen the threshold", spread, tol)
	case worse > tol:
		d.Status = StatusInconclusive
		d.Note = fmt.Sprintf("worse beyond the threshold but not significant at α=%g: Mann-Whitney p %.3g", alpha, test.P)
		if test.MinP > alpha {
			d.Note += fmt.Sprintf("; %d vs %d trials cannot reach p ≤ %g (smallest p %.3g): use repeat: 3 or more on both sides",
				len(bv), len(cv), alpha, test.MinP)
		}
	}
	return d
}

func exactness(t MannWhitneyResult) string {
	if t.Exact {
		return "exact"
	}
	return "normal approximation"
}

func oriented(m Measure, v []float64) []float64 {
	if !m.HigherIsBetter {
		return v
	}
	o := make([]float64, len(v))
	for i, x := range v {
		o[i] = -x
	}
	return o
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func minMax(v []float64) [2]float64 {
	if len(v) == 0 {
		return [2]float64{}
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return [2]float64{lo, hi}
}

// FailureSummary is one line per reason the comparison failed, for an
// error: correctness failures, regressions, then inconclusive measures
// (unless allowed).
func (c Comparison) FailureSummary() string {
	var parts []string
	if len(c.Failures) > 0 {
		parts = append(parts, fmt.Sprintf("%d correctness failure(s):\n  %s", len(c.Failures), strings.Join(c.Failures, "\n  ")))
	}
	if len(c.Regressions) > 0 {
		parts = append(parts, c.RegressionSummary())
	}
	if len(c.Inconclusive) > 0 && !c.AllowInconclusive {
		parts = append(parts, fmt.Sprintf("%d inconclusive measure(s) (--allow-inconclusive passes them):\n  %s",
			len(c.Inconclusive), strings.Join(c.Inconclusive, "\n  ")))
	}
	return strings.Join(parts, "\n")
}

// RegressionSummary names every regression, one a line.
func (c Comparison) RegressionSummary() string {
	return fmt.Sprintf("%d regression(s) beyond threshold:\n  %s", len(c.Regressions), strings.Join(c.Regressions, "\n  "))
}
