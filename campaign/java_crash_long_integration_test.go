//go:build integration && long

package campaign

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// The built-in member-crash on the Java client: the crashed member runs in
// a JVM of its own, which the crash SIGKILLs while the other members' JVM
// runs on (seen in /proc), so nothing of it reaches the broker any more.
// The consumer group then gets its partition back by the session timeout
// (6 s: a dead JVM sends no leave request, whatever max.poll.interval.ms
// says), the share group its records by lock expiry (5 s) or at once (the
// killed JVM's connections close), and every one of the built-in's
// expectations for java holds: nothing lost, audits balanced, redeliveries
// about what the crashed member held.
func TestJavaMemberCrashKillsItsJVM(t *testing.T) {
	needJavaClient(t)
	sc, err := scenarios.Builtin("member-crash")
	if err != nil {
		t.Fatal(err)
	}
	for i := range sc.Runs {
		sc.Runs[i].Client = vocab.ClientJava
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	w := watchJVMs(ctx)
	var log bytes.Buffer
	res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log})
	if err != nil {
		t.Log(log.String())
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(res.Runs))
	}
	for _, r := range res.Runs {
		if r.Client == nil || r.Client.Name != "java" {
			t.Errorf("%s: client %+v", r.RunID, r.Client)
		}
		if s := r.EventSummary; s != nil {
			t.Logf("%s (%s %s): held %d, redeliveries %d, first redelivery ≤ %v s; audit %+v", r.RunID, r.Spec.ConsumerType, r.Spec.AckMode,
				s.HeldByCrashed, s.Redeliveries, deref(s.FirstRedeliveryMaxSec), r.Audit)
		}
	}
	// The share timing claims name their client (member-crash.yaml): the
	// franz-go one (after the lock, connections frozen) has no run here and
	// is SKIPPED; java's (by the lock or at once: a killed JVM's sockets
	// close, and Kafka 4.2 releases a closed connection's share records) and
	// every other claim must hold.
	skipped := 0
	for _, o := range res.Expectations {
		switch {
		case o.Skipped:
			skipped++
			t.Logf("skipped: %s", o.Line())
			if !strings.Contains(o.Name, "franz-go") && !strings.Contains(o.Name, "librdkafka") && !strings.Contains(o.Name, "(spring)") {
				t.Errorf("skipped, and not another client's claim: %s", o.Line())
			}
		case o.Met:
			t.Logf("met: %s", o.Line())
		default:
			t.Errorf("NOT MET: %s", o.Line())
		}
	}
	if skipped != 3 {
		t.Errorf("%d claims skipped, want 3 (franz-go's, librdkafka's and spring's share timing)", skipped)
	}
	w.mu.Lock()
	for pid, f := range w.first {
		t.Logf("runner JVM %d: seen %s – %s", pid, f.Format("15:04:05.0"), w.last[pid].Format("15:04:05.0"))
	}
	w.mu.Unlock()
	if n := w.crashKills(); n < 3 {
		t.Errorf("%d JVMs of their own ended before their fleet's JVM, want one per run (3)", n)
	}
	if left := runnerPIDs(); len(left) != 0 {
		t.Errorf("runner JVMs left: %v", left)
	}
}
