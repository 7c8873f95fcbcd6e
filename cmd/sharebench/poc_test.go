package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tinyProfile is a task queue above its 2 partitions' cap whose plan at its
// 2m30s budget is the partition_cap pair alone (5 s windows).
const tinyProfile = "name: tiny\nsteady_rate: 100\npeak_rate: 300\nprocessing: {model: constant, time: 10ms}\npartitions: 2\nbudget: 2m30s\n"

func writeProfile(t *testing.T, body string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "profile.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// On kfake a proof of concept runs, and writes a decision with the NOT
// KAFKA flag and no verdict, decision.md, and the decision's section at
// the top of report.html; it exits 0.
func TestPocOnKfakeWritesANotKafkaDecision(t *testing.T) {
	dir, path := writeProfile(t, tinyProfile)
	results := filepath.Join(dir, "results")
	console, code := runConsole(t, os.Environ(), "poc", path, "--provider", "kfake", "--results", results)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, console)
	}
	for _, want := range []string{"partition_cap", "left out:", "decision: ", decisionJSON} {
		if !strings.Contains(console, want) {
			t.Errorf("console lacks %q:\n%s", want, console)
		}
	}
	found, _ := filepath.Glob(filepath.Join(results, "*", decisionJSON))
	if len(found) != 1 {
		t.Fatalf("decision.json: %v\n%s", found, console)
	}
	camp := filepath.Dir(found[0])
	d, ok, err := readDecision(camp)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if !d.NotKafka || d.Verdict != "inconclusive" { // kfake: no verdict can be drawn
		t.Errorf("kfake decision: not_kafka %v, verdict %q", d.NotKafka, d.Verdict)
	}
	if _, err := os.Stat(filepath.Join(camp, decisionMD)); err != nil {
		t.Error(err)
	}
	page, err := os.ReadFile(filepath.Join(camp, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(page), d.HTMLSection())
	if at < 0 || at > strings.Index(string(page), `id="side-by-side"`) {
		t.Errorf("report.html: the decision section at %d, not at the top", at)
	}
	// report DIR renders the page again and keeps the decision.
	if out, code := runConsole(t, os.Environ(), "report", camp); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	if page, _ = os.ReadFile(filepath.Join(camp, "report.html")); !strings.Contains(string(page), d.HTMLSection()) {
		t.Error("report DIR dropped the decision section")
	}
}

// --dry-run prints the plan and starts nothing; a budget no experiment
// fits, a bad --budget and a --set (the profile is the input) are bad input.
func TestPocDryRunAndBudgets(t *testing.T) {
	dir, path := writeProfile(t, tinyProfile)
	results := filepath.Join(dir, "results")
	console, code := runConsole(t, os.Environ(), "poc", path, "--provider", "kfake", "--results", results, "--dry-run", "--budget", "15m")
	if code != ExitOK || !strings.Contains(console, "of the 15m0s budget") || !strings.Contains(console, "dry run: nothing started") {
		t.Errorf("dry run: exit %d\n%s", code, console)
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Errorf("a dry run made %s (%v)", results, err)
	}
	for _, c := range []struct{ flag, value, want string }{
		{"--budget", "30s", "no experiment fits"},
		{"--budget", "-1m", "--budget -1m0s: expected a duration > 0"},
		{"--set", "members=3", "--set members: a proof of concept's runs come from the profile"},
	} {
		console, code = runConsole(t, os.Environ(), "poc", path, "--provider", "kfake", "--dry-run", c.flag, c.value)
		if code != ExitUsage || !strings.Contains(console, c.want) {
			t.Errorf("%s %s: exit %d, want %d and %q:\n%s", c.flag, c.value, code, ExitUsage, c.want, console)
		}
	}
}

// Ctrl-C during a proof of concept's campaign exits 130, as run does, and
// writes no decision over the runs it cut short.
func TestPocInterruptedExits130WithoutADecision(t *testing.T) {
	dir, path := writeProfile(t, tinyProfile)
	results := filepath.Join(dir, "results")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(22*time.Second, cancel) // within the second run (kfake: about 15 s a run)
	var out bytes.Buffer
	code := runMain(ctx, []string{"poc", path, "--provider", "kfake", "--results", results}, os.Environ(), &out, &out)
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitInterrupted, out.String())
	}
	if found, _ := filepath.Glob(filepath.Join(results, "*", decisionJSON)); len(found) > 0 {
		t.Errorf("an interrupted proof of concept wrote %v", found)
	}
}
