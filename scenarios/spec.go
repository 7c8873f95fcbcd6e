package scenarios

import (
	"fmt"
	"strconv"
	"time"

	"github.com/sharebench/sharebench/vocab"
)

// RunSpec is one fully resolved run: every knob has exactly one value.
// The mapstructure key of each field is the scenario file key; the comment
// of each field is its manual entry (default in brackets). Any knob may be
// written as a list in a scenario file to sweep it (see the package doc).
//
// The knobs are grouped by concern in embedded structs (Producer, Fleet,
// Acquisition, Parallelism, Failures, Phases, Cluster, ShareConfig, Fetch,
// ConsumerGroup, HashedKeys), in the order of the file's keys: the groups
// are Go's only. A knob is read as r.Rate all the same, the scenario file
// and run.json spell every knob at the top level (mapstructure squash,
// encoding/json's embedded fields), and the JSON keys keep their order
// (TestRunSpecJSONGolden).
type RunSpec struct {
	// ConsumerType is the group type under test: "consumer" (a classic
	// consumer group: each partition is owned by one member, which commits
	// offsets) or "share" (a KIP-932 share group: members share partitions
	// and acknowledge records one by one). [consumer_type: [consumer, share]]
	ConsumerType vocab.GroupType `mapstructure:"consumer_type" json:"consumer_type"`
	// Client is the client library the consumers run on: "franz-go" (in
	// the harness process), "java" (the Apache Kafka Java client of
	// kafka_version, KafkaShareConsumer / KafkaConsumer, the members in one
	// JVM, those a crash event takes each in a JVM of its own, one runner
	// per agent of a sharded run; needs a JDK (javac) and Maven, builds its
	// runner once into the cache; style blocking only), or "librdkafka"
	// (confluent-kafka's ShareConsumer / Consumer, the members in one Python
	// process, those a crash event takes each in a process of its own, one
	// runner per agent of a sharded run; needs python3 with venv, installs confluent-kafka once into
	// the cache; its share consumer is a preview; style blocking, renew none
	// and acquire_mode batch_optimized only), or "spring" (Spring for Apache
	// Kafka 4.1 over the Java client of kafka_version: a listener container
	// per member, its concurrency the workers, in the Java runner's JVM
	// built with Spring; needs what java needs and kafka_version 4.2.0 or
	// newer; style blocking and renew none only). The producers are
	// franz-go either way.
	// Sweep it to compare the clients; see docs/how-to/compare-clients.md.
	// [client: franz-go]
	Client vocab.Client `mapstructure:"client" json:"client,omitempty"`
	// Partitions of the topic, created fresh for every run. A consumer
	// group uses at most this many members; a share group is not capped by
	// it. 1–10000 (the harness's limit). [partitions: 4]
	Partitions int `mapstructure:"partitions" json:"partitions"`

	Producer    `mapstructure:",squash"`
	Fleet       `mapstructure:",squash"`
	Acquisition `mapstructure:",squash"`
	Parallelism `mapstructure:",squash"`

	// Processing is the per-record processing-time model. See Processing.
	// [processing: {model: constant, time: 1ms}]
	Processing Processing `mapstructure:"processing" json:"processing"`

	Failures    `mapstructure:",squash"`
	Phases      `mapstructure:",squash"`
	Cluster     `mapstructure:",squash"`
	ShareConfig `mapstructure:",squash"`

	// Events are the scenario's events: list (the same for every run; not
	// a sweep dimension): joins, leaves, crashes, slow-downs and broker
	// faults at offsets into the measurement window. See Event.
	Events []Event `mapstructure:"-" json:"events,omitempty"`
	// RateSchedule is the scenario's rate_schedule: list, expanded (the
	// same for every run; not a sweep dimension): the producers' rate over
	// the measurement window, replacing rate. See RateStep.
	RateSchedule []RateStep `mapstructure:"-" json:"rate_schedule,omitempty"`
	// Autoscale is the scenario's autoscale: block (the same for every
	// run; not a sweep dimension). See Autoscale.
	Autoscale *Autoscale `mapstructure:"-" json:"autoscale,omitempty"`
	// Trial is the repetition index (0-based) when repeat > 1.
	Trial int `mapstructure:"-" json:"trial"`
	// Label is the experiment a run belongs to in a proof of concept
	// (sharebench poc, set by Join; it starts the run's name); empty
	// otherwise. Not a scenario file key.
	Label string `mapstructure:"-" json:"label,omitempty"`

	Fetch         `mapstructure:",squash"`
	ConsumerGroup `mapstructure:",squash"`
	HashedKeys    `mapstructure:",squash"`

	// Shards splits the run over this many agent processes (sharebench
	// agent): producers and members are dealt out by index (index i runs on
	// shard i mod shards), the agents meet on a control topic and their
	// results are merged into one run record (docs/how-to/run-sharded.md).
	// 1 (or 0) runs everything in this process. 1–64. Every load mode,
	// event, the scaler and a destination run split as in one process;
	// destination.connections must be at least the shards (a pool is one
	// process's). --shards overrides it.
	// [shards: 1]
	Shards int `mapstructure:"shards" json:"shards,omitempty"`
}

