//go:build integration

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/runs"
)

// javaDestRuns are two short runs of the Java client on process brokers,
// every record written to the embedded PostgreSQL, so a kill in run 2
// leaves brokers, a Java runner and a database behind if anything is not
// tied to the harness. (Two runs, to stay near 2 minutes on a busy 2-core
// host; the kfake test, TestResumeAfterSIGKILL, resumes four.)
const javaDestRuns = `name: resumekill
client: java
consumer_type: [consumer, share]
partitions: 1
members: 1
rate: 50
warmup: 0s
duration: 1s
drain_timeout: 30s
processing: {model: none}
destination: {kind: postgres}
expect:
  - name: no record lost
    measure: {runs: all, field: audit.lost, max: 0}
`

// A campaign on process brokers killed with SIGKILL during its second run
// leaves no broker, runner or database process; --resume completes it
// with both runs in order and the expectation evaluated on both.
func TestResumeAfterSIGKILLOnProcessBrokers(t *testing.T) {
	testkit.NeedJava(t)
	start := time.Now()
	dir := t.TempDir()
	sc := filepath.Join(dir, "resumekill.yaml")
	if err := os.WriteFile(sc, []byte(javaDestRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "out")
	folder, mark := killDuringRun(t, results, "r02-share: forming a group",
		"run", "--provider", "process", "--jit-warmup=false", "--scenario", sc, "--results", results)
	killed := time.Now()
	if left := leftovers(mark); len(left) > 0 {
		t.Errorf("processes of the killed campaign still run:\n  %s", strings.Join(left, "\n  "))
	}
	t.Logf("killed in run 2 after %v", killed.Sub(start).Round(time.Second))
	out, err := execute(t, "run", "--resume", folder, "--jit-warmup=false")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	camp, recs, err := runs.LoadCampaign(folder)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"r01-consumer", "r02-share"}
	if camp.Status != runs.StatusComplete || !slices.Equal(camp.Runs, want) || len(recs) != 2 {
		t.Fatalf("status %s runs %v (%d records), want complete %v\n%s", camp.Status, camp.Runs, len(recs), want, out)
	}
	if len(camp.Expectations) != 1 || len(camp.Expectations[0].Measured) != 2 || !camp.Expectations[0].Met {
		t.Errorf("expectations %+v", camp.Expectations)
	}
	if len(camp.Resumed) != 1 || !slices.Equal(camp.Resumed[0].Kept, want[:1]) || len(camp.Resumed[0].Differences) != 0 {
		t.Errorf("resumed %+v", camp.Resumed)
	}
	for _, r := range recs {
		if !r.Environment.IsKafka || r.Environment.Provider != "process" {
			t.Errorf("%s: environment %+v", r.RunID, r.Environment)
		}
	}
	t.Logf("whole test %v", time.Since(start).Round(time.Second))
}
