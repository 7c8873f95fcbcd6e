package results

// CPUUsage is the CPU used over the measurement window, read from /proc.
type CPUUsage struct {
	Seconds float64 `json:"seconds"` // wall-clock span
	// HostPercent is the host's busy share of all cores (0–100).
	HostPercent float64 `json:"host_percent"`
	// HarnessPercent is the harness's CPU as a share of all cores (0–100).
	HarnessPercent float64 `json:"harness_percent"`
	// HarnessCPUSeconds is the harness's user+system CPU time.
	HarnessCPUSeconds float64 `json:"harness_cpu_seconds"`
	// BrokerCPUSeconds is the brokers' user+system CPU time, summed.
	BrokerCPUSeconds float64 `json:"broker_cpu_seconds"`
	// BrokerPercent is the brokers' CPU as a share of all cores (0–100).
	BrokerPercent float64 `json:"broker_percent"`
	Cores         int     `json:"cores"`
}
