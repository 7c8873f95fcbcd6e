//go:build integration

package campaign

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/results/runs"
)

// The JIT warm-up on a real broker moves records through both group types
// within its bounds, reads the broker's own compile time and says so. The
// priming's first step runs as in a campaign, then the campaigns' own
// warm-up (the runs' request pattern, 10 s to 20 s); the stop rule is
// TestWarmUpRunsUntilJITSettles's.
func TestPrimeClusterJITWarmup(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := primeCluster(ctx, cl.Bootstrap(), cl.Nodes(), cl.MetricsURLs(), warmupConfig{}); err != nil {
		t.Fatal(err)
	}
	adm, err := newAdmin(cl.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.close()
	w := defaultWarmup
	scraper := collectors.NewBrokerScraper(cl.MetricsURLs(), primingScrapeInterval)
	scraper.Start(ctx)
	began := time.Now()
	p, err := warmUp(ctx, adm, cl.Bootstrap(), cl.Nodes(), scraper, w)
	scraper.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("priming %+v (jit %+v) in %v", p, p.JIT, time.Since(began))
	if !p.JITWarmup || p.TimeLimitSec != w.Time.Seconds() || p.RatePerSec != w.Producer.Rate {
		t.Errorf("priming record %+v", p)
	}
	// the paced producers sent about the rate for the time they ran, and
	// both groups took it all
	if max := w.Producer.Rate * p.DurationSec; p.RecordsProduced <= 0 || float64(p.RecordsProduced) > 1.05*max {
		t.Errorf("warm-up produced %d records in %.1fs at %.0f/s", p.RecordsProduced, p.DurationSec, w.Producer.Rate)
	}
	consumedAll(t, p)
	// the time bound holds (1 s for the clients to close)
	if p.DurationSec > w.Time.Seconds()+1 {
		t.Errorf("warm-up took %.1fs, bound %v", p.DurationSec, w.Time)
	}
	// the JVM's compile time is read from the broker's own exporter, and
	// the warm-up ended on the settle or on a bound
	j := p.JIT
	if j == nil {
		t.Fatal("no JIT compile time from the broker's metrics endpoint")
	}
	if j.CompileSec <= 0 || len(j.Rates) == 0 || math.Abs(j.EndRate-j.Rates[len(j.Rates)-1]) > 1e-4 {
		t.Errorf("jit %+v: want compile time and the rates read", j)
	}
	if j.Settled && j.EndRate > j.TargetRate {
		t.Errorf("jit %+v: settled above the target", j)
	}
	sc := calibrateScrapes(ctx, cl, testLog(t))
	if sc == nil {
		t.Fatal("no scrape calibration on a process cluster")
	}
	// 2 scraped phases of 5 s every 250 ms: 20 or 21 scrapes each (one at
	// once); a loaded host may lose ticks (a scrape longer than 250 ms
	// delays the next), never add them
	if sc.Scrapes < 2*4 || sc.Scrapes > 2*21 || sc.IdleCores <= 0 || sc.ProcessCostCores != math.Max(0, sc.ScrapedCores-sc.IdleCores) {
		t.Errorf("scrape calibration %+v", sc)
	}
	// a broker's threads are readable here: the cost is the exporter's
	// threads (which ran every scrape, so above 0) plus the JVM's increase,
	// a part of what the brokers did while scraped
	if sc.Method != "threads" || sc.CostCores <= 0 || sc.CostCores > sc.ScrapedCores+1e-3 {
		t.Errorf("scrape calibration by thread %+v: want method threads and 0 < cost ≤ scraped cores", sc)
	}
	if want := 1e3 * sc.CostCores * sc.PhaseSec * float64(sc.Rounds) / float64(sc.Scrapes); math.Abs(sc.CPUMsPerScrape-want) > 1e-9 {
		t.Errorf("cpu_ms_per_scrape %v, want cost × scraped time ÷ scrapes = %v", sc.CPUMsPerScrape, want)
	}
}

// A rate run records broker_cost with its produce-only phase: the phase
// sent what the schedule asks (rate × measured length), and the figures
// follow their formulas from the run's own readings.
func TestRateRunBrokerCost(t *testing.T) {
	s := baseSpec()
	s.Rate, s.Warmup, s.Duration = 400, 2*time.Second, 6*time.Second
	// A campaign's runner: only campaigns run produce-only phases (RunOne has none).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl := needKafka(t)
	rn := runner{cl: cl, log: testLog(t), env: environment(ctx, cl, nil),
		progress: runProgress{p: NoProgress{}, run: 1, recs: 1, id: "broker-cost"}, produceOnly: newProduceOnlyCache()}
	m, err := rn.runOne(ctx, s, "broker-cost")
	if err != nil {
		t.Fatal(err)
	}
	r := m.Record
	c := r.BrokerCost
	if c == nil || c.ProduceOnly == nil {
		t.Fatalf("broker_cost %+v", c)
	}
	p := c.ProduceOnly
	t.Logf("broker_cost %+v produce_only %+v", c, p)
	// a phase whose brokers were still compiling (JIT ≥ 25 % of its CPU)
	// withholds the consume side; otherwise it is C − R × W
	if p.JITCompileSec != nil && (*p.JITCompileSec >= runs.JITShareLimit*p.CPUSeconds) != p.Compiling {
		t.Errorf("produce-only compiled %.2f s of %.2f CPU-s: compiling %v", *p.JITCompileSec, p.CPUSeconds, p.Compiling)
	}
	if want := s.Rate * p.Sec; math.Abs(float64(p.Records)-want) > 0.05*want+2 {
		t.Errorf("produce-only records %d, the schedule gives %.0f", p.Records, want)
	}
	if p.CPUSeconds <= 0 || math.Abs(p.CPUCores-p.CPUSeconds/p.Sec) > 1e-9 {
		t.Errorf("produce-only CPU %+v", p)
	}
	if c.CPUSeconds != r.Broker.CPUSeconds || c.Produced <= 0 || c.Completed <= 0 {
		t.Errorf("window inputs %+v against broker.cpu_seconds %v", c, r.Broker.CPUSeconds)
	}
	// broker CPU is the broker process's /proc time over the window, not
	// the exporter's, and the scrapes in the window are charged at the
	// calibration's cost each: one at the window's start, and the loop's
	// (every broker_metrics_interval, 15 s) at most once in 6 s: 1 or 2,
	// up to 3 when a late scrape on a loaded host falls inside an edge
	if r.Broker.CPUSource != collectors.CPUSourceProc || r.Broker.CPUSeconds != r.Resources.BrokerCPUSeconds {
		t.Errorf("broker CPU %v from %q, want resources.broker_cpu_seconds %v from proc", r.Broker.CPUSeconds, r.Broker.CPUSource, r.Resources.BrokerCPUSeconds)
	}
	if sc := rn.env.Priming; sc != nil && sc.ScrapeCost != nil {
		if c.Scrapes < 1 || c.Scrapes > 3 || math.Abs(c.ScrapeCPUSeconds-sc.ScrapeCost.CPUMsPerScrape/1e3*float64(c.Scrapes)) > 1e-12 {
			t.Errorf("scrapes %d cost %v CPU-s, calibration %v ms a scrape", c.Scrapes, c.ScrapeCPUSeconds, sc.ScrapeCost.CPUMsPerScrape)
		}
	}
	want := c.CPUSeconds - p.CPUCores*r.Phases.MeasureSec
	if p.Compiling {
		want = 0
	}
	if math.Abs(c.ConsumeCPUSeconds-want) > 1e-9 || c.Consumable() == p.Compiling {
		t.Errorf("consume CPU %v (consumable %v), want %v (C − R × W, or 0 over a compiling phase)", c.ConsumeCPUSeconds, c.Consumable(), want)
	}
	if want := c.NetCPUSeconds / float64(c.Produced+c.Completed) * 1e6; math.Abs(c.MovedCPUSecondsPerMillion-want) > 1e-6 {
		t.Errorf("moved s/M %v, want %v", c.MovedCPUSecondsPerMillion, want)
	}
}
