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
	// RecordsPerAcquisition is the records one member acquires from one
	// share partition at a time (share only): measured (p90 of the records
	// per acquisition) after a run, predicted (PredictAcquisition) before.
	// 0: the lock-holding bound is not computed.
	RecordsPerAcquisition float64
	// ConsumersPerPartition is, per partition, the members it is assigned
	// to (share only; from the group's assignment). nil: predicted from
	// members and partitions (SharePartitionConsumers).
	ConsumersPerPartition []int
	// BatchOptimized is share.acquire.mode batch_optimized: the broker
	// admits an acquisition while a partition's in-flight records are below
	// the lock limit and rounds it up to whole producer batches, so
	// ceil(locks ÷ records per acquisition) members hold at once
	// (record_limit caps the acquisition at the locks left: floor).
	BatchOptimized bool
	// LockDurationMs is the record lock (group.share.record.lock.duration.ms)
	// and BufferedMs the time a record waits in the client before a worker
	// takes it (measured p50; 0 before the run): the lock-expiry bound
	// (share without renew auto; 0: not computed).
	LockDurationMs float64
	BufferedMs     float64
	// FetchWait describes the members' fetches under record_limit (share):
	// nil when the members fetch from their brokers concurrently.
	FetchWait *FetchWaitInput
	// DestinationWriteMs is the measured mean time of a record's write to
	// the destination, waits included (0: no destination, or before the
	// run); a worker spends it on every completion, after processing.
	// DestinationServiceMs is the measured mean time a record's statement
	// held a connection (statement time ÷ its records), and DestinationPool
	// the scenario's pool (connections per member).
	DestinationWriteMs   float64
	DestinationServiceMs float64
	DestinationPool      int
	// DestinationBatchSize is the scenario's destination.batch_size (the
	// most records a statement writes; 0 or 1: one).
	DestinationBatchSize int
	// DestinationConnections is the scenario's cap on the whole group's
	// connections (0: none).
	DestinationConnections int
	// RecordsPerPoll and PollGapMs are the measured mean records per
	// non-empty poll and the mean gap between a member's batches (blocking
	// style; 0: not measured, as before the run or in continuous style):
	// between two batches a member's destination connections wait
	// (DestinationDuty).
	RecordsPerPoll float64
	PollGapMs      float64
}

// Bound names the ceiling that binds a run (Ceiling.Bound, run.json's
// ceiling.bound).
type Bound string

const (
	// BoundProducer: the offered rate is below every consumer-side ceiling.
	BoundProducer Bound = "producer"
	// BoundWorkers: members × workers × 1000 / P binds.
	BoundWorkers Bound = "workers"
	// BoundLocks: the lock-holding bound of a share group binds.
	BoundLocks Bound = "locks"
	// BoundLockWindow: share-partitions × record locks / hold time
	// (Little's law) binds.
	BoundLockWindow Bound = "lock_window"
	// BoundNone: nothing bounds (backlog mode with no consumer-side
	// ceiling).
	BoundNone Bound = "none"
	// BoundLockExpiry: acquisitions outlive the record lock, so part of
	// the work is done twice.
	BoundLockExpiry Bound = "lock_expiry"
	// BoundFetchWaits: record_limit fetches held by brokers without
	// records for fetch.max.wait.
	BoundFetchWaits Bound = "fetch_waits"
	// BoundBrokerSaturation, BoundHostSaturation: measured bounds (Judge).
	BoundBrokerSaturation Bound = "broker_saturation"
	BoundHostSaturation   Bound = "host_saturation"
	// BoundUnexplained: the run is far below every bound (Judge flags it).
	BoundUnexplained Bound = "unexplained"
	// BoundDestination: the destination's capacity binds (writes in
	// flight ÷ mean write time), or the workers bind while they spend
	// most of their time writing.
	BoundDestination Bound = "destination"
)

