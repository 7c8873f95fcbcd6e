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

	"github.com/sharebench/sharebench/scenarios"
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
	if path := os.Getenv("SHAREBENCH_SAVE_SCRAPE"); path != "" {
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
	if b.Endpoints != 1 || b.Samples < 5 || b.ScrapeErrors != 0 {
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
	// JMX ProcessCpuTime and /proc read the same kernel counters; the spans
	// differ (scrapes nearest the window edges against exact edges).
	if p := r.Resources.BrokerPercent; p > 1 && math.Abs(b.CPUPercentAvg-p) > math.Max(3, 0.35*p) {
		t.Errorf("broker CPU: JMX %.1f%%, /proc %.1f%% of all cores", b.CPUPercentAvg, p)
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

// A consumer-group run records its lag from the Admin API.
func TestBrokerMetricsConsumerLag(t *testing.T) {
	s := baseSpec()
	s.ConsumerType, s.Members, s.Partitions = "consumer", 2, 2
	s.Rate, s.Warmup, s.Duration = 400, 2*time.Second, 5*time.Second // ceiling 200/s: lag grows
	r := runSpec(t, s, "broker-metrics-lag")
	t.Logf("lag %+v broker cpu %.1f%% requests %v", r.Lag, r.Broker.CPUPercentAvg, r.Broker.RequestsPerSec)
	if r.Lag.Samples < 5 || r.Lag.Max <= 0 || r.Lag.AtWindowEnd <= 0 {
		t.Errorf("lag of a group behind its producers: %+v", r.Lag)
	}
	if r.Broker.RequestsPerSec["OffsetCommit"] <= 0 || r.Broker.RequestsPerSec["Fetch"] <= 0 {
		t.Errorf("request rates %v: want OffsetCommit and Fetch > 0", r.Broker.RequestsPerSec)
	}
}
