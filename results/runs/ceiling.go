package runs

import "math"

// CeilingInput is what the capacity formulas of a run need.
type CeilingInput struct {
	Share        bool    // share group (true) or consumer group
	Members      int     // consumer members
	Workers      int     // workers per member
	Partitions   int     // topic partitions
	ProcessingMs float64 // mean processing time of one attempt, ms
	// TransientRate is the probability that one processing attempt fails
	// and is retried (consumer group) or released (share group).
	TransientRate float64
	// PoisonRate is the probability that a record is poison: processed once,
	// then rejected / dead-lettered, never completed.
	PoisonRate   float64
	ProducerRate float64 // offered records/s
	// RecordLocks is group.share.partition.max.record.locks (share only).
	RecordLocks int
	// HoldMs is the measured mean time a record is held by a worker
	// (handed over → completed). It stands in for W, the time a record
	// stays Acquired, which is at least this long.
	HoldMs float64
}

// Ceiling is a run's theoretical throughput bound: the minimum of the
// producer rate, the worker ceiling and (share groups) the lock ceiling.
type Ceiling struct {
	RecordsPerSec float64 `json:"records_per_sec"`
	Bound         string  `json:"bound"` // which ceiling binds: "producer", "workers" or "locks"
	ProducerRate  float64 `json:"producer_rate"`
	Workers       float64 `json:"workers"`
	// Locks is share-partitions × record locks / W; 0 when not applicable.
	Locks float64 `json:"locks,omitempty"`
	// ActiveMembers is the members that can receive records: all of them in
	// a share group, at most the partition count in a consumer group.
	ActiveMembers int `json:"active_members"`
	// Efficiency is measured completed throughput / RecordsPerSec.
	Efficiency float64 `json:"efficiency"`
}

// AttemptsPerCompletion is the mean number of processing attempts spent per
// completed record: a record fails each attempt with probability f
// (geometric: 1/(1−f) attempts until success), and a poison fraction q is
// processed once and never completes, charged to the completed ones.
func AttemptsPerCompletion(transient, poison float64) float64 {
	if transient >= 1 || poison >= 1 {
		return math.Inf(1)
	}
	return 1/(1-transient) + poison/(1-poison)
}

// ComputeCeiling computes the theoretical ceiling: worker ceiling = active members ×
// workers × 1000 / P (per attempt, divided by attempts per completion);
// lock ceiling = partitions × locks / W; achievable = min of those and the
// producer rate.
func ComputeCeiling(in CeilingInput) Ceiling {
	active := in.Members
	if !in.Share && in.Partitions < active {
		active = in.Partitions
	}
	c := Ceiling{ProducerRate: in.ProducerRate, ActiveMembers: active, Workers: math.Inf(1)}
	if in.ProcessingMs > 0 {
		c.Workers = float64(active*in.Workers) * 1000 / in.ProcessingMs /
			AttemptsPerCompletion(in.TransientRate, in.PoisonRate)
	}
	c.RecordsPerSec, c.Bound = in.ProducerRate, "producer"
	if c.Workers < c.RecordsPerSec {
		c.RecordsPerSec, c.Bound = c.Workers, "workers"
	}
	if in.Share && in.RecordLocks > 0 && in.HoldMs > 0 {
		c.Locks = float64(in.Partitions*in.RecordLocks) * 1000 / in.HoldMs
		if c.Locks < c.RecordsPerSec {
			c.RecordsPerSec, c.Bound = c.Locks, "locks"
		}
	}
	if math.IsInf(c.Workers, 1) {
		c.Workers = 0 // JSON has no infinity; 0 means "no processing bound"
	}
	return c
}

// WithMeasured sets the efficiency from a measured completed rate.
func (c Ceiling) WithMeasured(completedPerSec float64) Ceiling {
	if c.RecordsPerSec > 0 {
		c.Efficiency = completedPerSec / c.RecordsPerSec
	}
	return c
}
