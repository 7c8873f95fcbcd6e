package scenarios

// DeadLetter is the dead_letter: block (KIP-1191, Kafka 4.4+, share.version
// 2): the share group's dead-letter queue. Records a member REJECTs and
// records archived at the delivery count limit are written to Topic; the
// harness reads the topic back after the drain and the audit reconciles
// it (audit.dead_lettered). The same for every run; not a sweep dimension.
type DeadLetter struct {
	// Topic is the DLQ topic (errors.deadletterqueue.topic.name). It must
	// start with the broker's errors.deadletterqueue.topic.name.prefix
	// ("dlq." by default); the harness creates it fresh for every run,
	// with the run's name appended, and deletes it after.
	Topic string `json:"topic"`
	// CopyRecord is errors.deadletterqueue.copy.record.enable: copy the
	// original record's key and value into the DLQ record (false: a record
	// with the context headers only). [false]
	CopyRecord bool `json:"copy_record"`
}
