package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// freeSpace makes the campaign folder's file system report free(call)
// bytes free at the n-th preflight (from 1), until the test ends.
func freeSpace(t *testing.T, free func(call int) uint64) {
	t.Helper()
	orig := freeBytes
	t.Cleanup(func() { freeBytes = orig })
	var calls atomic.Int32
	freeBytes = func(string) (uint64, bool) { return free(int(calls.Add(1))), true }
}

// The preflight before a run refuses it when its output estimate does not
// fit: the campaign ends failed with one error naming the run, the bytes
// needed and free and the resume command; the run before is intact, the
// refused one has no folder; a resume with space completes the campaign
// (kfake, not Kafka; the free space is injected, no root needed).
func TestPreflightStopsACampaignOnAFullDisk(t *testing.T) {
	sc := tinyScenario(t, "[consumer, share]", "1")
	// Calls: before anything starts (run 1), before run 1, before run 2.
	freeSpace(t, func(call int) uint64 {
		if call <= 2 {
			return 1 << 40
		}
		return 1000
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log strings.Builder
	res, err := Run(ctx, sc, Options{Provider: "kfake", ResultsDir: t.TempDir(), Log: &log})
	var df *DiskFullError
	if !errors.As(err, &df) {
		t.Fatalf("error %v (%T), want a *DiskFullError\n%s", err, err, log.String())
	}
	dir := res.Dir
	first, second := sc.RunName(0), sc.RunName(1)
	if df.Run != second || df.Write != nil || df.Free != 1000 || df.Need < RunDiskEstimate(sc.Runs[1]) || df.Done != 1 || df.Total != 2 ||
		df.Dir != dir || df.CampaignStale || df.Complete || df.Removed || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("DiskFullError %+v", df)
	}
	for _, want := range []string{"results folder full: run " + second + ": not started: its output estimate is ",
		"has 1000 bytes free", "1 of 2 run(s) are recorded and intact in " + dir, "(campaign.json says failed)",
		"then continue the campaign with: sharebench run --resume " + dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if res.Status != runs.StatusFailed {
		t.Errorf("status %s", res.Status)
	}
	camp, err := runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	if camp.Status != runs.StatusFailed || camp.Error != df.Error() || !slices.Equal(camp.Runs, []string{first}) || camp.Running != "" {
		t.Errorf("campaign.json: status %s, error %q, runs %v, running %q", camp.Status, camp.Error, camp.Runs, camp.Running)
	}
	if _, err := runs.ReadRun(filepath.Join(dir, "runs", first, "run.json")); err != nil {
		t.Errorf("the run before: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "runs", second)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run has a folder: %v", err)
	}
	// What a run writes stays under its estimate.
	var written uint64
	_ = filepath.Walk(filepath.Join(dir, "runs", first), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			written += uint64(fi.Size())
		}
		return nil
	})
	if est := RunDiskEstimate(sc.Runs[0]); written == 0 || written > est {
		t.Errorf("run %s wrote %d bytes, its estimate is %d", first, written, est)
	}

	freeSpace(t, func(int) uint64 { return 1 << 40 })
	log.Reset()
	res, err = Resume(ctx, dir, Options{Provider: "kfake", Log: &log})
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, log.String())
	}
	camp, err = runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != runs.StatusComplete || camp.Status != runs.StatusComplete || !slices.Equal(camp.Runs, []string{first, second}) ||
		len(camp.Resumed) != 1 || camp.Resumed[0].PreviousStatus != runs.StatusFailed || !slices.Equal(camp.Resumed[0].Kept, []string{first}) {
		t.Errorf("after the resume: status %s/%s, runs %v, resumed %+v", res.Status, camp.Status, camp.Runs, camp.Resumed)
	}
}

