//go:build integration

package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
)

// TestJavaRunnerClosesHoldingLocks stops a Java share fleet whose members
// hold records under lock, in the middle of long batches: 6 partitions, 16
// members × 1 worker, 500 ms a record, max_poll_records 100, and a drain
// timeout that ends the run while every member is still processing (the
// shape of a rate-mode run whose acquisitions outlive the lock). The runner
// must close every client within the close timeout and exit by itself: the
// run carries no error, client_close_timeout or client_killed flag, the
// runner JVM is gone, and the records the members held were released
// (nothing in flight once the broker has them back, nothing lost).
func TestJavaRunnerClosesHoldingLocks(t *testing.T) {
	needJavaClient(t)
	if len(runnerPIDs()) != 0 {
		t.Fatal("a runner of this test process is running before the test")
	}
	s := javaSpec("share", "java")
	s.Partitions, s.Members, s.Workers, s.MaxPollRecords = 6, 16, 1, 100
	s.Processing.Time = 500 * time.Millisecond
	s.Rate = 60
	s.Warmup, s.Duration = 2*time.Second, 4*time.Second
	s.DrainTimeout = 8 * time.Second // far short of 360 records at 32/s: the members hold batches at the stop
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	m, err := RunOne(ctx, needKafka(t), s, "jc-share-java", testLog(t))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	r := m.Record
	t.Logf("run took %v; audit %+v; flags %v; errors %v", time.Since(start).Round(time.Millisecond), r.Audit, r.Validity.Flags, r.Errors)
	for _, f := range r.Validity.Flags {
		if f.Code == runs.CodeError || f.Code == runs.CodeClientCloseTimeout || f.Code == runs.CodeClientKilled {
			t.Errorf("flag %s: %s", f.Code, f.Message)
		}
	}
	if !slices.ContainsFunc(r.Validity.Flags, func(f runs.Flag) bool { return f.Code == runs.CodeDrainTimeout }) {
		t.Errorf("flags %v: the drain was meant to time out with batches held", r.Validity.Codes())
	}
	if r.Audit.Lost != 0 || !r.Audit.Balanced {
		t.Errorf("audit %+v: want balanced, nothing lost", r.Audit)
	}
	for _, e := range r.Errors {
		if strings.Contains(e, "java runner") {
			t.Errorf("run error %q", e)
		}
	}
	if left := runnerPIDs(); len(left) != 0 {
		t.Errorf("runner JVMs left: %v", left)
	}
}
