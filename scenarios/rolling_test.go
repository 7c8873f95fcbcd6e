package scenarios

import (
	"slices"
	"testing"
	"time"
)

// Rolling restarts and upgrades: their keys, defaults and refusals, each
// error naming the file, line and key.
func TestRollingEventErrors(t *testing.T) {
	const base = "name: x\nconsumer_type: share\nmembers: 2\nduration: 60s\nnodes: 3\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"single node", "events:\n  - {at: 1s, action: broker_rolling_restart}\n",
			[]string{"scenario.yaml:", "events[1].action: broker_rolling_restart needs nodes 3: with nodes 1 there is no other broker",
				"use action broker_restart to restart the single broker"}},
		{"upgrade without a release", "events:\n  - {at: 1s, action: broker_rolling_upgrade}\n",
			[]string{"scenario.yaml:7:", "events[1].kafka_version: required with action broker_rolling_upgrade: the Kafka release every broker is restarted on"}},
		{"release on a restart", "events:\n  - {at: 1s, action: broker_rolling_restart, kafka_version: 4.3.1}\n",
			[]string{"events[1].kafka_version: not used by action broker_rolling_restart; remove it"}},
		{"broker on a roll", "events:\n  - {at: 1s, action: broker_rolling_restart, broker: 1}\n",
			[]string{"events[1].broker: not used by action broker_rolling_restart; remove it"}},
		{"duration on a roll", "events:\n  - {at: 1s, action: broker_rolling_restart, duration: 5s}\n",
			[]string{"events[1].duration: not used by action broker_rolling_restart; remove it"}},
		{"pause on a kill", "events:\n  - {at: 1s, action: broker_kill, broker: 1, pause: 5s}\n",
			[]string{"events[1].pause: not used by action broker_kill; remove it"}},
		{"pause on a join", "events:\n  - {at: 1s, action: join, pause: 5s}\n",
			[]string{"events[1].pause: not used by action join; remove it"}},
		{"pause negative", "events:\n  - {at: 1s, action: broker_rolling_restart, pause: -1s}\n",
			[]string{`events[1].pause: expected a Go duration from 0s to 10m0s like 10s (the wait between brokers), got "-1s"`}},
		{"pause too long", "events:\n  - {at: 1s, action: broker_rolling_restart, pause: 11m}\n",
			[]string{`events[1].pause: expected a Go duration from 0s to 10m0s`, `got "11m"`}},
		{"release not a version", "events:\n  - {at: 1s, action: broker_rolling_upgrade, kafka_version: latest}\n",
			[]string{`events[1].kafka_version: expected a Kafka release like "4.3.1", got "latest"`}},
		{"release too old for the harness", "events:\n  - {at: 1s, action: broker_rolling_upgrade, kafka_version: 3.9.0}\n",
			[]string{`events[1].kafka_version: must be a release the harness runs, 4.1.0 or newer, got "3.9.0"`}},
		{"downgrade", "kafka_version: 4.3.1\nevents:\n  - {at: 1s, action: broker_rolling_upgrade, kafka_version: 4.2.2}\n",
			[]string{"events[1].kafka_version: must be ≥ the run's kafka_version 4.3.1 (an upgrade; downgrades are not offered), got 4.2.2"}},
		{"two upgrades", "events:\n  - {at: 1s, action: broker_rolling_upgrade, kafka_version: 4.3.1}\n  - {at: 2s, action: broker_rolling_upgrade, kafka_version: 4.4.0}\n",
			[]string{"events: at most one broker_rolling_upgrade per run (each broker moves to one release), got 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			yaml := base + tc.yaml
			if tc.name == "single node" {
				yaml = "name: x\nconsumer_type: share\nmembers: 2\nduration: 60s\n" + tc.yaml
			}
			_, err := load(t, yaml, nil, nil)
			wantErr(t, err, tc.want...)
		})
	}
}

func TestRollingEventsLoad(t *testing.T) {
	s := mustLoad(t, `name: x
consumer_type: [consumer, share]
nodes: 3
duration: 90s
events:
  - {at: 5s, action: broker_rolling_restart}
  - {at: 50s, action: broker_rolling_upgrade, kafka_version: 4.3.1, pause: 0s}
`, nil, nil)
	want := []Event{
		{At: 5 * time.Second, Action: ActionBrokerRollingRestart, Pause: DefaultRollingPause},
		{At: 50 * time.Second, Action: ActionBrokerRollingUpgrade, KafkaVersion: "4.3.1"},
	}
	for _, r := range s.Runs {
		if !slices.Equal(r.Events, want) {
			t.Errorf("%s: events %+v, want %+v", r.ConsumerType, r.Events, want)
		}
		if got := r.RollingUpgrade(); got != "4.3.1" {
			t.Errorf("RollingUpgrade %q", got)
		}
	}
	if got := want[0].String(); got != "broker_rolling_restart, pause 10s" {
		t.Errorf("label %q", got)
	}
	if got := want[1].String(); got != "broker_rolling_upgrade to 4.3.1, pause 0s" {
		t.Errorf("label %q", got)
	}
	if !want[0].Rolling() || !want[1].Rolling() || (Event{Action: ActionBrokerRestart}).Rolling() {
		t.Error("Rolling")
	}
}

// The same release as the run's is a rolling restart onto the same jars:
// allowed (a kafka_version sweep may include the target).
func TestRollingUpgradeToTheSameRelease(t *testing.T) {
	mustLoad(t, "name: x\nnodes: 3\nduration: 60s\nkafka_version: 4.3.1\nevents:\n  - {at: 1s, action: broker_rolling_upgrade, kafka_version: 4.3.1}\n", nil, nil)
}

func TestRollingBuiltins(t *testing.T) {
	for _, name := range []string{"rolling-restart", "rolling-upgrade"} {
		sc, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Runs) != 2 {
			t.Fatalf("%s: %d runs", name, len(sc.Runs))
		}
		for _, r := range sc.Runs {
			if r.Nodes != 3 || len(r.Events) != 1 || !r.Events[0].Rolling() || r.Events[0].Pause != 5*time.Second {
				t.Errorf("%s: %+v", name, r)
			}
		}
	}
	sc, _ := Builtin("rolling-upgrade")
	if r := sc.Runs[0]; r.KafkaVersion != "4.2.2" || r.RollingUpgrade() != "4.3.1" {
		t.Errorf("rolling-upgrade: %s → %s", r.KafkaVersion, r.RollingUpgrade())
	}
}
