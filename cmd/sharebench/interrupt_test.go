//go:build integration

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
)

// Ctrl-C in the middle of a real run: the CLI stops its broker JVM, exits
// 130 and leaves no process behind.
func TestInterruptMidRunLeavesNoJVM(t *testing.T) {
	testkit.NeedJava(t)
	pidRE := regexp.MustCompile(`broker \d+: started, pid (\d+)`)
	var pids []int
	interruptMidRun(t, "process", func(line string) {
		if m := pidRE.FindStringSubmatch(line); m != nil {
			pid, _ := strconv.Atoi(m[1])
			pids = append(pids, pid)
		}
	}, func(_ int, transcript string) {
		if len(pids) == 0 {
			t.Fatalf("never saw a broker start:\n%s", transcript)
		}
	})
	testkit.AssertGone(t, pids, 0) // reports and kills any broker JVM left after Ctrl-C
}

// interruptMidRun builds the CLI, runs the smoke scenario on provider,
// hands every output line to onLine until the producers start, calls
// midRun (with the CLI's pid and the output so far) while the run is busy, sends Ctrl-C two
// seconds later and checks the CLI exits with status 130.
func interruptMidRun(t *testing.T, provider string, onLine func(string), midRun func(pid int, transcript string)) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "sharebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "run", "--provider", provider, "--scenario", "smoke", "--results", dir,
		"--set", "duration=60s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var transcript strings.Builder
	sc := bufio.NewScanner(stdout)
	deadline := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		line := sc.Text()
		transcript.WriteString(line + "\n")
		onLine(line)
		if strings.Contains(line, "producing") {
			break
		}
	}
	midRun(cmd.Process.Pid, transcript.String())
	time.Sleep(2 * time.Second) // mid-run: producers and consumers busy
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	go func() { // keep draining output so the process never blocks on a full pipe
		for sc.Scan() {
			transcript.WriteString(sc.Text() + "\n")
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit: %v, want status 130\n%s", err, transcript.String())
	}
}
