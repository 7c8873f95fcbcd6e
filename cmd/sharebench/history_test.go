package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs/runstest"
)

// `sharebench history` finds campaign folders under a parent, writes
// history.html and history.csv into --out, one CSV row per run and figure
// (synthetic fixture campaigns, not Kafka numbers).
func TestHistoryCommand(t *testing.T) {
	parent := t.TempDir()
	for i, tput := range []float64{1000, 700} {
		dir := runstest.WriteCampaign(t, runstest.Run("r01-share", "share", 0, tput, 100))
		if err := os.Rename(dir, filepath.Join(parent, []string{"smoke-20260101T000000Z", "smoke-20260102T000000Z"}[i])); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "hist")
	got, err := execute(t, "history", "--out", out, "--figure", "throughput.completed_per_sec", "--figure", "latency.delivery_ms.p99", parent)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	for _, w := range []string{"wrote " + filepath.Join(out, "history.html"), "2 campaign(s), 2 series",
		"regression: fixture r01-share throughput.completed_per_sec: 700 (-30.0% vs the previous campaign) in smoke-20260102T000000Z"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "history.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(csv), "\n"); n != 1+2*2 {
		t.Errorf("history.csv has %d lines:\n%s", n, csv)
	}
	if _, err := execute(t, "history", "--out", out, "--figure", "no.such", parent); err == nil {
		t.Error("an unknown figure must fail")
	}
}
