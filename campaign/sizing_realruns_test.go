package campaign

import (
	"runtime"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
)

// realRuns are real-broker runs' peak harness RSS (run.json
// resources.harness_rss_max_mib; for a sharded run the largest agent's
// shards.per_shard.max_rss_mib), Kafka 4.2.2, one broker, process provider,
// on this project's 2-core machine (issue 27; the scenarios and commands are
// in docs/explanation/measurement.md#harness-footprint). A sharded run is modelled per agent: the
// agent's members and producers (its ledger and series are the run's).
var realRuns = []struct {
	name, yaml  string
	shards      int
	measuredMiB float64
}{
	{"drain-300k, consumer group first in its process", drainYAML("consumer"), 1, 232},
	{"drain-300k, share group alone in its process", drainYAML("share"), 1, 170.3},
	{"1,000 share members in one process", `name: members-1000
consumer_type: share
broker_config: {group.share.max.size: 1000, group.share.max.share.sessions: 2000}
partitions: 8
producers: 2
rate: 2000
members: 1000
workers: 1
processing: {model: constant, time: 10ms}
warmup: 5s
duration: 20s
drain_timeout: 60s
`, 1, 244},
	{"1,100 consumer-group members on 100 partitions, largest agent", `name: cg-1100
consumer_type: consumer
group_protocol: consumer
partitions: 100
producers: 2
rate: 1000
members: 1100
workers: 1
processing: {model: constant, time: 1ms}
warmup: 5s
duration: 15s
drain_timeout: 60s
`, 4, 126.6},
	// Read with ps 75 s into the agents' life (the run failed before its
	// record was written: the agents missed the end of their producers).
	{"1,500 consumer-group members on 1,500 partitions, largest agent", `name: cg-1500
consumer_type: consumer
group_protocol: consumer
partitions: 1500
producers: 4
rate: 3000
members: 1500
workers: 1
processing: {model: constant, time: 1ms}
warmup: 5s
duration: 20s
drain_timeout: 60s
`, 4, 926568.0 / 1024},
}

func drainYAML(typ string) string {
	return `name: drain-300k
consumer_type: ` + typ + `
load_mode: backlog
backlog_records: 300000
partitions: 8
producers: 2
members: 4
workers: 1
max_poll_records: 500
processing: {model: none}
drain_timeout: 120s
`
}

// TestModelAboveRealRuns holds the memory model (RunFootprint) against what
// real-broker runs peaked at: never below a run's peak RSS (the budget
// check must not let through a run that does not fit), and within
// maxOverModel of it (a model far above refuses runs that would fit).
func TestModelAboveRealRuns(t *testing.T) {
	const maxOverModel = 1.6
	// The runs were measured with 2 CPUs, which sets the members' histogram
	// stripes (results.MemberStripes): model the same machine.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, tc := range realRuns {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenarios.LoadBytes("real.yaml", []byte(tc.yaml), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := sc.Runs[0]
			if tc.shards > 1 { // the largest agent's part
				r.Members = (r.Members + tc.shards - 1) / tc.shards
				r.Producers = (r.Producers + tc.shards - 1) / tc.shards
			}
			f, err := RunFootprint(r)
			if err != nil {
				t.Fatal(err)
			}
			model := float64(f.Total) / (1 << 20)
			t.Logf("model %.0f MiB (process %s, clients %s, histograms %s, ledger %s), measured %.0f MiB: %.2f×",
				model, FormatBytes(f.BaseBytes), FormatBytes(f.ClientBytes), FormatBytes(f.HistogramBytes), FormatBytes(f.LedgerBytes),
				tc.measuredMiB, model/tc.measuredMiB)
			if model < tc.measuredMiB || model > maxOverModel*tc.measuredMiB {
				t.Errorf("model %.0f MiB, measured %.0f MiB: want the model within [1×, %.1f×] of the measurement", model, tc.measuredMiB, maxOverModel)
			}
		})
	}
}
