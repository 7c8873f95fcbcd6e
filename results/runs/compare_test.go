package runs

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
)

func withSpec(r Record, set func(*scenarios.RunSpec)) Record {
	spec := *r.Spec
	set(&spec)
	r.Spec = &spec
	return r
}

func TestCompare(t *testing.T) {
	c1 := fixtureRun("r01-consumer", "consumer", 0, 380, 40000)
	s1 := fixtureRun("r02-share", "share", 0, 1000, 280)
	trials := func(id string, tputs ...float64) []Record {
		var out []Record
		for i, v := range tputs {
			out = append(out, fixtureRun(id+"-t"+string(rune('0'+i)), "share", i, v, 280))
		}
		return out
	}
	strict := Thresholds{"throughput": -5, "completion_p99": 10}
	tests := []struct {
		name           string
		base, cand     []Record
		th             Thresholds
		wantFail       []string // substrings of the regression lines; nil: pass
		wantStatus     map[string]string
		wantUnmatched  []string
		wantMatchedBy  string
		wantMatchedRun int
		wantNote       string
	}{
		{name: "identical", base: []Record{c1, s1}, cand: []Record{c1, s1}, th: strict,
			wantStatus: map[string]string{"throughput": StatusSame, "completion_p99": StatusSame}, wantMatchedRun: 2, wantMatchedBy: MatchedBySpec},
		{name: "throughput below threshold", base: []Record{c1, s1},
			cand: []Record{c1, fixtureRun("r02-share", "share", 0, 900, 280)}, th: strict,
			wantFail: []string{"r02-share: throughput -10.0%"}, wantMatchedRun: 2},
		{name: "throughput drop inside threshold", base: []Record{s1},
			cand: []Record{fixtureRun("r02-share", "share", 0, 970, 280)}, th: strict,
			wantStatus: map[string]string{"throughput": StatusWorse}, wantMatchedRun: 1},
		{name: "latency regression", base: []Record{s1},
			cand: []Record{fixtureRun("r02-share", "share", 0, 1000, 350)}, th: strict,
			wantFail: []string{"r02-share: completion_p99 +25.0%"}, wantMatchedRun: 1},
		{name: "latency regression without threshold only reported", base: []Record{s1},
			cand: []Record{fixtureRun("r02-share", "share", 0, 1000, 350)}, th: Thresholds{},
			wantStatus: map[string]string{"completion_p99": StatusWorse, "throughput": StatusSame}, wantMatchedRun: 1},
		{name: "baseline trials, one candidate trial beyond threshold: test cannot confirm", base: trials("r01-share", 990, 1000, 1010),
			cand: []Record{fixtureRun("r01-share", "share", 0, 900, 280)}, th: strict,
			wantFail:   []string{"INCONCLUSIVE r01-share-t0: throughput -10.0%", "3 vs 1 trials cannot reach p ≤ 0.05"},
			wantStatus: map[string]string{"throughput": StatusInconclusive}, wantMatchedRun: 1},
		{name: "spread wider than threshold", base: trials("r01-share", 900, 1000, 1100),
			cand: trials("r01-share", 920, 1010, 1090), th: strict,
			wantFail:   []string{"trial spread 20.0% is wider than the threshold 5%"},
			wantStatus: map[string]string{"throughput": StatusInconclusive}, wantMatchedRun: 1},
		// medians 1000 → 900 (−10 %), every candidate below every baseline
		// trial: exact one-sided p = 1/C(6,3) = 0.05 ≤ α.
		{name: "trials: significant drop beyond threshold", base: trials("r01-share", 995, 1000, 1005),
			cand: trials("r01-share", 895, 900, 905), th: strict,
			wantFail:   []string{"REGRESSION r01-share-t0: throughput -10.0%", "median 1000 (995–1005, 3 trials)", "Mann-Whitney p 0.05 (exact)"},
			wantStatus: map[string]string{"throughput": StatusRegression}, wantMatchedRun: 1},
		// a significant but small drop (−1 %) is within the threshold.
		{name: "trials: significant drop inside threshold", base: trials("r01-share", 995, 1000, 1005),
			cand: trials("r01-share", 985, 990, 994), th: strict,
			wantStatus: map[string]string{"throughput": StatusWorse}, wantMatchedRun: 1},
		// wide spread but every candidate trial is better: significant gain.
		{name: "trials: significant gain despite spread", base: trials("r01-share", 900, 1000, 1100),
			cand: trials("r01-share", 1200, 1300, 1400), th: strict,
			wantStatus: map[string]string{"throughput": StatusBetter}, wantMatchedRun: 1},
		{name: "single trial says so", base: []Record{s1}, cand: []Record{fixtureRun("r02-share", "share", 0, 990, 280)}, th: strict,
			wantStatus: map[string]string{"throughput": StatusWorse}, wantNote: NoteSingleTrial, wantMatchedRun: 1},
		{name: "unmatched runs reported", base: []Record{c1, s1},
			cand: []Record{c1, withSpec(fixtureRun("r03-share", "share", 0, 1000, 280), func(s *scenarios.RunSpec) { s.Members = 24 })}, th: strict,
			wantFail:      []string{"baseline run r02-share: missing in the candidate", "candidate run r03-share: missing in the baseline"},
			wantUnmatched: []string{"baseline:r02-share", "candidate:r03-share"}, wantMatchedRun: 1},
		{name: "run id fallback without spec", base: []Record{noSpec(s1)},
			cand: []Record{noSpec(fixtureRun("r02-share", "share", 0, 800, 280))}, th: strict,
			wantFail: []string{"r02-share: throughput -20.0%"}, wantMatchedBy: MatchedByRunID, wantMatchedRun: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.base, tc.cand, tc.th)
			checkCompare(t, c, tc.wantFail, tc.wantUnmatched, tc.wantMatchedRun)
			for measure, want := range tc.wantStatus {
				if got := deltaOf(t, c, measure).Status; got != want {
					t.Errorf("%s status %q, want %q", measure, got, want)
				}
			}
			if tc.wantNote != "" && deltaOf(t, c, "throughput").Note != tc.wantNote {
				t.Errorf("throughput note %q, want %q", deltaOf(t, c, "throughput").Note, tc.wantNote)
			}
			if tc.wantMatchedBy != "" && c.Runs[0].MatchedBy != tc.wantMatchedBy {
				t.Errorf("matched by %q, want %q", c.Runs[0].MatchedBy, tc.wantMatchedBy)
			}
		})
	}
}

