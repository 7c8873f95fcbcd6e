package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// fakeFleet and fakeFaults log what the runner asked for.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	l.calls = append(l.calls, s)
	l.mu.Unlock()
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

type fakeFleet struct {
	*callLog
	next int
}

func (f *fakeFleet) Join(n int) []int {
	f.add("join")
	ids := []int{}
	for range n {
		ids = append(ids, f.next)
		f.next++
	}
	return ids
}
func (f *fakeFleet) Leave(_ context.Context, n int) ([]int, error) {
	f.add("leave")
	return []int{0}, nil
}
func (f *fakeFleet) Crash(_ context.Context, n int) ([]int, error) {
	f.add("crash")
	return nil, errors.New("cannot remove")
}
func (f *fakeFleet) SlowDown(factor float64, d time.Duration) { f.add("slow") }

type fakeFaults struct{ *callLog }

func (f fakeFaults) rec(name string, node int) error {
	f.add(name + " " + string(rune('0'+node)))
	return nil
}
func (f fakeFaults) KillBroker(_ context.Context, n int) error       { return f.rec("kill", n) }
func (f fakeFaults) StartBroker(_ context.Context, n int) error      { return f.rec("start", n) }
func (f fakeFaults) RestartBroker(_ context.Context, n int) error    { return f.rec("restart", n) }
func (f fakeFaults) PauseBroker(_ context.Context, n int) error      { return f.rec("pause", n) }
func (f fakeFaults) ResumeBroker(_ context.Context, n int) error     { return f.rec("resume", n) }
func (f fakeFaults) DisconnectBroker(_ context.Context, n int) error { return f.rec("disconnect", n) }
func (f fakeFaults) ReconnectBroker(_ context.Context, n int) error  { return f.rec("reconnect", n) }

// manualTime is the event runner's clock and timer in tests: time moves only
// when the test advances it, and a sleeper wakes when the time reaches its
// deadline, so "event at +40 ms" means exactly 40 ms of manual time.
type manualTime struct {
	mu       sync.Mutex
	now      int64
	sleepers map[*manualSleeper]bool
}

type manualSleeper struct {
	deadline int64
	wake     chan struct{}
}

func newManualTime() *manualTime {
	return &manualTime{now: 1_000_000_000, sleepers: map[*manualSleeper]bool{}}
}

func (m *manualTime) Now() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Sleep is retry.Sleep on manual time.
func (m *manualTime) Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	m.mu.Lock()
	s := &manualSleeper{deadline: m.now + int64(d), wake: make(chan struct{})}
	m.sleepers[s] = true
	m.mu.Unlock()
	select {
	case <-s.wake:
		return true
	case <-ctx.Done():
		m.mu.Lock()
		delete(m.sleepers, s)
		m.mu.Unlock()
		return false
	}
}

// advanceTo sets the time and wakes every sleeper whose deadline it reached.
func (m *manualTime) advanceTo(t int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = t
	for s := range m.sleepers {
		if s.deadline <= t {
			delete(m.sleepers, s)
			close(s.wake)
		}
	}
}

func (m *manualTime) waiting() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sleepers)
}

// settle waits (polling, no fixed sleep) until cond holds: the runner's
// goroutines have done what the last step of time allows.
func settle(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never settled: %s", what)
		}
	}
}

func newTestRunner(events []scenarios.Event, log *callLog, faults func() (infra.Faults, error)) (*eventRunner, *manualTime) {
	mt := newManualTime()
	return &eventRunner{events: events, fleet: &fakeFleet{callLog: log, next: 2}, clock: results.NewClock(), log: io.Discard,
		faults: faults, now: mt.Now, sleep: mt.Sleep,
		broker: func(_ context.Context, target string) (int, error) {
			if target == "group-coordinator" {
				return 2, nil
			}
			return 1, nil
		}}, mt
}

