package consumers

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

// startFake starts a fleet on the fake run; the returned stop ends it and
// returns the merged counts.
func (f *fakeRun) start(t *testing.T) (*Fleet, func() results.Merged) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	fl, err := Start(ctx, f.c, f.rec)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return fl, func() results.Merged {
		cancel()
		if err := fl.Wait(); err != nil {
			t.Fatal(err)
		}
		return f.rec.Merge()
	}
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out after %v waiting for %s", d, what)
}

func (f *fakeRun) allDone() bool {
	a := f.rec.Ledger.Audit()
	return a.CompletedOnce+a.Duplicates >= int64(f.n)
}

// A crashed share member stops dead: its records are neither acknowledged
// nor released, come back to the survivor once their locks expire
// (redelivered, delivery count 2), and every record is still completed; the
// crashed client closes within CloseTimeout and leaves no goroutines behind.
func TestCrashShareMemberOnKfake(t *testing.T) {
	cfg := map[string]string{"group.share.record.lock.duration.ms": "1000", "share.record.lock.sweep.interval.ms": "100"}
	const n = 30
	f := newFakeRun(t, 1, n, cfg)
	f.c.Share, f.c.ExplicitAck, f.c.RecordLimit = true, true, true
	f.c.Members, f.c.Workers, f.c.MaxPollRecords = 2, 1, 5
	f.c.Processing = Processing{Model: "constant", Time: 100 * time.Millisecond}
	before := runtime.NumGoroutine()
	fl, stop := f.start(t)
	waitFor(t, 10*time.Second, "both members to get records", func() bool {
		ms := f.rec.Merge().Members
		return len(ms) == 2 && ms[0].FirstDeliveryNs > 0 && ms[1].FirstDeliveryNs > 0
	})
	t0 := time.Now()
	if _, err := fl.Crash(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took > f.c.CloseTimeout+time.Second {
		t.Errorf("crash took %v, want ≤ CloseTimeout %v + 1s", took, f.c.CloseTimeout)
	}
	if fl.Members() != 1 {
		t.Errorf("members after crash %d, want 1", fl.Members())
	}
	if _, err := fl.Crash(context.Background(), 1); err == nil {
		t.Error("crashing the last member: want an error")
	}
	waitFor(t, 20*time.Second, "every record completed", f.allDone)
	m := stop()
	a := f.rec.Ledger.Audit()
	t.Logf("redelivered %d audit %+v members %+v", m.Redelivered, a, m.Members)
	if a.Lost != 0 || a.CompletedOnce+a.Duplicates != n {
		t.Errorf("audit %+v, want all %d completed, none lost", a, n)
	}
	if m.Redelivered == 0 {
		t.Error("the crashed member's records were not redelivered")
	}
	if !m.Members[0].Crashed || m.Members[0].LeftNs == 0 || m.Members[1].Crashed {
		t.Errorf("members %+v: want member 0 crashed", m.Members)
	}
	time.Sleep(200 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before+5 {
		t.Errorf("goroutines %d before, %d after the fleet stopped", before, after)
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
	f.c.Processing = Processing{Model: "constant", Time: 5 * time.Millisecond}
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

func TestSlowDownScales(t *testing.T) {
	var s slowState
	s.set(3, 1000)
	for _, tc := range []struct {
		now  int64
		want time.Duration
	}{{999, 30 * time.Millisecond}, {1000, 10 * time.Millisecond}} {
		if got := s.scale(10*time.Millisecond, tc.now); got != tc.want {
			t.Errorf("scale at %d: %v, want %v", tc.now, got, tc.want)
		}
	}
	if got := (*slowState)(nil).scale(time.Second, 0); got != time.Second {
		t.Errorf("nil slowState scaled to %v", got)
	}
}
