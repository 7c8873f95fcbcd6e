package scenarios

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/vocab"
)

// maxMessageSize is the largest record value: Kafka's default
// message.max.bytes is a little over 1MiB.
const maxMessageSize = 1 << 20

// maxPollRecordsLimit bounds max_poll_records.
const maxPollRecordsLimit = 10000

// Harness limits. They keep every accepted value inside the arithmetic the
// harness does with it (schedules, sizing, buffers, timeouts) and are
// checked before any of it; RunSpec's field comments list them.
const (
	// DefaultBrokerMetricsInterval is broker_metrics_interval's default and
	// Min/MaxBrokerMetricsInterval its bounds. A scrape costs an idle 4.2.2
	// broker 4.6–6.0 ms of CPU, and an idle broker uses 0.016–0.043 cores
	// (collectors.ScrapeCost, docs/lab/2026-12-07-scrape-cost-by-thread.md):
	// every 15 s that is 0.7–2.5 % of an idle broker's CPU, under 2 % but
	// for the quietest, where 10 s read 1.1–3.7 %. The window's figures
	// come from the scrapes at its edges, taken whatever the interval; 60 s
	// leaves few between them.
	DefaultBrokerMetricsInterval = 15 * time.Second
	MinBrokerMetricsInterval     = time.Second
	MaxBrokerMetricsInterval     = time.Minute

	maxRateLimit      = 10_000_000      // rate and max_rate, records/s
	maxBacklogRecords = 10_000_000_000  // backlog_records
	maxPhase          = 168 * time.Hour // warmup, duration, drain_timeout: 7 days
	minWindow         = time.Second     // duration, and a nonzero warmup
	// maxMembersLimit bounds members, joins included: a consumer group's
	// size is the harness's to bound (Kafka sets none by default), within
	// the memory budget and the open-file limit checked before a run; a
	// share group stops at group.share.max.size (at most 1000) first.
	maxMembersLimit   = 10_000
	maxWorkersLimit   = 10000 // workers per member
	maxProducersLimit = 1000  // producers
	maxPartitionLimit = 10000 // partitions
	maxInFlightLimit  = maxWorkersLimit * maxPollRecordsLimit
	maxBatchSize      = 1 << 30 // batch_size: 1GiB
)

// The harness's limits a plan made elsewhere (the advisor) must stay
// within to be runnable: workers per member, members and partitions.
const (
	MaxWorkersPerMember = maxWorkersLimit
	MaxMembers          = maxMembersLimit
	MaxPartitions       = maxPartitionLimit
)

// Kafka broker settings the scenario validates, with Kafka 4.2's ranges
// and defaults (ShareGroupConfig and GroupCoordinatorConfig).
const (
	KeyRecordLocks        = "group.share.partition.max.record.locks"
	KeyDeliveryCountLimit = "group.share.delivery.count.limit"
	KeyRecordLockDuration = "group.share.record.lock.duration.ms"
	KeyMinLockDuration    = "group.share.min.record.lock.duration.ms"
	KeyMaxLockDuration    = "group.share.max.record.lock.duration.ms"
	KeyShareGroupMaxSize  = "group.share.max.size"
	KeyMaxShareSessions   = "group.share.max.share.sessions"
	// KeyShareHeartbeat is group.share.heartbeat.interval.ms; Kafka bounds
	// it by group.share.min/max.heartbeat.interval.ms (5000/15000).
	KeyShareHeartbeat = "group.share.heartbeat.interval.ms"
)

// KafkaRange is a Kafka integer setting's valid range and default.
type KafkaRange struct {
	Min, Max, Default int
}

// RangeOf is Kafka's range and default of broker setting key, as scenarios
// validates it: the one copy of these numbers (the advisor plans with
// them). It is zero for a key scenarios does not bound.
func RangeOf(key string) KafkaRange { return brokerRanges[key] }

