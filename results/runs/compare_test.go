package runs

import (
	"math"
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
		{name: "candidate inside baseline noise", base: trials("r01-share", 900, 1000, 1100),
			cand: []Record{fixtureRun("r01-share", "share", 0, 920, 280)}, th: strict,
			wantStatus: map[string]string{"throughput": StatusNoise}, wantMatchedRun: 1},
		{name: "candidate outside baseline noise", base: trials("r01-share", 990, 1000, 1010),
			cand: []Record{fixtureRun("r01-share", "share", 0, 900, 280)}, th: strict,
			wantFail: []string{"r01-share-t0: throughput -10.0%"}, wantMatchedRun: 1},
		{name: "unmatched runs reported", base: []Record{c1, s1},
			cand: []Record{c1, withSpec(fixtureRun("r03-share", "share", 0, 1000, 280), func(s *scenarios.RunSpec) { s.Members = 24 })}, th: strict,
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
		t.Fatalf("failed = %v, want %v: %v", c.Failed(), wantFail != nil, c.Regressions)
	}
	joined := strings.Join(c.Regressions, "\n")
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

// The noise band: the wider of min..max and mean ± 2 sample stddev.
func TestNoiseBand(t *testing.T) {
	tests := []struct {
		v      []float64
		lo, hi float64
	}{
		{[]float64{900, 1000, 1100}, 800, 1200}, // sd 100
		{[]float64{10, 10}, 10, 10},
		{[]float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 100}, 10 - 2*math.Sqrt(1000), 100}, // max beyond mean+2sd (10+63)
	}
	for _, tc := range tests {
		lo, hi := noiseBand(tc.v)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("noiseBand(%v) = %v..%v, want %v..%v", tc.v, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in      string
		name    string
		pct     float64
		wantErr string
	}{
		{"throughput:-5%", "throughput", -5, ""},
		{"completion_p99:+10%", "completion_p99", 10, ""},
		{"throughput:5%", "throughput", -5, ""},          // unsigned: the bad direction
		{" delivery_p99 : 20% ", "delivery_p99", 20, ""}, // latency: up is bad
		{"latency:+10%", "", 0, "completion_p99"},
		{"throughput:-5", "", 0, "percentage"},
		{"throughput", "", 0, "MEASURE:±N%"},
		{"efficiency:0%", "", 0, "non-zero"},
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
	checkCompare(t, c, nil, []string{"baseline:r01-consumer"}, 1)
	if _, err := LoadRuns(t.TempDir()); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Errorf("empty folder: %v, want an error naming run.json", err)
	}
}
