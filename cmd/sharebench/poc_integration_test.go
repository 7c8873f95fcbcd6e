//go:build integration

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/poc"
	"github.com/sharebench/sharebench/results/runs"
)

// sharebench poc on one process broker with a 2m30s budget: the plan is
// the partition_cap pair alone (2 runs of 2 s warm-up, 5 s window and a
// drain bound of 15 s: 60 s of runs with their overhead; 2m10s with the
// campaign's set-up). The
// decision has one of the four verdicts, every measured finding cites a
// run.json that exists, and every run's audit balances. Bound: the plan's
// estimate × 1.5 + 30 s, the margin a busy 2-core host (the broker's JIT
// beside other test packages) needs over the estimate: 3m45s. Measured here: 1m35s, 1m41s, 1m22s.
func TestPocOnAProcessBroker(t *testing.T) {
	testkit.NeedJava(t)
	dir, path := writeProfile(t, tinyProfile)
	pr, err := poc.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := poc.PlanCampaign(*pr, 0)
	if err != nil {
		t.Fatal(err)
	}
	bound := plan.Estimate()*3/2 + 30*time.Second
	results := filepath.Join(dir, "results")
	start := time.Now()
	console, code := runConsole(t, os.Environ(), "poc", path, "--provider", "process", "--results", results)
	elapsed := time.Since(start)
	if code != ExitOK {
		t.Fatalf("exit %d after %s:\n%s", code, elapsed, console)
	}
	found, _ := filepath.Glob(filepath.Join(results, "*", decisionJSON))
	if len(found) != 1 {
		t.Fatalf("decision.json: %v\n%s", found, console)
	}
	campDir := filepath.Dir(found[0])
	d, _, err := readDecision(campDir)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := []poc.Verdict{poc.VerdictShareGroup, poc.VerdictConsumerGroup, poc.VerdictDestinationBound, poc.VerdictInconclusive}
	if !slices.Contains(verdicts, d.Verdict) || d.NotKafka {
		t.Errorf("verdict %q (not_kafka %v)", d.Verdict, d.NotKafka)
	}
	for _, f := range append(append(append([]poc.Finding{}, d.Restrictions...), d.Reasons...), d.Cost...) {
		if !f.Measured {
			continue
		}
		if len(f.Evidence) == 0 {
			t.Errorf("%s: measured without evidence", f.Key)
		}
		for _, e := range f.Evidence {
			if _, err := os.Stat(filepath.Join(campDir, e.Path)); err != nil {
				t.Errorf("%s: evidence %s: %v", f.Key, e.Path, err)
			}
		}
	}
	for _, s := range d.Settings {
		for _, e := range s.Evidence {
			if _, err := os.Stat(filepath.Join(campDir, e.Path)); err != nil {
				t.Errorf("setting %s: evidence %s: %v", s.Name, e.Path, err)
			}
		}
	}
	camp, recs, err := runs.LoadCampaign(campDir)
	if err != nil {
		t.Fatal(err)
	}
	// The measured overheads (poc.RunOverhead, poc.CampaignOverhead): the
	// campaign's set-up is campaign start → the first run's start; a run's
	// overhead is its start → the next run's start (the campaign's end for
	// the last) less its warm-up, window and drain.
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	var overhead time.Duration
	for i, r := range recs {
		if !r.Audit.Balanced {
			t.Errorf("%s: audit does not balance", r.RunID)
		}
		next := at(camp.FinishedAt)
		if i+1 < len(recs) {
			next = at(recs[i+1].StartedAt)
		}
		phases := time.Duration((r.Phases.WarmupSec + r.Phases.MeasureSec + r.Phases.DrainSec) * float64(time.Second))
		overhead += next.Sub(at(r.StartedAt)) - phases
	}
	t.Logf("%d run(s); plan estimate %s, wall %s (campaign.json %s); set-up before the first run %s, overhead %s a run; verdict %s",
		len(recs), plan.Estimate(), elapsed.Round(time.Second), at(camp.FinishedAt).Sub(at(camp.StartedAt)).Round(time.Second),
		at(recs[0].StartedAt).Sub(at(camp.StartedAt)).Round(time.Second), (overhead / time.Duration(max(len(recs), 1))).Round(100*time.Millisecond), d.Verdict)
	if elapsed > bound {
		t.Errorf("took %s, bound %s (plan estimate %s × 1.5 + 30 s)", elapsed, bound, plan.Estimate())
	}
}
