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
)

// campaignDir writes a campaign folder holding run.json files only (all
// compare and summary.md read) and returns its path.
func campaignDir(t *testing.T, recs ...runs.Record) string {
	t.Helper()
	dir := t.TempDir()
	camp := runs.Campaign{SchemaVersion: runs.SchemaVersion, Name: "fixture"}
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

func run(id, ctype string, trial int, tput, p99 float64) runs.Record {
	return runs.Record{
		SchemaVersion: runs.SchemaVersion, RunID: id, ConsumerType: ctype,
		Spec:       &scenarios.RunSpec{ConsumerType: ctype, Members: 12, Trial: trial},
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
			[]string{"r02-share: completion_p99 +42.9%"}, []string{"unmatched: baseline run r01-consumer"}},
		{"within noise", append([]string{"compare", noisy, filepath.Join(slow, "runs", "r02-share", "run.json")}, gates...), false, nil,
			[]string{"within noise", "(3 vs 1 trials)", "**PASS**"}},
		{"bad threshold flag", []string{"compare", "--threshold", "throughput=-5%", base, same}, false,
			[]string{"--threshold", "throughput=-5%", "MEASURE:±N%"}, nil},
		{"bad thresholds file", []string{"compare", "--thresholds", badFile, base, same}, false, []string{"bad.txt:2", "p99"}, nil},
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

// The process exit status CI relies on: 0 on a pass, 1 with the regression
// named on stderr.
func TestCompareExitStatus(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sharebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	base := campaignDir(t, run("r02-share", "share", 0, 1000, 280))
	slow := campaignDir(t, run("r02-share", "share", 0, 900, 280))
	tests := []struct {
		cand   string
		status int
		stderr string
	}{{base, 0, ""}, {slow, 1, "sharebench: 1 regression(s) beyond threshold: r02-share: throughput -10.0%"}}
	for _, tc := range tests {
		cmd := exec.Command(bin, "compare", "--threshold", "throughput:-5%", base, tc.cand)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		status := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			status = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("compare %s: status %d stderr %q, want %d %q", tc.cand, status, stderr.String(), tc.status, tc.stderr)
		}
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
