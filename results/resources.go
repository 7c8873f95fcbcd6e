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
	// CollectorCPUSeconds is the harness CPU its own collectors (broker
	// metrics scrapes and their parsing, group lag readings, /proc readings)
	// spent on work begun in the window, counted per piece of work on its
	// thread's CPU clock: a lower bound (docs/explanation/measurement.md). nil: not
	// measured (no per-thread clock on this OS, or a run not measured here).
	CollectorCPUSeconds *float64 `json:"collector_cpu_s,omitempty"`
	// CollectorPercent is CollectorCPUSeconds as a share of
	// HarnessCPUSeconds (0–100): what observing cost the harness.
	CollectorPercent *float64 `json:"collector_percent,omitempty"`
	// HarnessRSSMaxMiB is the largest resident memory of the harness process
	// (VmRSS) read by the 1 s /proc samples over the run (the members' start
	// → the drain's end). nil: none read.
	HarnessRSSMaxMiB *float64 `json:"harness_rss_max_mib,omitempty"`
}

// SetCollectorCPU records the collectors' CPU seconds over the window and
// its share of the harness's CPU (none when the harness's is 0).
func (u *CPUUsage) SetCollectorCPU(sec float64) {
	u.CollectorCPUSeconds = &sec
	u.CollectorPercent = nil
	if u.HarnessCPUSeconds > 0 {
		p := 100 * sec / u.HarnessCPUSeconds
		u.CollectorPercent = &p
	}
}
