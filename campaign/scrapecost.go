package campaign

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// primingScrapeInterval is how often the JIT warm-up scrapes the brokers
// to read their compile rate (the warm-up measures nothing else, and is
// before the calibration and the runs). A run scrapes every
// broker_metrics_interval (scenarios.RunSpec.BrokerMetricsInterval).
const primingScrapeInterval = time.Second

// The scrape calibration's phases: scrapeCalibrationRounds pairs of an
// idle and a scraped phase of scrapeCalibrationPhase each (20 s in all),
// the scraped phases scraping every scrapeCalibrationInterval: 40 scrapes
// of each endpoint, so that their cost stands well above the idle
// brokers' noise (a run's scrape, every few seconds, would not).
const (
	scrapeCalibrationPhase    = 5 * time.Second
	scrapeCalibrationRounds   = 2
	scrapeCalibrationInterval = 250 * time.Millisecond
)

// calibrateScrapes measures what the runs' broker scrapes cost the idle
// brokers (collectors.MeasureScrapeCost), for broker_cost's scrape figures;
// nil when the brokers' processes or endpoints are unknown (external
// clusters, kfake) or the measurement failed (said in the log).
func calibrateScrapes(ctx context.Context, cl infra.Cluster, log io.Writer) *runs.ScrapeCost {
	urls := cl.MetricsURLs()
	if len(urls) == 0 {
		return nil
	}
	if len(cl.PIDs()) == 0 { // an external cluster: its brokers' CPU is not ours to read
		fmt.Fprintf(log, "scrape cost: not measurable here: the brokers' processes are not on this host, so what a scrape "+
			"costs them cannot be read (the runs scrape %d endpoint(s) every broker_metrics_interval, default %v)\n",
			len(urls), scenarios.DefaultBrokerMetricsInterval)
		return nil
	}
	c, err := collectors.MeasureScrapeCost(ctx, cl.PIDs, urls, scrapeCalibrationInterval, scrapeCalibrationPhase, scrapeCalibrationRounds)
	if err != nil {
		fmt.Fprintf(log, "scrape cost: not measured: %v\n", err)
		return nil
	}
	out := &runs.ScrapeCost{IntervalSec: c.Interval.Seconds(), PhaseSec: c.Phase.Seconds(), Rounds: c.Rounds,
		Scrapes: c.Scrapes, IdleCores: c.IdleCores, ScrapedCores: c.ScrapedCores, CostCores: c.CostCores(),
		Method: "process", ProcessCostCores: c.ProcessCostCores(), CPUMsPerScrape: 1e3 * c.PerScrape()}
	if c.Threads {
		out.Method = "threads"
	}
	atDefault := c.PerScrape() * float64(len(urls)) / scenarios.DefaultBrokerMetricsInterval.Seconds() // cores
	idleShare := ""
	if out.IdleCores > 0 {
		idleShare = fmt.Sprintf(", %.1f %% of the idle brokers' CPU", 100*atDefault/out.IdleCores)
	}
	how := fmt.Sprintf("the brokers' increase, %.3f cores", out.ProcessCostCores)
	if c.Threads {
		how = fmt.Sprintf("by thread: exporter %+.4f, JVM %+.4f cores; the whole brokers' increase %.4f", c.Exporter.Scraped-c.Exporter.Idle,
			c.JVM.Scraped-c.JVM.Idle, out.ProcessCostCores)
	}
	fmt.Fprintf(log, "scrape cost: idle brokers %.3f cores; scraped every %v: %.1f ms of broker CPU a scrape (%s), %.4f cores at the default %v interval%s\n",
		out.IdleCores, c.Interval, out.CPUMsPerScrape, how, atDefault, scenarios.DefaultBrokerMetricsInterval, idleShare)
	return out
}
