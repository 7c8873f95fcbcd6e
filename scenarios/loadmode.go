package scenarios

// LoadMode is how a run's producers load the topic (load_mode).
type LoadMode string

const (
	// LoadRate is an open-loop schedule of rate records/s for warmup +
	// duration, the consumers running throughout.
	LoadRate LoadMode = "rate"
	// LoadBacklog produces backlog_records before the consumers start and
	// measures the drain.
	LoadBacklog LoadMode = "backlog"
	// LoadMaxRate steps the rate up (max_rate:) to find the highest rate
	// the consumers sustain.
	LoadMaxRate LoadMode = "max_rate"
)

// LoadModes are the valid load modes.
var LoadModes = []LoadMode{LoadRate, LoadBacklog, LoadMaxRate}
