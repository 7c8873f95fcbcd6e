package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/infra"
)

func TestClusterUnknownNameIsAClearError(t *testing.T) {
	t.Setenv("SHAREBENCH_CACHE", t.TempDir())
	for _, sub := range []string{"down", "status"} {
		_, err := execute(t, "cluster", sub, "--name", "nope")
		if err == nil || !strings.Contains(err.Error(), `no cluster named "nope"`) || !strings.Contains(err.Error(), "cluster up --name nope") {
			t.Errorf("cluster %s of an unknown name: %v, want it to say there is none and how to start one", sub, err)
		}
	}
	_, err := execute(t, "run", "--cluster", "nope", "--scenario", "smoke")
	if err == nil || !strings.Contains(err.Error(), `no cluster named "nope"`) {
		t.Errorf("run --cluster of an unknown name: %v", err)
	}
	_, err = execute(t, "run", "--cluster", "nope", "--provider", "process", "--scenario", "smoke")
	if err == nil || !strings.Contains(err.Error(), "drop --provider") {
		t.Errorf("run --cluster with --provider: %v, want it to refuse the conflict", err)
	}
	_, err = execute(t, "cluster", "up", "--provider", "kfake")
	if err == nil || !strings.Contains(err.Error(), "auto, process or container") {
		t.Errorf("cluster up --provider kfake: %v, want a refusal naming the providers", err)
	}
	_, err = execute(t, "cluster", "up", "--set", "max_poll_records=5")
	if err == nil || !strings.Contains(err.Error(), "broker_config.KEY=VALUE") {
		t.Errorf("cluster up with a scenario key: %v, want it to ask for broker_config.KEY=VALUE", err)
	}
}

// A stale state file (its supervisor gone): status says so, down removes it.
func TestClusterDownStaleState(t *testing.T) {
	t.Setenv("SHAREBENCH_CACHE", t.TempDir())
	n, err := infra.OpenNamedCluster("old")
	if err != nil {
		t.Fatal(err)
	}
	stateFile, dir := n.StateFile, n.Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A pid that is certainly not a supervisor of ours: this test process.
	st := infra.ClusterState{Name: "old", Bootstrap: []string{"127.0.0.1:1"}, SupervisorPID: os.Getpid(), Nodes: 1}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stateFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := execute(t, "cluster", "status", "--name", "old"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("status of a stale cluster: %v, want 'not running'", err)
	}
	out, err := execute(t, "cluster", "down", "--name", "old")
	if err != nil || !strings.Contains(out, "removed its stale state") {
		t.Errorf("down of a stale cluster: %v\n%s", err, out)
	}
	for _, p := range []string{stateFile, dir} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
}
