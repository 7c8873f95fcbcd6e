package campaign

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// The open files a run needs, worked by hand: 3,000 members on 3 brokers
// hold 3,000 × (3 + 2) connections, 2 producers 2 × (3 + 1), plus the
// reserve; over 4 agents one process holds 750 members and 1 producer.
func TestRunFilesAndTheLimit(t *testing.T) {
	var r scenarios.RunSpec
	r.ConsumerType, r.Nodes, r.Producers, r.Members, r.Workers = vocab.ConsumerGroup, 3, 2, 3000, 1
	if got, want := RunFiles(r), uint64(3000*5+2*4+filesReserve); got != want {
		t.Errorf("one process: %d files, want %d", got, want)
	}
	sharded := r
	sharded.Shards = 4
	if got, want := RunFiles(sharded), uint64(750*5+1*4+filesReserve); got != want {
		t.Errorf("4 agents: %d files per process, want %d", got, want)
	}
	java := r
	java.Client = vocab.ClientJava // its members' connections are the runner's
	if got, want := RunFiles(java), uint64(2*4+filesReserve); got != want {
		t.Errorf("java: %d files, want %d", got, want)
	}

	sc := &scenarios.Scenario{Name: "big", Source: "big.yaml", Runs: []scenarios.RunSpec{r}}
	err := CheckFiles(sc, 10_000)
	if err == nil || !strings.Contains(err.Error(), "big.yaml") || !strings.Contains(err.Error(), "15264 open files") ||
		!strings.Contains(err.Error(), "limit of 10000") || !strings.Contains(err.Error(), "shards") {
		t.Errorf("over the limit: %v", err)
	}
	if err := CheckFiles(sc, 20_000); err != nil {
		t.Errorf("within the limit: %v", err)
	}
	if err := CheckFiles(sc, 0); err != nil {
		t.Errorf("an unreadable limit (0) checks nothing: %v", err)
	}
	if FileLimit() == 0 {
		t.Error("RLIMIT_NOFILE unreadable on this unix host")
	}
}
