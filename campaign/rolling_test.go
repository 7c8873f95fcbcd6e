package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// fakeRolling is a rollingHost whose brokers restart at once: each restart
// moves the group coordinator to the next node, adds 5 redeliveries and 1
// duplicate completion, and (on a version) moves the broker to it.
type fakeRolling struct {
	mu       sync.Mutex
	vers     []string
	coord    int32
	share    bool
	c        results.Counts
	restarts []int
	failOn   int    // node whose restart fails (0: none)
	cancelOn int    // node during whose restart the run's context ends
	cancel   func() // ends the run's context
	syncErr  error
}

func (f *fakeRolling) nodes() int { return len(f.vers) }
func (f *fakeRolling) versions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.vers...)
}
func (f *fakeRolling) restart(ctx context.Context, node int, version string) (infra.RestartTimes, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ctx.Err() != nil {
		return infra.RestartTimes{}, ctx.Err() // the step's context must be detached from the run's
	}
	f.restarts = append(f.restarts, node)
	if node == f.cancelOn {
		f.cancel()
		// The run's context ends the step's through context.AfterFunc, in
		// a goroutine of its own: wait for it, up to 2 s (the window's end
		// must not end it, and waits the 2 s).
		select {
		case <-ctx.Done():
			return infra.RestartTimes{}, fmt.Errorf("broker %d: restart: stopped, not started again: %w", node, ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
	if node == f.failOn {
		return infra.RestartTimes{Shutdown: time.Second}, errors.New("broker 2: not serving within the start timeout (5m0s)")
	}
	if version != "" {
		f.vers[node-1] = version
	}
	f.coord = int32(node%len(f.vers) + 1)
	f.c.Redelivered += 5
	f.c.Duplicates++
	return infra.RestartTimes{Shutdown: 2 * time.Second, Start: 8 * time.Second}, nil
}
func (f *fakeRolling) inSync(context.Context, int) error     { return f.syncErr }
func (f *fakeRolling) metadataVersion(context.Context) int16 { return 27 }
func (f *fakeRolling) coordinators(context.Context) (int32, *int32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.share {
		return f.coord, nil, nil
	}
	s := f.coord
	return f.coord, &s, nil
}
func (f *fakeRolling) counts() results.Counts {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.c
}

// rollingRunner is an event runner over h with a clock that advances 1 s per
// reading and pauses that are recorded, not slept.
func rollingRunner(h rollingHost, pauses *[]time.Duration) *eventRunner {
	var mu sync.Mutex
	var now int64
	return &eventRunner{
		log:    io.Discard,
		faults: func() (infra.Faults, error) { return nil, nil },
		roll:   h,
		now: func() int64 {
			mu.Lock()
			defer mu.Unlock()
			now += int64(time.Second)
			return now
		},
		sleep: func(ctx context.Context, d time.Duration) bool {
			mu.Lock()
			*pauses = append(*pauses, d)
			mu.Unlock()
			return ctx.Err() == nil
		},
		out: make([]runs.Event, 1),
	}
}

func TestRollingUpgradeSteps(t *testing.T) {
	h := &fakeRolling{vers: []string{"4.2.2", "4.2.2", "4.2.2"}, coord: 1, share: true}
	var pauses []time.Duration
	r := rollingRunner(h, &pauses)
	e := scenarios.Event{Action: scenarios.ActionBrokerRollingUpgrade, KafkaVersion: "4.3.1", Pause: 7 * time.Second}
	target, err := r.rolling(context.Background(), 0, e)
	if err != nil || target != "brokers 1..3 to Kafka 4.3.1" {
		t.Fatalf("target %q, err %v", target, err)
	}
	ev := r.out[0]
	if len(ev.Steps) != 3 || len(pauses) != 3 || pauses[0] != 7*time.Second {
		t.Fatalf("steps %+v, pauses %v", ev.Steps, pauses)
	}
	for k, st := range ev.Steps {
		node := k + 1
		if st.Broker != node || st.VersionBefore != "4.2.2" || st.VersionAfter != "4.3.1" || st.Error != "" {
			t.Errorf("step %d: %+v", node, st)
		}
		// Coordinator before is where the previous restart left it (node 1 at
		// first); after is the next node.
		wantBefore, wantAfter := int32(1), int32(node%3+1)
		if node > 1 {
			wantBefore = int32(node)
		}
		if st.GroupCoordinatorBefore != wantBefore || st.GroupCoordinatorAfter != wantAfter ||
			*st.ShareCoordinatorBefore != wantBefore || *st.ShareCoordinatorAfter != wantAfter {
			t.Errorf("step %d: coordinators %d → %d, share %d → %d, want %d → %d", node, st.GroupCoordinatorBefore, st.GroupCoordinatorAfter,
				*st.ShareCoordinatorBefore, *st.ShareCoordinatorAfter, wantBefore, wantAfter)
		}
		if st.Redeliveries != 5 || st.DuplicateCompletions != 1 {
			t.Errorf("step %d: redeliveries %d duplicates %d, want the counters' growth 5 and 1", node, st.Redeliveries, st.DuplicateCompletions)
		}
		if st.ShutdownSec != 2 || st.StartupSec != 8 || !(st.StartNs < st.EndNs && st.EndNs < st.SpanEndNs) {
			t.Errorf("step %d: times %+v", node, st)
		}
	}
	if ev.MetadataVersionBefore != 27 || ev.MetadataVersionAfter != 27 {
		t.Errorf("metadata.version %d → %d", ev.MetadataVersionBefore, ev.MetadataVersionAfter)
	}
	for k, v := range ev.Versions {
		if v.Node != k+1 || v.Before != "4.2.2" || v.After != "4.3.1" {
			t.Errorf("versions %+v", ev.Versions)
		}
	}
}

func TestRollingRefusals(t *testing.T) {
	tests := []struct {
		name string
		h    *fakeRolling
		e    scenarios.Event
		want string
	}{
		{"one node", &fakeRolling{vers: []string{"4.2.2"}}, scenarios.Event{Action: scenarios.ActionBrokerRollingRestart},
			"broker_rolling_restart needs a cluster of 3 nodes; this one has 1 (use broker_restart for a single broker)"},
		{"downgrade", &fakeRolling{vers: []string{"4.3.1", "4.3.1", "4.3.1"}},
			scenarios.Event{Action: scenarios.ActionBrokerRollingUpgrade, KafkaVersion: "4.2.2"},
			"kafka_version 4.2.2: older than broker 1's 4.3.1; a rolling upgrade does not downgrade"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pauses []time.Duration
			_, err := rollingRunner(tc.h, &pauses).rolling(context.Background(), 0, tc.e)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err %v, want %q", err, tc.want)
			}
			if len(tc.h.restarts) != 0 {
				t.Errorf("restarted %v", tc.h.restarts)
			}
		})
	}
	// A provider without fault injection (kfake, external) is refused in
	// the words of every broker fault.
	r := rollingRunner(&fakeRolling{vers: []string{"4.2.2", "4.2.2", "4.2.2"}}, new([]time.Duration))
	r.faults = func() (infra.Faults, error) {
		return nil, errors.New(`provider "external" cannot inject broker faults`)
	}
	if _, err := r.rolling(context.Background(), 0, scenarios.Event{Action: scenarios.ActionBrokerRollingRestart}); err == nil ||
		!strings.Contains(err.Error(), `provider "external" cannot inject broker faults`) {
		t.Errorf("external: %v", err)
	}
}

// A failed restart stops the roll at that broker, recorded with its error;
// a window that ends during a step lets the step finish (its restart runs
// on a detached context) and starts no other.
func TestRollingStops(t *testing.T) {
	h := &fakeRolling{vers: []string{"4.2.2", "4.2.2", "4.2.2"}, failOn: 2}
	r := rollingRunner(h, new([]time.Duration))
	_, err := r.rolling(context.Background(), 0, scenarios.Event{Action: scenarios.ActionBrokerRollingRestart})
	if err == nil || !strings.Contains(err.Error(), "broker 2: broker 2: not serving") || len(r.out[0].Steps) != 2 ||
		r.out[0].Steps[1].Error == "" || len(h.restarts) != 2 {
		t.Errorf("err %v, steps %+v, restarts %v", err, r.out[0].Steps, h.restarts)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h = &fakeRolling{vers: []string{"4.2.2", "4.2.2", "4.2.2"}, cancelOn: 2, cancel: cancel}
	r = rollingRunner(h, new([]time.Duration))
	_, err = r.rolling(ctx, 0, scenarios.Event{Action: scenarios.ActionBrokerRollingRestart, Pause: time.Second})
	if err == nil || !strings.Contains(err.Error(), "stopped after 2 of 3 brokers: the measurement window ended") {
		t.Errorf("err %v", err)
	}
	if len(h.restarts) != 2 || len(r.out[0].Steps) != 2 || r.out[0].Steps[1].Error != "" {
		t.Errorf("restarts %v, steps %+v", h.restarts, r.out[0].Steps)
	}

	// Ctrl-C (the run's own context, the runner's parent) ends the step's
	// restart too: the campaign is stopping and stops the cluster.
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	ctx, cancel = context.WithCancel(parent)
	defer cancel()
	h = &fakeRolling{vers: []string{"4.2.2", "4.2.2", "4.2.2"}, cancelOn: 2, cancel: cancelParent}
	r = rollingRunner(h, new([]time.Duration))
	r.parent = parent
	_, err = r.rolling(ctx, 0, scenarios.Event{Action: scenarios.ActionBrokerRollingRestart})
	if err == nil || !strings.Contains(err.Error(), "broker 2: restart: stopped, not started again") || len(r.out[0].Steps) != 2 {
		t.Errorf("Ctrl-C: err %v, steps %+v", err, r.out[0].Steps)
	}

	h = &fakeRolling{vers: []string{"4.2.2", "4.2.2", "4.2.2"}, syncErr: errors.New("1 under-replicated partition(s)")}
	r = rollingRunner(h, new([]time.Duration))
	if _, err = r.rolling(context.Background(), 0, scenarios.Event{Action: scenarios.ActionBrokerRollingRestart}); err == nil ||
		len(r.out[0].Steps) != 1 || !strings.Contains(r.out[0].Steps[0].Error, "under-replicated") {
		t.Errorf("err %v, steps %+v", err, r.out[0].Steps)
	}
}

func TestSameReplicas(t *testing.T) {
	for _, tc := range []struct {
		isr, replicas []int32
		want          bool
	}{
		{[]int32{1, 2, 3}, []int32{3, 1, 2}, true},
		{[]int32{1, 2}, []int32{1, 2, 3}, false},
		{[]int32{1, 2, 4}, []int32{1, 2, 3}, false},
		{nil, nil, true},
	} {
		if got := sameReplicas(tc.isr, tc.replicas); got != tc.want {
			t.Errorf("%v vs %v: %v", tc.isr, tc.replicas, got)
		}
	}
}