var brokerRanges = map[string]KafkaRange{
	KeyRecordLocks:        {100, 10000, 2000},
	KeyDeliveryCountLimit: {2, 10, 5},
	KeyRecordLockDuration: {1000, 3600000, 30000},
	KeyMinLockDuration:    {1000, 30000, 15000},
	KeyMaxLockDuration:    {30000, 3600000, 60000},
	KeyShareGroupMaxSize:  {1, 1000, 200},
	KeyMaxShareSessions:   {1, math.MaxInt32, 2000},
	KeyShareHeartbeat:     {1000, 3600000, 5000},
}

var (
	kafkaVersionRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)$`)
	brokerHeapRE   = regexp.MustCompile(`^[1-9][0-9]*[mMgG]$`)
)

// Validate checks a resolved run against the harness's limits and Kafka's
// ranges. Each problem is one line "key: what is wrong, what is expected".
// Load already validates every run; Validate is for RunSpecs built in code.
func (r RunSpec) Validate() error {
	p := problems(r.problems())
	return p.err()
}

// problems lists everything wrong with the run.
type problems []string

func (p *problems) addf(key, format string, args ...any) {
	*p = append(*p, key+": "+fmt.Sprintf(format, args...))
}

// err joins the problems into one error, nil when there is none.
func (p problems) err() error {
	var errs []error
	for _, s := range p {
		errs = append(errs, errors.New(s))
	}
	return errors.Join(errs...)
}

func (r RunSpec) problems() []string {
	var p problems
	r.checkProducers(&p)
	r.checkConsumers(&p)
	r.checkOutcomes(&p)
	r.checkPhases(&p)
	r.checkCluster(&p)
	r.Processing.check(&p)
	r.checkBrokerConfig(&p)
	r.checkGroupConfig(&p)
	r.checkShareRelease(&p) // releases.go
	r.checkDeadLetter(&p)
	r.checkDestination(&p)
	r.checkShards(&p)
	r.checkRateSchedule(&p)
	r.checkAutoscale(&p)
	return p
}

// maxShards bounds shards: every agent reads the whole control topic, so
// the coordinator's messages fan out to every shard; 64 agents keep that
// traffic and the merge small (docs/how-to/run-sharded.md).
const maxShards = 64

// ShardCount is the number of agents the run is split over: Shards, 1 when
// unset.
func (r RunSpec) ShardCount() int { return max(r.Shards, 1) }

// checkShards checks shards' range. Every load mode, event, the scaler and
// a destination run split over agents as in one process; what agents
// physically cannot share is refused where it arises (a destination's
// connections, checkDestination).
func (r RunSpec) checkShards(p *problems) {
	if r.Shards < 0 || r.Shards > maxShards { // 0: unset in a RunSpec built in code, one process
		p.addf("shards", "expected an integer from 1 to %d (agents a run is split over), got %d", maxShards, r.Shards)
	}
}

// isOne reports a typed value outside its type's valid values (vocab.Check).
func isOne[T ~string](p *problems, key string, got T, valid []T) {
	if err := vocab.Check(got, valid); err != nil {
		p.addf(key, "%v", err)
	}
}

func oneOf(p *problems, key, got string, valid ...string) {
	if !slices.Contains(valid, got) {
		p.addf(key, "expected one of %s, got %q", strings.Join(valid, ", "), got)
	}
}

func atLeast(p *problems, key string, got, min int, unit string) {
	if got < min {
		p.addf(key, "must be ≥ %d%s, got %d", min, unit, got)
	}
}

// atMost reports a value above a harness limit.
func atMost(p *problems, key string, got, limit int, unit string) {
	if got > limit {
		p.addf(key, "must be ≤ %d%s (the harness's limit), got %d", limit, unit, got)
	}
}

func (r RunSpec) checkProducers(p *problems) {
	atLeast(p, "partitions", r.Partitions, 1, "")
	atMost(p, "partitions", r.Partitions, maxPartitionLimit, "")
	atLeast(p, "producers", r.Producers, 1, "")
	atMost(p, "producers", r.Producers, maxProducersLimit, "")
	switch {
	case len(r.RateSchedule) > 0:
		// rate is the schedule's peak: checkRateSchedule checks the
		// schedule, each step's rate was checked where it is written.
	case math.IsInf(r.Rate, 1):
		p.addf("rate", "must be a finite number of records/s, ≤ %d (the harness's limit), got %s", maxRateLimit, num(r.Rate))
	case !(r.Rate > 0) || math.IsInf(r.Rate, 0):
		p.addf("rate", "must be > 0 records/s, got %s", num(r.Rate))
	case r.Rate > maxRateLimit:
		p.addf("rate", "must be ≤ %d records/s (the harness's limit), got %s", maxRateLimit, num(r.Rate))
	}
	if r.MessageSize < results.StampSize {
		p.addf("message_size", "must be ≥ %d bytes (the record stamp: run, producer, sequence, send times), got %d", results.StampSize, r.MessageSize)
	}
	if r.MessageSize > maxMessageSize {
		p.addf("message_size", "must be ≤ 1MiB (%d bytes, Kafka's default message.max.bytes), got %d", maxMessageSize, r.MessageSize)
	}
	oneOf(p, "key_mode", r.KeyMode, "none", "random", "round-robin", "hashed")
	r.checkKeys(p)
	oneOf(p, "acks", r.Acks, "all", "leader", "none")
	if r.Linger < 0 {
		p.addf("linger", "must be ≥ 0, got %v", r.Linger)
	}
	atLeast(p, "batch_size", r.BatchSize, 1, " bytes")
	atMost(p, "batch_size", r.BatchSize, maxBatchSize, " bytes")
}

func (r RunSpec) checkConsumers(p *problems) {
	isOne(p, "consumer_type", r.ConsumerType, vocab.GroupTypes)
	isOne(p, "client", r.Client, vocab.Clients)
	if r.Client == vocab.ClientJava && r.Style == vocab.StyleContinuous {
		p.addf("style", "client java runs style blocking only (the Java runner polls, processes the batch on the workers, "+
			"then polls again; it has no loop that polls while records are processed); use style blocking or client franz-go")
	}
	if r.Client == vocab.ClientLibrdkafka && r.StuckRate > 0 {
		p.addf("stuck_rate", "client %s does not wedge workers (stuck_rate %s): its runner has no such outcome; "+
			"use stuck_rate 0 or client franz-go or java", r.Client, formatScalar(r.StuckRate))
	}
	r.checkLibrdkafka(p)
	r.checkSpring(p)
	atLeast(p, "members", r.Members, 1, "")
	if r.ConsumerType != vocab.ShareGroup {
		atMost(p, "members", r.Members, maxMembersLimit, "")
	}
	atLeast(p, "workers", r.Workers, 1, " per member")
	atMost(p, "workers", r.Workers, maxWorkersLimit, " per member")
	atLeast(p, "max_poll_records", r.MaxPollRecords, 1, "")
	if r.MaxPollRecords > maxPollRecordsLimit {
		p.addf("max_poll_records", "must be ≤ %d, got %d", maxPollRecordsLimit, r.MaxPollRecords)
	}
	isOne(p, "acquire_mode", r.AcquireMode, vocab.AcquireModes)
	isOne(p, "ack_mode", r.AckMode, vocab.AckModes)
	r.checkRenewAndStyle(p)
	r.checkFetch(p)
	r.checkGroupKnobs(p)
	if r.ConsumerType != vocab.ShareGroup {
		return
	}
	limit := brokerRanges[KeyShareGroupMaxSize].Max
	switch maxSize := r.ShareGroupMaxSize(); {
	case r.Members > limit:
		p.addf("members", "%d exceeds %s (%d), and Kafka allows at most %d members in a share group; use fewer members",
			r.Members, KeyShareGroupMaxSize, maxSize, limit)
	case r.Members > maxSize:
		p.addf("members", "%d exceeds %s (%d); raise broker_config %s (max %d) or use fewer members",
			r.Members, KeyShareGroupMaxSize, maxSize, KeyShareGroupMaxSize, limit)
	case r.MaxMembers() > maxSize:
		p.addf("members", "%d, with every join or the scaler's max, reach %d members, over %s (%d): the broker would refuse the joins past it; "+
			"raise broker_config %s (max %d) or join fewer", r.Members, r.MaxMembers(), KeyShareGroupMaxSize, maxSize, KeyShareGroupMaxSize, limit)
	}
	if r.AckMode == vocab.AckImplicit && (r.TransientRate > 0 || r.PoisonRate > 0) {
		p.addf("ack_mode", "implicit acknowledgement cannot fail a single record (the next poll accepts the whole batch), "+
			"so transient_rate (%s) and poison_rate (%s) must be 0; use ack_mode explicit",
			formatScalar(r.TransientRate), formatScalar(r.PoisonRate))
	}
}

// fetch_max_wait's range: franz-go refuses a FetchMaxWait below 10ms, and
// Kafka's request timeout is 30s.
const (
	minFetchWait = 10 * time.Millisecond
	maxFetchWait = 30 * time.Second
)

// checkFetch checks the client's fetch settings.
func (r RunSpec) checkFetch(p *problems) {
	isOne(p, "prefetch", r.Prefetch, vocab.Prefetches)
	atLeast(p, "fetch_max_bytes", r.FetchMaxBytes, 1024, " bytes")
	atMost(p, "fetch_max_bytes", r.FetchMaxBytes, maxBatchSize, " bytes")
	atLeast(p, "fetch_max_partition_bytes", r.FetchMaxPartitionBytes, 1024, " bytes")
	atMost(p, "fetch_max_partition_bytes", r.FetchMaxPartitionBytes, maxBatchSize, " bytes")
	atLeast(p, "fetch_min_bytes", r.FetchMinBytes, 1, " bytes")
	atMost(p, "fetch_min_bytes", r.FetchMinBytes, maxBatchSize, " bytes")
	if r.FetchMaxWait != 0 && (r.FetchMaxWait < minFetchWait || r.FetchMaxWait > maxFetchWait) {
		p.addf("fetch_max_wait", "must be between %v (franz-go's minimum) and %v, got %v", minFetchWait, maxFetchWait, r.FetchMaxWait)
	}
	if r.Client == vocab.ClientJava && (r.Prefetch == vocab.PrefetchOn || r.Prefetch == vocab.PrefetchOff) {
		p.addf("prefetch", "client java has no prefetch setting (KafkaShareConsumer and KafkaConsumer fetch ahead or not "+
			"by their own design, see docs/how-to/compare-clients.md), so prefetch %s cannot be run with it; use prefetch auto or client franz-go", r.Prefetch)
	}
}

// checkRenewAndStyle checks lock renewal and the client-local parallelism
// style against the group type and acknowledgement mode they need.
func (r RunSpec) checkRenewAndStyle(p *problems) {
	isOne(p, "renew", r.Renew, vocab.Renews)
	if r.Renew == vocab.RenewAuto && (r.ConsumerType != vocab.ShareGroup || r.AckMode != vocab.AckExplicit) {
		p.addf("renew", "auto renews share-group acquisition locks record by record, so it needs consumer_type share "+
			"and ack_mode explicit, got consumer_type %q and ack_mode %q; use renew none otherwise", r.ConsumerType, r.AckMode)
	}
	isOne(p, "style", r.Style, vocab.Styles)
	if r.MaxInFlight < 0 {
		p.addf("max_in_flight", "must be ≥ 0 (0: workers × max_poll_records), got %d", r.MaxInFlight)
	}
	if r.MaxInFlight > maxInFlightLimit {
		p.addf("max_in_flight", "must be ≤ %d (the harness's limit: workers × max_poll_records at their limits), got %d",
			maxInFlightLimit, r.MaxInFlight)
	}
	if r.Style == vocab.StyleContinuous && r.ConsumerType == vocab.ShareGroup {
		// Implicit mode ACCEPTs the previous batch on the next poll; franz-go
		// (v1.22.3) does the same in explicit mode for every record of the
		// previous poll that has no terminal acknowledgement yet.
		p.addf("style", "continuous polls while records are still being processed, and a share poll ACCEPTs "+
			"the previous poll's unacknowledged records (with ack_mode %s too, in franz-go), so it needs consumer_type consumer; "+
			"use style blocking for share groups", r.AckMode)
	}
}

func (r RunSpec) checkOutcomes(p *problems) {
	for _, c := range []struct {
		key string
		v   float64
	}{{"transient_rate", r.TransientRate}, {"poison_rate", r.PoisonRate}, {"stuck_rate", r.StuckRate}} {
		if !(c.v >= 0 && c.v < 1) {
			p.addf(c.key, "must be in [0, 1) (a probability), got %s", formatScalar(c.v))
		}
	}
	if sum := r.TransientRate + r.PoisonRate; sum >= 1 {
		p.addf("poison_rate", "transient_rate + poison_rate must be < 1 or no record ever completes, got %s", formatScalar(sum))
	} else if sum += r.StuckRate; r.StuckRate > 0 && sum >= 1 {
		p.addf("stuck_rate", "transient_rate + poison_rate + stuck_rate must be < 1 or no record ever completes, got %s", formatScalar(sum))
	}
}

// checkPhases checks the phases' lengths every mode has, then what the
// run's load mode needs (mode_*.go: the one-second window of a schedule,
// the backlog, the max_rate: block).
func (r RunSpec) checkPhases(p *problems) {
	switch {
	case r.Warmup < 0:
		p.addf("warmup", "must be ≥ 0, got %v", r.Warmup)
	case r.Warmup > maxPhase:
		p.addf("warmup", "must be ≤ 168h (7 days, the harness's limit), got %v", r.Warmup)
	}
	switch {
	case r.Duration <= 0:
		p.addf("duration", "must be > 0 (the measurement window), got %v", r.Duration)
	case r.Duration > maxPhase:
		p.addf("duration", "must be ≤ 168h (7 days, the harness's limit), got %v", r.Duration)
	}
	if r.DrainTimeout <= 0 {
		p.addf("drain_timeout", "must be > 0, got %v", r.DrainTimeout)
	} else if r.DrainTimeout > maxPhase {
		p.addf("drain_timeout", "must be ≤ 168h (7 days, the harness's limit), got %v", r.DrainTimeout)
	}
	isOne(p, "load_mode", r.LoadMode, LoadModes)
	if m, ok := r.Mode(); ok {
		m.problems(r, p)
	}
	if r.BacklogRecords > maxBacklogRecords {
		p.addf("backlog_records", "must be ≤ %d (1e10, the harness's limit), got %d", maxBacklogRecords, r.BacklogRecords)
	}
}

func (r RunSpec) checkCluster(p *problems) {
	if r.Nodes != 1 && r.Nodes != 3 {
		p.addf("nodes", "must be 1 or 3 (the KRaft cluster sizes the providers start), got %d", r.Nodes)
	}
	if m := kafkaVersionRE.FindStringSubmatch(r.KafkaVersion); m == nil {
		p.addf("kafka_version", "expected a Kafka release like \"4.2.2\", got %q", r.KafkaVersion)
	} else if !VersionAtLeast(r.KafkaVersion, MinKafkaVersion) {
		p.addf("kafka_version", "share groups need Kafka %s or newer in this harness (4.1.x runs them as a preview), got %q",
			MinKafkaVersion, r.KafkaVersion)
	}
	if r.BrokerMetricsInterval < MinBrokerMetricsInterval || r.BrokerMetricsInterval > MaxBrokerMetricsInterval {
		p.addf("broker_metrics_interval", "expected a duration from %v to %v, got %v", MinBrokerMetricsInterval, MaxBrokerMetricsInterval, r.BrokerMetricsInterval)
	}
	if !brokerHeapRE.MatchString(r.BrokerHeap) {
		p.addf("broker_heap", "expected a JVM heap size like \"512m\" or \"1g\", got %q", r.BrokerHeap)
	}
}

// checkBrokerConfig checks the share-group settings Kafka range-checks, and
// the relations between them, before a broker refuses to start.
func (r RunSpec) checkBrokerConfig(p *problems) {
	for _, key := range sortedKeys(r.BrokerConfig) {
		rng, ok := brokerRanges[key]
		if !ok {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(r.BrokerConfig[key]))
		if err != nil {
			p.addf("broker_config."+key, "expected an integer, got %q", r.BrokerConfig[key])
		} else if v < rng.Min || v > rng.Max {
			p.addf("broker_config."+key, "%d is outside Kafka's range %d–%d", v, rng.Min, rng.Max)
		}
	}
	lock := r.brokerInt(KeyRecordLockDuration)
	lo, hi := r.brokerInt(KeyMinLockDuration), r.brokerInt(KeyMaxLockDuration)
	if lock < lo {
		p.addf("broker_config."+KeyRecordLockDuration, "%d is below %s (%d); lower broker_config %s too (Kafka allows %d–%d)",
			lock, KeyMinLockDuration, lo, KeyMinLockDuration, brokerRanges[KeyMinLockDuration].Min, brokerRanges[KeyMinLockDuration].Max)
	}
	if lock > hi {
		p.addf("broker_config."+KeyRecordLockDuration, "%d is above %s (%d); raise broker_config %s too (Kafka allows %d–%d)",
			lock, KeyMaxLockDuration, hi, KeyMaxLockDuration, brokerRanges[KeyMaxLockDuration].Min, brokerRanges[KeyMaxLockDuration].Max)
	}
	if sessions, size := r.brokerInt(KeyMaxShareSessions), r.ShareGroupMaxSize(); sessions < size {
		p.addf("broker_config."+KeyMaxShareSessions, "%d is below %s (%d); Kafka requires sessions ≥ max size", sessions, KeyShareGroupMaxSize, size)
	}
}

// brokerInt is a validated integer broker setting, or Kafka's default when
// the setting is absent or not an integer in range.
func (r RunSpec) brokerInt(key string) int {
	rng := brokerRanges[key]
	v, err := strconv.Atoi(strings.TrimSpace(r.BrokerConfig[key]))
	if err != nil || v < rng.Min || v > rng.Max {
		return rng.Default
	}
	return v
}

// check validates the processing model and its parameters.
func (pr Processing) check(p *problems) {
	params, ok := modelParams[pr.Model]
	if !ok {
		p.addf("processing.model", "expected one of %s, got %q", strings.Join(processingModels, ", "), pr.Model)
		return
	}
	for _, f := range pr.fields() {
		if f.v != 0 && !slices.Contains(params, f.key) {
			p.addf("processing."+f.key, "%s", notAParam(pr.Model))
		}
	}
	switch pr.Model {
	case "constant":
		if pr.Time < 0 {
			p.addf("processing.time", "must be ≥ 0, got %v", pr.Time)
		}
	case "uniform":
		if pr.Min < 0 || pr.Min > pr.Max {
			p.addf("processing.min", "uniform needs 0 ≤ min ≤ max, got min %v max %v", pr.Min, pr.Max)
		}
	case "exponential":
		if pr.Mean <= 0 {
			p.addf("processing.mean", "must be > 0, got %v", pr.Mean)
		}
	case "lognormal":
		if pr.Median <= 0 || pr.P99 < pr.Median {
			p.addf("processing.p99", "lognormal needs p99 ≥ median > 0, got median %v p99 %v", pr.Median, pr.P99)
		}
	}
}

// processingKeyProblems checks which keys a processing map gives: the model,
// every parameter it needs, and no parameter of another model.
func processingKeyProblems(v any) []string {
	m, _ := v.(map[string]any)
	model, ok := m["model"].(string)
	if !ok {
		return []string{"processing.model: required, one of " + strings.Join(processingModels, ", ")}
	}
	params, known := modelParams[model]
	if !known {
		return nil // check reports the unknown model
	}
	var p problems
	for _, k := range params {
		if _, ok := m[k]; !ok {
			p.addf("processing."+k, "required by the %s model", model)
		}
	}
	for _, k := range processingKeys[1:] {
		if _, ok := m[k]; ok && !slices.Contains(params, k) {
			p.addf("processing."+k, "%s", notAParam(model))
		}
	}
	return p
}

func notAParam(model string) string {
	params := modelParams[model]
	if len(params) == 0 {
		return fmt.Sprintf("not a parameter of the %s model (it takes none)", model)
	}
	return fmt.Sprintf("not a parameter of the %s model (it takes %s)", model, strings.Join(params, ", "))
}

type durationField struct {
	key string
	v   time.Duration
}

func (pr Processing) fields() []durationField {
	return []durationField{
		{"time", pr.Time}, {"min", pr.Min}, {"max", pr.Max},
		{"mean", pr.Mean}, {"median", pr.Median}, {"p99", pr.P99},
	}
}

// checkSpring refuses what client spring (Spring for Apache Kafka's
// listener containers over the Java client) does not do, naming the knob
// and the reason (consumers refuses the same in its Config).
func (r RunSpec) checkSpring(p *problems) {
	if r.Client != vocab.ClientSpring {
		return
	}
	if r.Style == vocab.StyleContinuous {
		p.addf("style", "client spring runs style blocking only (a Spring listener container polls, runs the listener on each "+
			"record of the batch on the polling thread, then polls again); use style blocking or client franz-go")
	}
	if r.Renew == vocab.RenewAuto {
		p.addf("renew", "client spring cannot renew a lock while its record is processed: Spring runs the listener on the "+
			"polling thread and applies ShareAcknowledgment.renew() only between polls, after the whole batch; "+
			"use renew none or client java")
	}
	if r.Prefetch.Forced() != nil {
		p.addf("prefetch", "client spring has no prefetch setting (the Java client under Spring fetches ahead or not by its "+
			"own design): use prefetch auto or client franz-go")
	}
	if r.RebalanceTimeout > 0 {
		p.addf("rebalance_timeout", "client spring has no rebalance timeout of its own (KafkaConsumer sends "+
			"max.poll.interval.ms, which the runner bounds by the session timeout): use client franz-go or leave rebalance_timeout out (default 0s)")
	}
	if n := r.MaxMembers() * r.Workers; r.ConsumerType == vocab.ShareGroup && r.Workers > 1 && n > r.ShareGroupMaxSize() {
		p.addf("workers", "client spring runs a share consumer per worker (the container's concurrency), so %d members × %d workers "+
			"make %d share-group members, over %s (%d): raise broker_config %s, or use fewer members or workers",
			r.MaxMembers(), r.Workers, n, KeyShareGroupMaxSize, r.ShareGroupMaxSize(), KeyShareGroupMaxSize)
	}
	if kafkaVersionRE.MatchString(r.KafkaVersion) && !VersionAtLeast(r.KafkaVersion, vocab.SpringMinKafka) {
		p.addf("kafka_version", "client spring runs Spring for Apache Kafka %s, which needs kafka-clients %s or newer, got %q; "+
			"use kafka_version %s or newer, or client java", vocab.SpringKafkaVersion, vocab.SpringMinKafka, r.KafkaVersion, vocab.SpringMinKafka)
	}
}

// checkLibrdkafka refuses what librdkafka (confluent-kafka 2.16) does not
// have, naming the knob and the missing feature (consumers refuses the same
// in its Config).
func (r RunSpec) checkLibrdkafka(p *problems) {
	if r.Client != vocab.ClientLibrdkafka {
		return
	}
	if r.Style == vocab.StyleContinuous {
		p.addf("style", "client librdkafka runs style blocking only (the runner polls, processes the batch on the workers, "+
			"then polls again; it has no loop that polls while records are processed); use style blocking or client franz-go")
	}
	if r.Renew == vocab.RenewAuto {
		p.addf("renew", "client librdkafka has no RENEW acknowledgement (librdkafka's AcknowledgeType is ACCEPT, RELEASE or REJECT); "+
			"use renew none or client franz-go")
	}
	if r.ConsumerType == vocab.ShareGroup && r.AcquireMode != "" && r.AcquireMode != vocab.AcquireBatchOptimized {
		p.addf("acquire_mode", "client librdkafka has no share.acquire.mode (librdkafka cannot ask for record limits); "+
			"use acquire_mode batch_optimized or client franz-go")
	}
	if r.Prefetch.Forced() != nil {
		p.addf("prefetch", "client librdkafka has no prefetch setting (its consumers fetch ahead by their own design): "+
			"use prefetch auto or client franz-go")
	}
	if r.ConsumerType == vocab.ConsumerGroup && r.GroupProtocol != vocab.ProtocolConsumer && r.Assignor == "sticky" {
		p.addf("assignor", "client librdkafka has no eager sticky assignor (its classic assignors are cooperative-sticky, range, roundrobin)")
	}
}
