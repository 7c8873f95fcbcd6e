//go:build integration && long

package campaign

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The destination-bound built-in on a real Kafka 4.2 broker and the
// embedded PostgreSQL: every expectation met (each run drains within 15 %
// of ceiling.destination, nothing missing), every run names the
// destination as the bound that held, and nothing is left running.
func TestDestinationBoundBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		testkit.Unavailable(t, reason)
	}
	needPostgres(t)
	tmp := privateTmp(t)
	sc, err := scenarios.Builtin("destination-bound")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		d := r.Destination
		if d == nil || d.DestinationAudit == nil {
			t.Fatalf("%s: no destination read-back (errors %v)", r.RunID, r.Errors)
		}
		t.Logf("%s: completed %.0f/s, destination capacity %.0f/s (service %.3f ms, write p50 %.2f ms), workers %.0f/s, held %s (%s)",
			r.RunID, r.Throughput.CompletedPerSec, r.Ceiling.Destination, d.ServiceMs, d.WriteMs.P50, r.Ceiling.Workers, r.Ceiling.HeldBound(), r.Ceiling.Evidence)
		if r.Ceiling.HeldBound() != runs.BoundDestination {
			t.Errorf("%s: held %s, want destination", r.RunID, r.Ceiling.HeldBound())
		}
	}
	for _, e := range res.Expectations {
		if !e.Met {
			t.Errorf("expectation not met: %s: %s", e.Name, e.Detail)
		}
	}
	if left := leftPostgres(tmp); left != "" {
		t.Errorf("left behind: %s", left)
	}
}
