package scenarios

import (
	"testing"

	"github.com/sharebench/sharebench/vocab"
)

// shards: refuses what a sharded run cannot do, naming the file, line and
// key, and accepts the shapes it supports.
func TestShardsValidation(t *testing.T) {
	bad := []struct{ name, yaml, want string }{
		{"negative", "name: x\nshards: -1\n", "scenario.yaml:2: shards: expected an integer from 1 to 64 (agents a run is split over), got -1"},
		{"too many", "name: x\nshards: 65\n", "scenario.yaml:2: shards: expected an integer from 1 to 64 (agents a run is split over), got 65"},
		{"connections below the agents", "name: x\nshards: 3\nload_mode: backlog\nbacklog_records: 100\ndestination: {kind: postgres, connections: 2}\n",
			"destination.connections: 2 connections cannot be shared by 3 agents"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, nil, nil)
			wantErr(t, err, tt.want)
		})
	}
	// Every load mode, events, the scaler and a destination run split over
	// agents as in one process.
	for _, y := range []string{
		"name: x\nshards: 2\nload_mode: backlog\nbacklog_records: 1000\n",
		"name: x\nshards: 2\nload_mode: max_rate\nmax_rate: {start: 100, step: 100, max: 300}\n",
		"name: x\nconsumer_type: share\nshards: 2\nevents:\n  - {at: 1s, action: join, members: 1}\n  - {at: 2s, action: crash, members: 1}\n",
		"name: x\nconsumer_type: share\nshards: 2\nmembers: 1\nduration: 60s\nautoscale: {threshold: 100, max: 4}\n",
		"name: x\nshards: 2\nload_mode: backlog\nbacklog_records: 100\ndestination: {kind: postgres, connections: 2}\n",
	} {
		if s := mustLoad(t, y, nil, nil); s.Runs[0].ShardCount() != 2 {
			t.Fatalf("%q: shards %d", y, s.Runs[0].ShardCount())
		}
	}
	s := mustLoad(t, "name: x\nshards: 3\nproducers: 2\nmembers: 12\n", nil, nil)
	for _, r := range s.Runs {
		if r.Shards != 3 || r.ShardCount() != 3 {
			t.Fatalf("shards: 3 loaded as %d (count %d)", r.Shards, r.ShardCount())
		}
	}
	if s := mustLoad(t, "name: x\nshards: 2\nclient: java\n", nil, nil); s.Runs[0].Client != vocab.ClientJava {
		t.Fatalf("shards with client java (each agent runs its own Java runner): %+v", s.Runs[0])
	}
	if s := mustLoad(t, "name: x\n", nil, []string{"shards=2"}); s.Runs[0].Shards != 2 {
		t.Fatalf("--set shards=2 gave %d", s.Runs[0].Shards)
	}
	if (RunSpec{}).ShardCount() != 1 {
		t.Fatal("an unset Shards must count as one process")
	}
}