// Ceiling is a run's theoretical throughput bound: the minimum of the
// producer rate, the worker ceiling and (share groups) the lock ceiling.
type Ceiling struct {
	RecordsPerSec float64 `json:"records_per_sec"`
	// Bound names the ceiling that binds: "producer", "workers", "locks"
	// (the lock-holding bound) or "lock_window" (Little's law); in backlog
	// mode "none" when nothing bounds.
	Bound        Bound   `json:"bound"`
	ProducerRate float64 `json:"producer_rate"`
	Workers      float64 `json:"workers"`
	// Locks is share-partitions × record locks / W (Little's law: the
	// in-flight window); 0 when not applicable. When it binds, Bound is
	// "lock_window".
	Locks float64 `json:"locks,omitempty"`
	// LockHolders is the lock-holding bound (share): per partition, only
	// min(consumers, floor(record locks ÷ records per acquisition)) members
	// can hold its records at once, each completing workers × 1000 / P
	// records/s: Σ over partitions ÷ attempts per completion. When it
	// binds, Bound is "locks". 0 when not applicable.
	LockHolders float64 `json:"lock_holders,omitempty"`
	// HoldersPerPartition is min(consumers, floor(locks ÷ records per
	// acquisition)) of each partition (share, when LockHolders is set).
	HoldersPerPartition []int `json:"holders_per_partition,omitempty"`
	// RecordsPerAcquisition is the acquisition size the lock-holding bound
	// used.
	RecordsPerAcquisition float64 `json:"records_per_acquisition,omitempty"`
	// LockExpiry is the rate of records finished inside their lock when an
	// acquisition outlives it: min(workers, lock holders) × UsefulShare
	// (lock_expiry.go); when it binds, Bound is "lock_expiry". 0 when no
	// acquisition outlives its lock.
	LockExpiry float64 `json:"lock_expiry,omitempty"`
	// UsefulShare is the share of an acquisition's records finished before
	// its lock expires; the rest is redelivered and processed again.
	UsefulShare float64 `json:"useful_share,omitempty"`
	// FetchWaits is the fetch-wait bound (fetch_wait.go): Σ over members
	// of records per cycle ÷ cycle time, the cycle visiting each broker of
	// the member once and waiting fetch.max.wait at every broker without
	// records. When it binds, Bound is "fetch_waits". 0 when no member has
	// a broker without records.
	FetchWaits float64 `json:"fetch_waits,omitempty"`
	// FetchMembers are the members' broker counts behind FetchWaits.
	FetchMembers []MemberBrokers `json:"fetch_members,omitempty"`
	// FetchRoundTripMs is the round trip every fetch of FetchWaits' cycles
	// pays, measured from the client's fetch timings (FetchRoundTripMs); 0
	// when they cannot tell it (the Java client's).
	FetchRoundTripMs float64 `json:"fetch_round_trip_ms,omitempty"`
	// Held is the bound that held after the run (Judge): Bound, or
	// "broker_saturation" / "host_saturation" when the measured rate fell
	// well short of it on a saturated broker or host, or "unexplained".
	Held Bound `json:"held,omitempty"`
	// Evidence is the measurement behind Held; Move what would move it.
	Evidence string `json:"evidence,omitempty"`
	Move     string `json:"move,omitempty"`
	// Destination is the destination's capacity (DestinationCapacity):
	// statements at once ÷ service time per record; 0 without a
	// destination. When it binds, Bound is "destination".
	Destination float64 `json:"destination,omitempty"`
	// DestinationDuty is the share of a member's time its own connections
	// can be busy (DestinationDuty), when it lowered Destination (absent:
	// not measured, or members beyond the connections fill the gaps).
	DestinationDuty float64 `json:"destination_duty,omitempty"`
	// ActiveMembers is the members that can receive records: all of them in
	// a share group, at most the partition count in a consumer group.
	ActiveMembers int `json:"active_members"`
	// Efficiency is measured completed throughput / the completions
	// ceiling (RecordsPerSec, ÷ UsefulShare under lock_expiry).
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
	attempts := AttemptsPerCompletion(in.TransientRate, in.PoisonRate)
	// A worker's time per completion: its attempts' processing, then the
	// record's write to the destination (workerWriteMs).
	perCompletionMs := in.ProcessingMs*attempts + in.workerWriteMs()
	if perCompletionMs > 0 {
		c.Workers = float64(active*in.Workers) * 1000 / perCompletionMs
	}
	c.RecordsPerSec, c.Bound = in.ProducerRate, BoundProducer
	if c.Workers < c.RecordsPerSec {
		c.RecordsPerSec, c.Bound = c.Workers, BoundWorkers
	}
	if in.Share && in.RecordLocks > 0 && in.RecordsPerAcquisition > 0 && in.ProcessingMs > 0 {
		per := in.ConsumersPerPartition
		if len(per) == 0 {
			per = SharePartitionConsumers(in.Members, in.Partitions)
		}
		c.HoldersPerPartition = LockHolders(per, in.RecordLocks, in.RecordsPerAcquisition, in.BatchOptimized)
		holders := 0
		for _, h := range c.HoldersPerPartition {
			holders += h
		}
		c.RecordsPerAcquisition = in.RecordsPerAcquisition
		c.LockHolders = float64(holders*in.Workers) * 1000 / perCompletionMs
		if c.LockHolders < c.RecordsPerSec {
			c.RecordsPerSec, c.Bound = c.LockHolders, BoundLocks
		}
	}
	if in.Share {
		c.applyLockExpiry(in) // lock_expiry.go
		c.applyFetchWaits(in) // fetch_wait.go
	}
	if in.Share && in.RecordLocks > 0 && in.HoldMs > 0 {
		c.Locks = float64(in.Partitions*in.RecordLocks) * 1000 / in.HoldMs
		if c.Locks < c.RecordsPerSec {
			c.RecordsPerSec, c.Bound = c.Locks, BoundLockWindow
		}
	}
	c.applyDestination(in, active, attempts)
	if math.IsInf(c.Workers, 1) {
		c.Workers = 0 // JSON has no infinity; 0 means "no processing bound"
	}
	return c
}

