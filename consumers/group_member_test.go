package consumers

import (
	"context"
	"testing"
	"time"
)

// Style continuous on a consumer group: the members poll while their workers
// are busy (at most max_in_flight records held), commit the contiguous
// completed prefix, and every record completes exactly once.
func TestContinuousConsumerGroupOnKfake(t *testing.T) {
	const n = 400
	f := newFakeRun(t, 4, n, nil)
	f.c.Members, f.c.Workers, f.c.MaxPollRecords = 2, 4, 10
	f.c.Style, f.c.MaxInFlight = StyleContinuous, 12
	f.c.Processing = Processing{Model: ModelUniform, Min: time.Millisecond, Max: 5 * time.Millisecond}
	m := f.run(t, 300*time.Millisecond, 30*time.Second)
	a := f.rec.Ledger.Audit()
	t.Logf("completed %d polls %d audit %+v", m.Completed, m.Polls, a)
	if a.CompletedOnce != n || a.Duplicates != 0 || a.Lost != 0 || !a.Balanced {
		t.Errorf("audit %+v, want %d completed once and balanced", a, n)
	}
	if m.AckErrors != 0 || m.PollErrors != 0 {
		t.Errorf("commit errors %d poll errors %d", m.AckErrors, m.PollErrors)
	}
}

// Joining consumer-group members takes partitions from the others: each
// moved partition is a measured rebalance pause (revoke → assign), the new
// members record a join time and a first record; a graceful leave finishes
// its records, and nothing is lost.
func TestJoinLeaveConsumerGroupOnKfake(t *testing.T) {
	const n = 600
	f := newFakeRun(t, 4, n, nil)
	f.c.Members, f.c.Workers, f.c.MaxPollRecords = 2, 1, 5
	f.c.Processing = Processing{Model: ModelConstant, Time: 5 * time.Millisecond}
	fl, stop := f.start(t)
	waitFor(t, 10*time.Second, "first records", func() bool { return f.rec.Counts().Completed > 20 })
	fl.Join(2)
	waitFor(t, 20*time.Second, "a new member's first record", func() bool {
		ms := f.rec.Merge().Members
		return len(ms) == 4 && (ms[2].FirstDeliveryNs > 0 || ms[3].FirstDeliveryNs > 0)
	})
	if _, err := fl.Leave(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "every record completed", f.allDone)
	m := stop()
	a := f.rec.Ledger.Audit()
	t.Logf("pauses %+v audit %+v", m.Pauses, a)
	if a.Lost != 0 || a.CompletedOnce+a.Duplicates != n || !a.Balanced {
		t.Errorf("audit %+v", a)
	}
	if len(m.Pauses) == 0 {
		t.Fatal("no rebalance pause recorded for partitions that moved")
	}
	for _, p := range m.Pauses {
		if p.EndNs <= p.StartNs {
			t.Errorf("pause %+v: end not after start", p)
		}
	}
	if m.Members[0].LeftNs == 0 || m.Members[0].Crashed {
		t.Errorf("member 0 %+v: want left gracefully", m.Members[0])
	}
	if m.Members[2].JoinNs <= m.Members[0].JoinNs {
		t.Errorf("join times %+v", m.Members)
	}
}

// Outcomes on a consumer group (kfake): a transient failure is retried in
// place (never released or redelivered), a poison record is dead-lettered
// and its offset committed past, and every record is settled once.
func TestConsumerGroupRetriesAndDeadLettersOnKfake(t *testing.T) {
	const n = 80
	f := newFakeRun(t, 2, n, nil)
	f.c.Members, f.c.Workers, f.c.MaxPollRecords = 1, 2, 5
	f.c.TransientRate, f.c.PoisonRate = 0.3, 0.2
	_, stop := f.start(t)
	waitFor(t, 20*time.Second, "every record completed or dead-lettered", f.allSettled)
	m := stop()
	a := f.rec.Ledger.Audit()
	t.Logf("retried %d rejected %d audit %+v", m.Retried, m.Rejected, a)
	if a.CompletedOnce+a.Archived != n || a.Duplicates != 0 || a.Lost != 0 || !a.Balanced {
		t.Errorf("audit %+v, want %d completed once or dead-lettered, balanced", a, n)
	}
	if m.Retried == 0 || m.Rejected == 0 {
		t.Errorf("retried %d rejected %d, want both > 0", m.Retried, m.Rejected)
	}
	if m.Released != 0 || m.Redelivered != 0 {
		t.Errorf("consumer group released %d redelivered %d, want 0", m.Released, m.Redelivered)
	}
}
