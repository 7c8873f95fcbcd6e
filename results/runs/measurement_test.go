package runs

import (
	"math"
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

// The figures this record adds over a window of 2 s, worked by hand:
// 150 completions in the window of which 30 came after their lock expired
// give completed 75/s and useful 60/s; a calibration of 12 ms a scrape and
// 3 scrapes in the window charge 0.036 broker CPU-s to broker_cost, its
// share of 1.8 CPU-s being 2 %.
func TestFromMeasurementUsefulRateAndScrapeCharge(t *testing.T) {
	s := scenarios.RunSpec{ConsumerType: vocab.ShareGroup, Fleet: scenarios.Fleet{Members: 2, Workers: 1}, Partitions: 2,
		Producer: scenarios.Producer{Rate: 100}, Phases: scenarios.Phases{Duration: 2 * time.Second, Warmup: time.Second}, Processing: scenarios.Processing{Model: "constant", Time: time.Millisecond}}
	series := results.NewSeries(1e9, 10)
	m := results.NewRecorder(results.NewClock(), 1, results.NewLedger(1, 300), series).Merge()
	m.AckedWindow, m.CompletedInWindow, m.LockExpiredInWindow, m.LockExpired = 200, 150, 30, 30
	in := Measurement{Spec: s, RunID: "r01-share", Window: results.Window{Start: 3e9, End: 5e9}, Series: series, Merged: m,
		Audit: results.Audit{Produced: 300, CompletedOnce: 300, Balanced: true}, Checks: ValidityInput{IsKafka: true},
		Broker:        results.BrokerMetrics{CPUSeconds: 1.8, CPUSource: "proc"},
		BrokerScrapes: 3,
		Environment:   Environment{Priming: &Priming{ScrapeCost: &ScrapeCost{CPUMsPerScrape: 12}}}}
	r := FromMeasurement(in)
	if r.Throughput.CompletedPerSec != 75 || r.Throughput.UsefulPerSec != 60 || r.UsefulPerSec() != 60 {
		t.Errorf("throughput %+v, want completed 75/s and useful 60/s", r.Throughput)
	}
	c := r.BrokerCost
	if c == nil || c.Scrapes != 3 || math.Abs(c.ScrapeCPUSeconds-0.036) > 1e-12 || math.Abs(c.ScrapePercent-2) > 1e-9 || c.ScrapeSubtracted {
		t.Errorf("broker_cost %+v, want 3 scrapes charged 0.036 CPU-s, 2 %% of 1.8, not subtracted (not above 2 %%)", c)
	}
	// a file written before useful_per_sec: completed stands in, unless a
	// lock expired (then 0 is what was measured)
	old := Record{Throughput: Throughput{CompletedPerSec: 75}}
	if old.UsefulPerSec() != 75 {
		t.Errorf("an older record's useful rate %v, want its completed 75", old.UsefulPerSec())
	}
	old.Outcomes.LockExpiredCompleted = 5
	if old.UsefulPerSec() != 0 {
		t.Errorf("a record with expired locks and useful 0: %v, want 0", old.UsefulPerSec())
	}
}
