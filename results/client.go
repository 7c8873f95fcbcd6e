package results

// ClientClock is how the clock of a client running outside the harness
// process (the Java runner) was aligned with the run's Clock: OffsetNs is
// added to the client's readings, BoundNs bounds the alignment's error
// (half the smallest ping round trip).
type ClientClock struct {
	OffsetNs int64 `json:"offset_ns"`
	BoundNs  int64 `json:"bound_ns"`
}

// SetClientClock records the client clock alignment of the run.
func (r *Recorder) SetClientClock(c ClientClock) { r.clientClock.Store(&c) }

// ClientClock returns the client clock alignment; ok is false when the
// consumers ran in the harness process (one clock, nothing to align).
func (r *Recorder) ClientClock() (c ClientClock, ok bool) {
	p := r.clientClock.Load()
	if p == nil {
		return ClientClock{}, false
	}
	return *p, true
}

// ClientSettings are a run's consumer client settings as the client itself
// resolved them, defaults applied: franz-go's option values read back from
// the client (kgo.Client.OptValue), or the values kafka-clients' own
// ConsumerConfig parse gives the Java runner's properties (the FetchConfig
// or ShareFetchConfig the Java client builds from it). Every member of a run
// is configured alike; the first member's are recorded. A setting that the
// client or the group type does not have is omitted (nil, "").
type ClientSettings struct {
	// Source names where the values were read.
	Source                 string `json:"source"`
	FetchMaxWaitMs         int64  `json:"fetch_max_wait_ms"`
	FetchMinBytes          int64  `json:"fetch_min_bytes"`
	FetchMaxBytes          int64  `json:"fetch_max_bytes"`
	FetchMaxPartitionBytes int64  `json:"fetch_max_partition_bytes"`
	// MaxPollRecords is max.poll.records: franz-go share members'
	// ShareMaxRecords, consumer-group members' PollRecords limit; the Java
	// client's max.poll.records.
	MaxPollRecords int64 `json:"max_poll_records"`
	// MaxConcurrentFetches is franz-go's fetch concurrency: -1 a fetch per
	// broker in flight or buffered (prefetch on), 0 a fetch only when the
	// member polls (prefetch off). The Java client has no such setting.
	MaxConcurrentFetches *int64 `json:"max_concurrent_fetches,omitempty"`
	// ShareAcquireMode is share.acquire.mode (share groups).
	ShareAcquireMode string `json:"share_acquire_mode,omitempty"`
	// SessionTimeoutMs and HeartbeatIntervalMs are what a classic consumer
	// group's members send (the broker owns them under KIP-848 and for
	// share groups).
	SessionTimeoutMs    *int64 `json:"session_timeout_ms,omitempty"`
	HeartbeatIntervalMs *int64 `json:"heartbeat_interval_ms,omitempty"`
	// RebalanceTimeoutMs is franz-go's rebalance.timeout.ms (classic
	// consumer groups).
	RebalanceTimeoutMs *int64 `json:"rebalance_timeout_ms,omitempty"`
	// MaxPollIntervalMs is the Java KafkaConsumer's max.poll.interval.ms,
	// which it also sends as the classic group's rebalance timeout.
	MaxPollIntervalMs *int64 `json:"max_poll_interval_ms,omitempty"`
	// Spring are the listener container's settings (client spring), as
	// its ContainerProperties hold them after the runner configured it.
	Spring *SpringSettings `json:"spring,omitempty"`
}

// SpringSettings are a Spring for Apache Kafka listener container's
// settings (client spring).
type SpringSettings struct {
	// Container is the container class of each member:
	// ShareKafkaMessageListenerContainer or ConcurrentMessageListenerContainer.
	Container string `json:"container"`
	// Concurrency is the container's concurrency: its threads, each with a
	// client of its own (the run's workers).
	Concurrency int64 `json:"concurrency"`
	// AckMode is the container's acknowledgement mode: ShareAckMode (MANUAL,
	// IMPLICIT) for share groups, AckMode (MANUAL) for consumer groups, or
	// "none (enable.auto.commit)" when the client commits by itself.
	AckMode string `json:"ack_mode"`
	// SyncCommits says whether the container commits synchronously
	// (isSyncShareCommits for share groups, isSyncCommits for consumer groups).
	SyncCommits bool `json:"sync_commits"`
}

// SetClientSettings records the consumer client's settings; the first
// member's stay (every member is configured alike).
func (r *Recorder) SetClientSettings(s ClientSettings) { r.clientSettings.CompareAndSwap(nil, &s) }

// ClientSettings returns the recorded client settings; ok is false when no
// member reported them.
func (r *Recorder) ClientSettings() (s ClientSettings, ok bool) {
	p := r.clientSettings.Load()
	if p == nil {
		return ClientSettings{}, false
	}
	return *p, true
}
