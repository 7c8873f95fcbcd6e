//go:build integration && long

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/runs"
)

// diskRuns are two short runs on process brokers, whose logs go into the
// campaign folder on the small file system too.
const diskRuns = `name: diskfull
consumer_type: [consumer, share]
partitions: 1
members: 1
rate: 50
warmup: 0s
duration: 1s
drain_timeout: 30s
processing: {model: none}
`

// The results folder's file system fills during the second run of a
// campaign on process brokers (Kafka): exit status 4 naming the file and
// the bytes, no broker left running, the first run intact and on Kafka;
// --resume with the space back completes the campaign. Needs root for the
// tmpfs (skipped without).
func TestFullDiskOnProcessBrokers(t *testing.T) {
	testkit.NeedJava(t)
	start := time.Now()
	disk := smallDisk(t, 64<<20)
	sc := filepath.Join(t.TempDir(), "diskfull.yaml")
	if err := os.WriteFile(sc, []byte(diskRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	results, filler := filepath.Join(disk, "results"), filepath.Join(disk, "filler")
	mark := fmt.Sprintf("diskkafka-%d-%d", os.Getpid(), time.Now().UnixNano())
	out, code := runUntil(t, mark, "r02-share: forming a group", func() { fill(t, filler) },
		"run", "--provider", "process", "--jit-warmup=false", "--scenario", sc, "--results", results)
	if left := leftovers(mark); len(left) > 0 {
		t.Errorf("processes of the campaign still run:\n  %s", strings.Join(left, "\n  "))
	}
	folders, _ := filepath.Glob(filepath.Join(results, "diskfull-*"))
	if len(folders) != 1 {
		t.Fatalf("campaign folders %v\n%s", folders, out)
	}
	folder := folders[0]
	msg := lastLine(out, "sharebench: ")
	t.Logf("after %v: exit status %d: %s", time.Since(start).Round(time.Second), code, msg)
	if code != ExitNoSpace {
		t.Errorf("exit status %d, want %d\n%s", code, ExitNoSpace, out)
	}
	for _, want := range []string{"sharebench: results folder full: run r02-share: " + filepath.Join(folder, "runs", "r02-share") + string(filepath.Separator),
		" bytes", "no space left on device", "1 of 2 run(s) are recorded and intact in " + folder, "sharebench run --resume " + folder} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	rec, err := runs.ReadRun(filepath.Join(folder, "runs", "r01-consumer", "run.json"))
	if err != nil {
		t.Fatalf("run 1: %v", err)
	}
	if probs := runs.IntegrityProblems(rec); len(probs) > 0 || !rec.Environment.IsKafka {
		t.Errorf("run 1: %v, on Kafka %v", probs, rec.Environment.IsKafka)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	out, err = execute(t, "run", "--resume", folder, "--jit-warmup=false")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	camp, recs, err := runs.LoadCampaign(folder)
	if err != nil {
		t.Fatal(err)
	}
	if camp.Status != runs.StatusComplete || !slices.Equal(camp.Runs, []string{"r01-consumer", "r02-share"}) || len(recs) != 2 {
		t.Errorf("after the resume: status %s, runs %v\n%s", camp.Status, camp.Runs, out)
	}
	t.Logf("whole test %v", time.Since(start).Round(time.Second))
}
