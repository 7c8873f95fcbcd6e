//go:build integration

package campaign

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

func runSpec(t *testing.T, s scenarios.RunSpec, id string) runs.Record {
	t.Helper()
	return runMeasured(t, s, id).Record
}

// runMeasured runs one spec on the shared broker, checks what every run
// must satisfy, and returns the measurements.
func runMeasured(t *testing.T, s scenarios.RunSpec, id string) *Measured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m, err := RunOne(ctx, needKafka(t), s, id, testLog(t))
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	r := m.Record
	var perSec []int64
	for i := 0; i < m.Series.Len() && i < 40; i++ {
		perSec = append(perSec, m.Series.Count(results.Completed, i))
	}
	t.Logf("%s: completed per second %v", id, perSec)
	t.Logf("%s: completed %.1f/s ceiling %.1f (%s) audit %+v flags %v", id, r.Throughput.CompletedPerSec,
		r.Ceiling.RecordsPerSec, r.Ceiling.Bound, r.Audit, r.Validity.Flags)
	t.Logf("%s: per member %v resources %+v polls %+v hold %+v", id, r.PerMember, r.Resources, r.Polls, r.Latency.HoldMs)
	if !r.Audit.Balanced || r.Audit.Lost != 0 || r.Audit.InFlight != 0 {
		t.Errorf("%s: audit must balance with nothing lost or in flight: %+v", id, r.Audit)
	}
	if len(r.Errors) > 0 {
		t.Errorf("%s: run errors: %v", id, r.Errors)
	}
	if !r.Environment.IsKafka || r.Environment.Provider != "process" {
		t.Errorf("%s: environment %+v", id, r.Environment)
	}
	// Kafka 4.2 finalizes share groups: the broker itself says so.
	if b := r.Environment.Broker; b == nil || b.Error != "" || b.Features["share.version"] < 1 || b.Features["metadata.version"] < 1 {
		t.Errorf("%s: broker features %+v", id, b)
	}
	checkGauges(t, id, m, s)
	return m
}

// checkGauges: every gauge of timeseries.csv has a reading in most seconds
// of warm-up + window, and the window starts after the group was ready.
func checkGauges(t *testing.T, id string, m *Measured, s scenarios.RunSpec) {
	t.Helper()
	ph := m.Record.Phases
	if ph.WindowStartSec < ph.GroupReadySec+ph.WarmupSec {
		t.Errorf("%s: window starts at %.1fs of the series, before group ready %.1fs + warm-up %.1fs", id, ph.WindowStartSec, ph.GroupReadySec, ph.WarmupSec)
	}
	from := int(ph.WindowStartSec - ph.WarmupSec)
	span := int((s.Warmup + s.Duration) / time.Second)
	for _, g := range []results.Gauge{results.Lag, results.BrokerCPUPercent, results.BrokerHeapUsedBytes,
		results.HarnessCPUPercent, results.HarnessRSSBytes, results.BrokerRSSBytes} {
		var n int
		var peak float64
		for i := from; i < from+span; i++ {
			if v, ok := m.Series.GaugeAt(g, i); ok {
				n++
				peak = max(peak, v)
			}
		}
		need := span * 3 / 4
		if g == results.Lag && s.ConsumerType == "share" {
			// Kafka answers lag −1 for a share partition whose state is not
			// initialized yet (no ShareFetch before the members are
			// released), and an unknown partition makes the reading unknown
			// (collectors.TotalLag): the first seconds after release have
			// none. Seen: 4 of 7 seconds at 300 records/s on a loaded host.
			need = span / 2
		}
		if g == results.BrokerHeapUsedBytes {
			// the heap comes from the scrapes: one as the load starts (its
			// lead may put it a second before the span), one at the window's
			// start inside it, then every broker_metrics_interval (10 s, past
			// most of these short spans) and at the window's end, just past
			// the span
			need = min(need, 1)
		}
		if n < need || (g != results.Lag && peak <= 0) {
			t.Errorf("%s: gauge %s read in %d of %d seconds, peak %v", id, g, n, span, peak)
		}
	}
}

// More members than partitions with 10 ms per record: the consumer group is
// capped at partitions × 100 = 200 records/s, the share group takes the
// whole 400 records/s offered. Both are checked against their ceilings.
// The consumer arm is processing-bound: each owner polls 50 records, works
// 50 × 10 ms = 500 ms, then commits and polls again, so it reaches
// 500 / (500 + g) of its ceiling, g being that commit-and-fetch gap. g is
// 10–25 ms on a quiet host (0.95–0.98); with the other test packages
// beside it on 2 cores it was seen at about 60 and 85 ms (0.896, 0.857).
// The bound, 0.8, allows g up to 125 ms. The share arm is producer-bound
// (its workers allow twice the 400 records/s offered): within 10 %.
func TestShareGroupBeatsPartitionCap(t *testing.T) {
	s := baseSpec()
	s.ConsumerType = "consumer"
	cg := runSpec(t, s, "cap-consumer")
	s.ConsumerType = "share"
	sg := runSpec(t, s, "cap-share")

	if cg.Ceiling.Bound != "workers" || cg.Ceiling.RecordsPerSec != 200 {
		t.Fatalf("consumer ceiling %+v, want 200 workers-bound", cg.Ceiling)
	}
	if e := cg.Ceiling.Efficiency; e < 0.8 || e > 1.05 {
		t.Errorf("processing-bound consumer group at %.1f%% of its worker ceiling, want 80-105%% (500 ms of work per poll, "+
			"a commit-and-fetch gap of at most 125 ms on a busy host)", 100*e)
	}
	if sg.Ceiling.Bound != "producer" || sg.Ceiling.RecordsPerSec != 400 {
		t.Fatalf("share ceiling %+v, want 400 producer-bound", sg.Ceiling)
	}
	if e := sg.Ceiling.Efficiency; e < 0.9 || e > 1.05 {
		t.Errorf("share group at %.1f%% of the producer rate, want 90-105%%", 100*e)
	}
	if sg.Throughput.CompletedPerSec < 1.8*cg.Throughput.CompletedPerSec {
		t.Errorf("share %.1f/s vs consumer %.1f/s: want ≥ 1.8×", sg.Throughput.CompletedPerSec, cg.Throughput.CompletedPerSec)
	}
	// Only 2 of 8 consumer-group members own a partition.
	busy := 0
	for _, n := range cg.PerMember {
		if n > 0 {
			busy++
		}
	}
	if busy > 2+1 { // one extra for a member that handed a partition over during warm-up
		t.Errorf("consumer group: %d members completed records, want at most the 2 partition owners (+1 handover): %v", busy, cg.PerMember)
	}
}

