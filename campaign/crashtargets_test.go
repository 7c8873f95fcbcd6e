package campaign

import (
	"slices"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
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