// Producer is the producer fleet: how many clients, the rate they send
// together, the records they send and how they batch them.
type Producer struct {
	// Producers is the number of producer clients. Together they send Rate
	// records/s on an open-loop schedule (they do not slow down when the
	// consumers fall behind). 1–1000 (the harness's limit). [producers: 1]
	Producers int `mapstructure:"producers" json:"producers"`

	// Rate is the total produce rate in records/s, all producers together.
	// > 0 and ≤ 10000000 (the harness's limit); fractions allowed. With
	// load_mode rate, rate × duration must be ≥ producers: every producer
	// sends at least one record in the measurement window. [rate: 1000]
	Rate float64 `mapstructure:"rate" json:"rate"`

	// MessageSize is the record value size in bytes: an integer or a size
	// like 1KiB. At least 40 (the stamp every record carries: run, producer,
	// sequence, send times), at most 1MiB. [message_size: 256]
	MessageSize int `mapstructure:"message_size" json:"message_size"`

	// KeyMode chooses record keys and so the partition load: "round-robin"
	// (null keys, records go to the partitions in turn: even partition
	// loads, the default), "none" (null keys, franz-go's sticky
	// partitioning: whole batches per partition, loads uneven over seconds)
	// or "random" (16 random bytes per record, hashed), or "hashed" (keys
	// key ids, skewed by hot_keys, partitioned by hash: order per key is
	// measured). [key_mode: round-robin]
	KeyMode string `mapstructure:"key_mode" json:"key_mode"`

	// Acks is the producer acknowledgement level: "all" (all in-sync
	// replicas), "leader" (the leader only) or "none". [acks: all]
	Acks string `mapstructure:"acks" json:"acks"`

	// Linger is how long a producer waits to fill a batch; a Go duration
	// (0 allowed). [linger: 5ms]
	Linger time.Duration `mapstructure:"linger" json:"linger"`

	// BatchSize is the producer's maximum batch size in bytes (an integer or
	// a size like 16KiB). With acquire_mode batch_optimized, big batches
	// make share-group acquisitions big. 1 to 1GiB (the harness's limit).
	// [batch_size: 16384]
	BatchSize int `mapstructure:"batch_size" json:"batch_size"`
}

