package collectors

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharebench/sharebench/internal/retry"
)

// ScrapeCost is what scraping the brokers' metrics endpoints costs the
// brokers, measured on idle brokers by their /proc CPU time: phases without
// and with scraping, alternated so that a drift of the host's load falls on
// both. The scraped phases scrape every Interval, far more often than a run
// does, so that the cost of one scrape (PerScrape) stands above the noise;
// a run's scrapes cost PerScrape each.
//
// Where the brokers' threads can be read (/proc/PID/task, both providers),
// the cost is attributed by thread: the exporter's own threads (the agent's
// HTTP server, which runs the whole scrape, MBean reads included) plus what
// the JVM's garbage collector and VM threads did more while scraped. The
// broker's own threads do no scrape work, and their idle CPU (log flushes,
// Raft, coordinators: about 15–45 ms a second on an idle 4.2.2 broker,
// varying by a third between phases) would otherwise swamp a few ms a
// scrape. The whole-process difference stays as a cross-check
// (ProcessCostCores).
type ScrapeCost struct {
	Interval time.Duration
	// Phase is the length of each phase; Rounds the number of
	// (idle, scraped) pairs.
	Phase  time.Duration
	Rounds int
	// IdleCores and ScrapedCores are the brokers' CPU seconds per second,
	// summed over brokers, without and with scraping.
	IdleCores, ScrapedCores float64
	// Threads is true when the cost is attributed by thread: Exporter and
	// JVM are the exporter's and the JVM's threads (ThreadCores), idle and
	// scraped, in cores summed over brokers.
	Threads  bool
	Exporter ThreadCores
	JVM      ThreadCores
	// Scrapes is the number of scrapes completed in the scraped phases,
	// counted per endpoint; a scrape still under way when its phase ends is
	// abandoned, not counted.
	Scrapes int
}

// ThreadCores is one class of threads' CPU seconds per second, summed over
// brokers, in the idle and in the scraped phases.
type ThreadCores struct{ Idle, Scraped float64 }

func (t ThreadCores) increase() float64 { return max(0, t.Scraped-t.Idle) }

// CostCores is the scrapes' cost in CPU seconds per second (cores) at the
// calibration's Interval, never below 0: by thread (Threads), the
// exporter's threads' increase plus the JVM threads' increase; otherwise
// ProcessCostCores.
func (c ScrapeCost) CostCores() float64 {
	if c.Threads {
		return c.Exporter.increase() + c.JVM.increase()
	}
	return c.ProcessCostCores()
}

// ProcessCostCores is the whole processes' increase, ScrapedCores −
// IdleCores, never below 0: the cost plus the idle brokers' noise.
func (c ScrapeCost) ProcessCostCores() float64 { return max(0, c.ScrapedCores-c.IdleCores) }

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
	warmExporter(ctx, urls, scrapeWarmCount, scrapeWarmWorkers, scrapeWarmTime)
	var idle, scraped phaseCPU
	for range rounds {
		p, err := cpuOver(ctx, pids, phase, nil)
		if err != nil {
			return out, err
		}
		idle.add(p)
		s := NewBrokerScraper(urls, interval)
		p, err = cpuOver(ctx, pids, phase, s)
		if err != nil {
			return out, err
		}
		scraped.add(p)
		for _, ss := range s.Samples() {
			out.Scrapes += len(ss)
		}
	}
	if idle.sec > 0 && scraped.sec > 0 {
		out.IdleCores, out.ScrapedCores = idle.process/idle.sec, scraped.process/scraped.sec
		out.Threads = idle.threads && scraped.threads
		out.Exporter = ThreadCores{idle.exporter / idle.sec, scraped.exporter / scraped.sec}
		out.JVM = ThreadCores{idle.jvm / idle.sec, scraped.jvm / scraped.sec}
	}
	return out, nil
}

// The exporter warm-up before a calibration: scrapeWarmCount scrapes of
// each endpoint, scrapeWarmWorkers at a time, or scrapeWarmTime. A JMX
// exporter agent's first scrapes run its code interpreted and then have it
// compiled, at the broker's cost. On an idle 4.2.2 broker, by thread, in
// blocks of 50 back-to-back scrapes: the exporter's threads 8.9, 4.8, 3.9
// and then 3.7–4.7 ms a scrape; the JVM's compiler and collector threads
// 35.5, 14.2, 4.9 and then 0.5–4.6 ms, settling by about the 400th
// (2026-12-07, docs/lab). The calibration measures the compiled exporter
// that the runs scrape after it. A scrape waits about 45 ms on the
// exporter's reply (its HTTP server), so the workers overlap those waits.
const (
	scrapeWarmCount   = 400
	scrapeWarmWorkers = 4
	scrapeWarmTime    = 20 * time.Second
)

// warmExporter scrapes urls, workers at a time, until count scrapes of
// each or d.
func warmExporter(ctx context.Context, urls []string, count, workers int, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	s := NewBrokerScraper(urls, time.Second)
	s.maxKeep = 0 // nothing kept
	var left atomic.Int64
	left.Store(int64(count))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil && left.Add(-1) >= 0 {
				s.ScrapeAll(ctx)
			}
		})
	}
	wg.Wait()
}

// phaseCPU is what the brokers' processes did in a phase (or phases
// added): its seconds, the processes' CPU seconds and, when threads is
// true, the exporter's and the JVM's threads' CPU seconds.
type phaseCPU struct {
	sec, process, exporter, jvm float64
	threads                     bool
}

func (p *phaseCPU) add(q phaseCPU) {
	first := p.sec == 0
	p.sec, p.process, p.exporter, p.jvm = p.sec+q.sec, p.process+q.process, p.exporter+q.exporter, p.jvm+q.jvm
	p.threads = q.threads && (first || p.threads)
}

// cpuOver reads the processes' CPU over phase, with s scraping in the
// meantime when not nil.
func cpuOver(ctx context.Context, pids func() []int, phase time.Duration, s *BrokerScraper) (phaseCPU, error) {
	ps := pids()
	a, ta := ReadCPU(ps), readThreadClasses(ps)
	if s != nil {
		s.Start(ctx)
	}
	ok := retry.Sleep(ctx, phase)
	if s != nil && s.loop != nil { // Stop's final scrape would fall outside the phase
		s.loop.stop()
		s.loop = nil
	}
	if !ok {
		return phaseCPU{}, ctx.Err()
	}
	b, tb := ReadCPU(ps), readThreadClasses(ps)
	u := Usage(a, b)
	out := phaseCPU{sec: u.Seconds, process: u.BrokerCPUSeconds}
	if ta.ok && tb.ok {
		out.threads, out.exporter, out.jvm = true, tb.exporter-ta.exporter, tb.jvm-ta.jvm
	}
	return out, nil
}
