package consumers

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results"
)

// These tests start the Java runner JVM (never a broker): they need a JDK
// and Maven, build the runner once into the cache (SHAREBENCH_CACHE), and
// skip under -short or without the tools.

func needJavaTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a JVM and Maven: skipped with -short")
	}
	if err := CheckJavaClient(); err != nil {
		t.Skip(err)
	}
}

// startIdleRunner starts the runner with no members and a bootstrap address
// nothing listens on: only the control channel and the clock are used.
func startIdleRunner(t *testing.T, ctx context.Context) (*javaFleet, *results.Recorder) {
	t.Helper()
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 7, results.NewLedger(1, 10), results.NewSeries(clock.Now(), 60))
	c := Config{Brokers: []string{"127.0.0.1:1"}, Topic: "t", Group: "g", Type: ShareGroup, Members: 0, Workers: 1,
		MaxPollRecords: 1, Acquire: AcquireRecordLimit, Ack: AckExplicit, Processing: Processing{Model: ModelNone},
		Style: StyleBlocking, Client: ClientJava, KafkaVersion: "4.2.2", CloseTimeout: 2 * time.Second}
	bctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if _, err := JavaRunnerDir(bctx, c.KafkaVersion, testkit.Log(t)); err != nil {
		t.Skipf("java runner cannot be built here: %v", err)
	}
	j, err := startJava(ctx, c, rec)
	if err != nil {
		t.Fatal(err)
	}
	return j, rec
}

// TestJavaRunnerClockAlignment measures the offset between the harness's
// clock and the runner JVM's over the control channel, and its bound.
func TestJavaRunnerClockAlignment(t *testing.T) {
	needJavaTools(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, rec := startIdleRunner(t, ctx)
	cc, ok := rec.ClientClock()
	if !ok {
		t.Fatal("no client clock recorded")
	}
	t.Logf("java runner clock: offset %v, bound %v", time.Duration(cc.OffsetNs), time.Duration(cc.BoundNs))
	if cc.BoundNs <= 0 || cc.BoundNs > int64(5*time.Millisecond) {
		t.Errorf("alignment bound %v: want (0, 5ms] on one host", time.Duration(cc.BoundNs))
	}
	// Both clocks are wall time at start plus a monotonic reading, so the
	// offset is the difference of two wall-clock reads: small.
	if cc.OffsetNs < -int64(time.Second) || cc.OffsetNs > int64(time.Second) {
		t.Errorf("offset %v: want well under a second", time.Duration(cc.OffsetNs))
	}
	// A second measurement on the same runner agrees within both bounds.
	off2, bound2, err := alignClocks(rec.Clock.Now, j.ping, j.pongs, j.readDone, javaPingRounds, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if d := off2 - cc.OffsetNs; d < -(bound2+cc.BoundNs) || d > bound2+cc.BoundNs {
		t.Errorf("second alignment %v ± %v disagrees with %v ± %v", time.Duration(off2), time.Duration(bound2),
			time.Duration(cc.OffsetNs), time.Duration(cc.BoundNs))
	}
	cancel()
	if err := j.Wait(); err != nil {
		t.Errorf("clean stop: %v", err)
	}
	checkGone(t, j.cmd.Process.Pid)
}

// TestJavaRunnerKilled: a runner killed by a signal the harness did not send
// makes Wait fail saying so (RunnerExit ExitKilled: the flag client_killed),
// and leaves no process behind.
func TestJavaRunnerKilled(t *testing.T) {
	needJavaTools(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, _ := startIdleRunner(t, ctx)
	pid := j.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- j.Wait() }()
	select {
	case err := <-done:
		if x, ok := AsRunnerExit(err); !ok || x.Reason != ExitKilled ||
			!strings.Contains(err.Error(), "java runner was killed by signal killed, which the harness did not send") {
			t.Errorf("Wait after kill: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not return after the runner was killed")
	}
	checkGone(t, pid)
}

// checkGone fails if pid (or a process in its group) is still alive.
func checkGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(-pid, 0); err != nil {
			return // no process in the group
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("runner process group %d still alive", pid)
}

// TestJavaRunnerUnitTests runs the runner's JUnit tests (mvn -q test) on a
// copy of javarunner/, among them VectorsTest: the Java side of the
// cross-language vectors TestJavaVectors checks on the Go side.
func TestJavaRunnerUnitTests(t *testing.T) {
	needJavaTools(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("javarunner")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "target"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mvn", "-q", "-B", "test")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn test: %v\n%s", err, lastLines(string(out), 60))
	}
	reports, _ := filepath.Glob(filepath.Join(dir, "target", "surefire-reports", "*.txt"))
	if len(reports) < 3 {
		t.Errorf("surefire reports: %v", reports)
	}
	for _, r := range reports {
		b, _ := os.ReadFile(r)
		t.Log(strings.TrimSpace(lastLines(string(b), 1)))
	}
}