// A processing-bound share group with several workers per member reaches its
// worker ceiling: 3 members × 2 workers × 1000/20 ms = 300 records/s.
func TestShareWorkerCeiling(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Workers, s.Partitions = "share", 3, 2, 3
	s.Processing.Time = 20 * time.Millisecond
	s.Rate = 450
	r := runSpec(t, s, "ceiling-share")
	if r.Ceiling.RecordsPerSec != 300 || r.Ceiling.Bound != "workers" {
		t.Fatalf("ceiling %+v, want 300 workers-bound", r.Ceiling)
	}
	if e := r.Ceiling.Efficiency; e < 0.9 || e > 1.05 {
		t.Errorf("measured %.1f/s = %.1f%% of the 300/s worker ceiling, want 90-105%%", r.Throughput.CompletedPerSec, 100*e)
	}
}

// Transient failures (RELEASE) and poison records (REJECT) show up as
// delivery counts above 1 and as archived records, in the proportions the
// rates predict.
func TestShareReleaseAndRejectInAudit(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Partitions = "share", 4, 2
	s.Processing = scenarios.Processing{Model: "constant", Time: time.Millisecond}
	s.TransientRate, s.PoisonRate = 0.2, 0.05
	s.Rate = 300
	r := runSpec(t, s, "outcomes-share")
	a, o := r.Audit, r.Outcomes
	if len(o.DeliveryCounts) < 2 || o.DeliveryCounts[1] == 0 || o.Released == 0 || o.Redelivered == 0 {
		t.Fatalf("releases must cause redeliveries with delivery count 2+: %+v", o)
	}
	// Poison: 5 % of produced, archived via REJECT. Releases at the 5th
	// delivery are archived too: 0.95 × 0.2^5 ≈ 0.03 %.
	want := 0.05 + 0.95*math.Pow(0.2, 5)
	got := float64(a.Archived) / float64(a.Produced)
	if math.Abs(got-want) > 0.02 {
		t.Errorf("archived %.3f of produced, want %.3f ± 0.02", got, want)
	}
	// Released ≈ transient rate × deliveries of non-poison records.
	if rel := float64(o.Released) / float64(o.Delivered); math.Abs(rel-0.2*0.95) > 0.04 {
		t.Errorf("released %.3f of deliveries, want ≈ %.3f", rel, 0.2*0.95)
	}
	if a.CompletedOnce+a.Duplicates+a.Archived != a.Produced {
		t.Errorf("every record must end completed or archived: %+v", a)
	}
}

// The consumer group retries transient failures in place and dead-letters
// poison records: archived = dead letters, nothing redelivered by the broker.
func TestConsumerGroupRetryAndDeadLetter(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Partitions = "consumer", 2, 2
	s.Processing = scenarios.Processing{Model: "constant", Time: time.Millisecond}
	s.TransientRate, s.PoisonRate = 0.2, 0.05
	s.Rate = 300
	r := runSpec(t, s, "outcomes-consumer")
	if r.Outcomes.RetriedInPlace == 0 || r.Outcomes.Released != 0 {
		t.Fatalf("outcomes %+v: want in-place retries and no releases", r.Outcomes)
	}
	if r.Audit.Archived != r.Outcomes.Rejected {
		t.Errorf("archived %d != dead letters %d", r.Audit.Archived, r.Outcomes.Rejected)
	}
	if got := float64(r.Audit.Archived) / float64(r.Audit.Produced); math.Abs(got-0.05) > 0.02 {
		t.Errorf("dead-lettered %.3f of produced, want 0.05 ± 0.02", got)
	}
}

// Implicit acknowledgement (the next poll ACCEPTs the batch) completes every
// record exactly like explicit mode.
func TestShareImplicitAck(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.AckMode, s.Members = "share", "implicit", 4
	s.Processing.Time = time.Millisecond
	r := runSpec(t, s, "implicit-share")
	if r.Audit.CompletedOnce+r.Audit.Duplicates != r.Audit.Produced || r.Audit.Produced == 0 {
		t.Fatalf("implicit mode must complete every record: %+v", r.Audit)
	}
	if e := r.Ceiling.Efficiency; e < 0.9 || e > 1.05 {
		t.Errorf("implicit share at %.1f%% of the producer rate", 100*e)
	}
}
