package collectors

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	promcollectors "github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results"
)

// LiveRun is the run a HarnessMetrics reports while it runs.
type LiveRun struct {
	RunID, ConsumerType string
	OfferedPerSec       float64
	// Recorder is read on every scrape (Counts, Window, Clock).
	Recorder *results.Recorder
	// Warmup precedes the recorder's measurement window.
	Warmup time.Duration
}

// Phases a run goes through, as the phase label of sharebench_phase.
var Phases = []string{"setup", "warmup", "measure", "drain", "done"}

// HarnessMetrics is the harness's own Prometheus metrics: the current run's
// counters, lag, in-flight records and phase, read from its
// results.Recorder at scrape time (nothing on the records' hot path), plus
// the harness process's CPU and memory. It has its own registry.
type HarnessMetrics struct {
	reg *prometheus.Registry

	mu   sync.Mutex
	run  *LiveRun
	lag  *LagSampler
	done bool

	counters           []counterDesc
	lagDesc, inFlight  *prometheus.Desc
	phaseDesc, offered *prometheus.Desc
	lagAge             *prometheus.Desc
	writeSeconds       *prometheus.Desc // a counter in seconds, from a nanosecond count
}

type counterDesc struct {
	desc *prometheus.Desc
	get  func(results.Counts) int64
}

// runLabels label every run metric.
var runLabels = []string{"run_id", "consumer_type"}

// NewHarnessMetrics returns the metrics with a registry of their own,
// holding them and a process collector (sharebench_process_*).
func NewHarnessMetrics() *HarnessMetrics {
	c := func(name, help string, get func(results.Counts) int64) counterDesc {
		return counterDesc{prometheus.NewDesc("sharebench_records_"+name+"_total", help, runLabels, nil), get}
	}
	h := &HarnessMetrics{
		reg: prometheus.NewRegistry(),
		counters: []counterDesc{
			c("produced", "Produce acknowledgements (records the broker acknowledged).", func(l results.Counts) int64 { return l.Acked }),
			c("delivered", "Records handed to a worker (every delivery, redeliveries included).", func(l results.Counts) int64 { return l.Delivered }),
			c("completed", "Completions: share ACCEPT issued, or consumer-group offset commit covering the record issued.", func(l results.Counts) int64 { return l.Completed }),
			c("redelivered", "Deliveries with a delivery count above 1 (share) or records delivered again (consumer group).", func(l results.Counts) int64 { return l.Redelivered }),
			c("released", "Share RELEASE acknowledgements (transient failures).", func(l results.Counts) int64 { return l.Released }),
			c("rejected", "Share REJECT acknowledgements, or consumer-group dead letters.", func(l results.Counts) int64 { return l.Rejected }),
			{prometheus.NewDesc("sharebench_destination_writes_total", "Record writes to the destination that succeeded (each before its record's acknowledgement or commit).", runLabels, nil),
				func(l results.Counts) int64 { return l.DestinationWrites }},
			{prometheus.NewDesc("sharebench_destination_write_errors_total", "Record writes to the destination that failed (the record was handed back and retried).", runLabels, nil),
				func(l results.Counts) int64 { return l.DestinationWriteErrors }},
		},
		writeSeconds: prometheus.NewDesc("sharebench_destination_write_seconds_total",
			"Time spent writing records to the destination, failed writes included: ÷ (writes_total + write_errors_total) is the mean write time, the destination's latency.", runLabels, nil),
		lagDesc:   prometheus.NewDesc("sharebench_lag_records", "Group lag from the Admin API, the last reading (sampled every second).", runLabels, nil),
		lagAge:    prometheus.NewDesc("sharebench_lag_age_seconds", "Age of the last lag reading.", runLabels, nil),
		inFlight:  prometheus.NewDesc("sharebench_in_flight_records", "Records delivered and not yet completed, released or rejected.", runLabels, nil),
		phaseDesc: prometheus.NewDesc("sharebench_phase", "1 for the run's current phase (setup, warmup, measure, drain, done), 0 for the others.", append(runLabels, "phase"), nil),
		offered:   prometheus.NewDesc("sharebench_offered_records_per_second", "The run's configured open-loop producer rate.", runLabels, nil),
	}
	h.reg.MustRegister(h, promcollectors.NewProcessCollector(promcollectors.ProcessCollectorOpts{Namespace: "sharebench"}))
	return h
}

