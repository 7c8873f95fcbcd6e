package campaign

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// memberFleet is what the event runner does to the consumers
// (consumers.Fleet).
type memberFleet interface {
	Join(n int) []int
	Leave(ctx context.Context, n int) ([]int, error)
	Crash(ctx context.Context, n int) ([]int, error)
	SlowDown(factor float64, d time.Duration)
}

// undoTimeout bounds resuming, reconnecting or restarting a broker after a
// timed fault, even when the run is ending.
const undoTimeout = 60 * time.Second

// eventRunner fires a run's events at their offsets into the measurement
// window, each in its own goroutine (a long fault does not delay the next
// event), and records what each did.
type eventRunner struct {
	events []scenarios.Event
	fleet  memberFleet
	// faults returns the cluster's fault injector (infra.FaultsOf); broker
	// resolves a broker target to a node id.
	faults func() (infra.Faults, error)
	broker func(ctx context.Context, target string) (int, error)
	clock  *results.Clock
	log    io.Writer
	// now and sleep replace clock.Now and retry.Sleep (tests drive time with a
	// manual clock); nil: the run's Clock and a real timer.
	now   func() int64
	sleep func(ctx context.Context, d time.Duration) bool
	// roll is what rolling restarts and upgrades act on (rolling.go); nil:
	// they fail with the reason.
	roll rollingHost

	// parent is the run's context (start's): it ends on Ctrl-C or a failed
	// run, whereas the runner's own context also ends with the window.
	parent context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	out    []runs.Event
	down   []int // brokers killed for the rest of the run (broker_kill, duration 0)
}

// nowNs is the runner's time (Clock ns).
func (r *eventRunner) nowNs() int64 {
	if r.now != nil {
		return r.now()
	}
	return r.clock.Now()
}

// wait sleeps d or until ctx ends; it reports whether d passed.
func (r *eventRunner) wait(ctx context.Context, d time.Duration) bool {
	if r.sleep != nil {
		return r.sleep(ctx, d)
	}
	return retry.Sleep(ctx, d)
}

// start fires every event at windowStart + at (Clock ns) until stop.
func (r *eventRunner) start(ctx context.Context, windowStart int64) {
	r.parent = ctx
	ctx, r.cancel = context.WithCancel(ctx)
	r.out = make([]runs.Event, len(r.events))
	for i, e := range r.events {
		r.out[i] = runs.Event{AtSec: e.At.Seconds(), Action: e.Action, Label: e.String(), Duration: e.Duration}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if !r.wait(ctx, time.Duration(windowStart+int64(e.At)-r.nowNs())) {
				r.set(i, func(ev *runs.Event) { ev.Error = "not fired: the run ended first" })
				return
			}
			r.fire(ctx, i, e)
		}()
	}
}

// stop ends the runner: events not yet fired are not, timed faults in
// progress are undone (brokers resumed, reconnected, restarted) before it
// returns. It returns the events as recorded.
func (r *eventRunner) stop() []runs.Event {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.out)
}

func (r *eventRunner) set(i int, f func(*runs.Event)) {
	r.mu.Lock()
	f(&r.out[i])
	r.mu.Unlock()
}

// fire runs one event and records its times, target and error.
func (r *eventRunner) fire(ctx context.Context, i int, e scenarios.Event) {
	start := r.nowNs()
	r.set(i, func(ev *runs.Event) { ev.StartNs = start })
	fmt.Fprintf(r.log, "    event at +%v: %s\n", e.At, e)
	var members []int
	var target string
	var err error
	switch e.Action {
	case scenarios.ActionJoin:
		members = r.fleet.Join(e.Members)
	case scenarios.ActionLeave:
		members, err = r.fleet.Leave(ctx, e.Members)
	case scenarios.ActionCrash:
		members, err = r.fleet.Crash(ctx, e.Members)
	case scenarios.ActionSlow:
		r.fleet.SlowDown(e.Factor, e.Duration)
	case scenarios.ActionBrokerRollingRestart, scenarios.ActionBrokerRollingUpgrade:
		target, err = r.rolling(ctx, i, e)
	default:
		target, err = r.brokerFault(ctx, e)
	}
	if len(members) > 0 {
		target = "members " + joinInts(members)
	}
	end := r.nowNs()
	r.set(i, func(ev *runs.Event) {
		ev.EndNs, ev.Members, ev.Target = end, members, target
		if err != nil {
			ev.Error = err.Error()
		}
	})
	if err != nil {
		fmt.Fprintf(r.log, "    event %s: %v\n", e, err)
	}
}

