package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// campaignDir writes a campaign folder holding run.json files only (all
// compare and summary.md read) and returns its path.
func campaignDir(t *testing.T, recs ...runs.Record) string {
	t.Helper()
	dir := t.TempDir()
	camp := runs.Campaign{SchemaVersion: runs.SchemaVersion, Name: "fixture",
		StartedAt: "2026-01-01T00:00:00Z", FinishedAt: "2026-01-01T00:10:00Z"}
	for _, r := range recs {
		if err := os.MkdirAll(filepath.Join(dir, "runs", r.RunID), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := runs.WriteJSON(filepath.Join(dir, "runs", r.RunID, "run.json"), r); err != nil {
			t.Fatal(err)
		}
		camp.Runs = append(camp.Runs, r.RunID)
	}
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(id string, ctype vocab.GroupType, trial int, tput, p99 float64) runs.Record {
	return runs.Record{
		SchemaVersion: runs.SchemaVersion, RunID: id, ConsumerType: ctype,
		Spec:       &scenarios.RunSpec{ConsumerType: ctype, Fleet: scenarios.Fleet{Members: 12}, Trial: trial},
		Phases:     runs.Phases{MeasureSec: 0.05}, // 100 records: a rate needs a window (runs.IntegrityProblems)
		Throughput: runs.Throughput{OfferedPerSec: 1000, CompletedPerSec: tput},
		Latency: runs.Latencies{CompletionMs: results.Percentiles{P50: p99 / 4, P99: p99, P999: 2 * p99},
			DeliveryMs: results.Percentiles{P99: p99}, PublishMs: results.Percentiles{P99: 10}},
		Ceiling:     runs.Ceiling{RecordsPerSec: 1000, Bound: "producer", Efficiency: tput / 1000},
		Audit:       results.Audit{Produced: 100, CompletedOnce: 100, Balanced: true},
		Validity:    runs.Validity{Valid: true},
		Environment: runs.Environment{IsKafka: true, KafkaVersion: "4.2.2"},
	}
}

func TestCompareCommand(t *testing.T) {
	base := campaignDir(t, run("r01-consumer", "consumer", 0, 380, 40000), run("r02-share", "share", 0, 1000, 280))
	same := campaignDir(t, run("r01-consumer", "consumer", 0, 380, 40000), run("r02-share", "share", 0, 1000, 280))
	slow := campaignDir(t, run("r01-consumer", "consumer", 0, 380, 40000), run("r02-share", "share", 0, 900, 280))
	laggy := campaignDir(t, run("r02-share", "share", 0, 1000, 400))
	noisy := campaignDir(t, run("r01-share-t0", "share", 0, 900, 280), run("r02-share-t1", "share", 1, 1000, 280),
		run("r03-share-t2", "share", 2, 1100, 280))
	thFile := filepath.Join(t.TempDir(), "thresholds.txt")
	os.WriteFile(thFile, []byte("# CI gates\nthroughput:-5%\n\ncompletion_p99:+10%\n"), 0o644)
	badFile := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(badFile, []byte("throughput:-5%\np99:+10%\n"), 0o644)
	gates := []string{"--threshold", "throughput:-5%", "--threshold", "completion_p99:+10%"}
	tests := []struct {
		name       string
		args       []string
		regression bool     // want a *regressionError
		wantErr    []string // substrings of the error (regression or not)
		wantOut    []string
	}{
		{"identical", append([]string{"compare", base, same}, gates...), false, nil, []string{"**PASS**", "| r02-share | throughput | 1000 | 1000 | +0.0% |"}},
		{"throughput regression", append([]string{"compare", base, slow}, gates...), true, []string{"r02-share: throughput -10.0%"}, []string{"**REGRESSION**", "**FAIL**"}},
		{"latency regression from file", []string{"compare", "--thresholds", thFile, base, laggy}, true,
			[]string{"r02-share: completion_p99 +42.9%", "baseline run r01-consumer: missing in the candidate"},
			[]string{"baseline run r01-consumer: missing in the candidate"}},
		{"spread wider than threshold", append([]string{"compare", noisy, filepath.Join(slow, "runs", "r02-share", "run.json")}, gates...), true,
			[]string{"1 inconclusive measure(s)", "trial spread 20.0% is wider than the threshold 5%"},
			[]string{"INCONCLUSIVE", "(3 vs 1 trials)", "1000 (900–1100)", "**FAIL**"}},
		{"inconclusive allowed", append([]string{"compare", "--allow-inconclusive", noisy, filepath.Join(slow, "runs", "r02-share", "run.json")}, gates...), false, nil,
			[]string{"**PASS**", "(1 inconclusive, allowed)"}},
		{"bad threshold flag", []string{"compare", "--threshold", "throughput=-5%", base, same}, false,
			[]string{"--threshold", "throughput=-5%", "MEASURE:N%"}, nil},
		{"bad thresholds file", []string{"compare", "--thresholds", badFile, base, same}, false, []string{"--thresholds", "bad.txt:2", "p99"}, nil},
		{"missing baseline", []string{"compare", filepath.Join(base, "nope"), same}, false, []string{"baseline", "nope"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := execute(t, tc.args...)
			var reg *regressionError
			if errors.As(err, &reg) != tc.regression {
				t.Fatalf("err %v, want regression=%v\n%s", err, tc.regression, out)
			}
			if (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("err %v, want error containing %q\n%s", err, tc.wantErr, out)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestCompareJSON(t *testing.T) {
	base := campaignDir(t, run("r02-share", "share", 0, 1000, 280))
	slow := campaignDir(t, run("r02-share", "share", 0, 900, 280))
	out, err := execute(t, "compare", "--json", "--threshold", "throughput:-5%", base, slow)
	var cmp runs.Comparison
	if jerr := json.Unmarshal([]byte(out), &cmp); jerr != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", jerr, out)
	}
	if err == nil || len(cmp.Regressions) != 1 || cmp.Runs[0].Deltas[0].Measure != "throughput" ||
		*cmp.Runs[0].Deltas[0].ChangePct != -10 {
		t.Errorf("err %v, comparison %+v", err, cmp)
	}
}

// The process exit status CI relies on, and the message naming the cause,
// for every broken case the gate must not pass (issue 10).
func TestCompareExitStatus(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sharebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	good := run("r02-share", "share", 0, 1000, 280)
	base := campaignDir(t, good)
	slow := campaignDir(t, run("r02-share", "share", 0, 500, 280))
	lost := good
	lost.Audit = results.Audit{Produced: 100, CompletedOnce: 60, Lost: 40, Balanced: false}
	lostDir := campaignDir(t, lost)
	unbalanced := good
	unbalanced.Audit.Balanced = false
	unbalancedDir := campaignDir(t, unbalanced)
	flagged := good
	flagged.Validity = runs.Validity{Flags: []runs.Flag{{Code: "collector_failed", Message: "collector broker: 5 of 5 readings failed"}}}
	flaggedDir := campaignDir(t, flagged)
	notMet := campaignDir(t, good)
	setCampaign(t, notMet, func(c *runs.Campaign) {
		c.Expectations = []runs.ExpectationOutcome{{Name: "no record lost", Claim: "all runs: audit.lost ≤ 0",
			Measured: []runs.Measured{{Run: "r02-share", Value: 3}}}}
	})
	extra := campaignDir(t, good, run("r01-consumer", "consumer", 0, 380, 40000))
	other := campaignDir(t, withMembers(run("r09-share", "share", 0, 1000, 280), 99))
	interrupted := campaignDir(t, good)
	setCampaign(t, interrupted, func(c *runs.Campaign) { c.FinishedAt = "" })
	statusInterrupted := campaignDir(t, good)
	addStatus(t, statusInterrupted, "interrupted")
	statusComplete := campaignDir(t, good)
	addStatus(t, statusComplete, "complete")
	th := []string{"--threshold", "throughput:5%"}
	tests := []struct {
		name   string
		args   []string
		status int
		stderr []string
	}{
		{"identical", append([]string{base, base}, th...), 0, nil},
		{"status complete", append([]string{statusComplete, base}, th...), 0, nil},
		{"throughput halved", append([]string{base, slow}, th...), 1,
			[]string{"1 regression(s) beyond threshold:\n  r02-share: throughput -50.0% (baseline 1000, candidate 500, threshold -5%; single trial: no noise estimate)"}},
		{"lost records, no threshold", []string{base, lostDir}, 1,
			[]string{"correctness failure(s)", "candidate run r02-share: audit.lost = 40: produced records were lost (never delivered, and Kafka can no longer deliver them)",
				"candidate run r02-share: audit.balanced = false"}},
		{"unbalanced audit", []string{base, unbalancedDir}, 1, []string{"candidate run r02-share: audit.balanced = false: the audit does not balance"}},
		{"denied validity flag", []string{base, flaggedDir}, 1, []string{"candidate run r02-share: validity flag collector_failed: collector broker: 5 of 5 readings failed"}},
		{"deny list replaced", []string{"--deny-flags", "not_kafka", base, flaggedDir}, 0, nil},
		{"expectation NOT MET", []string{base, notMet}, 1,
			[]string{`candidate expectation "no record lost" NOT MET (all runs: audit.lost ≤ 0): r02-share measured 3`}},
		{"run missing in candidate", []string{extra, base}, 1, []string{"baseline run r01-consumer: missing in the candidate"}},
		{"run missing in baseline", []string{base, extra}, 1, []string{"candidate run r01-consumer: missing in the baseline"}},
		{"nothing to compare", []string{base, other}, 2, []string{"nothing to compare: no run of candidate", "compare campaigns of the same scenario"}},
		{"NaN threshold", []string{"--threshold", "throughput:NaN%", base, slow}, 2,
			[]string{`--threshold: threshold "throughput:NaN%": NaN is not a finite number: expected throughput:N% with N the tolerated drop in percent, 0 < N < 100`}},
		{"+Inf threshold", []string{"--threshold", "throughput:+Inf%", base, slow}, 2, []string{`"throughput:+Inf%": +Inf is not a finite number`}},
		{"gain as threshold", []string{"--threshold", "throughput:+5%", base, slow}, 2, []string{"a throughput rise is an improvement, never a regression"}},
		{"negative latency threshold", []string{"--threshold", "completion_p99:-10%", base, slow}, 2, []string{"a completion_p99 fall is an improvement"}},
		{"interrupted baseline (no finished_at)", []string{interrupted, base}, 2,
			[]string{"baseline " + interrupted, "no status and no finished_at: the campaign did not finish"}},
		{"interrupted status", []string{base, statusInterrupted}, 2, []string{`candidate ` + statusInterrupted, `campaign status "interrupted", want "complete"`}},
		{"unknown deny flag", []string{"--deny-flags", "drain_timed_out", base, base}, 2, []string{`--deny-flags: unknown validity flag "drain_timed_out"`, "drain_timeout"}},
		{"unknown flag", []string{"--treshold", "x", base, base}, 2, []string{"unknown flag: --treshold"}},
		{"one argument", []string{base}, 2, []string{"accepts 2 arg(s)"}},
	}
	for _, tc := range tests {
		cmd := exec.Command(bin, append([]string{"compare"}, tc.args...)...)
		var stderr, stdout strings.Builder
		cmd.Stderr, cmd.Stdout = &stderr, &stdout
		err := cmd.Run()
		status := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			status = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status {
			t.Errorf("%s: status %d, want %d\nstderr %s\nstdout %s", tc.name, status, tc.status, stderr.String(), stdout.String())
		}
		for _, w := range tc.stderr {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, stderr.String(), w)
			}
		}
		if tc.status != 0 && strings.Contains(stdout.String(), "PASS") {
			t.Errorf("%s: printed PASS:\n%s", tc.name, stdout.String())
		}
	}
}

func withMembers(r runs.Record, n int) runs.Record {
	spec := *r.Spec
	spec.Members = n
	r.Spec = &spec
	return r
}

func setCampaign(t *testing.T, dir string, f func(*runs.Campaign)) {
	t.Helper()
	c, err := runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	f(&c)
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), c); err != nil {
		t.Fatal(err)
	}
}

// addStatus writes campaign.json's status field (added by the campaign
// writer) without depending on the Campaign struct having it.
func addStatus(t *testing.T, dir, status string) {
	t.Helper()
	path := filepath.Join(dir, "campaign.json")
	var m map[string]any
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	m["status"] = status
	if err := runs.WriteJSON(path, m); err != nil {
		t.Fatal(err)
	}
}

func TestReportCommand(t *testing.T) {
	dir := campaignDir(t, run("r01-consumer", "consumer", 0, 380, 40000), run("r02-share", "share", 0, 1000, 280))
	out, err := execute(t, "report", dir)
	if err != nil || !strings.Contains(out, filepath.Join(dir, "summary.md")) {
		t.Fatalf("report: %v\n%s", err, out)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "share/consumer = 2.63x") {
		t.Errorf("summary.md lacks the verdict:\n%s", md)
	}
	if _, err := execute(t, "report", t.TempDir()); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Errorf("empty folder: %v, want an error naming run.json", err)
	}
}
