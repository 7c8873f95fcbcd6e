package campaign

import (
	"context"
	"errors"
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

func newTestRunner(events []scenarios.Event, log *callLog, faults func() (infra.Faults, error)) *eventRunner {
	return &eventRunner{events: events, fleet: &fakeFleet{callLog: log, next: 2}, clock: results.NewClock(), log: io.Discard,
		faults: faults,
		broker: func(_ context.Context, target string) (int, error) {
			if target == "group-coordinator" {
				return 2, nil
			}
			return 1, nil
		}}
}

// Events fire at their offsets in order, member actions go to the fleet and
// broker actions to Faults (timed ones undone after their duration), and
// every event is recorded with its target and error.
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
	r := newTestRunner(events, log, func() (infra.Faults, error) { return fakeFaults{log}, nil })
	start := r.clock.Now()
	r.start(context.Background(), start)
	time.Sleep(400 * time.Millisecond)
	got := r.stop()
	want := []string{"join", "slow", "pause 2", "crash", "resume 2", "kill 1", "disconnect 1", "reconnect 1"}
	if calls := log.get(); !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
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
	if got[2].Target != "broker 2 (group-coordinator)" || got[2].EndNs-got[2].StartNs < int64(60*ms) {
		t.Errorf("pause recorded %+v: want target broker 2 and end ≥ start + 60ms", got[2])
	}
	if got[3].Error != "cannot remove" {
		t.Errorf("crash error %q", got[3].Error)
	}
	for i, e := range got {
		if e.StartNs < start+int64(events[i].At) {
			t.Errorf("event %d fired %v before its offset", i, time.Duration(start+int64(events[i].At)-e.StartNs))
		}
		if e.Label != events[i].String() {
			t.Errorf("event %d label %q", i, e.Label)
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
	r := newTestRunner(events, log, func() (infra.Faults, error) { return fakeFaults{log}, nil })
	r.start(context.Background(), r.clock.Now())
	time.Sleep(50 * time.Millisecond)
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
	r := newTestRunner([]scenarios.Event{{Action: scenarios.ActionBrokerKill, Broker: "1"}}, log,
		func() (infra.Faults, error) { return infra.FaultsOf(cl) })
	r.start(context.Background(), r.clock.Now())
	time.Sleep(50 * time.Millisecond)
	got := r.stop()
	if want := `provider "kfake" cannot inject broker faults`; !strings.Contains(got[0].Error, want) {
		t.Errorf("error %q, want it to mention %q", got[0].Error, want)
	}
	if len(log.get()) != 0 {
		t.Errorf("calls %v", log.get())
	}
}
