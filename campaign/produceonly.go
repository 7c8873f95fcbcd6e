package campaign

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// produceOnlyPhase bounds the measured part of a rate run's produce-only
// phase: the run's producers at the run's rate for at most this long (the
// run's window when shorter), after produceOnlyLeadIn in which the
// producers connect and the side topic's first batches are written, which
// the run's window does not pay either.
const (
	produceOnlyPhase  = 10 * time.Second
	produceOnlyLeadIn = time.Second
)

// produceOnly runs the produce-only phase before the consumers start: the
// run's producer fleet, settings and rate, sending to a side topic (the
// run's partitions) that nobody consumes, while the brokers are scraped at
// the run's interval. What it measured (the brokers' CPU over the phase,
// from the same scrapes as the run's broker.cpu_seconds) is what producing
// alone costs the brokers: broker_cost.produce_only. nil when the brokers
// have no metrics endpoint; an error only when the phase could not run.
//
// The phase runs once per trial and producer configuration on a cluster
// (produceOnlyCache): the consumer-group and share-group arms of a trial
// share one produce-only measurement, the like-for-like basis their
// broker costs are compared on, and a campaign does not pay the phase for
// every run. Runs outside a campaign (RunOne) have none.
func (s *runSetup) produceOnly(ctx context.Context) (*runs.ProduceOnly, error) {
	if s.runner.produceOnly == nil {
		return nil, nil
	}
	key := produceOnlyKey(s.spec)
	if po, ok := s.runner.produceOnly.done[key]; ok {
		if po != nil {
			fmt.Fprintf(s.log, "  %s: produce-only phase: measured before (%.3f broker cores at %.0f records/s), reused\n",
				s.id, po.CPUSeconds/max(po.Sec, 1e-9), s.spec.Rate)
		}
		return po, nil
	}
	po, err := s.measureProduceOnly(ctx)
	if err == nil {
		s.runner.produceOnly.done[key] = po
	}
	return po, err
}

// produceOnlySettled runs produceOnly and, when the phase ran here (not
// reused) and the runner settles, waits for what it left behind (its side
// topic's deletion, the flushes of its records) before the run goes on.
func (s *runSetup) produceOnlySettled(ctx context.Context) (*runs.ProduceOnly, *runs.SettleStep, error) {
	_, before := s.runner.produceOnly.cached(s.spec)
	po, err := s.produceOnly(ctx)
	if err != nil || before || !s.runner.settle {
		return po, nil, err
	}
	return po, settleBrokers(ctx, s.cl, s.runner.baseline(), settleAfterProduceOnly, s.id, s.log), nil
}

// produceOnlyCache holds a cluster's produce-only measurements by
// produceOnlyKey (nil values: measured, no broker CPU figures).
type produceOnlyCache struct {
	done map[string]*runs.ProduceOnly
}

// cached reports whether spec's produce-only phase ran before on this
// cluster (false for a nil cache: no phase at all).
func (c *produceOnlyCache) cached(spec scenarios.RunSpec) (*runs.ProduceOnly, bool) {
	if c == nil {
		return nil, false
	}
	po, ok := c.done[produceOnlyKey(spec)]
	return po, ok
}

func newProduceOnlyCache() *produceOnlyCache {
	return &produceOnlyCache{done: map[string]*runs.ProduceOnly{}}
}

// produceOnlyKey is what a produce-only phase depends on: the trial (each
// repeat measures its own, so the campaign's median pools several), the
// producer settings (rate, producers, sizes, acks, batching, keys) and the
// partitions it writes to; the consumer side does not enter it.
func produceOnlyKey(s scenarios.RunSpec) string {
	return fmt.Sprintf("trial=%d partitions=%d window=%v producer=%+v keys=%+v", s.Trial, s.Partitions, min(produceOnlyPhase, s.Duration), s.Producer, s.HashedKeys)
}

// measureProduceOnly runs the produce-only phase.
func (s *runSetup) measureProduceOnly(ctx context.Context) (*runs.ProduceOnly, error) {
	urls := s.cl.MetricsURLs()
	if len(urls) == 0 {
		return nil, nil
	}
	topic := s.topic + "-produce-only"
	if err := s.adm.createTopic(ctx, topic, s.spec.Partitions, min(s.cl.Nodes(), 3)); err != nil {
		return nil, err
	}
	defer s.dropTopic(context.WithoutCancel(ctx), topic)
	dur := min(produceOnlyPhase, s.spec.Duration)
	clock := results.NewClock()
	pcfg := s.producerConfig()
	pcfg.Topic, pcfg.Duration = topic, produceOnlyLeadIn+dur
	pcfg.Profile = nil // at rate (a rate_schedule's peak): the broker's cost of producing, not the run's curve
	pcfg.Start = clock.Now() + int64(100*time.Millisecond)
	perProducer, err := pcfg.PerProducerMax()
	if err != nil {
		return nil, err
	}
	rec := results.NewRecorder(clock, results.RunTag(s.id+"-"+s.suffix+"-produce-only"), results.NewLedger(s.spec.Producers, perProducer),
		results.NewSeries(clock.Now(), int(pcfg.Duration/time.Second)+60))
	w := results.Window{Start: pcfg.Start + int64(produceOnlyLeadIn), End: pcfg.Start + int64(produceOnlyLeadIn+dur)}
	rec.SetWindow(w)
	fmt.Fprintf(s.log, "  %s: produce-only phase: %.0f records/s for %v + %v measured to a side topic nobody consumes (broker_cost.produce_only)\n",
		s.id, s.spec.Rate, produceOnlyLeadIn, dur)
	scraper := collectors.NewBrokerScraper(urls, s.spec.BrokerMetricsInterval) // scraped as the run is
	scraper.Start(ctx)
	cpu := &cpuWindow{pids: s.cl.PIDs, done: make(chan struct{}), scrape: func() { scraper.ScrapeAll(ctx) }}
	go cpu.watch(ctx, clock, w)
	err = producer.Run(ctx, pcfg, rec)
	usage := cpu.usage()
	scraper.Stop()
	if err != nil {
		return nil, fmt.Errorf("produce-only phase: %w", err)
	}
	produced := rec.Merge().AckedWindow // scheduled inside the measured part, as the run's window counts them
	b := collectors.SummarizeBroker(scraper.Samples(), clock.Time(w.Start), clock.Time(w.End), produced, runtime.NumCPU())
	collectors.UseProcCPU(&b, usage.BrokerCPUSeconds, usage.Seconds, produced, runtime.NumCPU()) // as the run's window
	if b.CPUSeconds <= 0 || b.WindowSec <= 0 {
		return nil, nil // no broker CPU from these endpoints: the run's broker_cost has no produce-only figures
	}
	// CPUSeconds is the brokers' /proc CPU over the measured part (without
	// broker PIDs: the exporters' CPU rate between the scrapes nearest its
	// edges × its length)
	po := &runs.ProduceOnly{Sec: w.Seconds(), Records: produced, CPUSeconds: b.CPUSeconds}
	if !slices.Contains(b.Unavailable, "jit_compile_s") {
		jit := b.JITCompileSeconds
		po.JITCompileSec = &jit
	}
	return po, nil
}
