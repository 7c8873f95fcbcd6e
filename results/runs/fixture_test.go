package runs

import (
	"path/filepath"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// fixtureRun is a run record (as runstest.Run; runs cannot import runstest) with the figures the reports and comparisons
// read; spec fields decide matching.
func fixtureRun(id string, ctype vocab.GroupType, trial int, tput, p99 float64) Record {
	ceiling := 1000.0
	if ctype == "consumer" {
		ceiling = 400
	}
	return Record{
		SchemaVersion: SchemaVersion, RunID: id, Campaign: "fixture-20260101T000000Z", ConsumerType: ctype,
		Spec:       &scenarios.RunSpec{ConsumerType: ctype, Fleet: scenarios.Fleet{Members: 12}, Partitions: 4, Trial: trial},
		Phases:     Phases{MeasureSec: 10},
		Throughput: Throughput{OfferedPerSec: 1000, ProducedPerSec: 1000, CompletedPerSec: tput},
		Latency: Latencies{
			CompletionMs: results.Percentiles{Count: 20000, P50: p99 / 4, P90: p99 / 2, P99: p99, P999: p99 * 1.5, P9999: p99 * 1.6, Max: p99 * 1.7},
			DeliveryMs:   results.Percentiles{Count: 20000, P50: 5, P99: p99 - 10},
			PublishMs:    results.Percentiles{Count: 20000, P50: 2, P99: 9.5},
		},
		Audit:       results.Audit{Produced: 25000, CompletedOnce: 25000, Balanced: true},
		Ceiling:     Ceiling{RecordsPerSec: ceiling, Bound: "producer", Efficiency: tput / ceiling},
		Validity:    Validity{Valid: true},
		Environment: Environment{Provider: "process", KafkaVersion: "4.2.2", IsKafka: true, Nodes: 1},
	}
}

// writeCampaign writes runs as a campaign folder and returns it.
func writeCampaign(t *testing.T, recs ...Record) string {
	t.Helper()
	dir := t.TempDir()
	camp := Campaign{SchemaVersion: SchemaVersion, Name: "fixture", Scenario: &scenarios.Scenario{Description: "Does it scale?"}}
	for _, r := range recs {
		if err := WriteRunDir(filepath.Join(dir, "runs", r.RunID), &r, fixtureMerged(r.Latency.CompletionMs.Max), fixtureSeries(int64(r.Throughput.CompletedPerSec))); err != nil {
			t.Fatal(err)
		}
		camp.Runs = append(camp.Runs, r.RunID)
	}
	if err := WriteJSON(filepath.Join(dir, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fixtureMerged holds completion and delivery histograms of 1,000 values
// spread evenly up to about maxMs, so the .hgrm files have curves.
func fixtureMerged(maxMs float64) results.Merged {
	var m results.Merged
	m.Publish, m.ScheduleLag = results.NewLatencyHistogram(), results.NewLatencyHistogram()
	m.Delivery, m.Completion = results.NewLatencyHistogram(), results.NewLatencyHistogram()
	m.Queue, m.Hold = results.NewLatencyHistogram(), results.NewLatencyHistogram()
	for i := 1; i <= 1000; i++ {
		us := int64(float64(i) * maxMs)
		_ = m.Completion.RecordValue(us)
		_ = m.Delivery.RecordValue(us * 9 / 10)
	}
	return m
}

// fixtureSeries has produced and completed counts for 30 seconds.
func fixtureSeries(perSec int64) *results.Series {
	s := results.NewSeries(0, 30)
	for i := range 30 {
		ns := int64(i) * 1e9
		s.Add(results.Produced, ns, perSec)
		s.Add(results.Delivered, ns, perSec)
		s.Add(results.Completed, ns, perSec-int64(i%3))
	}
	return s
}
