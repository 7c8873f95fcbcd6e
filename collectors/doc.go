// Package collectors owns the samplers that run beside a workload and
// observe the machine rather than the records: host CPU, the harness's own
// CPU and the CPU of broker processes, read from /proc (Linux).
//
// collectors may import results; it must not import producer, consumers,
// scenarios, infra or bench.
package collectors
