package consumers

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

// stubConfluentKafka stands in for confluent-kafka (no broker, nothing
// installed): a ShareConsumer whose polls return nothing. close() writes a
// file named after the member's client id, so a test sees which members
// closed their clients.
const stubConfluentKafka = `import os, time

class KafkaException(Exception):
    pass

class AcknowledgeType:
    ACCEPT, RELEASE, REJECT = 1, 2, 3

class ShareConsumer:
    def __init__(self, props):
        self.props = props
    def set_acknowledgement_commit_callback(self, cb):
        pass
    def subscribe(self, topics):
        pass
    def poll(self, timeout):
        time.sleep(timeout)
        return []
    def close(self):
        open(os.path.join(os.environ["STUB_CLOSED_DIR"], str(self.props.get("client.id"))), "w").close()
`

// TestLibrdkafkaCrashKillsItsProcess: with client librdkafka, the member a
// crash takes (Config.OwnJVM) runs in a runner process of its own, which
// Crash SIGKILLs once the member has stopped (its client never closed);
// the fleet's process and its other member run on, and the run ends
// cleanly (a crash kill is not an error).
func TestLibrdkafkaCrashKillsItsProcess(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	closed := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runner.py"), librdkafkaRunnerSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "confluent_kafka"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "confluent_kafka", "__init__.py"), []byte(stubConfluentKafka), 0o644); err != nil {
		t.Fatal(err)
	}
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 7, results.NewLedger(1, 10), results.NewSeries(clock.Now(), 60))
	c := Config{Brokers: []string{"127.0.0.1:1"}, Topic: "t", Group: "g", Type: ShareGroup, Members: 2, Workers: 1,
		MaxPollRecords: 1, Acquire: AcquireBatchOptimized, Ack: AckExplicit, Processing: Processing{Model: ModelNone},
		Style: StyleBlocking, Client: ClientLibrdkafka, CloseTimeout: 2 * time.Second, OwnJVM: []int{0}}
	if err := c.validate(); err != nil {
		t.Fatalf("client librdkafka with a member in a process of its own: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, err := startRunner(ctx, c, rec, "librdkafka runner", func(cfgFile string) *exec.Cmd {
		cmd := exec.Command("python3", "-B", "-u", filepath.Join(dir, "runner.py"), cfgFile)
		cmd.Env = append(os.Environ(), "STUB_CLOSED_DIR="+closed)
		return cmd
	})
	if err != nil {
		t.Fatal(err)
	}
	own := j.own[0]
	if len(j.own) != 1 || own == nil || own.cmd.Process.Pid == j.cmd.Process.Pid {
		t.Fatalf("member 0 runs in %v, want a process of its own", j.own)
	}
	if own.memberRec(0) == nil || j.memberRec(1) == nil || j.memberRec(0) != nil {
		t.Fatalf("member 0 must be in its own process and member 1 in the fleet's")
	}
	pid := own.cmd.Process.Pid
	time.Sleep(300 * time.Millisecond) // both members polling
	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	defer ccancel()
	ids, err := j.Crash(cctx, 1)
	if err != nil || len(ids) != 1 || ids[0] != 0 {
		t.Fatalf("crash: %v, %v; want member 0", ids, err)
	}
	select {
	case <-own.done:
	case <-time.After(5 * time.Second):
		t.Fatal("member 0's process still runs after its crash")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("process %d of the crashed member still exists", pid)
	}
	select {
	case <-j.done:
		t.Fatalf("the fleet's process ended with the crash: %v", j.err)
	default:
	}
	if j.Members() != 1 {
		t.Errorf("%d members after the crash, want 1", j.Members())
	}
	cancel()
	if err := j.Wait(); err != nil {
		t.Fatalf("a run with a crash kill must end cleanly: %v", err)
	}
	if _, err := os.Stat(filepath.Join(closed, "sharebench-librdkafka-0")); err == nil {
		t.Error("the crashed member closed its client")
	}
	entries, _ := os.ReadDir(closed)
	if len(entries) != 1 {
		t.Errorf("closed clients %v: want the surviving member's only", entries)
	}
}
