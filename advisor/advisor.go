package advisor

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// Kafka 4.2's ranges and defaults for the settings the advisor recommends,
// read from scenarios.RangeOf: the numbers scenarios validates are the
// ones the advisor plans with, written once.
var (
	// DefaultShareGroupMaxSize is group.share.max.size's default, and
	// MaxShareGroupMaxSize the largest value Kafka accepts.
	DefaultShareGroupMaxSize = scenarios.RangeOf(scenarios.KeyShareGroupMaxSize).Default
	MaxShareGroupMaxSize     = scenarios.RangeOf(scenarios.KeyShareGroupMaxSize).Max

	// MinRecordLocks..MaxRecordLocks is the range of
	// group.share.partition.max.record.locks; DefaultRecordLocks its default.
	MinRecordLocks     = scenarios.RangeOf(scenarios.KeyRecordLocks).Min
	MaxRecordLocks     = scenarios.RangeOf(scenarios.KeyRecordLocks).Max
	DefaultRecordLocks = scenarios.RangeOf(scenarios.KeyRecordLocks).Default

	// MinLockDuration..MaxLockDuration is the range of
	// group.share.record.lock.duration.ms; DefaultLockDuration its default.
	MinLockDuration     = rangeMs(scenarios.KeyRecordLockDuration).Min
	MaxLockDuration     = rangeMs(scenarios.KeyRecordLockDuration).Max
	DefaultLockDuration = rangeMs(scenarios.KeyRecordLockDuration).Default

	// DefaultMinLockDuration and DefaultMaxLockDuration are the defaults of
	// the broker bounds group.share.min.record.lock.duration.ms and
	// group.share.max.record.lock.duration.ms: a lock duration outside them
	// is refused unless the broker's bounds are changed.
	DefaultMinLockDuration = rangeMs(scenarios.KeyMinLockDuration).Default
	DefaultMaxLockDuration = rangeMs(scenarios.KeyMaxLockDuration).Default
)

// durationRange is a millisecond setting's range and default as durations.
type durationRange struct{ Min, Max, Default time.Duration }

func rangeMs(key string) durationRange {
	r := scenarios.RangeOf(key)
	return durationRange{time.Duration(r.Min) * time.Millisecond, time.Duration(r.Max) * time.Millisecond, time.Duration(r.Default) * time.Millisecond}
}

// The advisor's own rules (docs/explanation/measurement.md "Capacity formulas" gives the
// shape, these the numbers).
const (
	// LockShare is how far below locks/consumers-per-partition
	// max.poll.records stays ("somewhat below"): 80%.
	LockShare = 0.8
	// LockDurationShare is the part of the lock duration one batch may take
	// (max.poll.records·P/workers), so that locks do not expire under a
	// worker: 50%.
	LockDurationShare = 0.5
	// LockDurationFactor is the recommended lock duration as a multiple of
	// the batch processing time: 2× (the inverse of LockDurationShare).
	LockDurationFactor = 2.0
)

// Sanity limits of the input, far beyond any Kafka cluster, that keep the
// integer results from overflowing.
const (
	MaxRate = 1e9 // records/s
	// MinRate is the smallest target: one record every 1000 s. Below it
	// every count the plan derives rounds to nothing ("0 records/s").
	MinRate     = 1e-3 // records/s
	MaxHeadroom = 10   // 1000% above the target rate
)

// Names of the bound that set max.poll.records (Advice.MaxPollRecordsBound).
const (
	BoundRecordLocks  = "record_locks"  // floor(0.8·locks / consumers per partition)
	BoundLockDuration = "lock_duration" // floor(0.5·lock duration·workers / P)
	BoundMinimum      = "minimum"       // both bounds were below 1
)

// Input is what the advisor needs. Field comments name the CLI flag that
// sets each one; validation errors use those flag names.
type Input struct {
	Rate         float64              // --rate: target records/s, > 0
	Processing   scenarios.Processing // --processing: the processing-time model; its mean is P
	Partitions   int                  // --partitions: partitions of the topic, ≥ 1
	Workers      int                  // --workers: workers per member, ≥ 1
	RecordLocks  int                  // --record-locks: current group.share.partition.max.record.locks
	LockDuration time.Duration        // --lock-duration: current group.share.record.lock.duration.ms
	Headroom     float64              // --headroom: plan for Rate·(1+Headroom), ≥ 0
	PollOverhead time.Duration        // --poll-overhead: poll/ack round trip added to W, ≥ 0
	// P99Budget is --p99-budget: the completion p99 the plan must stay
	// within (0: none). With it (or MaxHold) the advisor takes the smallest
	// max.poll.records that meets the rate (budget.go).
	P99Budget time.Duration
	// MaxHold is --max-hold: the longest a record may stay Acquired, W =
	// max.poll.records·P/workers + poll overhead (0: none).
	MaxHold  time.Duration
	Ordering string // --ordering: "none" ("" too) or "per-key" (ordering.go)
	// DestinationCapacity is --destination-capacity: the records/s the
	// consumers' destination sustains (0: none), e.g. a destination-bound
	// run's ceiling.destination. Members are sized for min(design rate, it):
	// past it more members only move the queue into the destination.
	DestinationCapacity float64
	// DestinationWrite is --destination-write: a record's write to the
	// destination, part of the time a worker holds it (added to P).
	DestinationWrite time.Duration
}

