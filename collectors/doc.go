// Package collectors owns the samplers that run beside a workload and
// observe the machine rather than the records: host CPU, the harness's own
// CPU and the CPU of broker processes, read from /proc (Linux); the brokers'
// own metrics, scraped from their JMX exporter endpoints (BrokerScraper);
// and group lag through a caller-supplied reader (LagSampler).
//
// collectors may import results; it must not import producer, consumers,
// scenarios, infra or bench.
package collectors
