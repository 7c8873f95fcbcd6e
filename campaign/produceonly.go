package campaign

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// produceOnlyPhase bounds the produce-only phase of a rate run: the run's
// producers at the run's rate for at most this long (the run's window when
// shorter).
const produceOnlyPhase = 5 * time.Second

// produceOnly runs the produce-only phase before the consumers start: the
// run's producer fleet, settings and rate, sending to a side topic (the
// run's partitions) that nobody consumes, while the brokers are scraped at
// the run's interval. What it measured (the brokers' CPU over the phase,
// from the same scrapes as the run's broker.cpu_seconds) is what producing
// alone costs the brokers: broker_cost.produce_only. nil when the brokers
// have no metrics endpoint; an error only when the phase could not run.
func (s *runSetup) produceOnly(ctx context.Context) (*runs.ProduceOnly, error) {
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
	pcfg.Topic, pcfg.Duration = topic, dur
	pcfg.Start = clock.Now() + int64(100*time.Millisecond)
	perProducer, err := pcfg.PerProducerMax()
	if err != nil {
		return nil, err
	}
	rec := results.NewRecorder(clock, results.RunTag(s.id+"-"+s.suffix+"-produce-only"), results.NewLedger(s.spec.Producers, perProducer),
		results.NewSeries(clock.Now(), int(dur/time.Second)+60))
	fmt.Fprintf(s.log, "  %s: produce-only phase: %.0f records/s for %v to a side topic nobody consumes (broker_cost.produce_only)\n",
		s.id, s.spec.Rate, dur)
	scraper := collectors.NewBrokerScraper(urls, brokerScrapeInterval)
	scraper.Start(ctx)
	start := clock.Time(pcfg.Start)
	err = producer.Run(ctx, pcfg, rec)
	end := time.Now()
	scraper.Stop()
	if err != nil {
		return nil, fmt.Errorf("produce-only phase: %w", err)
	}
	produced := rec.Ledger.Audit().Produced
	b := collectors.SummarizeBroker(scraper.Samples(), start, end, produced, runtime.NumCPU())
	if b.CPUSeconds <= 0 || b.WindowSec <= 0 {
		return nil, nil // no broker CPU from these endpoints: the run's broker_cost has no produce-only figures
	}
	// the scrapes nearest the phase's edges span WindowSec: CPUSeconds is
	// the brokers' CPU rate × the phase's length
	return &runs.ProduceOnly{Sec: end.Sub(start).Seconds(), Records: produced, CPUSeconds: b.CPUSeconds}, nil
}