// Defaults is an Input with the CLI's defaults: 1 worker, Kafka's default
// locks (2000) and lock duration (30s), 20% headroom, 5ms poll overhead.
// Rate, Processing and Partitions have no default.
func Defaults() Input {
	return Input{
		Workers:      1,
		RecordLocks:  DefaultRecordLocks,
		LockDuration: DefaultLockDuration,
		Headroom:     0.2,
		PollOverhead: 5 * time.Millisecond,
	}
}

// Validate reports every invalid field, one error per line, each naming the
// flag and what is expected: "--rate: must be > 0 records/s, got -5".
func (in Input) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !(in.Rate > 0) || math.IsInf(in.Rate, 0) {
		add("--rate: must be > 0 records/s, got %s", num(in.Rate))
	} else if in.Rate < MinRate {
		add("--rate: must be ≥ %s records/s (one record every 1000 s), got %s", num(MinRate), num(in.Rate))
	} else if in.Rate > MaxRate {
		add("--rate: must be ≤ %s records/s, got %s", num(MaxRate), num(in.Rate))
	}
	if err := checkProcessing(in.Processing); err != nil {
		errs = append(errs, err)
	} else if in.Processing.Average() <= 0 {
		add("--processing: the mean processing time must be > 0, got %v (%s)", in.Processing.Average(), describe(in.Processing))
	}
	if in.Partitions < 1 {
		add("--partitions: must be ≥ 1, got %d", in.Partitions)
	}
	if in.Workers < 1 {
		add("--workers: must be ≥ 1 per member, got %d", in.Workers)
	}
	if in.RecordLocks < MinRecordLocks || in.RecordLocks > MaxRecordLocks {
		add("--record-locks: must be within Kafka's range %d–%d for %s, got %d",
			MinRecordLocks, MaxRecordLocks, scenarios.KeyRecordLocks, in.RecordLocks)
	}
	if in.LockDuration < MinLockDuration || in.LockDuration > MaxLockDuration {
		add("--lock-duration: must be within Kafka's range %v–%v for %s, got %v",
			MinLockDuration, MaxLockDuration, scenarios.KeyRecordLockDuration, in.LockDuration)
	}
	if !(in.Headroom >= 0 && in.Headroom <= MaxHeadroom) {
		add("--headroom: must be in [0, %s] (0.2 plans for 20%% above --rate), got %s", num(MaxHeadroom), num(in.Headroom))
	}
	if in.PollOverhead < 0 {
		add("--poll-overhead: must be ≥ 0, got %v", in.PollOverhead)
	}
	if in.P99Budget < 0 {
		add("--p99-budget: must be ≥ 0 (0: none), got %v", in.P99Budget)
	}
	if in.MaxHold < 0 {
		add("--max-hold: must be ≥ 0 (0: none), got %v", in.MaxHold)
	}
	if err := checkOrdering(in.Ordering); err != nil {
		errs = append(errs, err)
	}
	if !(in.DestinationCapacity >= 0) || math.IsInf(in.DestinationCapacity, 0) {
		add("--destination-capacity: must be ≥ 0 records/s (0: none), got %s", num(in.DestinationCapacity))
	}
	if in.DestinationWrite < 0 {
		add("--destination-write: must be ≥ 0 (0: none), got %v", in.DestinationWrite)
	}
	return errors.Join(errs...)
}

