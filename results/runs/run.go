package runs

import (
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// SchemaVersion of run.json and campaign.json.
const SchemaVersion = 1

// Record is everything a run reports: run.json.
type Record struct {
	SchemaVersion int                `json:"schema_version"`
	RunID         string             `json:"run_id"`
	Campaign      string             `json:"campaign"`
	ConsumerType  vocab.GroupType    `json:"consumer_type"` // "consumer" or "share"
	Spec          *scenarios.RunSpec `json:"spec"`          // the resolved run spec; nil: none recorded
	StartedAt     string             `json:"started_at"`    // UTC RFC 3339
	// Client is the consumers' client library (client.go).
	Client *Client `json:"client,omitempty"`
	// TopicConfig are the settings the run's topic was created with (e.g.
	// message.timestamp.type LogAppendTime; absent in older files).
	TopicConfig map[string]string `json:"topic_config,omitempty"`

	Phases     Phases                `json:"phases"`
	Throughput Throughput            `json:"throughput"`
	Latency    Latencies             `json:"latency"`
	Polls      Polls                 `json:"polls"`
	Outcomes   Outcomes              `json:"outcomes"`
	PerMember  []int64               `json:"per_member_completed"`
	Audit      results.Audit         `json:"audit"`
	Ceiling    Ceiling               `json:"ceiling"`
	Validity   Validity              `json:"validity"`
	Resources  results.CPUUsage      `json:"resources"` // CPU over the measurement window
	Broker     results.BrokerMetrics `json:"broker"`    // the brokers' own metrics (JMX exporter)
	// BrokerCost is the brokers' CPU per record on a basis that treats
	// both group types alike (brokercost.go); absent without broker CPU.
	BrokerCost *BrokerCost        `json:"broker_cost,omitempty"`
	Lag        results.LagSummary `json:"lag"`
	// Events are the run's scale events and faults with what each did;
	// EventSummary aggregates them (absent without events).
	Events       []EventReport `json:"events,omitempty"`
	EventSummary *EventSummary `json:"event_summary,omitempty"`
	// Autoscale is what the run's scaler did (autoscale: runs only).
	Autoscale *Autoscale `json:"autoscale,omitempty"`
	// Members are the members' join, first record and leave times (runs
	// with events).
	Members []MemberLife `json:"members,omitempty"`
	// GroupConfig is the share group's settings as applied and as read
	// back (share runs; groupconfig.go).
	GroupConfig *GroupConfig `json:"group_config,omitempty"`
	Environment Environment  `json:"environment"`
	// Shards is how a sharded run (shards > 1) was split over its agents:
	// their clock offsets and per-agent figures (shards.go). Absent for a
	// run in one process.
	Shards  *Shards       `json:"shards,omitempty"`
	Errors  []string      `json:"errors,omitempty"`
	Files   []string      `json:"files"` // files written beside run.json
	Elapsed time.Duration `json:"-"`
	// absentAudit are the audit counts the loaded run.json did not hold
	// (decodeRun); IntegrityProblems names them.
	absentAudit []string

	// Burst leads the reports when the drain after the window was longer
	// than the window (rate mode): the consumers were still working off the
	// window's records, so a window rate reads as a low efficiency. It
	// gives the end-to-end time beside the formula's. Absent otherwise.
	Burst *Burst `json:"burst,omitempty"`
	// Requests are the consumers' requests per broker and kind with their
	// client-side times and empty fetches (requests.go; franz-go only).
	Requests []RequestFigure `json:"requests,omitempty"`
	// Stall is the run's stall (docs/explanation/measurement.md#stalls); nil: none.
	Stall *Stall `json:"stall,omitempty"`
	// Settle is how long the campaign waited, before the run's
	// measurement, for the brokers' CPU to return near idle (settle.go);
	// absent outside a campaign and for sharded runs.
	Settle *Settle `json:"settle,omitempty"`

	// MaxRate is load_mode max_rate's search: every step and the found
	// rate; the other figures of the record are those of the step at the
	// found rate (of the first step when none passed).
	MaxRate *MaxRateResult `json:"max_rate,omitempty"`

	// Group is the group protocol asked for and read back from the broker
	// (group.go); absent in older files.
	Group *GroupInfo `json:"group,omitempty"`

	// Harness is the harness's own footprint over the measurement window
	// (RSS, goroutines, open files, recorder memory) and its growth
	// (harness.go); absent where no reading was taken in the window.
	Harness *HarnessSeries `json:"harness,omitempty"`

	// Destination is where the workers wrote completed records, the
	// writes' times and the table's audit (destination.go); absent without
	// a destination: block.
	Destination *Destination `json:"destination,omitempty"`
}

// Phases are the run's phase lengths in seconds.
type Phases struct {
	GroupReadySec float64 `json:"group_ready_s"` // consumers started → group formed (the older name of GroupFormationSec)
	// GroupFormationSec is consumers started → group formed, with
	// consumption held (no record handed to a worker): consumer group:
	// every partition assigned, min(members, partitions) owners, the
	// assignment unchanged for one heartbeat interval; share group: every
	// member assigned, unchanged for one heartbeat interval. The clock of
	// the warm-up (rate mode) or the drain (backlog mode) starts after it.
	GroupFormationSec float64 `json:"group_formation_s"`
	// FormationRounds is the assignment rounds (rebalances) before the
	// group formed: the consumer group's generation, the share group's
	// epoch.
	FormationRounds int     `json:"formation_rebalances"`
	WarmupSec       float64 `json:"warmup_s"`
	MeasureSec      float64 `json:"measure_s"`
	// DrainSec is producers done → all records finished (or timeout); in
	// load_mode backlog it is the measured time to drain (ETD) the
	// pre-filled backlog: first delivery → last completion or archive.
	DrainSec float64 `json:"drain_s"`
	// FillSec is load_mode backlog's fill: first send → last produce
	// acknowledgement, before the consumers started.
	FillSec       float64 `json:"fill_s,omitempty"`
	DrainTimedOut bool    `json:"drain_timed_out"`
	// WindowStartSec is the time from the start of timeseries.csv (second 0,
	// the run's clock start, before the group was ready) to the start of the
	// measurement window; the warm-up precedes it by WarmupSec.
	WindowStartSec float64 `json:"window_start_s,omitempty"`
}

// Burst is a rate-mode run read as a burst: every record produced (warm-up
// included) and the time from the first record's intended send to the last
// completion, beside the formula's prediction: max(production time,
// records ÷ the consumers' ceiling without the producer bound).
type Burst struct {
	Records      int64   `json:"records"`
	EndToEndSec  float64 `json:"end_to_end_s"`
	PredictedSec float64 `json:"predicted_s"`
	// ConsumeCeiling is the ceiling without the producer rate, records/s,
	// and Bound the term that sets it.
	ConsumeCeiling float64 `json:"consume_ceiling"`
	Bound          Bound   `json:"bound"`
}

// Throughput figures are records per second over the measurement window.
type Throughput struct {
	OfferedPerSec   float64 `json:"offered_per_sec"`   // configured producer rate
	ProducedPerSec  float64 `json:"produced_per_sec"`  // produce acks in the window / window
	CompletedPerSec float64 `json:"completed_per_sec"` // completions in the window / window
	// UsefulPerSec is the completions in the window made while the
	// record's acquisition lock held ÷ window: completed_per_sec without
	// the completions of records whose lock had expired, which the broker
	// hands out again and the workers redo. The ceiling's records_per_sec,
	// its efficiency and its checks are on this basis; it equals
	// completed_per_sec when no lock expired (a consumer group always).
	UsefulPerSec float64 `json:"useful_per_sec"`
	// CompletedRatio is CompletedPerSec / ProducedPerSec: below 1 the
	// consumers fell behind.
	CompletedRatio float64 `json:"completed_ratio"`
}

// Latencies are HDR percentile summaries in milliseconds, over records whose
// intended send time is in the measurement window.
type Latencies struct {
	CompletionMs  results.Percentiles `json:"completion_ms"`
	DeliveryMs    results.Percentiles `json:"delivery_ms"`
	PublishMs     results.Percentiles `json:"publish_ms"`
	ScheduleLagMs results.Percentiles `json:"schedule_lag_ms"`
	QueueMs       results.Percentiles `json:"queue_ms"`
	HoldMs        results.Percentiles `json:"hold_ms"` // handed to a worker → completed, all records
	// BufferedMs is, over all records, the time from the client buffering
	// a fetched record (a share record is acquired by then) to its hand-over
	// to a worker: the part of the completion latency spent waiting in the
	// client (prefetched records wait for the previous batch).
	BufferedMs results.Percentiles `json:"buffered_ms"`
}

// Polls describe the member poll loops.
type Polls struct {
	Count          int64               `json:"count"`
	Empty          int64               `json:"empty"`
	EmptyRatio     float64             `json:"empty_ratio"`
	RecordsPerPoll results.Percentiles `json:"records_per_poll"` // non-empty polls; values are record counts
	// GapMs is, per non-empty poll after the member finished records, its
	// latest finish → the poll returned: in blocking style the time
	// between two batches, when a member's workers and its destination
	// connections wait.
	GapMs results.Percentiles `json:"gap_ms"`
	// RecordsPerAcquisition is, per share partition and ShareFetch
	// response, the records acquired (share; counts).
	RecordsPerAcquisition results.Percentiles `json:"records_per_acquisition"`
	// RecordsPerResponse is, per ShareFetch response, the records acquired
	// over its partitions (share; counts).
	RecordsPerResponse results.Percentiles `json:"records_per_response"`
}

// Outcomes count what the workers did.
type Outcomes struct {
	Delivered            int64 `json:"delivered"`
	Completed            int64 `json:"completed"`
	Redelivered          int64 `json:"redelivered"` // deliveries with delivery count > 1 (share) or seen again (consumer group)
	Released             int64 `json:"released"`    // share RELEASE
	Rejected             int64 `json:"rejected"`    // share REJECT or consumer-group dead letters
	RetriedInPlace       int64 `json:"retried_in_place"`
	LockExpiredCompleted int64 `json:"lock_expired_completions"` // completed after the acquisition deadline
	Renewals             int64 `json:"renewals"`                 // share RENEW acknowledgements sent (renew auto)
	AckErrors            int64 `json:"ack_errors"`
	// AckLockExpired are share acknowledgements refused because the
	// records' locks had expired (per partition and request, as franz-go
	// reports them): the redelivery lock expiry means, not ack_errors.
	AckLockExpired int64   `json:"ack_lock_expired,omitempty"`
	PollErrors     int64   `json:"poll_errors"`
	ProduceFailed  int64   `json:"produce_failed"`
	DeliveryCounts []int64 `json:"delivery_counts,omitempty"` // index i: deliveries with count i+1 (share)
}

// Environment says where the numbers come from: enough to reproduce them.
type Environment struct {
	Provider string `json:"provider"`
	// Image is the container image the brokers ran (container provider only).
	Image        string `json:"image,omitempty"`
	KafkaVersion string `json:"kafka_version"`
	IsKafka      bool   `json:"is_kafka"` // false: kfake, not Apache Kafka
	// SharePreview is vocab.SharePreviewLabel when the brokers' release
	// ships share groups as a preview (Kafka 4.1.x), absent otherwise.
	SharePreview string            `json:"share_preview,omitempty"`
	Nodes        int               `json:"nodes"`
	BrokerConfig map[string]string `json:"broker_config,omitempty"`
	Host         Host              `json:"host"`
	// Harness is the sharebench that ran (absent in files written before it).
	Harness *Harness `json:"harness,omitempty"`
	// Broker is what the brokers say of themselves (absent in older files).
	Broker *BrokerInfo `json:"broker,omitempty"`
	// Scenario identifies the scenario text the runs came from (campaigns
	// only; absent in older files and for a run made outside a campaign).
	Scenario *ScenarioDigest `json:"scenario,omitempty"`
	// Priming is what the campaign did to the cluster before its first
	// run (absent in older files and for a run made outside a campaign).
	Priming *Priming `json:"priming,omitempty"`
}

// Priming is the cluster's preparation before the first measured run: the
// JIT warm-up under load (produce and consume through both group types in
// the runs' request pattern, bounded in time) and the observer-effect
// calibration.
type Priming struct {
	JITWarmup   bool    `json:"jit_warmup"`
	DurationSec float64 `json:"duration_s"`
	// RatePerSec, Producers, RecordBytes, MembersPerGroup and PollRecords
	// are the warm-up's load: RatePerSec records/s of RecordBytes from
	// Producers paced producers, taken by a consumer group and a share
	// group of MembersPerGroup members each polling up to PollRecords. It
	// goes on at least MinTimeSec and at most TimeLimitSec.
	RatePerSec            float64 `json:"rate_per_s,omitempty"`
	Producers             int     `json:"producers,omitempty"`
	RecordBytes           int     `json:"record_bytes,omitempty"`
	MembersPerGroup       int     `json:"members_per_group,omitempty"`
	PollRecords           int     `json:"poll_records,omitempty"`
	MinTimeSec            float64 `json:"min_time_s,omitempty"`
	TimeLimitSec          float64 `json:"time_limit_s"`
	RecordsProduced       int64   `json:"records_produced"`
	ConsumedConsumerGroup int64   `json:"consumed_consumer_group"`
	ConsumedShareGroup    int64   `json:"consumed_share_group"`
	// JIT is what the brokers' JIT compiler did during the warm-up and
	// whether its rate settled (absent when the brokers' metrics give no
	// compile time, and in older files).
	JIT *PrimingJIT `json:"jit,omitempty"`
	// ScrapeCost is what the harness's broker scrapes cost the idle brokers
	// (absent when the brokers' processes or metrics endpoints are unknown).
	ScrapeCost *ScrapeCost `json:"scrape_cost,omitempty"`
	// Settle is the wait after priming, before the scrape calibration,
	// for the brokers' CPU rate to stop falling (settle.go).
	Settle *SettleStep `json:"settle,omitempty"`
}

// PrimingJIT is the JIT compiler's work during the warm-up, from the
// brokers' compile-time counters (collectors.JITCompiled, JITRate): the
// warm-up goes on, bounded, until the compile rate over the last WindowSec
// is at most TargetRate (docs/explanation/measurement.md#phases-of-a-run).
type PrimingJIT struct {
	CompileSec float64 `json:"compile_s"` // compile time during the warm-up, all brokers
	// EndRate is the compile rate over the warm-up's last WindowSec
	// (compile-seconds per second, all brokers).
	EndRate    float64 `json:"end_rate"`
	TargetRate float64 `json:"target_rate"` // the settled decision's bound, all brokers
	WindowSec  float64 `json:"window_s"`
	// Settled is true when the rate met TargetRate before the warm-up's
	// bounds ended it.
	Settled bool `json:"settled"`
	// Rates are the compile rates over WindowSec, read once a second from
	// the first full window of scrapes on, oldest first (the decision's
	// inputs).
	Rates []float64 `json:"rates,omitempty"`
}

// ScrapeCost is the observer-effect calibration: the idle brokers' CPU
// (from /proc) without and with the harness scraping their metrics
// endpoints at the runs' interval, in alternated phases.
type ScrapeCost struct {
	IntervalSec  float64 `json:"interval_s"` // the scraped phases' interval, far shorter than a run's
	PhaseSec     float64 `json:"phase_s"`
	Rounds       int     `json:"rounds"`
	Scrapes      int     `json:"scrapes"`       // per endpoint, in the scraped phases
	IdleCores    float64 `json:"idle_cores"`    // CPU-s per s, all brokers, not scraped
	ScrapedCores float64 `json:"scraped_cores"` // CPU-s per s, all brokers, scraped every interval_s
	// CostCores is the scrapes' cost at interval_s. Method says how it was
	// read: "threads", the exporter's threads' CPU plus the JVM's garbage
	// collector and VM threads' increase (the broker's own
	// threads do no scrape work); "process", max(0, scraped − idle), the
	// whole processes' increase. ProcessCostCores is that increase in
	// either case, a cross-check that carries the idle brokers' noise.
	CostCores        float64 `json:"cost_cores"`
	Method           string  `json:"method,omitempty"`
	ProcessCostCores float64 `json:"process_cost_cores"`
	// CPUMsPerScrape is the broker CPU one scrape of one endpoint costs:
	// cost_cores × the scraped phases' seconds ÷ scrapes, in ms. A run's
	// broker_cost.scrape_cpu_seconds is it × the scrapes in its window.
	CPUMsPerScrape float64 `json:"cpu_ms_per_scrape"`
}

// Host describes the machine that ran the harness.
type Host struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"` // logical CPUs the harness may use
	GoVersion string `json:"go_version"`
	Hostname  string `json:"hostname"`
	// CPUModel, Cores and MemoryBytes come from /proc/cpuinfo and
	// /proc/meminfo (Linux; empty elsewhere). Cores counts physical cores.
	CPUModel    string `json:"cpu_model,omitempty"`
	Cores       int    `json:"cores,omitempty"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
}

// Harness is the sharebench binary that made a record.
type Harness struct {
	Version  string `json:"version"`            // module version, "(devel)" for a source build
	Revision string `json:"revision,omitempty"` // VCS commit
	Dirty    bool   `json:"dirty,omitempty"`    // uncommitted changes in the work tree
	Go       string `json:"go"`
	FranzGo  string `json:"franz_go,omitempty"`
	Java     string `json:"java,omitempty"` // first line of `java -version` on PATH
}

// BrokerInfo is what the brokers report through ApiVersions: the Kafka
// release the protocol versions match, and the finalized feature levels
// (share.version, metadata.version, kraft.version, group.version …).
type BrokerInfo struct {
	// VersionGuess is franz-go's guess of the release from the API versions,
	// e.g. "v4.1" (the protocol carries no release number).
	VersionGuess string           `json:"version_guess,omitempty"`
	Features     map[string]int16 `json:"finalized_features,omitempty"`
	// GroupConfigs are the configs a GROUP resource accepts (4.3 added the
	// KIP-1240 share settings, 4.4 the dead-letter ones).
	GroupConfigs []string `json:"group_configs,omitempty"`
	Error        string   `json:"error,omitempty"` // why the brokers could not be asked
}

// ScenarioDigest identifies a scenario: where it came from and SHA-256
// digests of its source text and of the resolved scenario (after the
// SHAREBENCH_* environment and --set overrides), hex-encoded.
type ScenarioDigest struct {
	Source         string `json:"source,omitempty"`        // file path or builtin:<name>
	SourceSHA256   string `json:"source_sha256,omitempty"` // the file's or built-in's bytes
	ResolvedSHA256 string `json:"resolved_sha256"`         // the resolved scenario as campaign.json holds it
}

// SharePreviewOf is the Environment.SharePreview of brokers running Kafka
// version ("" unless the release ships share groups as a preview).
func SharePreviewOf(version string) string {
	if vocab.SharePreview(version) {
		return vocab.SharePreviewLabel
	}
	return ""
}

// PreviewLine is what a report prints for a run on a release whose share
// groups are a preview ("" for any other run): the run, the label and the
// release.
func (r Record) PreviewLine() string {
	if r.Environment.SharePreview == "" {
		return ""
	}
	return r.RunID + ": " + r.Environment.SharePreview + " (Kafka " + r.Environment.KafkaVersion + ")"
}
