package scenarios

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEventErrors(t *testing.T) {
	const base = "name: x\nconsumer_type: share\nmembers: 2\nduration: 20s\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"not a list", "events: {at: 1s}\n", []string{"scenario.yaml:5:", "events: expected a list of events"}},
		{"unknown key", "events:\n  - {at: 1s, action: join, membres: 2}\n",
			[]string{"scenario.yaml:6:", `events[1]: unknown key "membres"`, `did you mean "members"`}},
		{"unknown action", "events:\n  - {at: 1s, action: explode}\n",
			[]string{`events[1].action: expected one of join, leave, crash, slow`, `got "explode"`}},
		{"bad at", "events:\n  - {at: soon, action: join}\n",
			[]string{`events[1].at: expected a Go duration ≥ 0 like 10s, got "soon"`}},
		{"at missing", "events:\n  - {action: join}\n", []string{"events[1].at: required"}},
		{"factor ≤ 1", "events:\n  - {at: 1s, action: join}\n  - {at: 2s, action: slow, factor: 0.5, duration: 2s}\n",
			[]string{"scenario.yaml:7:", `events[2].factor: expected a number > 1 and ≤ 1000 (processing time × factor; 1000 is the harness's limit), got "0.5"`}},
		{"slow without duration", "events:\n  - {at: 1s, action: slow, factor: 2}\n",
			[]string{"events[1].duration: required with action slow: how long the slow-down lasts, a Go duration > 0"}},
		{"pause zero duration", "events:\n  - {at: 1s, action: broker_pause, broker: 1, duration: 0s}\n",
			[]string{"events[1].duration: must be > 0 with action broker_pause, got 0s"}},
		{"factor on join", "events:\n  - {at: 1s, action: join, factor: 2}\n",
			[]string{"events[1].factor: not used by action join; remove it"}},
		{"broker missing", "events:\n  - {at: 1s, action: broker_kill}\n",
			[]string{"events[1].broker: required with action broker_kill: a node id or share-coordinator, group-coordinator, partition-leader"}},
		{"broker bad", "events:\n  - {at: 1s, action: broker_kill, broker: leader}\n",
			[]string{`events[1].broker: expected a node id ≥ 1 or one of share-coordinator, group-coordinator, partition-leader, got "leader"`}},
		{"broker beyond nodes", "events:\n  - {at: 1s, action: broker_restart, broker: 3}\n",
			[]string{"scenario.yaml:6: events[1].broker: node id must be in 1..nodes (1), got 3"}},
		{"at past window", "events:\n  - {at: 20s, action: join}\n",
			[]string{"events[1].at: must be < duration (20s), an offset into the measurement window, got 20s"}},
		{"crash every member", "events:\n  - {at: 1s, action: crash, members: 2}\n",
			[]string{"events[1].members: must be < the 2 member(s) in the group at 1s: at least one member must stay, got 2"}},
		{"leave after join counts joins, in time order", "events:\n  - {at: 5s, action: leave, members: 3}\n  - {at: 1s, action: join, members: 1}\n",
			[]string{"events[1].members: must be < the 3 member(s) in the group at 5s"}},
		{"members zero", "events:\n  - {at: 1s, action: join, members: 0}\n",
			[]string{`events[1].members: expected an integer from 1 to 10000 (the harness's member limit), got "0"`}},
		{"backlog refused", "load_mode: backlog\nbacklog_records: 10\nevents:\n  - {at: 1s, action: join}\n",
			[]string{"events: not supported with load_mode backlog"}},
		{"share coordinator on a consumer group", "consumer_type: consumer\nevents:\n  - {at: 1s, action: broker_kill, broker: share-coordinator}\n",
			[]string{`events[1].broker: share-coordinator needs consumer_type share, got "consumer"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			yaml := base + tc.yaml
			if strings.HasPrefix(tc.yaml, "consumer_type") {
				yaml = strings.Replace(base, "consumer_type: share\n", "", 1) + tc.yaml
			}
			_, err := load(t, yaml, nil, nil)
			wantErr(t, err, tc.want...)
		})
	}
}

func TestEventsLoad(t *testing.T) {
	s := mustLoad(t, `name: x
consumer_type: [consumer, share]
members: 2
nodes: 1
events:
  - {at: 5s, action: join, members: 2}
  - {at: 8s, action: slow, factor: 3, duration: 4s}
  - {at: 12s, action: crash}
  - {at: 14s, action: broker_kill, broker: partition-leader, duration: 2s}
`, nil, nil)
	want := []Event{
		{At: 5 * time.Second, Action: ActionJoin, Members: 2},
		{At: 8 * time.Second, Action: ActionSlow, Factor: 3, Duration: 4 * time.Second},
		{At: 12 * time.Second, Action: ActionCrash, Members: 1},
		{At: 14 * time.Second, Action: ActionBrokerKill, Broker: "partition-leader", Duration: 2 * time.Second},
	}
	if len(s.Runs) != 2 {
		t.Fatalf("events must not be a dimension: got %d runs", len(s.Runs))
	}
	for _, r := range s.Runs {
		if !slices.Equal(r.Events, want) {
			t.Errorf("%s: events %+v, want %+v", r.ConsumerType, r.Events, want)
		}
		if r.MaxMembers() != 4 {
			t.Errorf("MaxMembers %d, want 4", r.MaxMembers())
		}
	}
	if got := want[1].String(); got != "slow ×3 for 4s" {
		t.Errorf("String %q", got)
	}
	_, err := load(t, "name: x\n", nil, []string{"events=[]"})
	wantErr(t, err, "events: events are written in the scenario file, not overridden")
}

// The events example of docs/how-to/inject-failures.md loads as written (on
// a share scenario with a window long enough for its offsets).
func TestEventsDocExample(t *testing.T) {
	data, err := os.ReadFile("../docs/how-to/inject-failures.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## Events\n")
	_, rest, ok2 := strings.Cut(rest, "```yaml\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/how-to/inject-failures.md: no events example")
	}
	s := mustLoad(t, "name: x\nconsumer_type: share\nmembers: 3\nduration: 30s\n"+block, nil, nil)
	if got := len(s.Runs[0].Events); got != 6 {
		t.Errorf("docs example: %d events, want 6", got)
	}
}