// Advice is the advisor's plan for a share group and its comparison with a
// consumer group on the same partitions. Formulas holds, for each JSON field
// name it covers, the formula with the numbers substituted.
type Advice struct {
	// The input, resolved.
	TargetRate   float64 `json:"target_records_per_sec"`
	Headroom     float64 `json:"headroom"`
	DesignRate   float64 `json:"design_records_per_sec"` // TargetRate·(1+Headroom)
	Processing   string  `json:"processing"`             // the model, e.g. "lognormal median 10ms p99 50ms"
	ProcessingMs float64 `json:"processing_ms"`          // P: the model's mean, plus the destination write
	// DestinationWriteMs is --destination-write in ms (part of P), and
	// DestinationCapacity --destination-capacity (0: none).
	DestinationWriteMs  float64 `json:"destination_write_ms,omitempty"`
	DestinationCapacity float64 `json:"destination_capacity_records_per_sec,omitempty"`
	Partitions          int     `json:"partitions"`
	PollOverheadMs      float64 `json:"poll_overhead_ms"`

	// The share group plan.
	Members int `json:"members"`
	// Workers per member: the input, unless more than 1000 members would
	// be needed and it had to be raised.
	Workers int `json:"workers"`
	// ShareGroupMaxSize is the group.share.max.size the plan needs: 200
	// (Kafka's default) or Members when that is more.
	ShareGroupMaxSize     int `json:"share_group_max_size"`
	ConsumersPerPartition int `json:"consumers_per_partition"`
	MaxPollRecords        int `json:"max_poll_records"`
	// MaxPollRecordsBound names the bound that set MaxPollRecords:
	// BoundRecordLocks, BoundLockDuration or BoundMinimum.
	MaxPollRecordsBound         string  `json:"max_poll_records_bound"`
	MaxPollRecordsLockBound     int     `json:"max_poll_records_lock_bound"`
	MaxPollRecordsDurationBound int     `json:"max_poll_records_duration_bound"`
	BatchMs                     float64 `json:"batch_ms"` // MaxPollRecords·P/Workers
	WMs                         float64 `json:"w_ms"`     // BatchMs + poll overhead: time a record stays Acquired
	// RecordLocksNeeded is ceil((DesignRate/Partitions)·W/1000), before
	// clamping; RecordLocks is the recommendation.
	RecordLocksNeeded int `json:"record_locks_needed"`
	RecordLocks       int `json:"record_locks"`
	// PredictedP99Ms is the completion p99 the plan predicts (with
	// --p99-budget or --max-hold; 0 otherwise).
	PredictedP99Ms float64 `json:"predicted_p99_ms,omitempty"`
	// Renew is "auto" when even the plan's batch outlasts the longest lock
	// the broker allows by default: the workers must renew the locks
	// (renew: auto), or records would be delivered again while processed.
	// The advisor never plans a batch that outlives its lock otherwise.
	Renew vocab.Renew `json:"renew"`
	// PartitionsNeeded is the partitions the locks need: Partitions, or more
	// when 10000 locks per share-partition are not enough.
	PartitionsNeeded int   `json:"partitions_needed"`
	LockDurationMs   int64 `json:"lock_duration_ms"`

	ShareWorkerCeiling float64    `json:"share_worker_ceiling_records_per_sec"`
	LockCeiling        float64    `json:"lock_ceiling_records_per_sec"`
	Ceiling            float64    `json:"ceiling_records_per_sec"`
	CeilingBound       runs.Bound `json:"ceiling_bound"` // "workers", "locks" (lock holding) or "lock_window" (Little's law)
	MeetsTarget        bool       `json:"meets_target"`  // Ceiling ≥ TargetRate

	// The consumer group on the same partitions.
	ConsumerGroupCeiling          float64 `json:"consumer_group_ceiling_records_per_sec"`
	ConsumerGroupPartitionsNeeded int     `json:"consumer_group_partitions_needed"`
	ShareWorthIt                  bool    `json:"share_worth_it"`

	Reasons  []string          `json:"reasons"`  // why ShareWorthIt is what it is
	Notes    []string          `json:"notes"`    // settings to change, caveats
	Formulas map[string]string `json:"formulas"` // JSON field name → formula with numbers

	raise membersRaise // the budget needs more members (Advise plans again)

	// Ordering is --ordering; with "per-key" OrderingRulesOutShare is true
	// and OrderedPartitionsNeeded is the partitions a consumer group of
	// single-worker members needs (ordering.go).
	Ordering                string `json:"ordering,omitempty"`
	OrderingRulesOutShare   bool   `json:"ordering_rules_out_share,omitempty"`
	OrderedPartitionsNeeded int    `json:"ordered_partitions_needed,omitempty"`
}

// Advise validates the input and computes the plan (see the package
// documentation for the rules).
func Advise(in Input) (Advice, error) {
	if err := in.Validate(); err != nil {
		return Advice{}, err
	}
	a := plan(in, membersRaise{})
	if r := a.raise; r.to > 0 {
		// the budget needs more members: plan again with them, so that every
		// figure and formula is the larger group's
		a = plan(in, r)
	}
	if err := a.withinHarness(); err != nil {
		return Advice{}, err
	}
	return a, nil
}

// membersRaise is the member count the p99 budget or the hold limit needs
// above the rate's (to 0: none), and the bound that needed it.
type membersRaise struct {
	from, to int
	why      string
}

