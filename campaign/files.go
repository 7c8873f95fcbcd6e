package campaign

import (
	"fmt"

	"github.com/sharebench/sharebench/scenarios"
)

// Open files a franz-go run needs in the harness process, estimated per
// client: a member keeps a fetch connection to every broker plus one for
// metadata and one to its group coordinator (nodes + 2); a producer a
// produce connection to every broker plus one for metadata (nodes + 1).
// filesReserve covers the rest (the admin and lag clients, the collectors'
// scrapes, the results folder's files, the metrics listener).
const filesReserve = 256

// RunFiles is the open files a run's harness process needs: the members
// and producers of one shard (a sharded run spreads them over its agents).
// Runner clients (java, librdkafka) hold their members' connections in the
// runner process, so only the producers count for them.
func RunFiles(r scenarios.RunSpec) uint64 {
	members, producers, nodes := filesClients(r)
	return members*(nodes+2) + producers*(nodes+1) + filesReserve
}

// filesClients are the members and producers of one harness process and
// the brokers each connects to.
func filesClients(r scenarios.RunSpec) (members, producers, nodes uint64) {
	shards := uint64(r.ShardCount())
	members = (uint64(r.MaxMembers()) + shards - 1) / shards
	if r.Client.Runner() {
		members = 0
	}
	producers = (uint64(r.Producers) + shards - 1) / shards
	return members, producers, uint64(max(r.Nodes, 1))
}

// CheckFiles refuses a scenario whose largest run would need more open
// files than the process may hold (limit: RLIMIT_NOFILE, which the Go
// runtime raises to its hard limit at start): members past it would fail to
// connect in the middle of the run, named "too many open files" by no one.
func CheckFiles(sc *scenarios.Scenario, limit uint64) error {
	for i, r := range sc.Runs {
		if need := RunFiles(r); limit > 0 && need > limit {
			m, p, n := filesClients(r)
			return fmt.Errorf("%s: run %s needs about %d open files in one process (%d members × (%d brokers + 2) + %d producers × (%d brokers + 1) + %d), "+
				"over this process's limit of %d (RLIMIT_NOFILE): raise the hard limit (ulimit -Hn, LimitNOFILE=) or spread the run over more agents (shards)",
				sc.Source, sc.RunName(i), need, m, n, p, n, filesReserve, limit)
		}
	}
	return nil
}
