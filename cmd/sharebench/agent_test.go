package main

import (
	"bytes"
	"strings"
	"testing"
)

func runArgs(t *testing.T, args ...string) error {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	return root.Execute()
}

// Bad --shards and --distribute values are refused by name before anything
// starts; the agent refuses a missing index or topics.
func TestShardFlagsRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scenario", "partition-cap", "--shards", "65"}, "--shards 65: expected 1 to 64"},
		{[]string{"run", "--scenario", "partition-cap", "--shards", "2", "--distribute", "mars", "--provider", "kfake"}, `--distribute "mars": expected one of`},
		{[]string{"run", "--scenario", "partition-cap", "--shards", "2", "--agent-binary", "/nonexistent/sharebench", "--provider", "kfake"}, "--agent-binary /nonexistent/sharebench"},
		{[]string{"agent", "--bootstrap", "127.0.0.1:1", "--control-topic", "c", "--results-topic", "r", "--shards", "2"}, "--shard: give the shard index"},
		{[]string{"agent", "--shards", "2", "--shard", "0"}, "--bootstrap, --control-topic and --results-topic are required"},
		{[]string{"agent", "--bootstrap", "x:1", "--control-topic", "c", "--results-topic", "r", "--shards", "2", "--shard", "2"}, "--shard 2 --shards 2: expected 0 ≤ shard < shards"},
	} {
		t.Setenv("JOB_COMPLETION_INDEX", "")
		err := runArgs(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want it to mention %q", tt.args, err, tt.want)
		}
	}
}
