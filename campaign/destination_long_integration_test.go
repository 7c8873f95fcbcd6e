//go:build integration && long

package campaign

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The destination-bound built-in on a real Kafka 4.2 broker and the
// embedded PostgreSQL: every expectation met (each run drains within 15 %
// of ceiling.destination, nothing missing, the 8-member share group within
// 1.25× of the 4-member one behind the 4 shared connections), every run
// names the destination as the bound that held, and nothing is left
// running.
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

// A consumer group on a real broker that writes without a key
// (idempotent: false) and loses two members: the records the crashed members
// had written but not yet committed (their batches were unsettled) are
// redelivered to a survivor and written again, and the table keeps both
// rows. The audit counts them: duplicate rows = rows − records, predicted
// from the harness's own counts as the members' writes − the records the
// ledger completed, and at least the ledger's repeat completions, at most
// the redeliveries (a repeat row needs a redelivered record that was
// written before). Nothing is missing; the table holds exactly the
// members' writes.
func TestDestinationNonIdempotentCrashOnKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	needPostgres(t)
	s := baseSpec()
	s.ConsumerType, s.Partitions, s.Members, s.Workers, s.MaxPollRecords = "consumer", 4, 4, 2, 50
	s.Processing.Time = 10 * time.Millisecond
	// 4 members × 2 workers ÷ (10 ms + a write of about 1.5 ms) ≈ 700
	// records/s: at 600 the members are busy most of the time, so a crash
	// most likely lands inside a batch whose first records are written and
	// not committed; two crashed members make a run with no such record
	// rare. The survivors fall behind until the drain; the crashed members'
	// close (at most 10 s) ends inside the 16 s window.
	s.Rate, s.Warmup, s.Duration = 600, 2*time.Second, 16*time.Second
	s.GroupProtocol, s.Assignor, s.RemoteAssignor = "classic", "cooperative-sticky", "uniform"
	s.SessionTimeout = 6 * time.Second
	s.Events = []scenarios.Event{{At: 4 * time.Second, Action: scenarios.ActionCrash, Members: 2}}
	s.Destination = &scenarios.Destination{Kind: "postgres", Key: "offset", Idempotent: false, BatchSize: 1, BatchWait: 5 * time.Millisecond, Pool: 1}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	r := runMeasured(t, s, "destination-non-idempotent-crash").Record
	if len(r.Events) != 1 || r.Events[0].Error != "" {
		t.Fatalf("events %+v: want the one crash", r.Events)
	}
	t.Logf("%s", report.EventLine(r, r.Events[0]))
	d := r.Destination
	if d == nil || d.DestinationAudit == nil {
		t.Fatalf("no destination read-back: %+v (errors %v)", d, r.Errors)
	}
	a := *d.DestinationAudit
	completed := r.Audit.CompletedOnce + r.Audit.Duplicates
	predicted := a.Writes - completed
	t.Logf("destination: %+v; predicted duplicate rows %d (writes %d − completed %d); redelivered %d, repeat completions %d, held by the crashed member %d",
		a, predicted, a.Writes, completed, r.Outcomes.Redelivered, r.Audit.DuplicateCompletions, r.Events[0].HeldByCrashed)
	if r.Outcomes.Redelivered == 0 || a.DuplicateRows == 0 {
		t.Errorf("redelivered %d, duplicate rows %d: the crash must hand the members' written, uncommitted records to a survivor, which writes them again",
			r.Outcomes.Redelivered, a.DuplicateRows)
	}
	if a.Missing != 0 || a.Foreign != 0 || a.Records != completed {
		t.Errorf("table %+v: want a row for every completed record (%d), none missing or foreign", a, completed)
	}
	if a.Rows != a.Writes || a.TableWrites != a.Writes || a.DuplicatesAbsorbed != 0 {
		t.Errorf("rows %d, table writes %d, writes %d, absorbed %d: without a key every write is a row and nothing is absorbed",
			a.Rows, a.TableWrites, a.Writes, a.DuplicatesAbsorbed)
	}
	if a.DuplicateRows != a.Rows-a.Records || a.DuplicateRows != predicted {
		t.Errorf("duplicate rows %d: want rows − records %d = writes − completed %d", a.DuplicateRows, a.Rows-a.Records, predicted)
	}
	if a.DuplicateRows < r.Audit.DuplicateCompletions || a.DuplicateRows > r.Outcomes.Redelivered {
		t.Errorf("duplicate rows %d outside [repeat completions %d, redeliveries %d]", a.DuplicateRows, r.Audit.DuplicateCompletions, r.Outcomes.Redelivered)
	}
	for _, f := range r.Validity.Flags {
		if f.Code == runs.CodeDestinationUnreconciled || f.Code == runs.CodeDestinationWriteErrors {
			t.Errorf("flagged %s: %s", f.Code, f.Message)
		}
	}
}
