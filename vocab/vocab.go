package vocab

import (
	"fmt"
	"slices"
	"strings"
)

// GroupType is the kind of group under test, spelled as a scenario's
// consumer_type and run.json's consumer_type.
type GroupType string

const (
	// ConsumerGroup members own partitions and commit offsets after
	// processing.
	ConsumerGroup GroupType = "consumer"
	// ShareGroup members (KIP-932) acquire records and acknowledge each one.
	ShareGroup GroupType = "share"
)

// GroupTypes are the valid group types, in the order errors list them.
var GroupTypes = []GroupType{ConsumerGroup, ShareGroup}

// Client is the client library a fleet's members run on, spelled as a
// scenario's client.
type Client string

const (
	// ClientFranzGo runs members in the harness process on franz-go (the
	// default; "" in a spec built in code means it too).
	ClientFranzGo Client = "franz-go"
	// ClientJava runs members in one JVM on the Apache Kafka Java client
	// (KafkaShareConsumer, KafkaConsumer); see docs/how-to/compare-clients.md.
	ClientJava Client = "java"
	// ClientLibrdkafka runs members in one Python process on confluent-kafka
	// (librdkafka: ShareConsumer, a KIP-932 preview there, and Consumer);
	// see docs/how-to/compare-clients.md.
	ClientLibrdkafka Client = "librdkafka"
	// ClientSpring runs members in one JVM on Spring for Apache Kafka
	// (ShareKafkaMessageListenerContainer, ConcurrentMessageListenerContainer)
	// over the Apache Kafka Java client; see docs/how-to/compare-clients.md.
	ClientSpring Client = "spring"
)

// SpringKafkaVersion is the Spring for Apache Kafka (spring-kafka) that
// client spring runs, over the kafka-clients of the run's Kafka version; it
// is recorded in run.json as the client's version.
const SpringKafkaVersion = "4.1.2"

// SpringMinKafka is the oldest Kafka version client spring runs on: Spring
// for Apache Kafka 4.1 builds on kafka-clients 4.2 (the RENEW
// acknowledgement type, the share consumer's 4.2 API), and share groups
// before 4.2 are a preview.
const SpringMinKafka = "4.2.0"

// Clients are the valid clients.
var Clients = []Client{ClientFranzGo, ClientJava, ClientLibrdkafka, ClientSpring}

// Runner reports whether c's members run in a client runner process beside
// the harness (java, librdkafka, spring) rather than in the harness on franz-go.
func (c Client) Runner() bool { return c == ClientJava || c == ClientLibrdkafka || c == ClientSpring }

// JVM reports whether c's runner is the Java runner's JVM (java, and spring,
// the same runner built with Spring for Apache Kafka).
func (c Client) JVM() bool { return c == ClientJava || c == ClientSpring }

// AcquireMode is a share group's share.acquire.mode (acquire_mode).
type AcquireMode string

const (
	// AcquireBatchOptimized lets the broker hand over whole producer
	// batches, so a poll may exceed max_poll_records.
	AcquireBatchOptimized AcquireMode = "batch_optimized"
	// AcquireRecordLimit makes the broker split producer batches so a poll
	// never exceeds max_poll_records.
	AcquireRecordLimit AcquireMode = "record_limit"
)

// AcquireModes are the valid acquire modes.
var AcquireModes = []AcquireMode{AcquireBatchOptimized, AcquireRecordLimit}

// AckMode is how a share-group member acknowledges records (ack_mode).
type AckMode string

const (
	// AckImplicit lets the next poll ACCEPT the whole previous batch.
	AckImplicit AckMode = "implicit"
	// AckExplicit acknowledges each record (ACCEPT, RELEASE or REJECT) as
	// its worker finishes it.
	AckExplicit AckMode = "explicit"
)

// AckModes are the valid acknowledgement modes.
var AckModes = []AckMode{AckExplicit, AckImplicit}

// Renew is a share group's acquisition-lock renewal (renew, KIP-1222).
type Renew string

const (
	// RenewNone never renews a lock.
	RenewNone Renew = "none"
	// RenewAuto renews a record's lock while its worker still processes it.
	RenewAuto Renew = "auto"
)

// Renews are the valid renewal settings.
var Renews = []Renew{RenewNone, RenewAuto}

// Style is a member's client-local parallelism (style).
type Style string

const (
	// StyleBlocking polls, processes the whole batch on the workers, and
	// only then polls again.
	StyleBlocking Style = "blocking"
	// StyleContinuous keeps polling while the workers are busy, holding at
	// most max_in_flight records (consumer groups only).
	StyleContinuous Style = "continuous"
)

// Styles are the valid styles.
var Styles = []Style{StyleBlocking, StyleContinuous}

// Prefetch is whether a member's client fetches ahead while its workers
// process (prefetch).
type Prefetch string

const (
	// PrefetchAuto is franz-go's default: on, off with acquire_mode
	// record_limit.
	PrefetchAuto Prefetch = "auto"
	// PrefetchOn keeps fetches in flight or buffered while workers process.
	PrefetchOn Prefetch = "on"
	// PrefetchOff fetches only when the member polls.
	PrefetchOff Prefetch = "off"
)

// Prefetches are the valid prefetch settings.
var Prefetches = []Prefetch{PrefetchAuto, PrefetchOn, PrefetchOff}

// Forced is the prefetch setting as a switch: nil for auto (the client
// decides), else on or off.
func (p Prefetch) Forced() *bool {
	if p != PrefetchOn && p != PrefetchOff {
		return nil
	}
	on := p == PrefetchOn
	return &on
}

// GroupProtocol is a consumer group's rebalance protocol (group_protocol).
type GroupProtocol string

const (
	// ProtocolClassic is the client-driven protocol (JoinGroup/SyncGroup):
	// the group leader runs the assignor.
	ProtocolClassic GroupProtocol = "classic"
	// ProtocolConsumer is KIP-848: the broker's coordinator assigns with
	// the remote assignor (franz-go ServerSideBalancer).
	ProtocolConsumer GroupProtocol = "consumer"
)

// GroupProtocols are the valid rebalance protocols.
var GroupProtocols = []GroupProtocol{ProtocolClassic, ProtocolConsumer}

// Commit is how a consumer-group member commits offsets (commit).
type Commit string

const (
	// CommitAfterProcessing commits the contiguous processed prefix after
	// each batch.
	CommitAfterProcessing Commit = "after_processing"
	// CommitAuto is franz-go's autocommit every auto_commit_interval.
	CommitAuto Commit = "auto"
)

// Commits are the valid commit settings.
var Commits = []Commit{CommitAfterProcessing, CommitAuto}

// Check reports whether v is one of valid, as an error that lists them:
// `expected one of consumer, share, got "x"` (the key is the caller's to
// name).
func Check[T ~string](v T, valid []T) error {
	if slices.Contains(valid, v) {
		return nil
	}
	return fmt.Errorf("expected one of %s, got %q", Join(valid), string(v))
}

// Join lists values comma-separated, as errors and docs list them.
func Join[T ~string](vals []T) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