// plan computes the plan for a validated input, with raise.to members when
// a budget needs more than the rate does.
func plan(in Input, raise membersRaise) Advice {
	p := float64(in.Processing.Average()+in.DestinationWrite) / 1e6 // the write holds the worker too
	o := float64(in.PollOverhead) / 1e6
	a := Advice{
		TargetRate:     in.Rate,
		Headroom:       in.Headroom,
		DesignRate:     in.Rate * (1 + in.Headroom),
		Processing:     describe(in.Processing),
		ProcessingMs:   p,
		Partitions:     in.Partitions,
		PollOverheadMs: o,
		Workers:        in.Workers,

		DestinationWriteMs:  float64(in.DestinationWrite) / 1e6,
		DestinationCapacity: in.DestinationCapacity,
		Renew:               "none",
		Reasons:             []string{},
		Notes:               []string{},
		Formulas:            map[string]string{},
	}
	a.formula("design_records_per_sec", "rate·(1+headroom) = %s·(1+%s) = %s", num(in.Rate), num(in.Headroom), num(a.DesignRate))
	if a.DestinationWriteMs > 0 {
		a.formula("processing_ms", "model mean + destination write = %s + %s = %s",
			num(float64(in.Processing.Average())/1e6), num(a.DestinationWriteMs), num(p))
	}
	a.members(in, raise)
	a.consumerGroup()
	a.maxPollRecords(in)
	if a.budget(in); a.raise.to > 0 {
		return a
	}
	a.recordLocks(in)
	a.lockDuration(in)
	a.ceiling()
	a.verdict()
	a.ordering(in)
	return a
}

// withinHarness refuses a plan sharebench could not run or verify: more
// workers per member, members or partitions than the harness's limits
// (scenarios.MaxWorkersPerMember, MaxMembers, MaxPartitions), saying which
// formula asked for it.
func (a *Advice) withinHarness() error {
	var errs []error
	if a.Workers > scenarios.MaxWorkersPerMember {
		errs = append(errs, fmt.Errorf("the plan needs %d workers per member (%s), beyond the harness's limit of %d workers per member: "+
			"sharebench cannot run or verify it; lower --rate or --processing, or split the load over several groups",
			a.Workers, a.Formulas["workers"], scenarios.MaxWorkersPerMember))
	}
	if a.Members > scenarios.MaxMembers {
		errs = append(errs, fmt.Errorf("the plan needs %d members (%s), beyond the harness's limit of %d: sharebench cannot run or verify it",
			a.Members, a.Formulas["members"], scenarios.MaxMembers))
	}
	if a.PartitionsNeeded > scenarios.MaxPartitions {
		errs = append(errs, fmt.Errorf("the plan needs %d partitions for its record locks (%s), beyond the harness's limit of %d: "+
			"sharebench cannot run or verify it; lower --rate or --processing", a.PartitionsNeeded, a.Formulas["partitions_needed"], scenarios.MaxPartitions))
	}
	return errors.Join(errs...)
}

func (a *Advice) formula(field, format string, args ...any) {
	a.Formulas[field] = fmt.Sprintf(format, args...)
}

func (a *Advice) note(format string, args ...any) {
	a.Notes = append(a.Notes, fmt.Sprintf(format, args...))
}

