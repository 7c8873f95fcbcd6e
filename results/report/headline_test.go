package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// headlineRun is a run of the partition-cap shape: its group type, useful
// rate, ceiling and bound, completion p50/p99 and audit.
func headlineRun(id string, gt vocab.GroupType, trial int, rate, ceiling float64, bound runs.Bound, p50, p99 float64, produced int64) runs.Record {
	spec := scenarios.RunSpec{ConsumerType: gt, Partitions: 4, Trial: trial}
	r := runs.Record{RunID: id, ConsumerType: gt, Spec: &spec,
		Environment: runs.Environment{Provider: "process", KafkaVersion: "4.2.2", IsKafka: true, Nodes: 1}}
	r.Throughput.CompletedPerSec, r.Throughput.UsefulPerSec = rate, rate
	r.Ceiling.RecordsPerSec, r.Ceiling.Bound, r.Ceiling.Efficiency = ceiling, bound, rate/ceiling
	r.Latency.CompletionMs.P50, r.Latency.CompletionMs.P99 = p50, p99
	r.Audit.Produced, r.Audit.CompletedOnce, r.Audit.Balanced = produced, produced, true
	return r
}

func headlineOf(t *testing.T, in HeadlineInput) []string {
	t.Helper()
	var b bytes.Buffer
	if err := Headline(in)(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > HeadlineWidth && !strings.HasPrefix(l, "report: ") {
			t.Errorf("line of %d characters, want ≤ %d: %q", n, HeadlineWidth, l)
		}
	}
	return lines
}

