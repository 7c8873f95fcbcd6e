package campaign

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results/runs"
)

// brokerScrapeInterval is how often a run scrapes the brokers' metrics
// endpoints; the calibration measures its cost at the same interval.
const brokerScrapeInterval = time.Second

// The scrape calibration's phases: scrapeCalibrationRounds pairs of an
// idle and a scraped phase of scrapeCalibrationPhase each (20 s in all).
const (
	scrapeCalibrationPhase  = 5 * time.Second
	scrapeCalibrationRounds = 2
)

// calibrateScrapes measures what the runs' broker scrapes cost the idle
// brokers (collectors.MeasureScrapeCost), for broker_cost's scrape figures;
// nil when the brokers' processes or endpoints are unknown (external
// clusters, kfake) or the measurement failed (said in the log).
func calibrateScrapes(ctx context.Context, cl infra.Cluster, log io.Writer) *runs.ScrapeCost {
	urls := cl.MetricsURLs()
	if len(urls) == 0 || len(cl.PIDs()) == 0 {
		return nil
	}
	c, err := collectors.MeasureScrapeCost(ctx, cl.PIDs, urls, brokerScrapeInterval, scrapeCalibrationPhase, scrapeCalibrationRounds)
	if err != nil {
		fmt.Fprintf(log, "scrape cost: not measured: %v\n", err)
		return nil
	}
	out := &runs.ScrapeCost{IntervalSec: c.Interval.Seconds(), PhaseSec: c.Phase.Seconds(), Rounds: c.Rounds,
		Scrapes: c.Scrapes, IdleCores: c.IdleCores, ScrapedCores: c.ScrapedCores, CostCores: c.CostCores()}
	fmt.Fprintf(log, "scrape cost: idle brokers %.3f cores, scraped every %v %.3f cores: the scrapes cost %.3f cores\n",
		out.IdleCores, c.Interval, out.ScrapedCores, out.CostCores)
	return out
}