// members: ceil(R'·P/(1000·w)), within group.share.max.size; with a
// destination capacity C below R', ceil(C·P/(1000·w)): members past it
// only move the queue into the destination.
func (a *Advice) members(in Input, raise membersRaise) {
	rate := a.DesignRate
	if c := a.DestinationCapacity; c > 0 && c < rate {
		rate = c
		needed := max(1, ceilInt(a.DesignRate*a.ProcessingMs/1000/float64(a.Workers)))
		a.note("the destination sustains %s records/s, below the design rate %s: members are sized for the destination "+
			"(the %d the design rate needs would only move the queue into it); raise the destination's capacity first",
			num(c), num(a.DesignRate), needed)
	}
	workload := rate * a.ProcessingMs / 1000 // busy workers needed
	a.Members = max(1, ceilInt(workload/float64(a.Workers)))
	if rate < a.DesignRate {
		a.formula("members", "ceil(destination capacity·P / (1000·workers)) = ceil(%s·%s / (1000·%d)) = %d (below the design rate %s)",
			num(rate), num(a.ProcessingMs), a.Workers, a.Members, num(a.DesignRate))
	} else {
		a.formula("members", "ceil(rate·(1+headroom)·P / (1000·workers)) = ceil(%s·%s / (1000·%d)) = %d",
			num(a.DesignRate), num(a.ProcessingMs), a.Workers, a.Members)
	}
	if a.Members > MaxShareGroupMaxSize {
		before := a.Members
		a.Workers = ceilInt(workload / float64(MaxShareGroupMaxSize))
		a.Members = max(1, ceilInt(workload/float64(a.Workers)))
		a.note("%d members with %d worker(s) each exceed Kafka's limit of %d members in a share group (%s ≤ %d): "+
			"workers per member raised to ceil(%s·%s / (1000·%d)) = %d, members = ceil(%s·%s / (1000·%d)) = %d",
			before, in.Workers, MaxShareGroupMaxSize, scenarios.KeyShareGroupMaxSize, MaxShareGroupMaxSize,
			num(a.DesignRate), num(a.ProcessingMs), MaxShareGroupMaxSize, a.Workers,
			num(a.DesignRate), num(a.ProcessingMs), a.Workers, a.Members)
		a.formula("workers", "ceil(rate·(1+headroom)·P / (1000·%d)) = ceil(%s·%s / %d) = %d (input --workers %d needs %d members)",
			MaxShareGroupMaxSize, num(a.DesignRate), num(a.ProcessingMs), 1000*MaxShareGroupMaxSize, a.Workers, in.Workers, before)
		a.formula("members", "ceil(rate·(1+headroom)·P / (1000·workers)) = ceil(%s·%s / (1000·%d)) = %d",
			num(a.DesignRate), num(a.ProcessingMs), a.Workers, a.Members)
	} else {
		a.formula("workers", "--workers = %d", a.Workers)
	}
	if raise.to > a.Members {
		a.Members = raise.to
		a.formula("members", "raised from %d to %d: with %d members no max.poll.records ≤ the %s bound met the rate",
			raise.from, raise.to, raise.from, raise.why)
		a.note("members raised from %d to %d so that a max.poll.records within the budget meets the rate", raise.from, raise.to)
	}
	a.ShareGroupMaxSize = max(DefaultShareGroupMaxSize, a.Members)
	if a.Members > DefaultShareGroupMaxSize {
		alt := ceilInt(workload / float64(DefaultShareGroupMaxSize))
		a.note("%d members exceed %s's default of %d: raise it to ≥ %d on the broker (Kafka allows up to %d), "+
			"or use --workers %d (ceil(%s·%s / (1000·%d))) for ceil(%s·%s / (1000·%d)) = %d members",
			a.Members, scenarios.KeyShareGroupMaxSize, DefaultShareGroupMaxSize, a.Members, MaxShareGroupMaxSize,
			alt, num(a.DesignRate), num(a.ProcessingMs), DefaultShareGroupMaxSize,
			num(a.DesignRate), num(a.ProcessingMs), alt, ceilInt(workload/float64(alt)))
		a.formula("share_group_max_size", "max(default %d, members %d) = %d (raise %s)",
			DefaultShareGroupMaxSize, a.Members, a.ShareGroupMaxSize, scenarios.KeyShareGroupMaxSize)
	} else {
		a.formula("share_group_max_size", "members %d ≤ default %d: keep %s", a.Members, DefaultShareGroupMaxSize, scenarios.KeyShareGroupMaxSize)
	}
}

// ceilingInput is the plan as the capacity formulas' input (the one
// runs.ComputeCeiling takes after a run), without a producer bound: its
// members, workers, P, locks, hold time W and max.poll.records as the
// acquisition; a consumer group (share false) reads no locks.
func (a *Advice) ceilingInput(share bool) runs.CeilingInput {
	return runs.CeilingInput{Share: share, Members: a.Members, Workers: a.Workers, Partitions: a.Partitions,
		ProcessingMs: a.ProcessingMs, ProducerRate: math.Inf(1), RecordLocks: a.RecordLocks, HoldMs: a.WMs,
		RecordsPerAcquisition: float64(a.MaxPollRecords)}
}

// consumerGroup: min(m, N)·w·1000/P; it reaches R' only with N ≥ m.
func (a *Advice) consumerGroup() {
	c := runs.ComputeCeiling(a.ceilingInput(false))
	a.ConsumerGroupCeiling = c.Workers
	a.ConsumerGroupPartitionsNeeded = a.Members
	a.formula("consumer_group_ceiling_records_per_sec", "min(members, partitions)·workers·1000/P = min(%d, %d)·%d·1000/%s = %s",
		a.Members, a.Partitions, a.Workers, num(a.ProcessingMs), num(a.ConsumerGroupCeiling))
	if d := a.DestinationCapacity; d > 0 && d < a.ConsumerGroupCeiling {
		a.formula("consumer_group_ceiling_records_per_sec", "min(min(members, partitions)·workers·1000/P, destination) = min(min(%d, %d)·%d·1000/%s, %s) = %s",
			a.Members, a.Partitions, a.Workers, num(a.ProcessingMs), num(d), num(d))
		a.ConsumerGroupCeiling = d
	}
	a.formula("consumer_group_partitions_needed", "one member per partition: partitions ≥ members = %d", a.Members)
}