// brokerFault runs a broker action; a timed fault is undone after its
// duration, or at once when the run ends first, with a fresh context so a
// broker is never left paused, disconnected or (with a restart duration)
// down.
func (r *eventRunner) brokerFault(ctx context.Context, e scenarios.Event) (string, error) {
	f, err := r.faults()
	if err != nil {
		return "", err
	}
	node, err := r.broker(ctx, e.Broker)
	if err != nil {
		return e.Broker, fmt.Errorf("broker %s: %w", e.Broker, err)
	}
	target := "broker " + strconv.Itoa(node)
	if e.Broker != strconv.Itoa(node) {
		target += " (" + e.Broker + ")"
	}
	var do, undo func(context.Context, int) error
	switch e.Action {
	case scenarios.ActionBrokerRestart:
		do = f.RestartBroker
	case scenarios.ActionBrokerKill:
		do = f.KillBroker
		if e.Duration > 0 {
			undo = f.StartBroker
		} else {
			defer func() {
				r.mu.Lock()
				r.down = append(r.down, node)
				r.mu.Unlock()
			}()
		}
	case scenarios.ActionBrokerPause:
		do, undo = f.PauseBroker, f.ResumeBroker
	case scenarios.ActionBrokerDisconnect:
		do, undo = f.DisconnectBroker, f.ReconnectBroker
	default:
		return target, fmt.Errorf("unknown action %q", e.Action)
	}
	if err := do(ctx, node); err != nil {
		return target, fmt.Errorf("%s %s: %w", e.Action, target, err)
	}
	if undo == nil {
		return target, nil
	}
	r.wait(ctx, e.Duration)
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	if err := undo(uctx, node); err != nil {
		return target, fmt.Errorf("%s %s: undo: %w", e.Action, target, err)
	}
	return target, nil
}

// restartKilled starts the brokers killed for the rest of the run again
// (after the drain), so the next run on the cluster finds every broker up.
func (r *eventRunner) restartKilled(ctx context.Context) error {
	r.mu.Lock()
	down := slices.Clone(r.down)
	r.down = nil
	r.mu.Unlock()
	if len(down) == 0 {
		return nil
	}
	f, err := r.faults()
	if err != nil {
		return err
	}
	var errs []error
	for _, node := range down {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
		if err := f.StartBroker(uctx, node); err != nil {
			errs = append(errs, fmt.Errorf("restart broker %d after the run: %w", node, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}

// resolveBroker turns an event's broker into a node id: a number as given,
// or the share coordinator / group coordinator of the run's group, or the
// leader of partition 0 of its topic.
func (s *runSetup) resolveBroker(ctx context.Context, target string) (int, error) {
	if id, err := strconv.Atoi(target); err == nil {
		return id, nil
	}
	switch target {
	case "group-coordinator":
		id, err := GroupCoordinator(ctx, s.adm.cl, s.group)
		return int(id), err
	case "share-coordinator", "partition-leader":
		md, err := s.adm.adm.Metadata(ctx, s.topic)
		if err != nil {
			return 0, err
		}
		t, ok := md.Topics[s.topic]
		if !ok || t.Err != nil || len(t.Partitions) == 0 {
			return 0, fmt.Errorf("topic %q: no metadata", s.topic)
		}
		if target == "partition-leader" {
			return int(t.Partitions[0].Leader), nil
		}
		id, err := ShareCoordinator(ctx, s.adm.cl, s.group, t.ID, 0)
		return int(id), err
	}
	return 0, fmt.Errorf("unknown broker target %q", target)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// crashTargets are the ids of the members the run's crash events will take:
// each event acts on the oldest members at its time (joins get the next
// ids, leaves and crashes remove the oldest), so replaying the events in
// time order on the initial ids 0..members-1 names them. The client
// runners (java, librdkafka) start those in processes of their own, which
// a crash kills (consumers.Config.OwnJVM).
func crashTargets(s scenarios.RunSpec) []int {
	evs := slices.Clone(s.Events)
	slices.SortStableFunc(evs, func(a, b scenarios.Event) int { return cmp.Compare(a.At, b.At) })
	active := make([]int, s.Members)
	for i := range active {
		active[i] = i
	}
	next := s.Members
	var out []int
	for _, e := range evs {
		n := max(e.Members, 1)
		switch e.Action {
		case scenarios.ActionJoin:
			for range n {
				active = append(active, next)
				next++
			}
		case scenarios.ActionLeave, scenarios.ActionCrash:
			if n >= len(active) {
				continue // refused by the fleet (one member must stay): nobody leaves
			}
			if e.Action == scenarios.ActionCrash {
				out = append(out, active[:n]...)
			}
			active = active[n:]
		}
	}
	return out
}
