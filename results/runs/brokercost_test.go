package runs_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestComputeBrokerCost checks every figure against numbers worked out by
// hand: 10 CPU-s in a 20 s window, 40,000 produced and 30,000 completed,
// scrapes that cost 1 CPU-s in the window (10 % > 2 %, so subtracted), a
// produce-only phase of 5 s and 10,000 records that took 1.5 CPU-s.
func TestComputeBrokerCost(t *testing.T) {
	c := runs.ComputeBrokerCost(runs.BrokerCostInput{CPUSeconds: 10, WindowSec: 20, Produced: 40_000, Completed: 30_000,
		ScrapeCPUSeconds: 1, ProduceOnlySec: 5, ProduceOnlyRecords: 10_000, ProduceOnlyCPU: 1.5})
	if c == nil {
		t.Fatal("nil cost")
	}
	for _, w := range []struct {
		name      string
		got, want float64
	}{
		{"records moved", float64(c.RecordsMoved), 70_000},
		{"scrape CPU-s", c.ScrapeCPUSeconds, 1},
		{"scrape %", c.ScrapePercent, 10},
		{"net CPU-s", c.NetCPUSeconds, 9},
		{"moved s/M", c.MovedCPUSecondsPerMillion, 9.0 / 70_000 * 1e6},     // 128.57
		{"produce-only cores", c.ProduceOnly.CPUCores, 0.3},                // 1.5 / 5
		{"produce-only s/M", c.ProduceOnly.CPUSecondsPerMillion, 150},      // 1.5 / 10,000 × 10⁶
		{"consume CPU-s", c.ConsumeCPUSeconds, 4},                          // 10 − 0.3 × 20
		{"consume s/M", c.ConsumeCPUSecondsPerMillion, 4.0 / 30_000 * 1e6}, // 133.33
	} {
		if !near(w.got, w.want) {
			t.Errorf("%s = %v, want %v", w.name, w.got, w.want)
		}
	}
	if !c.ScrapeSubtracted {
		t.Error("a 10 % scrape share is not subtracted")
	}
	if c.ProduceOnly.JITCompileSec != nil {
		t.Errorf("produce-only JIT %v without a reading", *c.ProduceOnly.JITCompileSec)
	}
	// 0.30 compile-s of the phase's 1.5 CPU-s is 20 %: a warm phase, kept;
	// 0.42 is 28 %: still compiling, so the consume side is withheld
	jit := 0.30
	c = runs.ComputeBrokerCost(runs.BrokerCostInput{CPUSeconds: 10, WindowSec: 20, Completed: 30_000, ProduceOnlySec: 5, ProduceOnlyCPU: 1.5,
		ProduceOnlyJIT: &jit})
	if c.ProduceOnly.JITCompileSec == nil || *c.ProduceOnly.JITCompileSec != 0.30 || c.ProduceOnly.Compiling || !c.Consumable() || !near(c.ConsumeCPUSeconds, 4) {
		t.Errorf("a produce-only phase compiling 20 %% of its CPU: %+v (%+v)", c, c.ProduceOnly)
	}
	jit = 0.42
	c = runs.ComputeBrokerCost(runs.BrokerCostInput{CPUSeconds: 10, WindowSec: 20, Completed: 30_000, ProduceOnlySec: 5, ProduceOnlyCPU: 1.5,
		ProduceOnlyJIT: &jit})
	if !c.ProduceOnly.Compiling || c.Consumable() || c.ConsumeCPUSeconds != 0 || c.ConsumeCPUSecondsPerMillion != 0 {
		t.Errorf("a produce-only phase compiling 28 %% of its CPU: %+v (%+v), want the consume side withheld", c, c.ProduceOnly)
	}
	f, err := runs.LookupFigure("broker_cost.consume_cpu_seconds_per_million_records")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Value(&runs.Record{BrokerCost: c}); ok {
		t.Error("the consume-side figure has a value over a compiling produce-only phase")
	}
	// 0.0005 cores × 20 s = 0.01 CPU-s = 0.1 % of 10: kept, not subtracted
	small := runs.ComputeBrokerCost(runs.BrokerCostInput{CPUSeconds: 10, WindowSec: 20, Produced: 100, Completed: 100, ScrapeCPUSeconds: 0.01})
	if small.ScrapeSubtracted || small.NetCPUSeconds != 10 || !near(small.ScrapePercent, 0.1) || small.ProduceOnly != nil || small.ConsumeCPUSeconds != 0 {
		t.Errorf("below the 2 %% limit: %+v", small)
	}
	if !near(small.MovedCPUSecondsPerMillion, 10.0/200*1e6) {
		t.Errorf("moved s/M = %v, want %v", small.MovedCPUSecondsPerMillion, 10.0/200*1e6)
	}
	if runs.ComputeBrokerCost(runs.BrokerCostInput{WindowSec: 20, Produced: 1}) != nil {
		t.Error("no broker CPU gave a cost")
	}
}

