package results

// BrokerMetrics summarises the brokers' own metrics (the JMX exporter agent
// of the process provider, scraped every second) for one run: run.json's
// "broker". Window figures cover the measurement window (from the scrapes
// nearest its edges); "run" figures cover the first to the last scrape
// (consumers started → drain done), so they compare with the audit.
type BrokerMetrics struct {
	// Endpoints is the number of broker endpoints scraped (0: the provider
	// has none, e.g. kfake; everything below is then zero).
	Endpoints int `json:"endpoints"`
	// Samples is the number of successful scrapes, all brokers.
	Samples int `json:"samples"`
	// ScrapeErrors counts failed scrapes (HTTP or parse errors).
	ScrapeErrors    int    `json:"scrape_errors"`
	LastScrapeError string `json:"last_scrape_error,omitempty"`
	// WindowSec is the span between the scrapes used for the window figures.
	WindowSec float64 `json:"window_s"`

	// CPUPercentAvg is the brokers' process CPU (JMX ProcessCpuTime) over
	// the window as a share of all host cores (0–100), like
	// resources.broker_percent from /proc.
	CPUPercentAvg float64 `json:"cpu_percent_avg"`
	// CPUSeconds is the brokers' CPU time in the window.
	CPUSeconds float64 `json:"cpu_seconds"`
	// CPUSecondsPerMillionRecords is CPUSeconds / records completed in the
	// window × 1e6 (0 when nothing completed).
	CPUSecondsPerMillionRecords float64 `json:"cpu_seconds_per_million_records"`
	HeapUsedMaxBytes            float64 `json:"heap_used_max_bytes"`
	HeapCommittedMaxBytes       float64 `json:"heap_committed_max_bytes"`
	// HeapAfterGCMaxBytes is the largest heap-in-use right after a young
	// collection seen in the window (the managed-service alarm is < 60 % of
	// the heap).
	HeapAfterGCMaxBytes float64 `json:"heap_after_gc_max_bytes"`
	// GCTimePercent is GC time over the window as % of wall time, averaged
	// over brokers.
	GCTimePercent float64 `json:"gc_time_percent"`
	GCCount       float64 `json:"gc_count"` // collections in the window, all brokers
	// JITCompileSeconds is the brokers' JIT compilation time in the window
	// (the JVM's compile-time counter between the scrapes nearest the
	// window's edges, scaled to the window like CPUSeconds), summed over
	// brokers; listed in Unavailable when a broker's scrapes lack it.
	JITCompileSeconds float64 `json:"jit_compile_s"`

	// ShareCoordinatorWriteRateAvg is share-state writes per second over the
	// window, all brokers (share-coordinator-metrics write-total delta).
	ShareCoordinatorWriteRateAvg float64 `json:"share_coordinator_write_rate_avg"`
	// ShareCoordinatorWriteLatencyMaxMs is the largest write-latency-max seen
	// in the window.
	ShareCoordinatorWriteLatencyMaxMs float64 `json:"share_coordinator_write_latency_max_ms"`
	// ShareCoordinatorWritesRun counts share-state writes over the run.
	ShareCoordinatorWritesRun float64 `json:"share_coordinator_writes_run"`
	// AcquisitionLockTimeoutsTotal counts acquisition locks that expired,
	// over the run, all share partitions.
	AcquisitionLockTimeoutsTotal float64 `json:"acquisition_lock_timeouts_total"`
	// AcksRun are RecordAcknowledgementsPerSec counts by ackType over the run.
	AcksRun map[string]float64 `json:"acks_run,omitempty"`
	// InFlightMessagesMax is the largest InFlightMessageCount sum seen in the
	// window, all share partitions.
	InFlightMessagesMax float64 `json:"in_flight_messages_max"`
	// RequestsPerSec are broker request rates over the window by type
	// (ShareFetch, ShareAcknowledge, ShareGroupHeartbeat, Fetch, OffsetCommit).
	RequestsPerSec map[string]float64 `json:"requests_per_sec,omitempty"`
	// RequestHandlerIdleMin is the lowest RequestHandlerAvgIdlePercent
	// (one-minute rate, 0–1) seen in the window.
	RequestHandlerIdleMin float64 `json:"request_handler_idle_min"`
	BytesInPerSec         float64 `json:"bytes_in_per_sec"`
	BytesOutPerSec        float64 `json:"bytes_out_per_sec"`
	// SharePartitions are the KIP-1103 share-partition figures (absent
	// when no broker exported a share partition; sharepartition.go).
	SharePartitions *SharePartitionFigures `json:"share_partitions,omitempty"`

	// Naming is the metric naming of the endpoints scraped (sharebench,
	// strimzi, msk, node; several joined with "+"), absent without scrapes.
	Naming string `json:"naming,omitempty"`
	// Unavailable lists the figures above (their JSON names) that no
	// endpoint's naming can give: they read 0 and mean nothing.
	Unavailable []string `json:"unavailable,omitempty"`
	// CPUSource is "proc" when the CPU figures are the broker processes'
	// /proc counters read at the window's edges (process and container
	// providers), "host" when they are the broker hosts' busy
	// CPU (node exporter) because no endpoint gives the JVM's; cpu_percent_avg
	// is then a share of the broker hosts' CPUs.
	CPUSource string `json:"cpu_source,omitempty"`
}

// LagSummary is the group's lag (records produced but not yet finished by
// the group, summed over partitions, from the Admin API) sampled every
// second during the run: run.json's "lag".
type LagSummary struct {
	Samples int `json:"samples"`
	// Errors are the readings that failed: gaps in the lag series
	// (timeseries.csv lag_unread), never read as 0.
	Errors    int    `json:"errors"`
	LastError string `json:"last_error,omitempty"`
	// TimeoutMaxMs is the longest a reading was allowed (the timeout follows
	// the broker's answer times: 4 × the slowest of the last 8, 2–30 s);
	// AnswerMaxMs the slowest of the last answers.
	TimeoutMaxMs float64 `json:"timeout_max_ms,omitempty"`
	AnswerMaxMs  float64 `json:"answer_max_ms,omitempty"`
	// Max is the largest lag seen over the run.
	Max int64 `json:"max"`
	// AtWindowEnd is the lag of the sample nearest the measurement window's end.
	AtWindowEnd int64 `json:"at_window_end"`
	// DrainEstimateSec is the estimated time to drain (ETD) at
	// the window's end: AtWindowEnd ÷ (completed_per_sec − produced_per_sec),
	// the time the backlog would take to drain if production went on at the
	// measured rate. Absent when the consumers were no faster than the
	// producers (the backlog never drains while producing).
	DrainEstimateSec *float64 `json:"drain_estimate_s,omitempty"`
}