// Registry is the registry the metrics are served from.
func (h *HarnessMetrics) Registry() *prometheus.Registry { return h.reg }

// Begin makes run the current run; the previous run's series disappear.
// The labels pass through redact.Text as every other outgoing byte does:
// a run id is made of the scenario's swept values (scenarios refuses the
// sweeps of secret settings and of values holding a secret; a secret
// registered as a literal is masked here too).
func (h *HarnessMetrics) Begin(run LiveRun) {
	run.RunID, run.ConsumerType = redact.Text(run.RunID), redact.Text(run.ConsumerType)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.run, h.lag, h.done = &run, nil, false
}

// SetLag gives the current run's lag sampler (it starts with the producers).
func (h *HarnessMetrics) SetLag(l *LagSampler) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lag = l
}

// End marks the current run done; its final values stay until the next Begin.
func (h *HarnessMetrics) End() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
}

// Describe implements prometheus.Collector.
func (h *HarnessMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range h.counters {
		ch <- c.desc
	}
	ch <- h.lagDesc
	ch <- h.lagAge
	ch <- h.inFlight
	ch <- h.phaseDesc
	ch <- h.offered
	ch <- h.writeSeconds
}

// Collect implements prometheus.Collector: it reads the current run now.
func (h *HarnessMetrics) Collect(ch chan<- prometheus.Metric) {
	h.mu.Lock()
	run, lag, done := h.run, h.lag, h.done
	h.mu.Unlock()
	if run == nil || run.Recorder == nil {
		return
	}
	lv := []string{run.RunID, run.ConsumerType}
	counts := run.Recorder.Counts()
	for _, c := range h.counters {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(c.get(counts)), lv...)
	}
	ch <- prometheus.MustNewConstMetric(h.writeSeconds, prometheus.CounterValue, float64(counts.DestinationWriteNanos)/1e9, lv...)
	ch <- prometheus.MustNewConstMetric(h.inFlight, prometheus.GaugeValue, float64(counts.InFlight()), lv...)
	ch <- prometheus.MustNewConstMetric(h.offered, prometheus.GaugeValue, run.OfferedPerSec, lv...)
	if lag != nil {
		if s, ok := lag.Latest(); ok {
			ch <- prometheus.MustNewConstMetric(h.lagDesc, prometheus.GaugeValue, float64(s.Lag), lv...)
			ch <- prometheus.MustNewConstMetric(h.lagAge, prometheus.GaugeValue, time.Since(s.At).Seconds(), lv...)
		}
	}
	current := run.phase(done)
	for _, p := range Phases {
		v := 0.0
		if p == current {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(h.phaseDesc, prometheus.GaugeValue, v, append(lv, p)...)
	}
}

// phase derives the run's phase from its measurement window and clock:
// setup until the window is set (the group is ready), warm-up before the
// window, measure inside it, drain after it until End.
func (r *LiveRun) phase(done bool) string {
	w := r.Recorder.Window()
	switch now := r.Recorder.Clock.Now(); {
	case done:
		return "done"
	case w.End == 0:
		return "setup"
	case now < w.Start:
		return "warmup"
	case now < w.End:
		return "measure"
	default:
		return "drain"
	}
}

// MetricsServer serves a HarnessMetrics registry over HTTP.
type MetricsServer struct {
	srv  *http.Server
	addr string
	done chan error
}

// CheckMetricsAddr checks addr is host:port with a loopback host, as
// Listen needs (the dry run checks it too).
func CheckMetricsAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("metrics address %q: %w (want host:port, e.g. 127.0.0.1:9464)", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("metrics address %q: not a loopback address; sharebench serves its metrics on this host only (e.g. 127.0.0.1:9464)", addr)
	}
	return nil
}

// Listen serves /metrics on addr, which must be a loopback address
// (127.0.0.1:9464, [::1]:9464, localhost:9464; port 0 picks a free one).
func (h *HarnessMetrics) Listen(addr string) (*MetricsServer, error) {
	if err := CheckMetricsAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics address %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(h.reg, promhttp.HandlerOpts{Registry: h.reg}))
	s := &MetricsServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *MetricsServer) Addr() string { return s.addr }

// URL is the metrics endpoint.
func (s *MetricsServer) URL() string { return "http://" + s.addr + "/metrics" }

// Close stops the server, waiting up to 5 s for scrapes in progress.
func (s *MetricsServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
