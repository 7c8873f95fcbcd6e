package campaign

import (
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// TestExpectFieldsResolve keeps the scenarios vocabulary and run.json in
// step: every field a scenario may name must read as a number from a run.
func TestExpectFieldsResolve(t *testing.T) {
	// max_rate.* exists on load_mode max_rate runs only, burst.* on bursts (pointers in RunRecord),
	// stall.* on stalled runs, requests.fetch.* on runs with fetch timings, settle.* on campaign runs,
	// broker.jit_compile_s on runs whose broker scrapes give it.
	v := 1.0
	r := runs.Record{Audit: results.Audit{Produced: 100, Archived: 2, Order: &results.OrderAudit{}}, MaxRate: &runs.MaxRateResult{FoundRate: 100, FailedRate: 104, GapRatio: 0.04, CeilingPerSec: 110}, Burst: &runs.Burst{},
		Group: &runs.GroupInfo{}, Stall: &runs.Stall{}, Settle: &runs.Settle{}, Shards: &runs.Shards{}, Requests: []runs.RequestFigure{{Kind: "ShareFetch", Count: 1}},
		BrokerCost:   &runs.BrokerCost{ProduceOnly: &runs.ProduceOnly{}},
		EventSummary: &runs.EventSummary{FirstRecordMaxSec: &v, RecoveryMaxSec: &v, FirstRedeliveryMaxSec: &v, RollingSteps: 3}, // rolling_*: runs with a rolling restart or upgrade
		Autoscale:    &runs.Autoscale{SpikeRecoverySec: &v, DrainSec: &v}}                                                       // autoscale: runs only
	r.Audit.DeadLetterAudit = results.ReconcileDeadLetters(results.NewLedger(1, 1), 2, 0, "t", nil, true) // dead_letter runs only
	// resources.harness_rss_max_mib and collector_*: measured where /proc and a thread CPU clock are read
	r.Resources.HarnessCPUSeconds, r.Resources.HarnessRSSMaxMiB = 1, &v
	r.Resources.SetCollectorCPU(0.01)
	r.Destination = &runs.Destination{DestinationAudit: &results.DestinationAudit{}} // destination runs only
	r.Broker.Samples = 2                                                             // broker.jit_compile_s: runs with broker scrapes that give it
	r.Ceiling.Destination = 1
	// harness.growth.*: runs with a window of 10 minutes or more
	r.Harness = &runs.HarnessSeries{Growth: &runs.Growth{Evaluated: true, RSSPercent: &v, GoroutinesPercent: &v, OpenFilesPercent: &v, RecorderPercent: &v}}
	for _, f := range scenarios.ExpectFields() {
		if _, ok := runs.FieldValue(r, f); !ok {
			t.Errorf("expectation field %s does not resolve on a RunRecord", f)
		}
	}
}

// TestBuiltinExpectationsEvaluate converts partition-cap's expectations and
// evaluates them on records carrying the real RunSpecs, so where: selectors
// and pairing see what a campaign sees.
func TestBuiltinExpectationsEvaluate(t *testing.T) {
	sc, err := scenarios.Builtin("partition-cap")
	if err != nil {
		t.Fatal(err)
	}
	var recs []runs.Record
	for i, spec := range sc.Runs {
		r := runs.Record{RunID: sc.RunName(i), ConsumerType: spec.ConsumerType, Spec: &spec}
		r.Throughput.CompletedPerSec = map[string]float64{"consumer": 380, "share": 1000}[string(spec.ConsumerType)]
		r.Ceiling.Efficiency = map[string]float64{"consumer": 0.95, "share": 1}[string(spec.ConsumerType)]
		recs = append(recs, r)
	}
	outs := EvaluateExpectations(sc, recs)
	want := []struct {
		name     string
		measured string
	}{
		{"share group keeps up where partitions cap the consumer group", "r02-share/r01-consumer 2.632"},
		{"consumer group reaches its worker ceiling", "r01-consumer 0.95"},
		{"no record lost", "r01-consumer 0, r02-share 0"},
	}
	if len(outs) != len(want) {
		t.Fatalf("got %d outcomes, want %d", len(outs), len(want))
	}
	for i, w := range want {
		if o := outs[i]; o.Name != w.name || !o.Met || o.MeasuredText() != w.measured {
			t.Errorf("outcome %d: got %+v (%s), want %s met with %s", i, o, o.MeasuredText(), w.name, w.measured)
		}
	}
}

func TestBuiltinWhereSelectorsEvaluate(t *testing.T) {
	sc, err := scenarios.Builtin("mpr-cliff")
	if err != nil {
		t.Fatal(err)
	}
	var recs []runs.Record
	for i, spec := range sc.Runs {
		r := runs.Record{RunID: sc.RunName(i), ConsumerType: spec.ConsumerType, Spec: &spec}
		r.Throughput.CompletedPerSec = 8000 / float64(spec.MaxPollRecords)
		r.Throughput.CompletedRatio = 1
		recs = append(recs, r)
	}
	outs := EvaluateExpectations(sc, recs)
	if got := outs[1].MeasuredText(); got != "r03-share-mpr200/r01-share-mpr10 0.05" || !outs[1].Met {
		t.Errorf("cliff ratio: got %s met %v", got, outs[1].Met)
	}
}