// Fleet is the consumer fleet: its members, the workers of each and the
// records a poll returns.
type Fleet struct {
	// Members is the number of group members (client instances). A share
	// run may have at most group.share.max.size members (200 unless
	// broker_config raises it, up to 1000); a consumer-group run at most
	// 10000 (the harness's limit; Kafka sets none), joins included, and
	// within the memory budget and the open-file limit of the harness
	// process (or of each agent, with shards). ≥ 1. [members: 4]
	Members int `mapstructure:"members" json:"members"`

	// Workers is the number of records a member processes concurrently.
	// 1–10000 per member (the harness's limit). [workers: 1]
	Workers int `mapstructure:"workers" json:"workers"`

	// MaxPollRecords is max.poll.records: the most records one poll
	// returns (a share poll may return more with batch_optimized).
	// 1–10000. [max_poll_records: 100]
	MaxPollRecords int `mapstructure:"max_poll_records" json:"max_poll_records"`
}

// Acquisition is how a share member acquires records, acknowledges them
// and renews their locks (ignored by consumer groups).
type Acquisition struct {
	// AcquireMode is the share group's share.acquire.mode:
	// "batch_optimized" (whole producer batches are acquired) or
	// "record_limit" (batches are split to honour max_poll_records).
	// Ignored by consumer groups. [acquire_mode: batch_optimized]
	AcquireMode vocab.AcquireMode `mapstructure:"acquire_mode" json:"acquire_mode"`

	// AckMode is the share group's acknowledgement mode: "explicit" (each
	// record is accepted, released or rejected on its own) or "implicit"
	// (the next poll accepts the whole previous batch; it cannot fail a
	// single record, so transient_rate and poison_rate must be 0).
	// Ignored by consumer groups. [ack_mode: explicit]
	AckMode vocab.AckMode `mapstructure:"ack_mode" json:"ack_mode"`

	// Renew is the share group's acquisition-lock renewal (KIP-1222,
	// Kafka 4.2): "none" or "auto" (a worker whose processing of a record
	// runs past half of the time left until the record's acquisition
	// deadline sends RENEW, and keeps renewing until it is done). auto needs
	// consumer_type share and ack_mode explicit. [renew: none]
	Renew vocab.Renew `mapstructure:"renew" json:"renew,omitempty"`
}

// Parallelism is a member's client-local parallelism: whether it keeps
// polling while its workers are busy, and how much it then holds.
type Parallelism struct {
	// Style is the member's client-local parallelism: "blocking" (poll,
	// process the whole batch on the workers, poll again) or "continuous"
	// (keep polling while the workers are busy, at most max_in_flight
	// records held; consumer groups commit the contiguous completed prefix).
	// continuous needs consumer_type consumer: a share poll ACCEPTs the
	// previous poll's records that are not acknowledged yet (implicit mode,
	// and franz-go in explicit mode too). [style: blocking]
	Style vocab.Style `mapstructure:"style" json:"style,omitempty"`

	// MaxInFlight bounds the records a continuous member holds (polled and
	// not yet finished); 0 means workers × max_poll_records. Ignored with
	// style blocking. 0–100000000 (workers × max_poll_records at their
	// limits). [max_in_flight: 0]
	MaxInFlight int `mapstructure:"max_in_flight" json:"max_in_flight,omitempty"`
}

// Failures are the processing outcomes that are not a completion: a
// transient failure (retried) and a poison record (never processed).
type Failures struct {
	// TransientRate is the probability that one processing attempt fails
	// transiently: a share member RELEASEs the record (it is redelivered,
	// up to group.share.delivery.count.limit times); a consumer-group
	// member retries in place. In [0, 1). [transient_rate: 0]
	TransientRate float64 `mapstructure:"transient_rate" json:"transient_rate"`

	// PoisonRate is the probability that a record can never be processed:
	// a share member REJECTs it (archived); a consumer-group member
	// dead-letters and skips it. In [0, 1), and transient_rate + poison_rate < 1.
	// [poison_rate: 0]
	PoisonRate float64 `mapstructure:"poison_rate" json:"poison_rate"`
	// StuckRate is the probability that a record wedges its worker: the
	// worker starts it and never returns until the run stops it, as a
	// client hung on a lock or a dead downstream call would. Like
	// poison_rate it is a property of the record (the same on every
	// delivery). It exists to test the stall detector (a run whose
	// completions stop while records are available is flagged stalled,
	// docs/explanation/measurement.md#stalls): with every worker wedged, nothing
	// completes. In [0, 1), transient_rate + poison_rate + stuck_rate < 1;
	// clients franz-go and java (the Java runner wedges the worker the
	// same way). [stuck_rate: 0]
	StuckRate float64 `mapstructure:"stuck_rate" json:"stuck_rate,omitempty"`
}