// workerWriteMs is a worker's time on a record's write in the worker
// bounds: with one record a statement, the time its statement holds the
// connection (at most the write's measured time), not its wait for a
// connection, which is the destination's capacity at work (counted in, the
// bound would follow whatever rate the destination allowed); with larger
// batches, the write's measured time, whose wait for the batch to fill is
// the worker's.
func (in CeilingInput) workerWriteMs() float64 {
	if in.DestinationBatchSize <= 1 && in.DestinationServiceMs > 0 {
		return min(in.DestinationWriteMs, in.DestinationServiceMs)
	}
	return in.DestinationWriteMs
}

// applyDestination adds the destination's capacity: it binds when it is
// the lowest bound, and it names the workers' bound when the workers spend
// at least as long writing as processing (the write is what more members
// would wait on).
func (c *Ceiling) applyDestination(in CeilingInput, active int, attempts float64) {
	if in.DestinationWriteMs <= 0 || in.DestinationServiceMs <= 0 {
		return
	}
	duty := DestinationDuty(in.RecordsPerPoll, in.DestinationServiceMs, in.DestinationPool, in.Workers, in.PollGapMs, in.ProcessingMs)
	c.Destination = DestinationCapacity(active, in.Workers, in.DestinationPool, in.DestinationConnections, in.DestinationServiceMs, duty)
	if c.Destination < DestinationCapacity(active, in.Workers, in.DestinationPool, in.DestinationConnections, in.DestinationServiceMs, 1) {
		c.DestinationDuty = duty // it lowered the capacity: members beyond the connections did not fill the gaps
	}
	switch {
	case c.Destination < c.RecordsPerSec:
		c.RecordsPerSec, c.Bound = c.Destination, BoundDestination
	case c.Bound == BoundWorkers && in.workerWriteMs() >= in.ProcessingMs*attempts:
		c.Bound = BoundDestination
	}
}

// LockHolders is, per partition, the members that can hold its records at
// once: min(consumers of the partition, holders that fit in the locks), at
// least 1 for a partition with a consumer. Under record_limit an
// acquisition never exceeds the locks left, so floor(locks ÷ records per
// acquisition) fit; under batch_optimized the broker admits an acquisition
// while the in-flight records are below the limit and completes whole
// batches past it, so the n-th holder fits while (n−1) acquisitions are
// below the locks: ceil(locks ÷ records per acquisition).
func LockHolders(consumersPerPartition []int, locks int, perAcquisition float64, batchOptimized bool) []int {
	fit := 1
	if perAcquisition > 0 {
		q := float64(locks) / perAcquisition
		if batchOptimized {
			fit = max(1, int(math.Ceil(q-1e-9)))
		} else {
			fit = max(1, int(math.Floor(q+1e-9)))
		}
	}
	out := make([]int, len(consumersPerPartition))
	for i, c := range consumersPerPartition {
		out[i] = min(c, fit)
	}
	return out
}

// SharePartitionConsumers predicts, per partition, the members a share
// group assigns it to: with at least as many members as partitions, the
// members spread evenly over the partitions (members ÷ partitions each,
// the remainder one more); with fewer, each partition has one.
func SharePartitionConsumers(members, partitions int) []int {
	if partitions < 1 {
		return nil
	}
	out := make([]int, partitions)
	for p := range out {
		out[p] = 1
		if members >= partitions {
			out[p] = members / partitions
			if p < members%partitions {
				out[p]++
			}
		}
	}
	return out
}

// WithMeasured sets the efficiency from a measured useful rate
// (throughput.useful_per_sec: completions while the lock held), on the
// basis of RecordsPerSec, which under lock_expiry is the useful rate too.
func (c Ceiling) WithMeasured(usefulPerSec float64) Ceiling {
	if c.RecordsPerSec > 0 {
		c.Efficiency = usefulPerSec / c.RecordsPerSec
	}
	return c
}