func noSpec(r Record) Record { r.Spec = nil; return r }

func checkCompare(t *testing.T, c Comparison, wantFail, wantUnmatched []string, matched int) {
	t.Helper()
	if c.Failed() != (wantFail != nil) {
		t.Fatalf("failed = %v, want %v: %v %v %v", c.Failed(), wantFail != nil, c.Failures, c.Regressions, c.Inconclusive)
	}
	var lines []string
	lines = append(lines, c.Failures...)
	for _, r := range c.Regressions {
		lines = append(lines, "REGRESSION "+r)
	}
	for _, r := range c.Inconclusive {
		lines = append(lines, "INCONCLUSIVE "+r)
	}
	joined := strings.Join(lines, "\n")
	for _, w := range wantFail {
		if !strings.Contains(joined, w) {
			t.Errorf("regressions %q lack %q", joined, w)
		}
	}
	var unmatched []string
	for _, id := range c.BaselineOnly {
		unmatched = append(unmatched, "baseline:"+id)
	}
	for _, id := range c.CandidateOnly {
		unmatched = append(unmatched, "candidate:"+id)
	}
	if strings.Join(unmatched, ",") != strings.Join(wantUnmatched, ",") {
		t.Errorf("unmatched %v, want %v", unmatched, wantUnmatched)
	}
	if len(c.Runs) != matched {
		t.Errorf("%d matched runs, want %d", len(c.Runs), matched)
	}
}

func deltaOf(t *testing.T, c Comparison, measure string) Delta {
	t.Helper()
	for _, rc := range c.Runs {
		for _, d := range rc.Deltas {
			if d.Measure == measure && d.Status != StatusSame {
				return d
			}
		}
	}
	for _, d := range c.Runs[0].Deltas {
		if d.Measure == measure {
			return d
		}
	}
	t.Fatalf("no delta for %s", measure)
	return Delta{}
}

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in      string
		name    string
		pct     float64
		wantErr string
	}{
		{"throughput:-5%", "throughput", -5, ""}, // the sign restates the bad direction
		{"completion_p99:+10%", "completion_p99", 10, ""},
		{"throughput:5%", "throughput", -5, ""},          // unsigned: the bad direction
		{" delivery_p99 : 20% ", "delivery_p99", 20, ""}, // latency: up is bad
		{"completion_p99:250%", "completion_p99", 250, ""},
		{"latency:+10%", "", 0, "completion_p99"},
		{"throughput:-5", "", 0, "is not a percentage"},
		{"throughput", "", 0, "MEASURE:N%"},
		{"efficiency:0%", "", 0, "0% would fail on any change"},
		{"throughput:NaN%", "", 0, "NaN is not a finite number: expected throughput:N% with N the tolerated drop"},
		{"throughput:+Inf%", "", 0, "+Inf is not a finite number"},
		{"completion_p99:Inf%", "", 0, "Inf is not a finite number: expected completion_p99:N% with N the tolerated rise"},
		{"throughput:1e400%", "", 0, "1e400 is not a finite number"},
		{"throughput:+5%", "", 0, "a throughput rise is an improvement, never a regression"},
		{"completion_p99:-10%", "", 0, "a completion_p99 fall is an improvement"},
		{"throughput:100%", "", 0, "a drop of 100% cannot happen"},
		{"efficiency:-150%", "", 0, "a drop of 150% cannot happen"},
		{"throughput:five%", "", 0, `"five" is not a number`},
	}
	for _, tc := range tests {
		name, pct, err := ParseThreshold(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), strings.TrimSpace(tc.in)) {
				t.Errorf("ParseThreshold(%q) error %v, want one naming %q and the input", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || name != tc.name || pct != tc.pct {
			t.Errorf("ParseThreshold(%q) = %q %v %v, want %q %v", tc.in, name, pct, err, tc.name, tc.pct)
		}
	}
}

// Campaign folders round-trip: Compare of a folder against itself passes.
func TestCompareLoadedCampaigns(t *testing.T) {
	dir := writeCampaign(t, fixtureRun("r01-consumer", "consumer", 0, 380, 40000), fixtureRun("r02-share", "share", 0, 1000, 280))
	base, err := LoadRuns(dir)
	if err != nil || len(base) != 2 {
		t.Fatalf("LoadRuns: %v, %d runs", err, len(base))
	}
	one, err := LoadRuns(dir + "/runs/r02-share/run.json")
	if err != nil || len(one) != 1 || one[0].RunID != "r02-share" {
		t.Fatalf("LoadRuns(run.json): %v %v", err, one)
	}
	c := Compare(base, one, Thresholds{"throughput": -1})
	checkCompare(t, c, []string{"baseline run r01-consumer: missing in the candidate"}, []string{"baseline:r01-consumer"}, 1)
	if _, err := LoadRuns(t.TempDir()); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Errorf("empty folder: %v, want an error naming run.json", err)
	}
}
