package collectors

import (
	"context"
	"errors"
	"time"

	"github.com/sharebench/sharebench/internal/retry"
)

// ScrapeCost is what scraping the brokers' metrics endpoints costs the
// brokers, measured on idle brokers by their /proc CPU time: phases without
// and with scraping, alternated so that a drift of the host's load falls on
// both. The scraped phases scrape every Interval, far more often than a run
// does, so that the cost of one scrape (PerScrape) stands above the noise
// of the idle brokers' CPU; a run's scrapes cost PerScrape each.
type ScrapeCost struct {
	Interval time.Duration
	// Phase is the length of each phase; Rounds the number of
	// (idle, scraped) pairs.
	Phase  time.Duration
	Rounds int
	// IdleCores and ScrapedCores are the brokers' CPU seconds per second,
	// summed over brokers, without and with scraping.
	IdleCores, ScrapedCores float64
	// Scrapes is the number of scrapes completed in the scraped phases,
	// counted per endpoint; a scrape still under way when its phase ends is
	// abandoned, not counted.
	Scrapes int
}

// CostCores is the scrapes' cost in CPU seconds per second (cores) at the
// calibration's Interval, never below 0: ScrapedCores − IdleCores.
func (c ScrapeCost) CostCores() float64 { return max(0, c.ScrapedCores-c.IdleCores) }

// PerScrape is the broker CPU seconds one scrape of one endpoint costs:
// CostCores × the scraped phases' time ÷ the scrapes completed in them,
// counted per endpoint (0 without a scrape).
func (c ScrapeCost) PerScrape() float64 {
	if c.Scrapes <= 0 {
		return 0
	}
	return c.CostCores() * c.Phase.Seconds() * float64(c.Rounds) / float64(c.Scrapes)
}

// MeasureScrapeCost measures ScrapeCost: after warming the exporters up
// (warmExporter), rounds pairs of an idle phase and a phase scraping urls
// every interval, each phase long, reading the CPU time of the processes
// pids returns at every phase edge. It needs broker pids
// (process and container providers) and at least one URL.
func MeasureScrapeCost(ctx context.Context, pids func() []int, urls []string, interval, phase time.Duration, rounds int) (ScrapeCost, error) {
	out := ScrapeCost{Interval: interval, Phase: phase, Rounds: rounds}
	if len(urls) == 0 || len(pids()) == 0 || rounds < 1 || phase <= 0 {
		return out, errors.New("scrape cost: needs broker pids, a metrics endpoint, rounds ≥ 1 and a phase > 0")
	}
	warmExporter(ctx, urls, scrapeWarmCount, scrapeWarmTime)
	var idle, scraped, idleSec, scrapedSec float64
	for range rounds {
		sec, cpu, err := cpuOver(ctx, pids, phase, nil)
		if err != nil {
			return out, err
		}
		idle, idleSec = idle+cpu, idleSec+sec
		s := NewBrokerScraper(urls, interval)
		sec, cpu, err = cpuOver(ctx, pids, phase, s)
		if err != nil {
			return out, err
		}
		scraped, scrapedSec = scraped+cpu, scrapedSec+sec
		for _, ss := range s.Samples() {
			out.Scrapes += len(ss)
		}
	}
	if idleSec > 0 && scrapedSec > 0 {
		out.IdleCores, out.ScrapedCores = idle/idleSec, scraped/scrapedSec
	}
	return out, nil
}

// The exporter warm-up before a calibration: scrapes back to back, up to
// scrapeWarmCount of each endpoint or scrapeWarmTime. A JMX exporter agent's
// first scrapes run its code interpreted and then have it compiled, at the
// broker's cost: on an idle 4.2.2 broker right after the JIT warm-up, rounds
// of 40 scrapes cost 54, 27 and 19 ms a scrape and then 9–13 ms from about
// the 150th on (2026-12-06). The calibration measures the compiled
// exporter that the runs scrape after it.
const (
	scrapeWarmCount = 200
	scrapeWarmTime  = 15 * time.Second
)

// warmExporter scrapes urls back to back until count scrapes or d.
func warmExporter(ctx context.Context, urls []string, count int, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	s := NewBrokerScraper(urls, time.Second)
	s.maxKeep = 0 // nothing kept
	for range count {
		if ctx.Err() != nil {
			return
		}
		s.ScrapeAll(ctx)
	}
}

// cpuOver reads the processes' CPU seconds over phase, with s scraping in
// the meantime when not nil; it returns the span and the CPU seconds.
func cpuOver(ctx context.Context, pids func() []int, phase time.Duration, s *BrokerScraper) (float64, float64, error) {
	a := ReadCPU(pids())
	if s != nil {
		s.Start(ctx)
	}
	ok := retry.Sleep(ctx, phase)
	if s != nil && s.loop != nil { // Stop's final scrape would fall outside the phase
		s.loop.stop()
		s.loop = nil
	}
	if !ok {
		return 0, 0, ctx.Err()
	}
	b := ReadCPU(pids())
	u := Usage(a, b)
	return u.Seconds, u.BrokerCPUSeconds, nil
}
