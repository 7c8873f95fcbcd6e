//go:build integration

package campaign

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/scenarios"
)

// Scale events on a real broker, share group: a member joins at +2 s and
// gets its first record within one heartbeat interval (5 s) + margin, with
// no rebalance pause; at +7 s processing slows ×4 for 6 s and the
// completions in the slow span fall to the worker ceiling
// members × workers × 1000 / (factor × t) = 3 × 2 × 1000 / (4 × 10) = 150
// records/s (300 offered), within generous margins. About 35 s.
func TestShareJoinAndSlowDownOnKafka(t *testing.T) {
	needKafka(t)
	s := baseSpec()
	s.ConsumerType, s.Partitions, s.Members, s.Workers, s.MaxPollRecords = "share", 1, 2, 2, 10
	s.AcquireMode, s.Rate, s.Warmup, s.Duration = "record_limit", 300, 2*time.Second, 16*time.Second
	const factor, slowFor = 4.0, 6 * time.Second
	s.Events = []scenarios.Event{
		{At: 2 * time.Second, Action: scenarios.ActionJoin, Members: 1},
		{At: 7 * time.Second, Action: scenarios.ActionSlow, Factor: factor, Duration: slowFor},
	}
	m := runMeasured(t, s, "events-share")
	r := m.Record
	if len(r.Events) != 2 || r.EventSummary == nil {
		t.Fatalf("events %+v", r.Events)
	}
	for _, e := range r.Events {
		t.Logf("%s", report.EventLine(r, e))
		if e.Error != "" {
			t.Errorf("event %s: %s", e.Label, e.Error)
		}
	}
	join := r.Events[0]
	if len(join.FirstRecord) != 1 || join.FirstRecord[0].Sec == nil {
		t.Fatalf("join: first record %+v", join.FirstRecord)
	}
	if got, limit := *join.FirstRecord[0].Sec, s.ShareHeartbeatInterval().Seconds()+3; got > limit {
		t.Errorf("new share member's first record after %.2fs, want ≤ heartbeat %v + 3s margin", got, s.ShareHeartbeatInterval())
	}
	if r.EventSummary.RebalancePauses != 0 {
		t.Errorf("share group: %d rebalance pauses, want 0", r.EventSummary.RebalancePauses)
	}
	// Mean completions over the whole seconds inside the slow span, from
	// its second second on (the first drains work started before it).
	slow := r.Events[1]
	from := m.Series.Bucket(slow.StartNs) + 2
	to := m.Series.Bucket(slow.StartNs + int64(slowFor))
	var sum int64
	for i := from; i < to; i++ {
		sum += m.Series.Count(results.Completed, i)
	}
	mean := float64(sum) / float64(to-from)
	ceiling := float64(s.Members+1) * float64(s.Workers) * 1000 / (factor * 10)
	t.Logf("slow ×%.0f: %.1f completed/s in seconds %d..%d, formula %.1f; dip %.0f%%", factor, mean, from, to-1, ceiling, slow.DipPercent)
	if mean < 0.6*ceiling || mean > 1.15*ceiling {
		t.Errorf("completions during the slow-down %.1f/s, want within [0.6, 1.15] × %.1f", mean, ceiling)
	}
	if slow.DipPercent < 25 {
		t.Errorf("slow ×%.0f: dip %.0f%%, want ≥ 25%% (300 offered vs 150 possible)", factor, slow.DipPercent)
	}
}

// Scale events on a real broker, consumer group: 2 members on 4 partitions,
// 2 join at +2 s: partitions move, each a measured rebalance pause (revoke
// → assign) > 0. At +6 s a member crashes: after the session timeout (6 s,
// the broker's minimum) its partition moves and its uncommitted records are
// delivered again; nothing is lost and the audit balances. About 45 s.
//
// So that the crashed member holds records when it crashes (a member idle
// between a commit and its next poll holds none, and "redeliveries ≥ held"
// would then read 0 ≥ 0), processing slows ×8 from +5 s for 3 s: 80 ms per
// record, 2 workers, so a member completes at most 25 records/s against the
// 200 ÷ 4 = 50/s its partition receives. From +5 s every member has a
// backlog: it always holds a poll batch (up to 10 records; 2 workers take
// ≥ 400 ms over it), and only the commit-and-poll round trip between
// batches holds none. The crash must then show held > 0, at least as many
// redeliveries, and a first redelivery after the session timeout.
func TestConsumerJoinAndCrashOnKafka(t *testing.T) {
	needKafka(t)
	s := baseSpec()
	s.ConsumerType, s.Partitions, s.Members, s.Workers, s.MaxPollRecords = "consumer", 4, 2, 2, 10
	s.Rate, s.Warmup, s.Duration = 200, 2*time.Second, 18*time.Second
	const session = 6 * time.Second
	s.Events = []scenarios.Event{
		{At: 2 * time.Second, Action: scenarios.ActionJoin, Members: 2},
		{At: 5 * time.Second, Action: scenarios.ActionSlow, Factor: 8, Duration: 3 * time.Second},
		{At: 6 * time.Second, Action: scenarios.ActionCrash, Members: 1},
	}
	m := runMeasured(t, s, "events-consumer")
	r := m.Record
	if len(r.Events) != 3 {
		t.Fatalf("events %+v", r.Events)
	}
	for _, e := range r.Events {
		t.Logf("%s", report.EventLine(r, e))
		if e.Error != "" {
			t.Errorf("event %s: %s", e.Label, e.Error)
		}
	}
	if r.Events[0].RebalancePauses == 0 || r.Events[0].RebalancePauseMaxS <= 0 {
		t.Errorf("join: pauses %d, longest %.3fs: want a measured rebalance pause > 0", r.Events[0].RebalancePauses, r.Events[0].RebalancePauseMaxS)
	}
	crash := r.Events[2]
	if crash.HeldByCrashed <= 0 {
		t.Errorf("crash: the crashed member held %d records, want > 0 (a slowed member always holds its poll batch)", crash.HeldByCrashed)
	}
	if crash.Redeliveries < crash.HeldByCrashed {
		t.Errorf("crash: %d redeliveries, want ≥ the %d records the crashed member held", crash.Redeliveries, crash.HeldByCrashed)
	}
	// The partition waits for the session timeout (6 s) before it moves.
	if crash.RebalancePauseMaxS < 4 {
		t.Errorf("crash: longest rebalance pause %.1fs, want ≥ 4 s (the crashed member's partition waits for its 6 s session timeout)", crash.RebalancePauseMaxS)
	}
	if !r.Audit.Balanced || r.Audit.Lost != 0 {
		t.Errorf("crash: audit %+v, want balanced with nothing lost", r.Audit)
	}
	// The held records come back once the session timed out and the
	// partition moved: from session − 2 s (the last heartbeat before the
	// crash, the second the series counts in) to session + 6 s (the
	// rebalance and a loaded host).
	lo, hi := (session - 2*time.Second).Seconds(), (session + 6*time.Second).Seconds()
	if crash.FirstRedeliverySec == nil {
		t.Errorf("crash: no redelivery recorded after the crash of a member holding %d records", crash.HeldByCrashed)
	} else if v := *crash.FirstRedeliverySec; v < lo || v > hi {
		t.Errorf("crash: first redelivery %.1fs after the crash, want within [%.0f, %.0f] s of the 6 s session timeout", v, lo, hi)
	}
	for _, f := range r.Validity.Flags {
		if f.Code == "client_errors" {
			t.Errorf("the crashed member's failed commits were counted as client errors: %s", f.Message)
		}
	}
}