// Phases are the run's phases and the load mode that fills them: warm-up,
// measurement window and drain, the load mode (a schedule, a backlog or a
// max-rate search; see Mode) and what the backlog and max_rate modes need.
type Phases struct {
	// Warmup is run and measured, then discarded before the measurement
	// window; a Go duration, 0 (none) or 1s to 168h: the time series has
	// one-second resolution, so a shorter warm-up ends inside its first
	// second; 7 days is the harness's limit. [warmup: 5s]
	Warmup time.Duration `mapstructure:"warmup" json:"warmup"`

	// Duration is the measurement window; a Go duration from 1s (the time
	// series has one-second resolution: a shorter window holds no whole
	// second) to 168h (the harness's limit). [duration: 20s]
	Duration time.Duration `mapstructure:"duration" json:"duration"`

	// DrainTimeout bounds the drain after producers stop: consumers run
	// until every record is done or this passes. > 0 and ≤ 168h (the
	// harness's limit). [drain_timeout: 2m]
	DrainTimeout time.Duration `mapstructure:"drain_timeout" json:"drain_timeout"`

	// LoadMode is how the producers load the topic: "rate" (an open-loop
	// schedule of rate records/s for warmup + duration, consumers running
	// throughout) or "backlog" (backlog_records records are produced as fast
	// as the producers can, all acknowledged, before the consumers start;
	// the run measures how long the consumers take to drain them: rate,
	// warmup and duration are ignored, drain_timeout bounds the drain).
	// [load_mode: rate]
	LoadMode LoadMode `mapstructure:"load_mode" json:"load_mode"`

	// BacklogRecords is the backlog size in records for load_mode backlog,
	// split evenly over the producers; 1 to 10000000000 (1e10, the
	// harness's limit), required in backlog mode and ignored in rate mode.
	// [backlog_records: 0]
	BacklogRecords int `mapstructure:"backlog_records" json:"backlog_records,omitempty"`

	// MaxRate is the scenario's max_rate: block, set on runs with load_mode
	// max_rate (nil otherwise). See MaxRate. Its start, step and max are
	// finite and ≤ 10000000 records/s (the harness's limit), and start ×
	// duration ≥ producers.
	MaxRate *MaxRate `mapstructure:"-" json:"max_rate,omitempty"`
}

