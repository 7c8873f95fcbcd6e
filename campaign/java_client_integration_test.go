//go:build integration

package campaign

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

func needJavaClient(t *testing.T) {
	t.Helper()
	if err := consumers.CheckJavaClient(); err != nil {
		t.Skip(err)
	}
}

// javaSpec is a small workload both clients run: 2 partitions, 4 members,
// 5 ms per record, 300 records/s for 2 s + 5 s.
func javaSpec(ctype, client string) scenarios.RunSpec {
	s := baseSpec()
	s.ConsumerType, s.Client = vocab.GroupType(ctype), vocab.Client(client)
	s.Members, s.Rate = 4, 300
	s.Processing.Time = 5 * time.Millisecond
	s.Warmup, s.Duration = 2*time.Second, 5*time.Second
	return s
}

// TestJavaClientParity runs the same small workload on franz-go and on the
// Java client, for both group types: audits balance (runMeasured), the
// completed counts agree, and run.json names the client.
func TestJavaClientParity(t *testing.T) {
	needJavaClient(t)
	for _, ctype := range []string{"consumer", "share"} {
		franz := runSpec(t, javaSpec(ctype, "franz-go"), "jp-"+ctype+"-franz-go")
		java := runSpec(t, javaSpec(ctype, "java"), "jp-"+ctype+"-java")
		if java.Client == nil || java.Client.Name != "java" || java.Client.Version != "4.2.2" || java.Client.Clock == nil {
			t.Errorf("%s: java run.json client %+v", ctype, java.Client)
		} else if b := java.Client.Clock.BoundNs; b <= 0 || b > int64(5*time.Millisecond) {
			t.Errorf("%s: clock alignment bound %v", ctype, time.Duration(b))
		}
		if franz.Client == nil || franz.Client.Name != "franz-go" || franz.Client.Clock != nil {
			t.Errorf("%s: franz-go run.json client %+v", ctype, franz.Client)
		}
		checkJavaRequestRows(t, ctype, java.Requests)
		if java.Audit.CompletedOnce != java.Audit.Produced || franz.Audit.CompletedOnce != franz.Audit.Produced {
			t.Errorf("%s: completed once java %d/%d, franz-go %d/%d", ctype, java.Audit.CompletedOnce, java.Audit.Produced,
				franz.Audit.CompletedOnce, franz.Audit.Produced)
		}
		ratio := java.Throughput.CompletedPerSec / franz.Throughput.CompletedPerSec
		t.Logf("%s: completed/s java %.1f franz-go %.1f (ratio %.3f); completion p99 java %.1f ms franz-go %.1f ms",
			ctype, java.Throughput.CompletedPerSec, franz.Throughput.CompletedPerSec, ratio,
			java.Latency.CompletionMs.P99, franz.Latency.CompletionMs.P99)
		if ratio < 0.9 || ratio > 1.1 {
			t.Errorf("%s: java/franz-go completed per second %.3f, want within 10%%", ctype, ratio)
		}
	}
}

// checkJavaRequestRows requires a Java run's request rows to come from the
// client's metrics: at least one untimed "all (java client metrics)" row with
// requests counted; per broker, one timed row of the group type's fetch
// responses (share: ShareFetch and ShareAcknowledge; consumer: Fetch) with
// responses timed, no more than the requests written to that broker, a
// mean no larger than the maximum, wait_s = mean × count, and the empty
// share named unavailable; and no row that claims Kafka's own fetch kind
// (the Java client counts no empty fetches).
func checkJavaRequestRows(t *testing.T, ctype string, reqs []runs.RequestFigure) {
	t.Helper()
	kind := consumers.JavaShareFetchKind
	if ctype == "consumer" {
		kind = consumers.JavaFetchKind
	}
	counted := map[int32]int64{}
	for _, r := range reqs {
		if r.Kind == consumers.JavaRequestsKind && r.Count > 0 && r.Untimed && r.PerSec > 0 {
			counted[r.Broker] = r.Count
		}
	}
	if len(counted) == 0 {
		t.Errorf("%s: java run.json requests %+v: want a %q row with count > 0", ctype, reqs, consumers.JavaRequestsKind)
	}
	var timed int
	for _, r := range reqs {
		if runs.IsFetch(r.Kind) || r.Broker < 0 || r.Unavailable == "" {
			t.Errorf("%s: java request row %+v: want rows of brokers, no Kafka fetch kind, what is unknown named", ctype, r)
		}
		switch r.Kind {
		case consumers.JavaRequestsKind, consumers.JavaCoordinatorRequestsKind:
			if !r.Untimed {
				t.Errorf("%s: java request row %+v: want untimed", ctype, r)
			}
		case kind:
			timed++
			wait := r.MeanMs * float64(r.Count) / 1e3
			if r.Untimed || r.Count <= 0 || r.Count > counted[r.Broker] || r.MeanMs < 0 || r.MeanMs > r.MaxMs || r.EmptyShare != 0 ||
				math.Abs(r.WaitSec-wait) > 1e-6*max(1, wait) {
				t.Errorf("%s: java fetch-response row %+v: want 0 < count ≤ the %d requests to broker %d, mean ≤ max, wait_s = mean × count, no empty share",
					ctype, r, counted[r.Broker], r.Broker)
			}
		default:
			t.Errorf("%s: java request row of kind %q", ctype, r.Kind)
		}
	}
	if timed == 0 {
		t.Errorf("%s: java run.json requests %+v: want a timed %q row", ctype, reqs, kind)
	}
}

// runnerPIDs lists the Java runner JVMs this test process started.
func runnerPIDs() []int {
	var out []int
	me := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "sharebench.runner.Main") {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(me) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			out = append(out, pid)
		}
	}
	return out
}

// TestJavaRunnerKilledMidRun kills the runner JVM in the middle of a run
// with a signal the harness did not send: the run says so ("java runner was
// killed by signal killed, which the harness did not send", the flag
// client_killed, not a generic error), and no runner JVM is left.
func TestJavaRunnerKilledMidRun(t *testing.T) {
	needJavaClient(t)
	if len(runnerPIDs()) != 0 {
		t.Fatal("a runner of this test process is running before the test")
	}
	s := javaSpec("share", "java")
	s.Duration = 8 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	killed := make(chan int, 1)
	go func() {
		defer close(killed)
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if pids := runnerPIDs(); len(pids) == 1 {
				time.Sleep(12 * time.Second) // group ready, into the window
				_ = syscall.Kill(pids[0], syscall.SIGKILL)
				killed <- pids[0]
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	m, err := RunOne(ctx, needKafka(t), s, "jk-share-java", testLog(t))
	pid, ok := <-killed
	if !ok {
		t.Fatal("the runner JVM was never seen")
	}
	var msg string
	if err != nil {
		msg = err.Error()
	} else {
		for _, f := range m.Record.Validity.Flags {
			if f.Code == runs.CodeClientKilled {
				msg = f.Message
			}
		}
		if slices.ContainsFunc(m.Record.Validity.Flags, func(f runs.Flag) bool { return f.Code == runs.CodeError }) {
			t.Errorf("validity flags %v: the kill is client_killed, not a generic error", m.Record.Validity.Flags)
		}
	}
	t.Logf("killed runner %d; run: %s", pid, msg)
	if !strings.Contains(msg, "java runner was killed by signal killed, which the harness did not send") {
		t.Errorf("run error or client_killed flag %q does not say the java runner was killed from outside", msg)
	}
	if left := runnerPIDs(); len(left) != 0 {
		t.Errorf("runner JVMs left: %v", left)
	}
}
