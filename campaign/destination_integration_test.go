//go:build integration

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// A share group on a real broker writing to an embedded PostgreSQL, with a
// member crash: with implicit acknowledgement a batch is ACCEPTed by the
// next poll, so the records of the crashed member's last batch that its
// workers had written come back after the 15 s lock and are written again
// (at 250 records/s against 300 of capacity the polls return batches of
// several records). The table reconciles with the ledger: every completed
// record has exactly one row (0 missing), the upsert absorbed the repeat
// writes (writes − rows = duplicates absorbed, between the ledger's repeat
// completions and the redeliveries), and the table applied exactly the
// writes the members counted.
func TestDestinationShareCrashOnKafka(t *testing.T) {
	needPostgres(t)
	s := baseSpec()
	s.ConsumerType, s.Partitions, s.Members, s.Workers, s.MaxPollRecords = "share", 1, 3, 2, 10
	s.AcquireMode, s.AckMode = "record_limit", "implicit"
	s.Processing.Time = 20 * time.Millisecond
	s.Rate, s.Warmup, s.Duration = 250, 2*time.Second, 8*time.Second
	s.GroupConfig = map[string]string{"share.record.lock.duration.ms": "15000"} // the broker's minimum
	s.Events = []scenarios.Event{{At: 2 * time.Second, Action: scenarios.ActionCrash, Members: 1}}
	s.Destination = &scenarios.Destination{Kind: "postgres", Key: "offset", Idempotent: true, BatchSize: 1, BatchWait: 5 * time.Millisecond, Pool: 1}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	r := runMeasured(t, s, "destination-share-crash").Record
	d := r.Destination
	if d == nil || d.DestinationAudit == nil {
		t.Fatalf("no destination read-back: %+v (errors %v)", d, r.Errors)
	}
	a := *d.DestinationAudit
	t.Logf("destination: %+v; write ms %+v; ceiling %s %.0f (destination %.0f)", a, d.WriteMs, r.Ceiling.Bound, r.Ceiling.RecordsPerSec, r.Ceiling.Destination)
	completed := r.Audit.CompletedOnce + r.Audit.Duplicates
	if !r.Audit.Balanced || r.Audit.Lost != 0 || r.Outcomes.Redelivered == 0 {
		t.Errorf("audit %+v, redelivered %d: want balanced, nothing lost, the crashed member's records redelivered", r.Audit, r.Outcomes.Redelivered)
	}
	if a.Missing != 0 || a.Foreign != 0 || a.WrittenNotCompleted != 0 || a.Rows != completed || a.Records != completed {
		t.Errorf("table %+v: want one row per completed record (%d), none missing or foreign", a, completed)
	}
	if a.TableWrites != a.Writes || a.DuplicatesAbsorbed != a.Writes-a.Rows {
		t.Errorf("writes %d, table writes %d, rows %d, absorbed %d: want the table's count the members', and writes − rows absorbed",
			a.Writes, a.TableWrites, a.Rows, a.DuplicatesAbsorbed)
	}
	// A repeat write is a redelivery of a written record: at most the
	// redeliveries, at least the ledger's repeat completions.
	if a.DuplicatesAbsorbed > r.Outcomes.Redelivered || a.DuplicatesAbsorbed < r.Audit.DuplicateCompletions {
		t.Errorf("absorbed %d outside [repeat completions %d, redeliveries %d]", a.DuplicatesAbsorbed, r.Audit.DuplicateCompletions, r.Outcomes.Redelivered)
	}
	if d.WriteMs.Count != a.Writes+a.WriteErrors || d.WriteMs.Mean <= 0 || r.Latency.HoldMs.Mean < 20+d.WriteMs.Mean*0.5 {
		t.Errorf("write ms %+v, hold mean %.1f ms: want every write timed, inside the hold time", d.WriteMs, r.Latency.HoldMs.Mean)
	}
	for _, f := range r.Validity.Flags {
		if f.Code == runs.CodeDestinationUnreconciled || f.Code == runs.CodeDestinationWriteErrors {
			t.Errorf("flagged %s: %s", f.Code, f.Message)
		}
	}
}