// TestBrokerCostChargesNoArmForProducing is the case the old figure got
// wrong: two arms at the same produce cost, one completing a third of what
// was produced. broker.cpu_seconds_per_million_records charges the slow arm
// for producing; the consume-side figure charges each arm what its
// consumers added.
func TestBrokerCostChargesNoArmForProducing(t *testing.T) {
	// producing 1000 records/s costs 0.2 cores; consuming costs 100 µs of
	// CPU per record for the consumer arm, 150 µs for the share arm
	const window, rate, produceCores = 20.0, 1000.0, 0.2
	arm := func(completedPerSec, perRecord float64) *runs.BrokerCost {
		completed := completedPerSec * window
		return runs.ComputeBrokerCost(runs.BrokerCostInput{CPUSeconds: produceCores*window + completed*perRecord,
			WindowSec: window, Produced: int64(rate * window), Completed: int64(completed),
			ProduceOnlySec: 5, ProduceOnlyRecords: int64(rate * 5), ProduceOnlyCPU: produceCores * 5})
	}
	consumer, share := arm(372, 100e-6), arm(1000, 150e-6)
	oldConsumer := consumer.CPUSeconds / float64(consumer.Completed) * 1e6
	oldShare := share.CPUSeconds / float64(share.Completed) * 1e6
	if oldConsumer <= oldShare {
		t.Fatalf("the constructed case should show the old inversion: %v vs %v", oldConsumer, oldShare)
	}
	if !near(consumer.ConsumeCPUSecondsPerMillion, 100) || !near(share.ConsumeCPUSecondsPerMillion, 150) {
		t.Errorf("consume side s/M: consumer %v (want 100), share %v (want 150)", consumer.ConsumeCPUSecondsPerMillion, share.ConsumeCPUSecondsPerMillion)
	}
}

func costRecord(id string, gt vocab.GroupType, completedPerSec, netCPU float64, completed int64, consumePerM, movedPerM float64) runs.Record {
	spec := scenarios.RunSpec{ConsumerType: gt, Partitions: 4}
	r := runs.Record{RunID: id, ConsumerType: gt, Spec: &spec}
	r.Throughput.CompletedPerSec = completedPerSec
	r.BrokerCost = &runs.BrokerCost{NetCPUSeconds: netCPU, Completed: completed,
		ConsumeCPUSecondsPerMillion: consumePerM, MovedCPUSecondsPerMillion: movedPerM, ProduceOnly: &runs.ProduceOnly{}}
	return r
}

