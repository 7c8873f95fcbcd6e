// Package collectors owns the samplers that run beside a workload and
// observe the machine rather than the records: host CPU, the harness's own
// CPU and the CPU of broker processes, read from /proc (Linux) through
// github.com/prometheus/procfs (procfs.go: the only /proc reader of the
// package); the brokers' own metrics, scraped from their JMX exporter
// endpoints (BrokerScraper); group lag through a caller-supplied reader
// (LagSampler); resident memory of the harness and the brokers
// (ProcSampler), written as the gauge columns of a run's time series
// (Fill*Gauges); and the harness's own Prometheus /metrics while a campaign
// runs (HarnessMetrics). The three background samplers share one loop
// (periodic.go): sample at once, then every interval, until Stop or the
// context ends, Stop waiting for the loop.
//
// collectors may import results; it must not import producer, consumers,
// scenarios, infra or campaign.
package collectors
