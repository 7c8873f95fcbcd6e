package results

// SharePartitionFigures are the KIP-1103 share-partition metrics of a run
// (run.json broker.share_partitions), from the JMX exporter's
// kafka.server:type=SharePartitionMetrics and type=ShareGroupMetrics. The
// same names were seen on 4.2.2, 4.3.1 and 4.4.0 process brokers
// (2026-11-30). Every figure covers every share partition the brokers
// export, the harness's priming group included (it is idle during a run).
type SharePartitionFigures struct {
	// InFlightMessagesPartitionMax is the largest InFlightMessageCount of
	// one share partition seen in the window.
	InFlightMessagesPartitionMax float64 `json:"in_flight_messages_partition_max"`
	// RecordLocksLimit is the run's record-lock limit per share partition
	// (group_config share.partition.max.record.locks, else the broker's
	// group.share.partition.max.record.locks), and InFlightOfLimitMax the
	// partition maximum above as a share of it: near 1 the lock limit
	// capped acquisition.
	RecordLocksLimit   int     `json:"record_locks_limit,omitempty"`
	InFlightOfLimitMax float64 `json:"in_flight_of_limit_max,omitempty"`
	// InFlightBatchesMax is the largest InFlightBatchCount sum seen in the
	// window.
	InFlightBatchesMax float64 `json:"in_flight_batches_max"`
	// AcquisitionLockTimeoutsPerSec is AcquisitionLockTimeoutPerSec's count
	// over the window ÷ the window: acquisition locks that expired.
	AcquisitionLockTimeoutsPerSec float64 `json:"acquisition_lock_timeouts_per_sec"`
	// FetchLockRatioMean is FetchLockRatio's mean over the window's
	// observations (a percentage: the share of a share fetch's time spent
	// holding the partition's fetch lock).
	FetchLockRatioMean float64 `json:"fetch_lock_ratio_mean"`
	// FetchLockTimeMsMean is FetchLockTimeMs's mean over the window.
	FetchLockTimeMsMean float64 `json:"fetch_lock_time_ms_mean"`
	// InFlightBatchMessagesMean is InFlightBatchMessageCount's mean over the
	// window: records per in-flight batch.
	InFlightBatchMessagesMean float64 `json:"in_flight_batch_messages_mean"`
	// TopicPartitionsAcquireTimeMsMean is ShareGroupMetrics
	// TopicPartitionsAcquireTimeMs's mean over the window, all groups.
	TopicPartitionsAcquireTimeMsMean float64 `json:"topic_partitions_acquire_time_ms_mean"`
}
