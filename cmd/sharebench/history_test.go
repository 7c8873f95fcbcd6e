package main

import (
	"fmt"
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

// history draws complete campaigns only; the interrupted, running and
// unknown-status ones and a corrupt run are listed as left out on stderr
// and on history.html. With --include-incomplete they are drawn, marked
// INCOMPLETE on the page.
func TestHistoryListsWhatItLeftOut(t *testing.T) {
	parent := t.TempDir()
	add := func(name, status string) string {
		dir := runstest.WriteCampaign(t, runstest.Run("r01-share", "share", 0, 1000, 100), runstest.Run("r02-share", "share", 0, 900, 100))
		dst := filepath.Join(parent, name)
		if err := os.Rename(dir, dst); err != nil {
			t.Fatal(err)
		}
		setStatus(t, dst, status)
		return dst
	}
	add("smoke-20260101T000000Z", "complete")
	corrupt := add("smoke-20260102T000000Z", "complete")
	if err := os.WriteFile(filepath.Join(corrupt, "runs", "r02-share", "run.json"), []byte("null"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, st := range []string{"interrupted", "running", "banana"} {
		add(fmt.Sprintf("smoke-2026010%dT000000Z", 3+i), st)
	}
	out := filepath.Join(t.TempDir(), "hist")
	got, err := execute(t, "history", "--out", out, parent)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	page, err := os.ReadFile(filepath.Join(out, "history.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"2 campaign(s)", "corrupt run left out: ", "run r02-share skipped", "smoke-20260103T000000Z: status interrupted",
		"smoke-20260104T000000Z: status running", "smoke-20260105T000000Z: status banana"} {
		if !strings.Contains(got, w) {
			t.Errorf("console lacks %q:\n%s", w, got)
		}
		if w != "2 campaign(s)" && !strings.Contains(string(page), w) {
			t.Errorf("history.html lacks %q", w)
		}
	}
	if strings.Contains(string(page), "INCOMPLETE") {
		t.Error("history.html marks an incomplete campaign it did not draw")
	}

	got, err = execute(t, "history", "--include-incomplete", "--out", out, parent)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	page, _ = os.ReadFile(filepath.Join(out, "history.html"))
	for _, w := range []string{"3 campaign(s) did not complete", "smoke-20260103T000000Z (INCOMPLETE: status interrupted)", "INCOMPLETE: banana"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("history.html with --include-incomplete lacks %q", w)
		}
	}
}

// A campaign given through a symbolic link is read by history as by
// compare and report.
func TestHistoryThroughLink(t *testing.T) {
	dir := runstest.WriteCampaign(t, runstest.Run("r01-share", "share", 0, 1000, 100))
	link := filepath.Join(t.TempDir(), "latest")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"compare", link, link},
		{"report", link},
		{"history", "--out", filepath.Join(t.TempDir(), "h"), link},
		{"history", "--out", filepath.Join(t.TempDir(), "h"), filepath.Dir(link)},
	} {
		if out, err := execute(t, args...); err != nil {
			t.Errorf("%v: %v\n%s", args, err, out)
		} else if args[0] == "history" && !strings.Contains(out, "1 campaign(s)") {
			t.Errorf("%v: %s", args, out)
		}
	}
}
