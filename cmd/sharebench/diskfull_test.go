package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/results/runs"
)

// smallDisk mounts a tmpfs of size bytes on a folder of the test's and
// unmounts it when the test ends. Mounting needs root (CAP_SYS_ADMIN in the
// mount namespace): where it is refused the test is skipped, naming why.
func smallDisk(t *testing.T, size int64) string {
	t.Helper()
	mnt := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		t.Skipf("a full disk needs a small file system: mount -t tmpfs -o size=%d on %s: %v (the test needs root, CAP_SYS_ADMIN; uid %d)", size, mnt, err, os.Getuid())
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
			_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	return mnt
}

// fill writes path until the file system holding it is full (ENOSPC) and
// returns what it wrote.
func fill(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// leave rewrites the filler at path so that its file system has about
// free bytes free.
func leave(t *testing.T, path string, free uint64) {
	t.Helper()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	now, ok := runs.FreeBytes(filepath.Dir(path))
	if !ok || now < free {
		t.Fatalf("free %d (%v), want at least %d", now, ok, free)
	}
	if err := os.WriteFile(path, make([]byte, now-free), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runUntil runs `sharebench <args>` as a child process (its environment
// marked with mark), calls at once the output shows the line at, and
// returns the output and the exit status once the process has ended.
func runUntil(t *testing.T, mark, at string, then func(), args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^TestHelperMain$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), helperMainEnv+"=1", resumeMarkEnv+"="+mark, "TMPDIR="+t.TempDir())
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
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	seen := false
	for lines.Scan() {
		transcript.WriteString(lines.Text() + "\n")
		if !seen && strings.Contains(lines.Text(), at) {
			seen = true
			then()
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	if !seen {
		t.Fatalf("the campaign never printed %q (%v):\n%s", at, err, transcript.String())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return transcript.String(), 0
	case errors.As(err, &exit):
		return transcript.String(), exit.ExitCode()
	}
	t.Fatalf("%v\n%s", err, transcript.String())
	return "", 0
}

// A campaign whose results folder fills during its third run (kfake, not
// Kafka: the harness's own writes are under test) ends with exit status 4
// and one error naming the file, the bytes and `run --resume FOLDER`; the
// two runs before are intact (run.json parses and passes the integrity
// checks, compare takes them, report renders the folder once there is
// space for the reports); nothing of the campaign is left running. A
// resume with too little space is refused by the preflight before the run
// starts, with the same kind of error; a resume with space completes the
// campaign with all four runs. Needs root for the tmpfs (skipped without).
func TestFullDiskOnTmpfs(t *testing.T) {
	disk := smallDisk(t, 8<<20)
	dir := t.TempDir()
	sc := filepath.Join(dir, "four.yaml")
	if err := os.WriteFile(sc, []byte(fourRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	results, filler := filepath.Join(disk, "results"), filepath.Join(disk, "filler")
	mark := fmt.Sprintf("disk-%d-%d", os.Getpid(), time.Now().UnixNano())
	var filled int64
	out, code := runUntil(t, mark, "r03-share-m1: forming a group", func() { filled = fill(t, filler) },
		"run", "--provider", "kfake", "--scenario", sc, "--results", results)
	if left := leftovers(mark); len(left) > 0 {
		t.Errorf("processes of the campaign still run:\n  %s", strings.Join(left, "\n  "))
	}
	folders, _ := filepath.Glob(filepath.Join(results, "four-*"))
	if len(folders) != 1 {
		t.Fatalf("campaign folders %v\n%s", folders, out)
	}
	folder := folders[0]
	t.Logf("filler %d bytes; exit status %d", filled, code)
	t.Logf("the error: %s", lastLine(out, "sharebench: "))
	if code != ExitNoSpace {
		t.Errorf("exit status %d, want %d (ExitNoSpace)\n%s", code, ExitNoSpace, out)
	}
	msg := lastLine(out, "sharebench: ")
	for _, want := range []string{"sharebench: results folder full: run r03-share-m1: " + filepath.Join(folder, "runs", "r03-share-m1") + string(filepath.Separator),
		": writing ", " bytes", "failed: no space left on device", "2 of 4 run(s) are recorded and intact in " + folder,
		"then continue the campaign with: sharebench run --resume " + folder} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s\n%s", want, msg, out)
		}
	}
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
		t.Errorf("a panic:\n%s", out)
	}

	// Every run written before is intact; the cut-off run left no folder.
	camp, err := runs.ReadCampaign(folder)
	if err != nil {
		t.Fatal(err)
	}
	kept := []string{"r01-consumer-m1", "r02-consumer-m2"}
	if !slices.Equal(camp.Runs, kept) || (camp.Status != runs.StatusFailed && camp.Status != runs.StatusRunning) {
		t.Errorf("campaign.json: status %s, runs %v", camp.Status, camp.Runs)
	}
	for _, id := range kept {
		rec, err := runs.ReadRun(filepath.Join(folder, "runs", id, "run.json"))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if probs := runs.IntegrityProblems(rec); len(probs) > 0 {
			t.Errorf("%s: %v", id, probs)
		}
		for _, f := range rec.Files {
			if st, err := os.Stat(filepath.Join(folder, "runs", id, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %s: %v", id, f, err)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(folder, "runs", "r03-share-m1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run cut off by the full disk left a folder: %v", err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(folder, "*", "*", ".*.tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}

	// compare reads the runs on the full disk; report says it cannot write,
	// naming the file (exit status 4), and renders once there is space.
	r01 := filepath.Join(folder, "runs", "r01-consumer-m1", "run.json")
	if out, err := execute(t, "compare", "--deny-flags", "", r01, r01); err != nil {
		t.Errorf("compare on the full disk: %v\n%s", err, out)
	}
	if _, err := execute(t, "report", folder); exitCode(err) != ExitNoSpace || !strings.Contains(fmt.Sprint(err), folder+string(filepath.Separator)) ||
		!strings.Contains(fmt.Sprint(err), " bytes") {
		t.Errorf("report on the full disk: exit status %d: %v", exitCode(err), err)
	}
	leave(t, filler, 2<<20)
	if out, err := execute(t, "report", folder); err != nil || !strings.Contains(out, "wrote "+filepath.Join(folder, "summary.md")) {
		t.Errorf("report with space: %v\n%s", err, out)
	}
	summary, _ := os.ReadFile(filepath.Join(folder, "summary.md"))
	for _, want := range append([]string{"INCOMPLETE CAMPAIGN"}, kept...) {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}

	// Too little space for the next run: the preflight refuses it.
	leave(t, filler, 256<<10)
	out, err = execute(t, "run", "--resume", folder)
	var df *campaign.DiskFullError
	if !errors.As(err, &df) || df.Write != nil || df.Run != "r03-share-m1" || exitCode(err) != ExitNoSpace ||
		!strings.Contains(err.Error(), "not started: its output estimate is ") || !strings.Contains(err.Error(), "sharebench run --resume "+folder) {
		t.Errorf("resume with 256 KiB free: exit status %d: %v\n%s", exitCode(err), err, out)
	}
	if _, err := os.Lstat(filepath.Join(folder, "runs", "r03-share-m1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run has a folder: %v", err)
	}

	// Space again: the resume completes the campaign.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	out, err = execute(t, "run", "--resume", folder)
	if err != nil {
		t.Fatalf("resume with space: %v\n%s", err, out)
	}
	if !strings.Contains(out, "2 of 4 run(s) kept (r01-consumer-m1, r02-consumer-m2)") || strings.Contains(out, "run 1/4") {
		t.Errorf("resume output:\n%s", out)
	}
	got := campaignShape(t, folder)
	if got.Status != runs.StatusComplete || !slices.Equal(got.Runs, []string{"r01-consumer-m1", "r02-consumer-m2", "r03-share-m1", "r04-share-m2"}) ||
		len(got.Expectations) != 2 || len(got.Reports) != 3 {
		t.Errorf("the resumed campaign: %+v", got)
	}
	camp, err = runs.ReadCampaign(folder)
	if err != nil {
		t.Fatal(err)
	}
	if len(camp.Resumed) != 2 || camp.Resumed[1].PreviousStatus != runs.StatusFailed || !slices.Equal(camp.Resumed[1].Kept, kept) {
		t.Errorf("resumed %+v", camp.Resumed)
	}
	if out, err := execute(t, "compare", "--deny-flags", "", folder, folder); err != nil {
		t.Errorf("compare of the completed campaign: %v\n%s", err, out)
	}
}

// lastLine is the last line of out that starts with prefix ("" if none).
func lastLine(out, prefix string) string {
	msg := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			msg = l
		}
	}
	return msg
}

// A full results folder exits with status 4, whether the campaign says so
// (DiskFullError, wrapped or joined) or a command's write does
// (runs.NoSpaceError: report); ENOSPC from anywhere else stays an error
// while running (1). No root needed.
func TestNoSpaceExitStatus(t *testing.T) {
	ns := &runs.NoSpaceError{Path: "/r/c/summary.md", Bytes: 4470, Free: 0, Err: syscall.ENOSPC}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{&campaign.DiskFullError{Dir: "/r/c", Run: "r03", Write: ns, Done: 2, Total: 4}, ExitNoSpace},
		{&campaign.DiskFullError{Dir: "/r/c", Run: "r03", Need: 1 << 20, Done: 2, Total: 4}, ExitNoSpace},
		{fmt.Errorf("report: %w", ns), ExitNoSpace},
		{errors.Join(errors.New("run r02: failed"), ns), ExitNoSpace},
		{fmt.Errorf("broker data: %w", syscall.ENOSPC), ExitError},
		{errors.New("run r02: failed"), ExitError},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