// Events fire at their offsets in order, member actions go to the fleet and
// broker actions to Faults (timed ones undone after their duration), and
// every event is recorded with its target, error and exact times. Manual
// time: each step advances to the next due time and waits until the calls
// and the sleeping goroutines are what that time implies.
func TestEventRunnerDispatch(t *testing.T) {
	ms := time.Millisecond
	events := []scenarios.Event{
		{At: 0, Action: scenarios.ActionJoin, Members: 2},
		{At: 40 * ms, Action: scenarios.ActionSlow, Factor: 2, Duration: 50 * ms},
		{At: 80 * ms, Action: scenarios.ActionBrokerPause, Broker: "group-coordinator", Duration: 60 * ms},
		{At: 120 * ms, Action: scenarios.ActionCrash, Members: 1},
		{At: 160 * ms, Action: scenarios.ActionBrokerKill, Broker: "1"},
		{At: 200 * ms, Action: scenarios.ActionBrokerDisconnect, Broker: "1", Duration: 10 * ms},
	}
	log := &callLog{}
	r, mt := newTestRunner(events, log, func() (infra.Faults, error) { return fakeFaults{log}, nil })
	start := mt.Now()
	r.start(context.Background(), start)
	steps := []struct {
		at       time.Duration
		calls    []string
		sleepers int // goroutines waiting for a later time
		ended    int // events whose end is recorded (after their undo, if any)
	}{
		{0, []string{"join"}, 5, 1},
		{39 * ms, []string{"join"}, 5, 1}, // nothing is due before 40 ms
		{40 * ms, []string{"join", "slow"}, 4, 2},
		{80 * ms, []string{"join", "slow", "pause 2"}, 4, 2}, // the pause waits 60 ms
		{120 * ms, []string{"join", "slow", "pause 2", "crash"}, 3, 3},
		{139 * ms, []string{"join", "slow", "pause 2", "crash"}, 3, 3},
		{140 * ms, []string{"join", "slow", "pause 2", "crash", "resume 2"}, 2, 4},
		{160 * ms, []string{"join", "slow", "pause 2", "crash", "resume 2", "kill 1"}, 1, 5},
		{200 * ms, []string{"join", "slow", "pause 2", "crash", "resume 2", "kill 1", "disconnect 1"}, 1, 5},
		{210 * ms, []string{"join", "slow", "pause 2", "crash", "resume 2", "kill 1", "disconnect 1", "reconnect 1"}, 0, 6},
	}
	// An undo is logged before its event's end is read: time moves on only
	// once the end is recorded, or a slow goroutine would read the next step's.
	ended := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		n := 0
		for _, e := range r.out {
			if e.EndNs != 0 {
				n++
			}
		}
		return n
	}
	for _, st := range steps {
		mt.advanceTo(start + int64(st.at))
		settle(t, fmt.Sprintf("at +%v: calls %v, %d sleepers and %d ended", st.at, st.calls, st.sleepers, st.ended), func() bool {
			return slices.Equal(log.get(), st.calls) && mt.waiting() == st.sleepers && ended() == st.ended
		})
	}
	got := r.stop()
	// broker 1 was killed for the rest of the run: started after it.
	if err := r.restartKilled(context.Background()); err != nil {
		t.Fatal(err)
	}
	if calls := log.get(); calls[len(calls)-1] != "start 1" {
		t.Errorf("after the run: calls %v, want a final start 1", calls)
	}
	if got[0].Target != "members 2,3" || !slices.Equal(got[0].Members, []int{2, 3}) {
		t.Errorf("join recorded %+v", got[0])
	}
	if got[2].Target != "broker 2 (group-coordinator)" || got[2].EndNs-got[2].StartNs != int64(60*ms) {
		t.Errorf("pause recorded %+v: want target broker 2 (group-coordinator) and end = start + 60ms", got[2])
	}
	if got[5].EndNs-got[5].StartNs != int64(10*ms) {
		t.Errorf("disconnect recorded %+v: want end = start + 10ms", got[5])
	}
	if got[3].Error != "cannot remove" {
		t.Errorf("crash error %q", got[3].Error)
	}
	for i, e := range got {
		if e.StartNs != start+int64(events[i].At) {
			t.Errorf("event %d fired at +%v, want exactly its offset +%v", i, time.Duration(e.StartNs-start), events[i].At)
		}
		if e.Label != events[i].String() {
			t.Errorf("event %d label %q", i, e.Label)
		}
		if e.Error != "" && i != 3 {
			t.Errorf("event %d error %q", i, e.Error)
		}
	}
}

// Stopping the runner in the middle of a pause resumes the broker before
// stop returns, and events not yet due are recorded as not fired.
func TestEventRunnerStopUndoesFaults(t *testing.T) {
	events := []scenarios.Event{
		{At: 0, Action: scenarios.ActionBrokerPause, Broker: "1", Duration: time.Hour},
		{At: time.Hour, Action: scenarios.ActionJoin, Members: 1},
	}
	log := &callLog{}
	r, mt := newTestRunner(events, log, func() (infra.Faults, error) { return fakeFaults{log}, nil })
	r.start(context.Background(), mt.Now())
	// The pause is in effect and the join not due: both goroutines wait.
	settle(t, "pause called, 2 sleepers", func() bool {
		return slices.Equal(log.get(), []string{"pause 1"}) && mt.waiting() == 2
	})
	got := r.stop()
	if calls := log.get(); !slices.Equal(calls, []string{"pause 1", "resume 1"}) {
		t.Errorf("calls %v, want pause then resume", calls)
	}
	if !strings.Contains(got[1].Error, "not fired") {
		t.Errorf("unfired event recorded %+v", got[1])
	}
}

// A provider without fault injection gives a clear error on the event.
func TestEventRunnerNoFaults(t *testing.T) {
	cl, err := infra.KfakeProvider{}.Start(context.Background(), infra.ClusterSpec{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop(context.Background())
	log := &callLog{}
	r, mt := newTestRunner([]scenarios.Event{{Action: scenarios.ActionBrokerKill, Broker: "1"}}, log,
		func() (infra.Faults, error) { return infra.FaultsOf(cl) })
	r.start(context.Background(), mt.Now())
	settle(t, "the event recorded its end", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.out[0].EndNs != 0
	})
	got := r.stop()
	if want := `provider "kfake" cannot inject broker faults`; !strings.Contains(got[0].Error, want) {
		t.Errorf("error %q, want it to mention %q", got[0].Error, want)
	}
	if len(log.get()) != 0 {
		t.Errorf("calls %v", log.get())
	}
}
