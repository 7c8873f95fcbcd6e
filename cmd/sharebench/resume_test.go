package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
)

// resumeMarkEnv is set, with a value of its own, in the environment of a
// campaign a test kills: every process that campaign starts inherits it,
// so the processes left after the kill can be found by it (leftovers).
const resumeMarkEnv = "SB_TEST_RESUME_MARK"

// fourRuns is a campaign of four short runs (kfake: about 6 s each, most
// of it the group formation). Its ratio claim is a fixture for the
// expectations a resume re-evaluates, not a measurement: its bound (0.05)
// holds on a saturated host, where kfake once gave 0.475.
const fourRuns = `name: four
consumer_type: [consumer, share]
partitions: 1
members: [1, 2]
rate: 50
warmup: 0s
duration: 1s
processing: {model: none}
expect:
  - name: no record lost
    measure: {runs: all, field: audit.lost, max: 0}
  - name: share keeps up
    ratio: {measure: completed_per_sec, numerator: share, denominator: consumer, min: 0.05}
`

// sixRuns is fourRuns with a third member count: the six runs the issue's
// SIGKILL case names (r01–r03 consumer groups of 1–3 members, r04–r06 share
// groups).
var sixRuns = strings.NewReplacer("name: four", "name: six", "members: [1, 2]", "members: [1, 2, 3]").Replace(fourRuns)