// maxPollRecords: max(1, min(floor(0.8·L/cpp), floor(0.5·D·w/P))).
func (a *Advice) maxPollRecords(in Input) {
	a.ConsumersPerPartition = ceilInt(float64(a.Members) / float64(a.Partitions))
	a.formula("consumers_per_partition", "ceil(members/partitions) = ceil(%d/%d) = %d", a.Members, a.Partitions, a.ConsumersPerPartition)
	d := ms(in.LockDuration)
	a.MaxPollRecordsLockBound = floorInt(LockShare * float64(in.RecordLocks) / float64(a.ConsumersPerPartition))
	a.MaxPollRecordsDurationBound = floorInt(LockDurationShare * d * float64(a.Workers) / a.ProcessingMs)
	a.formula("max_poll_records_lock_bound", "floor(%s·locks/consumers per partition) = floor(%s·%d/%d) = %d",
		num(LockShare), num(LockShare), in.RecordLocks, a.ConsumersPerPartition, a.MaxPollRecordsLockBound)
	a.formula("max_poll_records_duration_bound", "floor(%s·lock duration·workers/P) = floor(%s·%s·%d/%s) = %d",
		num(LockDurationShare), num(LockDurationShare), num(d), a.Workers, num(a.ProcessingMs), a.MaxPollRecordsDurationBound)
	switch m := min(a.MaxPollRecordsLockBound, a.MaxPollRecordsDurationBound); {
	case m < 1:
		a.MaxPollRecords, a.MaxPollRecordsBound = 1, BoundMinimum
	case m == a.MaxPollRecordsLockBound:
		a.MaxPollRecords, a.MaxPollRecordsBound = m, BoundRecordLocks
	default:
		a.MaxPollRecords, a.MaxPollRecordsBound = m, BoundLockDuration
	}
	a.formula("max_poll_records", "max(1, min(lock bound %d, lock-duration bound %d)) = %d (%s bound)",
		a.MaxPollRecordsLockBound, a.MaxPollRecordsDurationBound, a.MaxPollRecords, a.MaxPollRecordsBound)
	a.BatchMs = float64(a.MaxPollRecords) * a.ProcessingMs / float64(a.Workers)
	a.WMs = a.BatchMs + a.PollOverheadMs
	a.formula("batch_ms", "max.poll.records·P/workers = %d·%s/%d = %s", a.MaxPollRecords, num(a.ProcessingMs), a.Workers, num(a.BatchMs))
	a.formula("w_ms", "batch + poll overhead = %s + %s = %s", num(a.BatchMs), num(a.PollOverheadMs), num(a.WMs))
	switch a.MaxPollRecordsBound {
	case BoundRecordLocks:
		a.note("the record locks cap max.poll.records at %d: %d consumers share each partition's %d locks, "+
			"and a larger batch would leave the other members' polls empty", a.MaxPollRecords, a.ConsumersPerPartition, in.RecordLocks)
	case BoundLockDuration:
		a.note("the lock duration caps max.poll.records at %d: one batch (%s ms) stays within %s%% of the %s ms lock",
			a.MaxPollRecords, num(a.BatchMs), num(100*LockDurationShare), num(d))
	case BoundMinimum:
		a.note("even max.poll.records 1 exceeds a bound: locks/consumers per partition = %d/%d, "+
			"one record takes %s ms per worker against %s%% of the %s ms lock; see record locks and lock duration",
			in.RecordLocks, a.ConsumersPerPartition, num(a.ProcessingMs/float64(a.Workers)), num(100*LockDurationShare), num(d))
	}
	a.note("max.poll.records is an upper bound: smaller batches shorten W (and completion latency) at the cost of more polls; " +
		"with share.acquire.mode batch_optimized a poll may acquire whole producer batches beyond it " +
		"(use record_limit, kgo.ShareMaxRecordsStrict, or smaller producer batches)")
}