func TestBrokerCostDifference(t *testing.T) {
	// 20,000 completed each; net CPU 4 vs 6 s: 200 vs 300 s/M completed
	p := runs.Pair{Consumer: costRecord("c", vocab.ConsumerGroup, 1000, 4, 20_000, 100, 300),
		Share: costRecord("s", vocab.ShareGroup, 1040, 6, 20_000, 160, 320)}
	d, ok := p.BrokerCostDifference()
	if !ok || !near(d.AtEqualPerMillion, 100) || !near(d.ConsumePerMillion, 60) || !near(d.MovedPerMillion, 20) ||
		!d.EqualThroughput || !near(d.CompletedRatio, 1.04) {
		t.Fatalf("difference %+v", d)
	}
	if l := d.Line(); !strings.Contains(l, "+100 s/M records completed") || !strings.Contains(l, "consume side +60 s/M") ||
		!strings.Contains(l, "at equal completed throughput") {
		t.Errorf("line %q", l)
	}
	// 1000 vs 1120: 11 % apart (mean 1060, tolerance 53): not equal. The
	// line shows each arm's own cost per record moved (300 and 320 s/M),
	// the rates, and no share − consumer difference.
	p.Share.Throughput.CompletedPerSec = 1120
	p.Consumer.Throughput.OfferedPerSec = 1200
	d, _ = p.BrokerCostDifference()
	if d.EqualThroughput {
		t.Errorf("11 %% apart counted as equal: %+v", d)
	}
	l := d.Line()
	for _, want := range []string{"c vs s: broker CPU per record moved, each arm's own: consumer 300 s/M, share 320 s/M.",
		"Not a share − consumer figure: the arms completed 1000 and 1120 of 1200 records/s (share/consumer 1.12x)",
		"compare at a rate both complete"} {
		if !strings.Contains(l, want) {
			t.Errorf("line %q lacks %q", l, want)
		}
	}
	for _, not := range []string{"+20", "+100", "consume side"} {
		if strings.Contains(l, not) {
			t.Errorf("line %q gives a difference (%q) for arms not at equal throughput", l, not)
		}
	}
	// a backlog pair offers nothing on a schedule: the line says what the
	// arms drained, never "of 0 records/s"
	p.Consumer.Throughput.OfferedPerSec = 0
	d, _ = p.BrokerCostDifference()
	if l := d.Line(); !strings.Contains(l, "the arms completed 1000 and 1120 records/s draining the same backlog") || strings.Contains(l, "of 0 records/s") {
		t.Errorf("backlog pair line %q", l)
	}
	p.Share.BrokerCost = nil
	if _, ok := p.BrokerCostDifference(); ok {
		t.Error("a run without broker cost compared")
	}
	if ds := runs.CostDifferences([]runs.Record{p.Consumer, p.Share}); len(ds) != 0 {
		t.Errorf("CostDifferences kept a pair without broker cost: %+v", ds)
	}
}

// The broker-cost line names an arm whose window compiled (JIT) at least
// 25 % of its broker CPU, and says nothing of the JIT otherwise or when
// either arm's brokers gave no compile time.
func TestCostLineSaysTheBrokersWereCompiling(t *testing.T) {
	p := runs.Pair{Consumer: costRecord("c", vocab.ConsumerGroup, 375, 4, 5_600, 100, 205),
		Share: costRecord("s", vocab.ShareGroup, 1000, 6, 15_000, 900, 595)}
	p.Consumer.BrokerCost.CPUSeconds, p.Share.BrokerCost.CPUSeconds = 5.6, 19.2
	for _, r := range []*runs.Record{&p.Consumer, &p.Share} {
		r.Broker.Samples = 20
	}
	// 1.3 of 5.6 CPU-s is 23.2 %: under the limit; 12.0 of 19.2 is 62.5 %
	p.Consumer.Broker.JITCompileSeconds, p.Share.Broker.JITCompileSeconds = 1.3, 12.0
	d, _ := p.BrokerCostDifference()
	want := "The brokers were still compiling (JIT) in the share arm's window: 1.3 s and 12.0 s of compile time beside 5.6 and 19.2 broker CPU-s (consumer, share)"
	if l := d.Line(); !strings.Contains(l, want) || !strings.Contains(l, "a longer jit_warmup moves it out") {
		t.Errorf("line %q lacks %q", l, want)
	}
	p.Consumer.Broker.JITCompileSeconds = 1.4 // 25.0 %: at the limit
	d, _ = p.BrokerCostDifference()
	if l := d.Line(); !strings.Contains(l, "in the consumer and the share arm's window") {
		t.Errorf("line %q: want both arms named", l)
	}
	p.Consumer.Broker.JITCompileSeconds, p.Share.Broker.JITCompileSeconds = 0.1, 1.0
	d, _ = p.BrokerCostDifference()
	if l := d.Line(); strings.Contains(l, "compiling") {
		t.Errorf("line %q: 1.8 %% and 5.2 %% of the CPU are under the limit", l)
	}
	p.Share.Broker.JITCompileSeconds = 12
	p.Share.Broker.Unavailable = []string{"jit_compile_s"}
	d, _ = p.BrokerCostDifference()
	if l := d.Line(); strings.Contains(l, "compiling") || d.JITKnown {
		t.Errorf("line %q: the share arm's brokers gave no compile time", l)
	}
}

