package campaign

import (
	"slices"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// crashTargets replays the events on the fleet's oldest-first order: joins
// get the next ids, leaves and crashes take the oldest, in time order
// whatever the file's order; a removal the fleet would refuse (one member
// must stay) removes nobody.
func TestCrashTargets(t *testing.T) {
	ev := func(at time.Duration, action string, n int) scenarios.Event {
		return scenarios.Event{At: at, Action: action, Members: n}
	}
	for _, c := range []struct {
		members int
		events  []scenarios.Event
		want    []int
	}{
		{3, []scenarios.Event{ev(8*time.Second, scenarios.ActionCrash, 1)}, []int{0}},
		{4, []scenarios.Event{ev(9*time.Second, scenarios.ActionCrash, 2), ev(2*time.Second, scenarios.ActionLeave, 1)}, []int{1, 2}},
		{2, []scenarios.Event{ev(time.Second, scenarios.ActionJoin, 2), ev(2*time.Second, scenarios.ActionLeave, 2),
			ev(3*time.Second, scenarios.ActionCrash, 1)}, []int{2}},
		{2, []scenarios.Event{ev(time.Second, scenarios.ActionCrash, 2), ev(2*time.Second, scenarios.ActionCrash, 1)}, []int{0}},
		{3, []scenarios.Event{ev(time.Second, scenarios.ActionSlow, 0)}, nil},
	} {
		got := crashTargets(scenarios.RunSpec{Fleet: scenarios.Fleet{Members: c.members}, Events: c.events})
		if !slices.Equal(got, c.want) {
			t.Errorf("%d members, %v: %v, want %v", c.members, c.events, got, c.want)
		}
	}
}

// The members a crash takes run in a runner process of their own with both
// client runners (java, librdkafka); franz-go freezes a crashed member's
// connections in the harness process instead.
func TestCrashTargetsPerClient(t *testing.T) {
	crash := []scenarios.Event{{At: 8 * time.Second, Action: scenarios.ActionCrash, Members: 1}}
	for client, want := range map[vocab.Client][]int{vocab.ClientJava: {0}, vocab.ClientLibrdkafka: {0}, vocab.ClientFranzGo: nil} {
		s := scenarios.RunSpec{Fleet: scenarios.Fleet{Members: 3}, Events: crash}
		s.Client = client
		if got := consumerConfig(s, nil, "t", "g").OwnJVM; !slices.Equal(got, want) {
			t.Errorf("client %s: members in a process of their own %v, want %v", client, got, want)
		}
	}
}
