package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
)

// helperMainEnv makes this test binary act as the sharebench command (its
// arguments after "--") so a test can signal a real process. Not a
// SHAREBENCH_* variable: those are the scenario's.
const helperMainEnv = "SB_TEST_HELPER_MAIN"

// TestHelperMain is not a test: it is the command, run by signalDuringFill
// in a child process.
func TestHelperMain(t *testing.T) {
	if os.Getenv(helperMainEnv) != "1" {
		t.Skip("the sharebench command for the signal tests' child process")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Args = append([]string{"sharebench"}, args...)
	main()
}

// SIGINT and SIGTERM during a backlog fill stop the campaign: exit status
// 130, campaign.json marked interrupted with the run that finished, the
// fill not carried on into the consumers, and no "%!w(<nil>)" anywhere
// (kfake, not Kafka).
func TestSignalDuringFillExits130(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { signalDuringFill(t, sig) })
	}
}

func signalDuringFill(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "fill.yaml")
	yaml := `name: fillstop
consumer_type: share
load_mode: backlog
backlog_records: [200, 3000000]
producers: 1
partitions: 1
members: 1
processing: {model: none}
drain_timeout: 120s
`
	if err := os.WriteFile(sc, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperMain$", "--",
		"run", "--provider", "kfake", "--scenario", sc, "--results", dir)
	cmd.Env = append(os.Environ(), helperMainEnv+"=1")
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
	for lines.Scan() {
		transcript.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "filling a backlog of 3000000 records") {
			break
		}
	}
	signalled := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal: %v\n%s", err, transcript.String())
	}
	for lines.Scan() {
		transcript.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	out := transcript.String()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("exit: %v, want status %d\n%s", err, ExitInterrupted, out)
	}
	if took := time.Since(signalled); took > time.Minute {
		t.Errorf("%v after the signal to exit", took)
	}
	if strings.Contains(out, "%!") {
		t.Errorf("a malformed message:\n%s", out)
	}
	if i := strings.Index(out, "filling a backlog of 3000000"); i >= 0 && strings.Contains(out[i:], "starting the consumers") {
		t.Errorf("the interrupted fill went on to the consumers:\n%s", out)
	}
	if !strings.Contains(out, "sharebench: interrupted") {
		t.Errorf("no interrupted line:\n%s", out)
	}
	folders, _ := filepath.Glob(filepath.Join(dir, "fillstop-*"))
	if len(folders) != 1 {
		t.Fatalf("campaign folders %v\n%s", folders, out)
	}
	camp, err := runs.ReadCampaign(folders[0])
	if err != nil || camp.Status != runs.StatusInterrupted || len(camp.Runs) != 1 {
		t.Errorf("campaign.json: %v status %q runs %d, want interrupted with the 1 finished run\n%s", err, camp.Status, len(camp.Runs), out)
	}
}