// Cluster is the Kafka cluster a run needs: what ClusterKey identifies;
// runs with equal values share one provisioned cluster.
type Cluster struct {
	// Nodes is the number of Kafka brokers the harness starts: 1 or 3
	// (KRaft, combined broker and controller). [nodes: 1]
	Nodes int `mapstructure:"nodes" json:"nodes"`

	// KafkaVersion is the Kafka release to run, X.Y.Z, 4.1.0 or newer.
	// On 4.1.x share groups are a preview: the providers enable them with
	// the share.version=1 feature, renew: auto, acquire_mode record_limit
	// and the newer group_config keys are refused, and every run on it is
	// labelled "share groups in preview on Kafka 4.1". [kafka_version: 4.2.2]
	KafkaVersion string `mapstructure:"kafka_version" json:"kafka_version"`

	// BrokerHeap is each broker's JVM heap (-Xmx), like 512m or 1g.
	// [broker_heap: 1g]
	BrokerHeap string `mapstructure:"broker_heap" json:"broker_heap"`

	// BrokerMetricsInterval is how often the run scrapes the brokers'
	// metrics endpoints for the series its report prints (heap, GC,
	// coordinator and share-partition metrics, request rates), besides one
	// scrape at each edge of the window. Broker CPU comes from /proc, not
	// from these scrapes, on the process and container providers. From 1s
	// to 60s; each scrape costs the broker CPU (docs/how-to/read-the-results.md).
	// [broker_metrics_interval: 5s]
	BrokerMetricsInterval time.Duration `mapstructure:"broker_metrics_interval" json:"broker_metrics_interval"`

	// BrokerConfig holds extra broker settings, passed to Kafka as written
	// (values become strings: 500 → "500"). Share-group settings are checked
	// against Kafka 4.2's ranges before a broker is started:
	// group.share.partition.max.record.locks 100–10000 (2000),
	// group.share.delivery.count.limit 2–10 (5),
	// group.share.record.lock.duration.ms 1000–3600000 (30000) and between
	// group.share.min.record.lock.duration.ms 1000–30000 (15000) and
	// group.share.max.record.lock.duration.ms 30000–3600000 (60000),
	// group.share.max.size 1–1000 (200),
	// group.share.max.share.sessions ≥ group.share.max.size (2000).
	// [broker_config: {}]
	BrokerConfig map[string]string `mapstructure:"broker_config" json:"broker_config,omitempty"`
}

// ShareConfig is what is set on each share run's group: its group configs
// and its dead-letter queue (ignored by consumer groups).
type ShareConfig struct {
	// GroupConfig holds share-group settings (GROUP configs), set on each
	// share run's group with IncrementalAlterConfigs before its members
	// join, read back and recorded in run.json; no broker restart, so runs
	// that differ only here share one cluster. Ignored by consumer groups.
	// Keys, with the first release that accepts them as group settings:
	// share.record.lock.duration.ms, share.session.timeout.ms,
	// share.heartbeat.interval.ms, share.isolation.level (4.2);
	// share.delivery.count.limit, share.partition.max.record.locks,
	// share.renew.acknowledge.enable, share.assignment.interval.ms (4.3,
	// KIP-1240). Integer values must lie inside the broker's bounds
	// (group.share.min.* / group.share.max.*: lock duration 15000–60000,
	// delivery count limit 2–10, record locks 100–4000, assignment
	// interval 0–15000). A key newer than kafka_version is refused with
	// the release that has it and its broker-level alternative.
	// [group_config: {}]
	GroupConfig map[string]string `mapstructure:"group_config" json:"group_config,omitempty"`

	// DeadLetter is the scenario's dead_letter: block (share runs, Kafka
	// 4.4+); nil without one. See DeadLetter.
	DeadLetter *DeadLetter `mapstructure:"-" json:"dead_letter,omitempty"`
	// Destination is the scenario's destination: block; nil without one.
	// See Destination.
	Destination *Destination `mapstructure:"-" json:"destination,omitempty"`
}

