//go:build integration

package campaign

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/internal/envvars"
)

// A short share run on the real broker: the JMX exporter scrape must show
// share-coordinator writes, and the broker's RecordAcknowledgementsPerSec
// counts (cumulative, so first-to-last scrape deltas) must match what the
// workers acknowledged: Accept = completions, Release = releases, Reject =
// rejects, each within 1 % or 3 records (acknowledgements are sent in
// batches; the final scrape follows the consumers' close).
func TestBrokerMetricsShareRun(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Partitions = "share", 4, 2
	s.Processing = scenarios.Processing{Model: "constant", Time: time.Millisecond}
	s.TransientRate, s.PoisonRate = 0.1, 0.02
	s.Rate, s.Warmup, s.Duration = 300, 2*time.Second, 6*time.Second
	// SHAREBENCH_SAVE_SCRAPE=FILE keeps a broker scrape taken while the
	// share partitions exist (how collectors/testdata was captured).
	saved := make(chan []byte, 1)
	if path := os.Getenv(envvars.SaveScrape); path != "" {
		stop := make(chan struct{})
		defer func() {
			close(stop)
			if body := <-saved; body != nil {
				if err := os.WriteFile(path, body, 0o644); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			var keep []byte
			defer func() { saved <- keep }()
			for {
				select {
				case <-stop:
					return
				case <-time.After(500 * time.Millisecond):
				}
				resp, err := http.Get(needKafka(t).MetricsURLs()[0])
				if err != nil {
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if bytes.Contains(body, []byte("kafka_server_sharepartitionmetrics")) {
					keep = body
				}
			}
		}()
	}
	r := runSpec(t, s, "broker-metrics-share")
	b := r.Broker
	t.Logf("broker %+v lag %+v /proc broker %.1f%%", b, r.Lag, r.Resources.BrokerPercent)
	// scrapes at the load's start, at both window edges and the final one
	// after the drain (the interval's next tick may fall before it)
	if b.Endpoints != 1 || b.Samples < 4 || b.ScrapeErrors != 0 {
		t.Fatalf("scrapes: %d endpoints, %d samples, %d errors (%s)", b.Endpoints, b.Samples, b.ScrapeErrors, b.LastScrapeError)
	}
	if b.ShareCoordinatorWritesRun <= 0 || b.ShareCoordinatorWriteRateAvg <= 0 {
		t.Errorf("share coordinator writes %.0f over the run, %.1f/s in the window: want > 0", b.ShareCoordinatorWritesRun, b.ShareCoordinatorWriteRateAvg)
	}
	near := func(what string, broker float64, client int64) {
		if tol := math.Max(3, 0.01*float64(client)); math.Abs(broker-float64(client)) > tol {
			t.Errorf("%s: broker counted %.0f, workers %d (tolerance %.0f)", what, broker, client, tol)
		}
	}
	if r.Outcomes.Completed == 0 {
		t.Fatal("nothing completed")
	}
	near("Accept", b.AcksRun["Accept"], r.Outcomes.Completed)
	near("Release", b.AcksRun["Release"], r.Outcomes.Released)
	near("Reject", b.AcksRun["Reject"], r.Outcomes.Rejected)
	if b.CPUSeconds <= 0 || b.CPUSecondsPerMillionRecords <= 0 || b.HeapUsedMaxBytes <= 0 || b.HeapAfterGCMaxBytes <= 0 {
		t.Errorf("window figures missing: %+v", b)
	}
	// broker CPU is the broker process's /proc time at the window's
	// edges, the reading resources.broker_percent is made of
	if b.CPUSource != collectors.CPUSourceProc || b.CPUSeconds != r.Resources.BrokerCPUSeconds || math.Abs(b.CPUPercentAvg-r.Resources.BrokerPercent) > 1e-6 {
		t.Errorf("broker CPU %.2f s, %.1f%% from %q; /proc %.2f s, %.1f%%", b.CPUSeconds, b.CPUPercentAvg, b.CPUSource, r.Resources.BrokerCPUSeconds, r.Resources.BrokerPercent)
	}
	if r.Lag.Samples < 5 || 4*r.Lag.Errors > r.Lag.Samples {
		t.Errorf("lag samples %d errors %d", r.Lag.Samples, r.Lag.Errors)
	}
	for _, f := range r.Validity.Flags {
		if f.Code == "collector_failed" {
			t.Errorf("validity: %s", f.Message)
		}
	}
}

// A consumer-group run records its lag from the Admin API, and the lag is
// the one the rates imply: 2 members × 1 worker × 10 ms complete at most
// C = 200 records/s against 400 offered, so from the first send (the warm-up's
// start) the backlog grows at 400 − 200 records/s and at the window's end it
// is (rate − C) × (warmup + duration) = 200 × 7 = 1,400 records. Margin
// [0.8, 1.3]: the reading nearest the window end is up to half a sampling
// interval (0.5 s × 200/s = 100) away; the members' polled but uncommitted
// records (≤ members × max_poll_records = 100) count as lag; poll and commit
// overheads keep the members a little below C (more lag) and a producer
// behind its schedule on a loaded host a little below 400 (less lag).
func TestBrokerMetricsConsumerLag(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Workers, s.Partitions, s.MaxPollRecords = "consumer", 2, 1, 2, 50
	s.Processing.Time = 10 * time.Millisecond
	s.Rate, s.Warmup, s.Duration = 400, 2*time.Second, 5*time.Second // ceiling 200/s: lag grows
	r := runSpec(t, s, "broker-metrics-lag")
	ceiling := float64(s.Members*s.Workers) * 1000 / float64(s.Processing.Time.Milliseconds())
	want := (s.Rate - ceiling) * (s.Warmup + s.Duration).Seconds()
	t.Logf("lag %+v (formula at window end %.0f) broker cpu %.1f%% requests %v", r.Lag, want, r.Broker.CPUPercentAvg, r.Broker.RequestsPerSec)
	if r.Lag.Samples < 5 {
		t.Errorf("lag samples %d, want ≥ 5 (one a second over 7 s)", r.Lag.Samples)
	}
	if got := float64(r.Lag.AtWindowEnd); got < 0.8*want || got > 1.3*want {
		t.Errorf("lag at window end %.0f, want (rate %.0f − ceiling %.0f) × %.0fs = %.0f within [0.8, 1.3]",
			got, s.Rate, ceiling, (s.Warmup + s.Duration).Seconds(), want)
	}
	// The maximum is the window-end reading or one taken after it, before
	// the producers' last records are consumed: at most one more second
	// of growth and the uncommitted records above it.
	if hi := r.Lag.AtWindowEnd + int64(s.Rate-ceiling) + int64(s.Members*s.MaxPollRecords); r.Lag.Max < r.Lag.AtWindowEnd || r.Lag.Max > hi {
		t.Errorf("lag max %d, want between the window-end reading %d and %d", r.Lag.Max, r.Lag.AtWindowEnd, hi)
	}
	if r.Broker.RequestsPerSec["OffsetCommit"] <= 0 || r.Broker.RequestsPerSec["Fetch"] <= 0 {
		t.Errorf("request rates %v: want OffsetCommit and Fetch > 0", r.Broker.RequestsPerSec)
	}
}