// The partition-cap pair, figures worked by hand: 1000 ÷ 363 = 2.75×;
// the consumer at 363 of its 400 workers ceiling (91 %); broker CPU per
// record moved 1120 vs 1850 s/M (0.61×) at unequal rates.
func TestHeadlinePair(t *testing.T) {
	c := headlineRun("r01-consumer", vocab.ConsumerGroup, 0, 363, 400, runs.BoundWorkers, 18.4, 31.1, 18000)
	s := headlineRun("r02-share", vocab.ShareGroup, 0, 1000, 1000, runs.BoundProducer, 24.2, 198, 18000)
	c.BrokerCost = &runs.BrokerCost{NetCPUSeconds: 4, Completed: 18000, MovedCPUSecondsPerMillion: 1850, ScrapeCPUSeconds: 0.01, ScrapePercent: 0.2}
	s.BrokerCost = &runs.BrokerCost{NetCPUSeconds: 6, Completed: 18000, MovedCPUSecondsPerMillion: 1120, ScrapeCPUSeconds: 0.02, ScrapePercent: 0.69}
	c.Validity.Flags = []runs.Flag{{Code: "host_cpu"}, {Code: "warmup_short"}, {Code: "host_cpu"}}
	got := headlineOf(t, HeadlineInput{Scenario: "partition-cap", Runs: []runs.Record{c, s},
		Expectations: []runs.ExpectationOutcome{
			{Name: "no record lost", Met: true},
			{Name: "consumer group reaches its worker ceiling", Measured: []runs.Measured{{Run: "r01-consumer", Value: 0.9075}}},
			{Name: "java only", Skipped: true},
		}, Dir: "/tmp/c", Detail: "full table: --detail"})
	want := []string{
		"partition-cap: 2 run(s) on Kafka 4.2.2, 1 broker(s) (process)",
		"throughput: share 2.75× the consumer group (1000 vs 363 records/s)",
		"  bound: consumer workers, 91 % of 400/s · share producer, 100 % of 1000/s",
		"  completion p50/p99 ms: consumer 18.4/31.1 · share 24.2/198",
		"audit: nothing lost of 36000 records; 0 duplicated",
		"broker CPU per record moved: share 0.61× the consumer's (1120 vs 1850 s/M), at unequal rates",
		"observer: the harness's broker scrapes cost 0.20–0.69 % of the broker CPU",
		"validity flags in 1 of 2 run(s) (docs/explanation/measurement.md#validity-flags):",
		"  r01-consumer: host_cpu, warmup_short",
		"expectations: 1 of 2 met (1 skipped)",
		"  NOT MET: consumer group reaches its worker ceiling (measured r01-consumer 0.91)",
		"report: /tmp/c/report.html (full table: --detail)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("headline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A loss is named with its run; an unbalanced audit is shouted; a bound
// that held other than the formula's says so; equal rates give the
// share − consumer difference per record completed ((6 − 4) s ÷ 20,000 =
// +100 s/M).
func TestHeadlineLossAndEqualRates(t *testing.T) {
	c := headlineRun("r01-consumer", vocab.ConsumerGroup, 0, 1000, 1000, runs.BoundProducer, 5, 9, 20000)
	s := headlineRun("r02-share", vocab.ShareGroup, 0, 990, 1000, runs.BoundProducer, 6, 12, 20000)
	c.BrokerCost = &runs.BrokerCost{NetCPUSeconds: 4, Completed: 20000}
	s.BrokerCost = &runs.BrokerCost{NetCPUSeconds: 6, Completed: 20000}
	s.Audit.Lost, s.Audit.Duplicates, s.Audit.Balanced = 7, 3, false
	c.BrokerCost.ScrapeCPUSeconds, c.BrokerCost.ScrapePercent, c.BrokerCost.ScrapeSubtracted = 0.5, 12, true
	s.Ceiling.Held = runs.BoundHostSaturation
	got := strings.Join(headlineOf(t, HeadlineInput{Scenario: "x", Runs: []runs.Record{c, s}}), "\n")
	d := headlineRun("r03-share", vocab.ShareGroup, 1, 75000, 1.1e10, runs.BoundLockWindow, 900, 1800, 300000)
	d.Ceiling.Held = runs.BoundHostSaturation
	got += "\n" + strings.Join(headlineOf(t, HeadlineInput{Scenario: "y", Runs: []runs.Record{d}}), "\n")
	for _, want := range []string{
		"r03-share: 75000 records/s, host_saturation held, far below the lock_window ceiling, p99 1800 ms",
		"audit: 7 of 40000 records LOST (r02-share 7); 3 duplicated; NOT BALANCED: r02-share",
		"share host_saturation held, 99 % of producer 1000/s",
		"broker CPU per record completed: share +100 s per million vs the consumer's",
		"observer: the harness's broker scrapes cost up to 12.0 % of the broker CPU; subtracted",
		"validity: no flag raised",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "report:") || strings.Contains(got, "expectations") {
		t.Errorf("no folder and no expectation, yet:\n%s", got)
	}
}

// A 40-run sweep with long run ids and every run flagged stays a headline:
// at most 3 pairs shown, 4 flagged runs, 3 expectations not met, each line
// within the width.
func TestHeadlineSweepStaysShort(t *testing.T) {
	var recs []runs.Record
	for i := range 20 {
		id := fmt.Sprintf("r%02d-%s-max-poll-records-%d-members-%d-workers-8-t0", 2*i+1, "consumer", 10*i, i)
		c := headlineRun(id, vocab.ConsumerGroup, i, 300, 400, runs.BoundWorkers, 1200.5, 35000, 10000)
		sid := fmt.Sprintf("r%02d-%s-max-poll-records-%d-members-%d-workers-8-t0", 2*i+2, "share", 10*i, i)
		s := headlineRun(sid, vocab.ShareGroup, i, 900, 1000, runs.BoundLockWindow, 40, 800, 10000)
		c.Validity.Flags = []runs.Flag{{Code: "host_cpu"}, {Code: "schedule_lag"}, {Code: "warmup_short"}, {Code: "unexplained"}}
		s.Validity.Flags = c.Validity.Flags
		recs = append(recs, c, s)
	}
	outs := []runs.ExpectationOutcome{{Name: "share group keeps up where partitions cap the consumer group",
		Measured: []runs.Measured{{Run: "r04-share-m4/r01-consumer-m4", Value: 1}, {Run: "r06-share-m12/r03-consumer-m12", Value: 2.6, Met: true}}}}
	for i := range 6 {
		outs = append(outs, runs.ExpectationOutcome{Name: fmt.Sprintf("claim %d about a long list of things that a scenario writer wrote at length", i)})
	}
	got := headlineOf(t, HeadlineInput{Scenario: "a-sweep", Runs: recs, Expectations: outs,
		Dir: "sharebench-results/a-sweep-20261206T000000Z", Detail: "full table: --detail; summary.md"})
	if len(got) > 30 {
		t.Errorf("%d lines, want ≤ 30:\n%s", len(got), strings.Join(got, "\n"))
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{"… and 17 more consumer/share pair(s): summary.md", "validity flags in 40 of 40 run(s)",
		"  … and 37 more: summary.md", "  NOT MET: share group keeps up where partitions cap the consumer group (measured r04/r01 1.00)", "  r01: host_cpu, schedule_lag, warmup_short, unexplained", "expectations: 0 of 7 met", "  … and 4 more NOT MET: summary.md", "r01/r02 throughput: share 3.00×"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
}
