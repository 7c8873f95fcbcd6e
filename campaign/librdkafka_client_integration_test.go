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
	"github.com/sharebench/sharebench/vocab"
)

// TestLibrdkafkaClientOnKafka runs the small client workload (javaSpec:
// 2 partitions, 4 members, 5 ms per record, 300 records/s for 2 s + 5 s)
// on the librdkafka runner for a consumer group and a share group in both
// acknowledgement modes, on a real broker: audits balance (runMeasured),
// every record completes once, the completion rate is the formula's (the
// offered rate: the ceiling, 400/s partition-bound or 800/s worker-bound,
// lies above it), and run.json names librdkafka with its versions and its
// preview status.
func TestLibrdkafkaClientOnKafka(t *testing.T) {
	if err := consumers.CheckLibrdkafkaClient(); err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		name  string
		ctype string
		ack   vocab.AckMode
	}{
		{"consumer", "consumer", vocab.AckImplicit},
		{"share-implicit", "share", vocab.AckImplicit},
		{"share-explicit", "share", vocab.AckExplicit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := javaSpec(tc.ctype, "librdkafka")
			s.AckMode = tc.ack
			r := runSpec(t, s, "lr-"+tc.name)
			c := r.Client
			if c == nil || c.Name != "librdkafka" || c.Version != "2.16.0" || c.Package != "confluent-kafka 2.16.1" || !c.Preview || c.Clock == nil {
				t.Errorf("run.json client %+v", c)
			} else if b := c.Clock.BoundNs; b <= 0 || b > int64(5*time.Millisecond) {
				t.Errorf("clock alignment bound %v", time.Duration(b))
			}
			if r.Audit.CompletedOnce != r.Audit.Produced || r.Audit.Duplicates != 0 {
				t.Errorf("completed once %d of %d produced, duplicates %d", r.Audit.CompletedOnce, r.Audit.Produced, r.Audit.Duplicates)
			}
			want := math.Min(s.Rate, r.Ceiling.RecordsPerSec)
			got := r.Throughput.CompletedPerSec
			t.Logf("completed %.1f/s, formula %.1f/s (rate %.0f, ceiling %.1f %s); completion p50 %.1f ms p99 %.1f ms; records/poll p50 %.1f",
				got, want, s.Rate, r.Ceiling.RecordsPerSec, r.Ceiling.Bound, r.Latency.CompletionMs.P50, r.Latency.CompletionMs.P99, r.Polls.RecordsPerPoll.P50)
			if got < 0.9*want || got > 1.1*want {
				t.Errorf("completed %.1f/s, want within 10%% of the formula's %.1f/s", got, want)
			}
		})
	}
}

// childPIDs lists this test process's children whose command line holds
// marker.
func childPIDs(marker string) []int {
	var out []int
	me := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == me {
			pid, _ := strconv.Atoi(filepath.Base(d))
			out = append(out, pid)
		}
	}
	return out
}

// TestLibrdkafkaRunnerKilledMidRun kills the librdkafka runner in the
// middle of a run: the run gets the client_killed flag, whose message says
// "librdkafka runner was killed by signal …", and no runner process is
// left.
func TestLibrdkafkaRunnerKilledMidRun(t *testing.T) {
	if err := consumers.CheckLibrdkafkaClient(); err != nil {
		t.Skip(err)
	}
	const marker = "rdkafkarunner"
	if len(childPIDs(marker)) != 0 {
		t.Fatal("a runner of this test process is running before the test")
	}
	s := javaSpec("share", "librdkafka")
	s.Duration = 8 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	killed := make(chan int, 1)
	go func() {
		defer close(killed)
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if pids := childPIDs(marker); len(pids) == 1 {
				time.Sleep(15 * time.Second) // group formed, into the window
				_ = syscall.Kill(pids[0], syscall.SIGKILL)
				killed <- pids[0]
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	m, err := RunOne(ctx, needKafka(t), s, "lrk-share", testLog(t))
	pid, ok := <-killed
	if !ok {
		t.Fatal("the runner was never seen")
	}
	var msg string
	if err != nil {
		msg = err.Error()
	} else {
		msg = strings.Join(m.Record.Errors, "; ")
	}
	t.Logf("killed runner %d; run: %s", pid, msg)
	// A signal the harness did not send: the run says so with its own flag
	// (client_killed), naming the runner.
	if err != nil {
		t.Fatalf("run failed instead of flagging the kill: %v", err)
	}
	i := slices.IndexFunc(m.Record.Validity.Flags, func(f runs.Flag) bool { return f.Code == runs.CodeClientKilled })
	if i < 0 || !strings.Contains(m.Record.Validity.Flags[i].Message, "librdkafka runner was killed by signal") {
		t.Errorf("validity flags %v: want client_killed naming the librdkafka runner", m.Record.Validity.Flags)
	}
	if left := childPIDs(marker); len(left) != 0 {
		t.Errorf("runner processes left: %v", left)
	}
}
