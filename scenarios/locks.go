package scenarios

import (
	"math"
	"time"

	"github.com/sharebench/sharebench/vocab"
)

// recordOverhead is the bytes a record adds to a producer batch beside its
// value (length, attributes, offset and timestamp deltas, null key, no
// headers), roughly.
const recordOverhead = 10

// PredictedAcquisition predicts the records one share member acquires from
// one partition at a time, before a run: with acquire_mode record_limit
// max_poll_records; with batch_optimized whole producer batches, so at
// least a producer batch (backlog mode: full batches of batch_size; rate
// mode: what one producer sends a partition in a linger, at most a full
// batch). Never more than the partition's record locks. 0 for consumer
// groups.
func (r RunSpec) PredictedAcquisition() int {
	if r.ConsumerType != vocab.ShareGroup {
		return 0
	}
	n := r.MaxPollRecords
	if r.AcquireMode != vocab.AcquireRecordLimit {
		full := max(1, r.BatchSize/max(1, r.MessageSize+recordOverhead))
		batch := full
		if !r.Backlog() && r.Producers > 0 && r.Partitions > 0 {
			perLinger := r.Rate / float64(r.Producers*r.Partitions) * r.Linger.Seconds()
			batch = min(full, max(1, int(math.Ceil(perLinger))))
		}
		n = max(n, batch)
	}
	if locks := r.RecordLocks(); locks > 0 {
		n = min(n, locks)
	}
	return n
}

// AcquisitionTime is how long a member's workers take to process one
// acquisition of n records: n × P ÷ workers, with P the mean processing
// time. A record of the acquisition stays Acquired at least that long.
func (r RunSpec) AcquisitionTime(n int) time.Duration {
	return time.Duration(float64(n) * float64(r.ProcessingMean()) / float64(max(1, r.Workers)))
}

// LockExpiryRisk reports whether the predicted acquisition's processing
// time (AcquisitionTime(PredictedAcquisition())) can exceed the record lock
// duration, so locks expire under the workers and records are delivered
// again: share groups without renew auto only.
func (r RunSpec) LockExpiryRisk() (risk bool, batch time.Duration) {
	if r.ConsumerType != vocab.ShareGroup || r.Renew == vocab.RenewAuto {
		return false, 0
	}
	batch = r.AcquisitionTime(r.PredictedAcquisition())
	return batch > r.RecordLockDuration(), batch
}
