//go:build integration && long

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// What commit auto does on a member crash, on Kafka 4.2, against
// commit after_processing on the same crash.
//
// franz-go's default autocommit commits, every auto_commit_interval, the
// offsets of the polls before the latest one (a poll promotes the previous
// poll's records; consumers.GroupKnobs.AutoCommit): a blocking member has processed those,
// so autocommit never commits a record before it is processed and a crash
// loses nothing. What it costs is duplicates: the partition's new owner
// resumes at the last autocommit and processes again everything the crashed
// member completed since. The workload: 2 partitions, 2 members × 1 worker
// × 10 ms (100 records/s each), 120 records/s (60 per partition); one
// member (the oldest) crashes at +4 s, and the session (6 s) moves its
// partition to the other well inside the 16 s window (the crash event ends
// when the crashed client's close gives up, after the 10 s close timeout).
//
//   - interval 60 s, longer than the run up to the crash: nothing was ever
//     committed for the crashed member's partition, so the new owner starts
//     at offset 0: duplicates = exactly what the crashed member completed;
//   - interval 1 s: duplicates ≤ what it completed in the last interval and
//     the poll before it: 60 × 1 s + one poll (10) + one more batch of
//     slack = 80;
//   - after_processing: every batch's prefix is committed as it settles, so
//     at most the last batch's commit can be missing: duplicates ≤ 10.
//
// None loses a record, and every run's audit balances (runMeasured).
func TestAutoCommitCrashOnKafka(t *testing.T) {
	needKafka(t)
	for _, tc := range []struct {
		name     string
		commit   vocab.Commit
		interval time.Duration
		// exact: duplicates must equal the crashed member's completions;
		// else at most max.
		exact bool
		max   int64
	}{
		{"auto-60s", "auto", 60 * time.Second, true, 0},
		{"auto-1s", "auto", time.Second, false, 80},
		{"after-processing", "after_processing", 5 * time.Second, false, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			s.ConsumerType, s.Partitions, s.Members, s.Workers, s.MaxPollRecords = "consumer", 2, 2, 1, 10
			s.Rate, s.Warmup, s.Duration = 120, 2*time.Second, 16*time.Second
			s.GroupProtocol, s.Assignor, s.RemoteAssignor = "classic", "cooperative-sticky", "uniform"
			s.Commit, s.AutoCommitInterval = tc.commit, tc.interval
			s.SessionTimeout = 6 * time.Second
			s.Events = []scenarios.Event{{At: 4 * time.Second, Action: scenarios.ActionCrash, Members: 1}}
			r := runSpec(t, s, "autocommit-"+tc.name)
			if len(r.Events) != 1 {
				t.Fatalf("events %+v", r.Events)
			}
			t.Logf("%s", report.EventLine(r, r.Events[0]))
			if r.Events[0].Error != "" {
				t.Errorf("crash: %s", r.Events[0].Error)
			}
			var crashed *int64
			for _, m := range r.Members {
				if m.Crashed {
					crashed = &m.Completed
				}
			}
			if crashed == nil || *crashed <= 0 {
				t.Fatalf("members %+v: want one crashed member that completed records before the crash", r.Members)
			}
			a := r.Audit
			t.Logf("%s: crashed member completed %d, held %d; audit %+v", tc.name, *crashed, r.Events[0].HeldByCrashed, a)
			if a.Lost != 0 || !a.Balanced {
				t.Errorf("%s: lost %d (balanced %v): a blocking member commits only what it processed", tc.name, a.Lost, a.Balanced)
			}
			if a.DuplicateCompletions != a.Duplicates {
				t.Errorf("%s: %d duplicate completions for %d duplicated records: each is processed again once", tc.name,
					a.DuplicateCompletions, a.Duplicates)
			}
			if tc.exact && a.Duplicates != *crashed {
				t.Errorf("%s: %d duplicates, want exactly the %d records the crashed member completed (nothing committed before the crash)",
					tc.name, a.Duplicates, *crashed)
			}
			if !tc.exact && a.Duplicates > tc.max {
				t.Errorf("%s: %d duplicates, want ≤ %d", tc.name, a.Duplicates, tc.max)
			}
		})
	}
}