// recordLocks: ceil((R'/N)·W/1000) within 100–10000, never below the
// current setting (max.poll.records was sized against it).
func (a *Advice) recordLocks(in Input) {
	perPartition := a.DesignRate / float64(a.Partitions)
	a.RecordLocksNeeded = ceilInt(perPartition * a.WMs / 1000)
	a.RecordLocks = min(MaxRecordLocks, max(MinRecordLocks, in.RecordLocks, a.RecordLocksNeeded))
	a.PartitionsNeeded = a.Partitions
	a.formula("record_locks_needed", "ceil((rate·(1+headroom)/partitions)·W/1000) = ceil(%s·%s/1000) = %d",
		num(perPartition), num(a.WMs), a.RecordLocksNeeded)
	a.formula("record_locks", "clamp(max(current %d, needed %d), %d, %d) = %d",
		in.RecordLocks, a.RecordLocksNeeded, MinRecordLocks, MaxRecordLocks, a.RecordLocks)
	a.formula("partitions_needed", "--partitions = %d", a.Partitions)
	switch {
	case a.RecordLocksNeeded > MaxRecordLocks:
		a.PartitionsNeeded = ceilInt(a.DesignRate * a.WMs / (1000 * float64(MaxRecordLocks)))
		a.formula("partitions_needed", "ceil(rate·(1+headroom)·W / (1000·%d)) = ceil(%s·%s / %d) = %d",
			MaxRecordLocks, num(a.DesignRate), num(a.WMs), 1000*MaxRecordLocks, a.PartitionsNeeded)
		a.note("%d locks per share-partition are needed but Kafka allows at most %d (%s): "+
			"use ≥ %d partitions (keeping max.poll.records %d and W %s ms), or lower W with a smaller max.poll.records",
			a.RecordLocksNeeded, MaxRecordLocks, scenarios.KeyRecordLocks, a.PartitionsNeeded, a.MaxPollRecords, num(a.WMs))
	case a.RecordLocks > in.RecordLocks:
		a.note("raise %s from %d to %d on the broker (per group from Kafka 4.3, KIP-1240: share.partition.max.record.locks)",
			scenarios.KeyRecordLocks, in.RecordLocks, a.RecordLocks)
	}
}

// lockDuration: max(D, ceil(2·B)) within 15000–60000, the defaults of the
// broker bounds; a current D outside them is kept (the broker's bounds were
// changed to allow it).
func (a *Advice) lockDuration(in Input) {
	d := in.LockDuration.Milliseconds()
	need := int64(math.Ceil(LockDurationFactor * a.BatchMs))
	lo, hi := DefaultMinLockDuration.Milliseconds(), DefaultMaxLockDuration.Milliseconds()
	a.LockDurationMs = max(d, need)
	if d >= lo && d <= hi {
		a.LockDurationMs = min(hi, max(lo, a.LockDurationMs))
	} else {
		a.LockDurationMs = min(max(hi, d), a.LockDurationMs)
		a.note("--lock-duration %d ms is outside the broker's default bounds %d–%d ms "+
			"(group.share.min.record.lock.duration.ms / group.share.max.record.lock.duration.ms): it works only if those were changed",
			d, lo, hi)
	}
	a.formula("lock_duration_ms", "clamp(max(current %d, %s·batch %s = %d), %d, %d) = %d "+
		"(bounds: broker group.share.min/max.record.lock.duration.ms defaults)",
		d, num(LockDurationFactor), num(a.BatchMs), need, lo, hi, a.LockDurationMs)
	switch {
	case need > a.LockDurationMs:
		if a.BatchMs > float64(a.LockDurationMs) {
			a.Renew = vocab.RenewAuto
		}
		a.note("one batch takes %s ms, so the lock should last ≥ %d ms but is capped at %d ms: records would be redelivered while "+
			"still being processed; the plan renews locks during processing (renew: auto, AckRenew, Kafka 4.2) when a batch outlasts the lock; "+
			"otherwise raise group.share.max.record.lock.duration.ms (up to 3600000) and the lock duration to ≥ %d ms, or add workers per member",
			num(a.BatchMs), need, a.LockDurationMs, need)
	case a.LockDurationMs != d:
		a.note("set %s (broker) or share.record.lock.duration.ms (per group) to %d ms", scenarios.KeyRecordLockDuration, a.LockDurationMs)
	}
}

// ceiling: min(m·w·1000/P, N·locks·1000/W), runs.ComputeCeiling's
// share-group formulas without a producer bound.
func (a *Advice) ceiling() {
	c := runs.ComputeCeiling(a.ceilingInput(true))
	a.ShareWorkerCeiling, a.LockCeiling = c.Workers, c.Locks
	a.Ceiling, a.CeilingBound = c.RecordsPerSec, c.Bound
	a.MeetsTarget = a.Ceiling >= a.TargetRate
	a.formula("share_worker_ceiling_records_per_sec", "members·workers·1000/P = %d·%d·1000/%s = %s",
		a.Members, a.Workers, num(a.ProcessingMs), num(a.ShareWorkerCeiling))
	a.formula("lock_ceiling_records_per_sec", "partitions·locks·1000/W = %d·%d·1000/%s = %s",
		a.Partitions, a.RecordLocks, num(a.WMs), num(a.LockCeiling))
	if d := a.DestinationCapacity; d > 0 && d <= a.Ceiling {
		a.Ceiling, a.CeilingBound = d, runs.BoundDestination
		a.MeetsTarget = a.Ceiling >= a.TargetRate
	}
	if a.DestinationCapacity > 0 {
		a.formula("ceiling_records_per_sec", "min(workers %s, locks %s, destination %s) = %s (%s-bound)",
			num(a.ShareWorkerCeiling), num(a.LockCeiling), num(a.DestinationCapacity), num(a.Ceiling), a.CeilingBound)
	} else {
		a.formula("ceiling_records_per_sec", "min(workers %s, locks %s) = %s (%s-bound)",
			num(a.ShareWorkerCeiling), num(a.LockCeiling), num(a.Ceiling), a.CeilingBound)
	}
	if !a.MeetsTarget {
		a.note("the plan's ceiling %s records/s is below the target %s records/s (%s-bound)", num(a.Ceiling), num(a.TargetRate), a.CeilingBound)
	}
}