// Fetch is the consumer clients' fetch settings: prefetching and the
// fetch sizes and wait.
type Fetch struct {
	// Prefetch is whether a member's client fetches ahead while its
	// workers process: "on" (franz-go concurrent fetches: a fetch per
	// broker in flight or buffered; a share member acquires the next records
	// meanwhile, and their locks run while they wait in the client), "off"
	// (a fetch only when the member polls) or "auto" (franz-go's default:
	// on, off with acquire_mode record_limit, which sets
	// ShareMaxRecordsStrict). client java takes auto only: neither
	// KafkaShareConsumer nor KafkaConsumer has a setting for it.
	// [prefetch: auto]
	Prefetch vocab.Prefetch `mapstructure:"prefetch" json:"prefetch,omitempty"`

	// FetchMaxBytes is fetch.max.bytes, the most a fetch response carries
	// (an integer or a size like 50MiB); 1KiB to 1GiB. [fetch_max_bytes: 52428800]
	FetchMaxBytes int `mapstructure:"fetch_max_bytes" json:"fetch_max_bytes,omitempty"`

	// FetchMaxPartitionBytes is max.partition.fetch.bytes, the most a fetch
	// response carries for one partition (a size); 1KiB to 1GiB.
	// [fetch_max_partition_bytes: 1048576]
	FetchMaxPartitionBytes int `mapstructure:"fetch_max_partition_bytes" json:"fetch_max_partition_bytes,omitempty"`

	// FetchMaxWait is fetch.max.wait.ms, how long the broker may hold a
	// fetch that has less than fetch_min_bytes; a Go duration, 10ms
	// (franz-go's minimum) to 30s. While a share fetch waits, the member's
	// acknowledgements wait too. Every client gets it: the default is
	// Kafka's (the Java client's and librdkafka's 500ms, also franz-go's
	// for share groups), not franz-go's consumer-group 5s, so that the
	// clients compare at the same wait and a record_limit member whose
	// partitions sit on several brokers is not held 5s at each idle one
	// (docs/how-to/compare-clients.md). [fetch_max_wait: 500ms]
	FetchMaxWait time.Duration `mapstructure:"fetch_max_wait" json:"fetch_max_wait,omitempty"`

	// FetchMinBytes is fetch.min.bytes, what the broker gathers before it
	// answers a fetch (up to fetch_max_wait; a size); 1 to 1GiB.
	// [fetch_min_bytes: 1]
	FetchMinBytes int `mapstructure:"fetch_min_bytes" json:"fetch_min_bytes,omitempty"`
}

// ConsumerGroup is how a consumer-group member joins, is assigned
// partitions and commits: the rebalance protocol, the assignors, static
// membership, the commit mode and the session and rebalance timeouts
// (ignored by share groups).
type ConsumerGroup struct {
	// GroupProtocol is the consumer group's rebalance protocol: "classic"
	// (client-side assignment by the group leader, JoinGroup/SyncGroup) or
	// "consumer" (KIP-848: the broker's group coordinator assigns
	// partitions, incrementally, with no group-wide barrier; franz-go
	// ServerSideBalancer). The protocol the broker actually runs is read
	// back and recorded in run.json's group, so a silent fallback to
	// classic shows. Ignored by share groups. [group_protocol: classic]
	GroupProtocol vocab.GroupProtocol `mapstructure:"group_protocol" json:"group_protocol,omitempty"`

	// RemoteAssignor is the broker-side assignor of group_protocol
	// consumer: "uniform" (sticky, even spread) or "range" (co-partitioned
	// ranges), as the broker's group.consumer.assignors offers them.
	// Ignored with group_protocol classic. [remote_assignor: uniform]
	RemoteAssignor string `mapstructure:"remote_assignor" json:"remote_assignor,omitempty"`

	// Assignor is the classic protocol's client-side assignor:
	// "cooperative-sticky" (incremental: a rebalance revokes only the
	// partitions that move), "sticky" or "range" or "roundrobin" (eager:
	// every member revokes every partition at every rebalance). Only with
	// group_protocol classic. [assignor: cooperative-sticky]
	Assignor string `mapstructure:"assignor" json:"assignor,omitempty"`

	// StaticMembership gives every member a group.instance.id (KIP-345):
	// a static member that closes does not leave the group, so its
	// partitions stay with it until the session timeout. Consumer groups
	// only. [static_membership: false]
	StaticMembership bool `mapstructure:"static_membership" json:"static_membership,omitempty"`

	// Commit is how a consumer-group member commits offsets:
	// "after_processing" (the contiguous processed prefix, after each batch)
	// or "auto" (franz-go's autocommit every auto_commit_interval of what
	// earlier polls returned). Consumer groups, style blocking only.
	// [commit: after_processing]
	Commit vocab.Commit `mapstructure:"commit" json:"commit,omitempty"`

	// AutoCommitInterval is the autocommit period of commit auto; a Go
	// duration > 0. Ignored with commit after_processing.
	// [auto_commit_interval: 5s]
	AutoCommitInterval time.Duration `mapstructure:"auto_commit_interval" json:"auto_commit_interval,omitempty"`

	// SessionTimeout is the classic consumer group's session.timeout.ms
	// (within the broker's group.min/max.session.timeout.ms, 6s–30min by
	// default); 0 keeps the harness's choice (45s, or the broker minimum in
	// runs that crash members). With group_protocol consumer the broker
	// owns it: set broker_config group.consumer.session.timeout.ms
	// instead. [session_timeout: 0]
	SessionTimeout time.Duration `mapstructure:"session_timeout" json:"session_timeout,omitempty"`

	// RebalanceTimeout is rebalance.timeout.ms: how long members may take
	// to finish their work and rejoin once a rebalance began; 0 keeps
	// franz-go's 60s. Consumer groups only. [rebalance_timeout: 0]
	RebalanceTimeout time.Duration `mapstructure:"rebalance_timeout" json:"rebalance_timeout,omitempty"`
}

