// Package collectors owns the samplers that run beside a workload and
// observe the machine rather than the records: host CPU, the harness's own
// CPU and the CPU of broker processes, read from /proc (Linux); the brokers'
// own metrics, scraped from their JMX exporter endpoints (BrokerScraper);
// group lag through a caller-supplied reader (LagSampler); resident memory
// of the harness and the brokers (ProcSampler), written as the gauge columns
// of a run's time series (Fill*Gauges); and the harness's own Prometheus
// /metrics while a campaign runs (HarnessMetrics).
//
// collectors may import results; it must not import producer, consumers,
// scenarios, infra or bench.
package collectors
