package runs

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// FromMeasurement turns counts over a window into rates, fills the phases
// from the timings and raises the flags the measurement calls for.
func TestFromMeasurement(t *testing.T) {
	s := scenarios.RunSpec{ConsumerType: vocab.ShareGroup, Fleet: scenarios.Fleet{Members: 2, Workers: 1}, Partitions: 2,
		Producer: scenarios.Producer{Rate: 100}, Phases: scenarios.Phases{Duration: 2 * time.Second, Warmup: time.Second}, Processing: scenarios.Processing{Model: "constant", Time: time.Millisecond}}
	w := results.Window{Start: 3e9, End: 5e9} // 2 s
	series := results.NewSeries(1e9, 10)
	m := results.NewRecorder(results.NewClock(), 1, results.NewLedger(1, 300), series).Merge()
	m.AckedWindow, m.CompletedInWindow, m.Polls, m.EmptyPolls = 200, 150, 10, 4
	in := Measurement{Spec: s, RunID: "r01-share", Window: w, Series: series, Merged: m,
		Audit:    results.Audit{Produced: 300, CompletedOnce: 300, Balanced: true},
		DrainSec: 0.5, FormationSec: 1.25, FormationRounds: 2,
		Checks: ValidityInput{IsKafka: false}}
	r := FromMeasurement(in)
	if r.Throughput.ProducedPerSec != 100 || r.Throughput.CompletedPerSec != 75 || r.Throughput.CompletedRatio != 0.75 {
		t.Errorf("throughput %+v, want produced 100, completed 75, ratio 0.75", r.Throughput)
	}
	if r.Polls.EmptyRatio != 0.4 {
		t.Errorf("empty ratio %v, want 0.4", r.Polls.EmptyRatio)
	}
	if r.Phases.WindowStartSec != 2 || r.Phases.MeasureSec != 2 || r.Phases.GroupFormationSec != 1.25 || r.Phases.FormationRounds != 2 {
		t.Errorf("phases %+v", r.Phases)
	}
	if r.ConsumerType != vocab.ShareGroup || r.RunID != "r01-share" || r.Ceiling.Bound != BoundProducer {
		t.Errorf("type %s id %s bound %s", r.ConsumerType, r.RunID, r.Ceiling.Bound)
	}
	if r.Validity.Valid || len(r.Validity.Flags) != 1 || r.Validity.Flags[0].Code != CodeNotKafka {
		t.Errorf("validity %+v, want not_kafka only", r.Validity)
	}
	in.Checks.IsKafka, in.DrainTimedOut = true, true
	if r := FromMeasurement(in); len(r.Validity.Flags) != 1 || r.Validity.Flags[0].Code != CodeDrainTimeout {
		t.Errorf("drain timed out: %+v", r.Validity)
	}
	in.DrainTimedOut = false
	in.Shards = &Shards{Count: 2, LimitMs: ClockSkewLimitMs, MaxUncertaintyMs: ClockSkewLimitMs + 5,
		PerShard: []ShardStats{{Shard: 0}, {Shard: 1, UncertaintyMs: ClockSkewLimitMs + 5}}}
	r = FromMeasurement(in)
	if r.Shards != in.Shards || len(r.Validity.Flags) != 1 || r.Validity.Flags[0].Code != CodeClockSkew {
		t.Errorf("sharded, clock uncertainty over the limit: shards %v, validity %+v, want clock_skew only", r.Shards, r.Validity)
	}
}