func TestSummarizeCostDifferences(t *testing.T) {
	ds := []runs.CostDifference{
		{AtEqualPerMillion: 30, ConsumePerMillion: 3, HasConsume: true, EqualThroughput: true},
		{AtEqualPerMillion: -10, ConsumePerMillion: -1, HasConsume: true, EqualThroughput: true},
		{AtEqualPerMillion: 50, ConsumePerMillion: 5, HasConsume: true, EqualThroughput: true},
		{AtEqualPerMillion: 70, ConsumePerMillion: 7, HasConsume: true, EqualThroughput: true},
		{AtEqualPerMillion: -999, HasConsume: true, EqualThroughput: false}, // left out
	}
	s := runs.SummarizeCostDifferences(ds)
	if s.Pairs != 4 || s.ShareDearer != 3 || s.Median != 40 || !s.HasConsume || s.ConsumeMedian != 4 { // (30 + 50) / 2, (3 + 5) / 2
		t.Errorf("summary %+v, want 4 pairs, 3 dearer, median 40, consume median 4", s)
	}
	if l := s.Line(); !strings.Contains(l, "in 3 of 4 pairs") || !strings.Contains(l, "+40 s/M") {
		t.Errorf("line %q", l)
	}
	ds[0].HasConsume = false
	if s := runs.SummarizeCostDifferences(ds); s.HasConsume {
		t.Errorf("a pair without a produce-only phase: %+v", s)
	}
	if s := runs.SummarizeCostDifferences(ds[4:]); s.Pairs != 0 || s.Line() != "" {
		t.Errorf("no pair at equal throughput: %+v", s)
	}
}

// The pair's consume side with the campaign's pooled produce-only rate:
// six runs produced alike, their phases read 0.3 cores but one 0.9 (a
// burst); the median 0.3 is the rate. Each arm's C is 0.3 × 20 s + its
// consume cost: consumer 100 µs, share 150 µs per record over 20,000
// records, so the pooled difference is +50 s/M whatever the burst did.
func TestCostDifferencesPoolProduceOnly(t *testing.T) {
	var recs []runs.Record
	cores := []float64{0.3, 0.9, 0.3, 0.3, 0.3, 0.3}
	for i, gt := range []vocab.GroupType{vocab.ConsumerGroup, vocab.ShareGroup, vocab.ShareGroup, vocab.ConsumerGroup, vocab.ConsumerGroup, vocab.ShareGroup} {
		spec := scenarios.RunSpec{ConsumerType: gt, Partitions: 4, Producer: scenarios.Producer{Rate: 1000}, Trial: i / 2}
		perRecord := map[vocab.GroupType]float64{vocab.ConsumerGroup: 100e-6, vocab.ShareGroup: 150e-6}[gt]
		r := runs.Record{RunID: fmt.Sprintf("r%d", i), ConsumerType: gt, Spec: &spec, Campaign: "c"}
		r.Phases.MeasureSec = 20
		r.Throughput.CompletedPerSec = 1000
		r.BrokerCost = runs.ComputeBrokerCost(runs.BrokerCostInput{CPUSeconds: 0.3*20 + 20_000*perRecord, WindowSec: 20,
			Produced: 20_000, Completed: 20_000, ProduceOnlySec: 10, ProduceOnlyRecords: 10_000, ProduceOnlyCPU: cores[i] * 10})
		recs = append(recs, r)
	}
	if r, n := runs.PooledProduceCores(recs, recs[0]); n != 6 || !near(r, 0.3) {
		t.Fatalf("pooled %v of %d, want 0.3 of 6", r, n)
	}
	ds := runs.CostDifferences(recs)
	if len(ds) != 3 {
		t.Fatalf("%d pairs, want 3", len(ds))
	}
	for _, d := range ds {
		if !near(d.PooledConsumePerMillion, 50) || d.PooledPhases != 6 {
			t.Errorf("%s/%s: pooled consume difference %v of %d phases, want +50 of 6", d.Share, d.Consumer, d.PooledConsumePerMillion, d.PooledPhases)
		}
	}
	// r1's own phase read the burst: its own consume side is off by
	// 0.6 cores × 20 s ÷ 20,000 = 600 s/M, the pooled one is not
	if d := ds[0]; !near(d.ConsumePerMillion, 50-600) {
		t.Errorf("own-phase difference %v, want %v", d.ConsumePerMillion, 50-600.0)
	}
	if s := runs.SummarizeCostDifferences(ds); !near(s.ConsumeMedian, 50) {
		t.Errorf("summary consume median %v, want 50", s.ConsumeMedian)
	}
	// another campaign's phases are not pooled
	recs[1].Campaign = "other"
	if _, n := runs.PooledProduceCores(recs, recs[0]); n != 5 {
		t.Errorf("pooled over %d phases, want 5 (one run of another campaign)", n)
	}
}