// HashedKeys are the keys of key_mode hashed: how many, and their skew.
type HashedKeys struct {
	// Keys is the key cardinality of key_mode hashed: record keys are key
	// ids 0..keys-1 (8 bytes each, partitioned by hash), and every record
	// carries its key's sequence, so ordering is measured per key.
	// 1–1000000; required with key_mode hashed, ignored otherwise. [keys: 0]
	Keys int `mapstructure:"keys" json:"keys,omitempty"`

	// HotKeys skews key_mode hashed: a share (0–1) of the records goes to
	// the first keys key ids, the rest spread evenly over all keys, e.g.
	// {share: 0.2, keys: 3}. {share: 0, keys: 0} is no skew.
	// [hot_keys: {share: 0, keys: 0}]
	HotKeys HotKeys `mapstructure:"hot_keys" json:"hot_keys,omitzero"`

	// PartitionSkew skews the load over the partitions with a Zipf law:
	// partition p (0-based) gets a share (p+1)^-s / Σ_{k=1..n} k^-s of the
	// records, s the value given (1: partition 0 of 8 takes 36.8 %). 0 is
	// no skew. ≥ 0 and ≤ 10; with key_mode round-robin, none or random
	// (key_mode hashed is skewed by hot_keys). [partition_skew: 0]
	PartitionSkew float64 `mapstructure:"partition_skew" json:"partition_skew,omitempty"`
}

// HotKeys is key_mode hashed's skew: Share of the records go to the first
// Keys key ids.
type HotKeys struct {
	Share float64 `mapstructure:"share" json:"share"`
	Keys  int     `mapstructure:"keys" json:"keys"`
}

// String describes the skew: "20%->3", "none".
func (h HotKeys) String() string {
	if h.Share == 0 || h.Keys == 0 {
		return "none"
	}
	return fmt.Sprintf("%s%%-%d", strconv.FormatFloat(h.Share*100, 'f', -1, 64), h.Keys)
}

// Backlog reports whether the run pre-fills a backlog (load_mode backlog).
func (r RunSpec) Backlog() bool { return r.LoadMode == LoadBacklog }

// Processing is a processing-time model: how long a worker spends on each
// record. Model selects which parameters apply; every parameter is a Go
// duration, each model needs exactly its own parameters:
//
//	{model: none}                                no processing
//	{model: constant, time: 10ms}                always time (≥ 0)
//	{model: uniform, min: 5ms, max: 15ms}        uniform in [min, max], 0 ≤ min ≤ max
//	{model: exponential, mean: 10ms}             exponential, mean > 0
//	{model: lognormal, median: 10ms, p99: 50ms}  lognormal, p99 ≥ median > 0
//
// A parameter may be a list (time: [5ms, 10ms]) to sweep it, and processing
// itself may be a list of model maps to sweep models.
type Processing struct {
	Model  string        `mapstructure:"model" json:"model"`
	Time   time.Duration `mapstructure:"time" json:"time,omitempty"`
	Min    time.Duration `mapstructure:"min" json:"min,omitempty"`
	Max    time.Duration `mapstructure:"max" json:"max,omitempty"`
	Mean   time.Duration `mapstructure:"mean" json:"mean,omitempty"`
	Median time.Duration `mapstructure:"median" json:"median,omitempty"`
	P99    time.Duration `mapstructure:"p99" json:"p99,omitempty"`
}