// verdict: a share group is worth it for throughput when a consumer group
// would need more partitions than exist (m > N).
func (a *Advice) verdict() {
	a.ShareWorthIt = a.Members > a.Partitions
	if a.ShareWorthIt {
		a.formula("share_worth_it", "members needed %d > partitions %d: a consumer group cannot use them all", a.Members, a.Partitions)
	} else {
		a.formula("share_worth_it", "members needed %d ≤ partitions %d: a consumer group can use them all", a.Members, a.Partitions)
	}
	cg, target, design := a.ConsumerGroupCeiling, a.TargetRate, a.DesignRate
	switch {
	case a.ShareWorthIt && cg < target:
		a.Reasons = append(a.Reasons, fmt.Sprintf(
			"a consumer group can use at most %d member(s) (one per partition): ceiling %s records/s < target %s records/s; "+
				"it would need ≥ %d partitions, the topic has %d",
			a.Partitions, num(cg), num(target), a.ConsumerGroupPartitionsNeeded, a.Partitions))
	case a.ShareWorthIt:
		a.Reasons = append(a.Reasons, fmt.Sprintf(
			"a consumer group reaches %s records/s with %d partitions: the target %s but not the %s%% headroom (%s records/s); "+
				"it would need ≥ %d partitions, the topic has %d",
			num(cg), a.Partitions, num(target), num(100*a.Headroom), num(design), a.ConsumerGroupPartitionsNeeded, a.Partitions))
	case cg >= design:
		a.Reasons = append(a.Reasons, fmt.Sprintf(
			"a consumer group suffices: %s on %s %s %s records/s ≥ %s records/s (target + %s%% headroom); "+
				"a share group still helps with per-record acknowledgements (RELEASE/REJECT, redelivery) and membership changes without rebalances, not throughput",
			plural(a.Members, "member"), plural(a.Partitions, "partition"), reach(a.Members), num(cg), num(design), num(100*a.Headroom)))
	default: // the members fit the partitions, but something else (the destination) caps both group types
		a.Reasons = append(a.Reasons, fmt.Sprintf(
			"a consumer group falls short: %s on %s %s only %s records/s, below the %s records/s planned (target + %s%% headroom); "+
				"a share group is capped alike (%s records/s), so it does not help throughput here",
			plural(a.Members, "member"), plural(a.Partitions, "partition"), reach(a.Members), num(cg), num(design), num(100*a.Headroom), num(a.Ceiling)))
	}
	if d := a.DestinationCapacity; d > 0 && d < design {
		a.Reasons = append(a.Reasons, fmt.Sprintf(
			"the destination sustains %s records/s, below the design rate %s: it caps both group types, and members past %d only move the queue from Kafka into it",
			num(d), num(design), a.Members))
	}
	if a.ShareWorthIt {
		a.Reasons = append(a.Reasons, fmt.Sprintf(
			"a share group spreads each of the %d partition(s) over %d consumers: %d members × %d worker(s) × 1000/%s = %s records/s without repartitioning",
			a.Partitions, a.ConsumersPerPartition, a.Members, a.Workers, num(a.ProcessingMs), num(a.ShareWorkerCeiling)))
	}
}

// plural is "1 member", "2 members"; reach agrees with it.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func reach(n int) string {
	if n == 1 {
		return "reaches"
	}
	return "reach"
}

// ceilTolerance absorbs floating-point noise: 1200·10/1000 must give 12, not
// 13 because it came out as 12.000000000000002.
const ceilTolerance = 1e-9

func ceilInt(x float64) int {
	return int(math.Ceil(x - ceilTolerance*math.Max(1, math.Abs(x))))
}

func floorInt(x float64) int {
	return int(math.Floor(x + ceilTolerance*math.Max(1, math.Abs(x))))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