// A campaign whose first run does not fit stops before anything starts and
// removes its folder; the error says to start it again.
func TestPreflightBeforeTheFirstRun(t *testing.T) {
	sc := tinyScenario(t, "consumer", "1")
	freeSpace(t, func(int) uint64 { return 4096 })
	parent := filepath.Join(t.TempDir(), "results")
	res, err := Run(context.Background(), sc, Options{Provider: "kfake", ResultsDir: parent})
	var df *DiskFullError
	if !errors.As(err, &df) || !df.Removed || df.Run != sc.RunName(0) || res == nil || res.Dir != "" {
		t.Fatalf("error %v, result %+v", err, res)
	}
	if !strings.Contains(err.Error(), "nothing was recorded and the campaign folder was removed: free space there, then start the campaign again") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(parent); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the results folder the campaign made is left: %v", err)
	}
}

// The message of every way a full disk ends a campaign.
func TestDiskFullErrorText(t *testing.T) {
	w := &runs.NoSpaceError{Path: "/r/c/runs/r03/completion.hgrm", Bytes: 1830, Free: 0, Err: syscall.ENOSPC}
	for _, tc := range []struct {
		name string
		e    DiskFullError
		want string
	}{
		{"a run's write", DiskFullError{Dir: "/r/c", Run: "r03", Write: w, Done: 2, Total: 4, CampaignStale: true},
			"results folder full: run r03: /r/c/runs/r03/completion.hgrm: writing 1830 bytes (1.8 KiB) failed: no space left on device, 0 bytes free on its file system; " +
				"2 of 4 run(s) are recorded and intact in /r/c (campaign.json could not be rewritten either: it keeps its last state, which a resume reads as a campaign stopped short); " +
				"free space there, then continue the campaign with: sharebench run --resume /r/c"},
		{"the preflight", DiskFullError{Dir: "/r/c", Run: "r03", Need: 1 << 20, Free: 4096, Done: 2, Total: 4},
			"results folder full: run r03: not started: its output estimate is 1048576 bytes (1.0 MiB) (docs/how-to/run-long-campaigns.md#a-full-disk) and the file system of /r/c has 4096 bytes (4.0 KiB) free; " +
				"2 of 4 run(s) are recorded and intact in /r/c (campaign.json says failed); free space there, then continue the campaign with: sharebench run --resume /r/c"},
		{"the reports", DiskFullError{Dir: "/r/c", Write: &runs.NoSpaceError{Path: "/r/c/report.html", Bytes: 124901, Free: 8192, Err: syscall.EDQUOT}, Done: 4, Total: 4, Complete: true},
			"results folder full: /r/c/report.html: writing 124901 bytes (122.0 KiB) failed: disk quota exceeded, 8192 bytes (8.0 KiB) free on its file system; " +
				"all 4 run(s) are recorded and intact in /r/c and campaign.json says complete, but the reports (summary.md, report.html, runs.csv) are not all written: free space there, then write them with: sharebench report /r/c"},
		{"before the first run", DiskFullError{Dir: "/r/c", Run: "r01", Need: 1 << 20, Free: 0, Total: 4, Removed: true},
			"results folder full: run r01: not started: its output estimate is 1048576 bytes (1.0 MiB) (docs/how-to/run-long-campaigns.md#a-full-disk) and the file system of /r/c has 0 bytes free; " +
				"nothing was recorded and the campaign folder was removed: free space there, then start the campaign again"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// RunDiskEstimate: 64 KiB, 1 KiB per member (joined ones too), 4.25 KiB per
// second of the span the run's time series is sized for.
func TestRunDiskEstimate(t *testing.T) {
	sc := tinyScenario(t, "share", "3")
	r := sc.Runs[0]
	_, seconds, err := runSizes(r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := RunDiskEstimate(r), uint64(64<<10+3<<10+seconds*4352); got != want {
		t.Errorf("estimate %d, want %d (%d s)", got, want, seconds)
	}
	r.Events = []scenarios.Event{{Action: "join", Members: 5}}
	if got, want := RunDiskEstimate(r), uint64(64<<10+8<<10+seconds*4352); got != want {
		t.Errorf("with 5 joining: %d, want %d", got, want)
	}
	r.Duration = time.Hour
	_, long, _ := runSizes(r)
	if long < 3600 || RunDiskEstimate(r) < 15<<20 {
		t.Errorf("an hour's run: %d s, %d bytes", long, RunDiskEstimate(r))
	}
}