// Scenario is a loaded, validated scenario file: a name, the matrix of runs
// it expands to, and where it came from.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"` // file path or "builtin:<name>"
	Repeat      int    `json:"repeat"`
	// RepeatOrder is repeat_order, how each trial orders the matrix
	// (trialOrder); RepeatSeed seeds shuffle (recorded as used).
	RepeatOrder RepeatOrder `json:"repeat_order,omitempty"`
	RepeatSeed  uint64      `json:"repeat_seed,omitempty"`
	// JITWarmup is jit_warmup: the bound of the brokers' JIT warm-up before
	// the first run (0: none). The warm-up ends sooner once the brokers'
	// compile rate settles.
	JITWarmup time.Duration `json:"jit_warmup"`
	Runs      []RunSpec     `json:"runs"`
	// Dimensions lists the keys that had more than one value, in file order;
	// reports put them in run names and sweep charts.
	Dimensions []string `json:"dimensions,omitempty"`
	// Together is sweep.together: groups of dimensions that advance in step
	// instead of forming a cross product.
	Together [][]string `json:"together,omitempty"`
	// Expectations are the expect: claims, checked after the campaign.
	Expectations []Expectation `json:"expectations,omitempty"`
	// Recommend is the recommend: query, answered after the campaign.
	Recommend *Recommend `json:"recommend,omitempty"`
}

// Defaults are the values of knobs a scenario leaves out. A scenario's
// processing or broker_config replaces the default as a whole.
func Defaults() map[string]any {
	return map[string]any{
		"consumer_type":             []any{"consumer", "share"},
		"client":                    "franz-go",
		"partitions":                4,
		"producers":                 1,
		"rate":                      1000.0,
		"message_size":              256,
		"key_mode":                  "round-robin",
		"acks":                      "all",
		"linger":                    "5ms",
		"batch_size":                16384,
		"members":                   4,
		"workers":                   1,
		"max_poll_records":          100,
		"acquire_mode":              "batch_optimized",
		"ack_mode":                  "explicit",
		"renew":                     "none",
		"style":                     "blocking",
		"max_in_flight":             0,
		"processing":                map[string]any{"model": "constant", "time": "1ms"},
		"transient_rate":            0.0,
		"poison_rate":               0.0,
		"stuck_rate":                0.0,
		"warmup":                    "5s",
		"duration":                  "20s",
		"drain_timeout":             "2m",
		"load_mode":                 "rate",
		"backlog_records":           0,
		"nodes":                     1,
		"kafka_version":             "4.2.2",
		"broker_heap":               "1g",
		"broker_metrics_interval":   DefaultBrokerMetricsInterval.String(),
		"broker_config":             map[string]any{},
		"prefetch":                  "auto",
		"fetch_max_bytes":           52428800,
		"fetch_max_partition_bytes": 1048576,
		"fetch_max_wait":            DefaultFetchMaxWait.String(),
		"fetch_min_bytes":           1,
		"group_config":              map[string]any{},

		"group_protocol":       "classic",
		"remote_assignor":      "uniform",
		"assignor":             "cooperative-sticky",
		"static_membership":    false,
		"commit":               "after_processing",
		"auto_commit_interval": "5s",
		"session_timeout":      "0s",
		"rebalance_timeout":    "0s",
		"keys":                 0,
		"hot_keys":             map[string]any{"share": 0.0, "keys": 0},
		"partition_skew":       0.0,
		"shards":               1,
	}
}