// killDuringRun starts `sharebench <args>` as a child process with its own
// mark, kills it with SIGKILL once its output has shown killAt, and returns
// the campaign folder it left and the mark.
func killDuringRun(t *testing.T, results, killAt string, args ...string) (dir, mark string) {
	t.Helper()
	mark = fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^TestHelperMain$", "--"}, args...)...)
	// The killed campaign cannot remove its temporary folders (broker data,
	// the embedded PostgreSQL's cluster): they go to a folder of the test's,
	// which nobody (the PostgreSQL user under root) can enter.
	tmp, err := os.MkdirTemp("", "sb-resume-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), helperMainEnv+"=1", resumeMarkEnv+"="+mark, "TMPDIR="+tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var transcript strings.Builder
	lines := bufio.NewScanner(stdout)
	seen := false
	for lines.Scan() {
		transcript.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), killAt) {
			seen = true
			break
		}
	}
	if !seen {
		_ = cmd.Wait()
		t.Fatalf("the campaign never printed %q:\n%s", killAt, transcript.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	go func() { // drain whatever was buffered
		for lines.Scan() {
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("exit %v, want killed by SIGKILL\n%s", err, transcript.String())
	}
	folders, _ := filepath.Glob(filepath.Join(results, "*-*T*Z*"))
	if len(folders) != 1 {
		t.Fatalf("campaign folders %v after the kill\n%s", folders, transcript.String())
	}
	return folders[0], mark
}

// leftovers are the processes, other than this one, whose environment
// carries mark: what a killed campaign left running. A process that dies
// as the kernel delivers its parent-death signal is given a few seconds.
func leftovers(mark string) []string {
	want := []byte(resumeMarkEnv + "=" + mark + "\x00")
	var out []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out = out[:0]
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			pid, _ := strconv.Atoi(filepath.Base(p))
			if pid == os.Getpid() {
				continue
			}
			env, err := os.ReadFile(filepath.Join(p, "environ"))
			if err != nil || !bytes.Contains(env, want) {
				continue
			}
			if st, err := os.ReadFile(filepath.Join(p, "stat")); err == nil {
				s := string(st)
				if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X') {
					continue // dead, waiting to be reaped
				}
			}
			cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
			out = append(out, fmt.Sprintf("pid %d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
		if len(out) == 0 || time.Now().After(deadline) {
			return out
		}
	}
}

// shape is what a campaign folder must hold whether or not it was
// interrupted: the runs in order with the files each wrote, and the
// expectations with their runs and verdicts (not the measured values,
// which differ from one campaign to the next).
type shape struct {
	Status       string
	Scenario     string
	Runs         []string
	RunFiles     map[string][]string
	Expectations []string
	Reports      []string
}

func campaignShape(t *testing.T, dir string) shape {
	t.Helper()
	camp, recs, err := runs.LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(camp.Scenario.Runs)
	s := shape{Status: camp.Status, Scenario: string(sc), Runs: camp.Runs, RunFiles: map[string][]string{}}
	for _, r := range recs {
		files := slices.Clone(r.Files)
		slices.Sort(files)
		s.RunFiles[r.RunID] = files
		if probs := runs.IntegrityProblems(r); len(probs) > 0 {
			t.Errorf("%s: %v", r.RunID, probs)
		}
	}
	for _, e := range camp.Expectations {
		var measured []string
		for _, m := range e.Measured {
			measured = append(measured, m.Run)
		}
		s.Expectations = append(s.Expectations, fmt.Sprintf("%s | %s | %s | %v", e.Name, e.Claim, e.Status(), measured))
	}
	for _, f := range []string{"summary.md", "report.html", "runs.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && st.Size() > 0 {
			s.Reports = append(s.Reports, f)
		}
	}
	return s
}

// A campaign killed with SIGKILL during its third run leaves nothing
// running and a folder that --resume completes: the same runs, files,
// expectations and reports as a campaign of the same scenario run in one
// go, with the resume recorded (kfake, not Kafka). A test binary reads its
// revision from git when it starts (internal/version), so a commit made
// while this test runs makes the killed campaign's build and the resume's
// differ, and the resume is refused.
func TestResumeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "six.yaml")
	if err := os.WriteFile(sc, []byte(sixRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(dir, "killed")
	folder, mark := killDuringRun(t, killed, "r03-consumer-m3: forming a group",
		"run", "--provider", "kfake", "--scenario", sc, "--results", killed)
	if left := leftovers(mark); len(left) > 0 {
		t.Errorf("processes of the killed campaign still run:\n  %s", strings.Join(left, "\n  "))
	}
	camp, err := runs.ReadCampaign(folder)
	if err != nil {
		t.Fatal(err)
	}
	if camp.Status != runs.StatusRunning || camp.Running != "r03-consumer-m3" || !slices.Equal(camp.Runs, []string{"r01-consumer-m1", "r02-consumer-m2"}) {
		t.Fatalf("campaign.json after the kill: status %q, running %q, runs %v", camp.Status, camp.Running, camp.Runs)
	}
	// What a kill during the write of run 3's folder leaves: files, no run.json.
	partial := filepath.Join(folder, "runs", "r03-consumer-m3")
	if err := os.MkdirAll(partial, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(partial, "completion.hgrm"), []byte("Value Percentile\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	out, err := execute(t, "run", "--resume", folder)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	for _, want := range []string{"2 of 6 run(s) kept (r01-consumer-m1, r02-consumer-m2)", "rerun r03-consumer-m3: cut off: its folder has no run.json",
		"not started: r04-share-m1, r05-share-m2, r06-share-m3", "run 3/6 r03-consumer-m3", "run 6/6 r06-share-m3"} {
		if !strings.Contains(out, want) {
			t.Errorf("resume output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "run 1/6") || strings.Contains(out, "run 2/6") {
		t.Errorf("a kept run ran again:\n%s", out)
	}
	camp, err = runs.ReadCampaign(folder)
	if err != nil {
		t.Fatal(err)
	}
	if len(camp.Resumed) != 1 {
		t.Fatalf("resumed %+v, want one entry", camp.Resumed)
	}
	r := camp.Resumed[0]
	wantRerun := []runs.ResumedRun{{Run: "r03-consumer-m3", Reason: "cut off: its folder has no run.json", MovedTo: filepath.Join("partial-runs", "r03-consumer-m3")}}
	if r.PreviousStatus != runs.StatusRunning || !slices.Equal(r.Kept, []string{"r01-consumer-m1", "r02-consumer-m2"}) ||
		!reflect.DeepEqual(r.Rerun, wantRerun) || !slices.Equal(r.NotStarted, []string{"r04-share-m1", "r05-share-m2", "r06-share-m3"}) || len(r.Differences) != 0 || r.At == "" {
		t.Errorf("resumed entry %+v", r)
	}
	if _, err := os.Stat(filepath.Join(folder, "partial-runs", "r03-consumer-m3", "completion.hgrm")); err != nil {
		t.Errorf("the partial folder was not kept aside: %v", err)
	}
	if camp.Running != "" || camp.FinishedAt == "" || camp.Error != "" {
		t.Errorf("campaign.json: running %q, finished_at %q, error %q", camp.Running, camp.FinishedAt, camp.Error)
	}
	for _, f := range []string{"summary.md", "report.html"} {
		b, _ := os.ReadFile(filepath.Join(folder, f))
		if !bytes.Contains(b, []byte("resumed")) {
			t.Errorf("%s does not say the campaign was resumed", f)
		}
	}

	whole := filepath.Join(dir, "whole")
	if out, err := execute(t, "run", "--provider", "kfake", "--scenario", sc, "--results", whole); err != nil {
		t.Fatalf("uninterrupted campaign: %v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(whole, "six-*"))
	if len(folders) != 1 {
		t.Fatalf("folders %v", folders)
	}
	got, want := campaignShape(t, folder), campaignShape(t, folders[0])
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resumed campaign\n  %+v\nuninterrupted\n  %+v", got, want)
	}
	if want.Status != runs.StatusComplete || len(want.Runs) != 6 || len(want.Expectations) != 2 {
		t.Errorf("the uninterrupted campaign: %+v", want)
	}

	out, err = execute(t, "run", "--resume", folder)
	if err != nil || !strings.Contains(out, "the campaign is complete (6 run(s)): nothing to resume") {
		t.Errorf("resume of a complete campaign: %v\n%s", err, out)
	}
}

// resumableFolder writes a campaign folder that stopped before its first
// run finished: campaign.json (status running) with the scenario of the
// file src, no cluster recorded.
func resumableFolder(t *testing.T, src string) string {
	t.Helper()
	sc, err := loadScenario(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "four-20260101T000000Z")
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	camp := runs.Campaign{SchemaVersion: runs.SchemaVersion, Name: sc.Name, Status: runs.StatusRunning, StartedAt: "2026-01-01T00:00:00Z",
		Scenario: sc, Runs: []string{}, Running: sc.RunName(0)}
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Bad input to --resume is refused with exit status 2 and a message that
// names the file and the key; a complete campaign has nothing to resume
// (exit 0); --dry-run prints the plan and starts nothing.
func TestResumeBadInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "four.yaml")
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(src, []byte(fourRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(strings.Replace(fourRuns, "rate: 50", "rate: 60", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := resumableFolder(t, src)
	oldBuild := resumableFolder(t, src)
	camp, _ := runs.ReadCampaign(oldBuild)
	camp.Environment = []runs.Environment{{Provider: "kfake", Harness: &runs.Harness{Version: "v0.9.0"}}}
	if err := runs.WriteJSON(filepath.Join(oldBuild, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	complete := resumableFolder(t, src)
	camp, _ = runs.ReadCampaign(complete)
	camp.Status, camp.Scenario = runs.StatusComplete, nil
	if err := runs.WriteJSON(filepath.Join(complete, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		says []string
	}{
		{"not a campaign folder", []string{"run", "--resume", dir}, ExitUsage, []string{dir, "no campaign.json"}},
		{"no such folder", []string{"run", "--resume", filepath.Join(dir, "nope")}, ExitUsage, []string{"nope", "no such folder"}},
		{"another scenario", []string{"run", "--resume", folder, "--scenario", other}, ExitUsage,
			[]string{"--scenario " + other, "campaign.json", "scenario.runs[0].rate: the campaign recorded 50, this has 60"}},
		{"the same scenario", []string{"run", "--resume", folder, "--scenario", src, "--dry-run"}, ExitOK, []string{"0 of 4 run(s) kept"}},
		{"--set without --scenario", []string{"run", "--resume", folder, "--set", "rate=5"}, ExitUsage, []string{"--set with --resume", "campaign.json"}},
		{"--results beside --resume", []string{"run", "--resume", folder, "--results", dir}, ExitUsage, []string{"--results with --resume", folder}},
		{"--resume-anyway alone", []string{"run", "--scenario", src, "--resume-anyway"}, ExitUsage, []string{"--resume-anyway", "--resume FOLDER"}},
		{"dry run", []string{"run", "--resume", folder, "--dry-run"}, ExitOK,
			[]string{"0 of 4 run(s) kept", "rerun r01-consumer-m1: cut off", "not started: r02-consumer-m2, r03-share-m1, r04-share-m2", "nothing started"}},
		{"another build", []string{"run", "--resume", oldBuild, "--dry-run"}, ExitUsage,
			[]string{"not resumed", "sharebench build", "environment[0].harness is v0.9.0", "--resume-anyway"}},
		{"another build, anyway", []string{"run", "--resume", oldBuild, "--dry-run", "--resume-anyway"}, ExitOK,
			[]string{"--resume-anyway: sharebench build", "nothing started"}},
		{"complete", []string{"run", "--resume", complete}, ExitOK, []string{"the campaign is complete", "nothing to resume"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := execute(t, tc.args...)
			if got := exitCode(err); got != tc.code {
				t.Fatalf("exit %d (%v), want %d\n%s", got, err, tc.code, out)
			}
			text := out
			if err != nil {
				text += err.Error()
			}
			for _, s := range tc.says {
				if !strings.Contains(text, s) {
					t.Errorf("%q lacks %q", text, s)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(folder, "partial-runs")); err == nil {
		t.Error("a dry run moved a folder")
	}
	if c, _ := runs.ReadCampaign(folder); c.Status != runs.StatusRunning || len(c.Resumed) != 0 {
		t.Errorf("a refused or dry resume wrote campaign.json: %+v", c)
	}
}
