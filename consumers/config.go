package consumers

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/vocab"
)

// The fleet's typed modes are vocab's (one type each, shared with the
// scenario and the run record); these names keep the package's spelling.
type (
	// GroupType is the kind of group a fleet's members join.
	GroupType = vocab.GroupType
	// AcquireMode is a share group's share.acquire.mode.
	AcquireMode = vocab.AcquireMode
	// AckMode is how a share-group member acknowledges records.
	AckMode = vocab.AckMode
	// Style is a member's client-local parallelism.
	Style = vocab.Style
)

const (
	ConsumerGroup         = vocab.ConsumerGroup
	ShareGroup            = vocab.ShareGroup
	AcquireBatchOptimized = vocab.AcquireBatchOptimized
	AcquireRecordLimit    = vocab.AcquireRecordLimit
	AckImplicit           = vocab.AckImplicit
	AckExplicit           = vocab.AckExplicit
	StyleBlocking         = vocab.StyleBlocking
	StyleContinuous       = vocab.StyleContinuous
)

// Config describes one consumer fleet. The same Config drives both group
// types; fields marked (share) are ignored by consumer groups.
type Config struct {
	Brokers []string
	// Conn are the connection options every member's client takes (SASL,
	// dial timeout, hooks: connection.Settings.WithoutTLS), and TLS the
	// configuration the members' own dialer wraps connections in; nil is
	// plaintext.
	Conn []kgo.Opt
	TLS  *tls.Config
	// Connection are the same settings for the runners, whose clients take
	// them as their own properties: Java client properties for ClientJava
	// (connection.Settings.JavaProperties), librdkafka's for
	// ClientLibrdkafka (connection.Settings.LibrdkafkaProperties).
	Connection connection.Settings
	// Log receives the harness's progress lines (the Java runner's first
	// build); nil discards them.
	Log     io.Writer
	Topic   string
	Group   string
	Type    GroupType
	Members int // group members, each its own client
	// IDs, when set, are the ids of the first len(IDs) members instead of
	// 0..Members-1 (their client ids, static instance ids and worker random
	// streams follow the id): one shard of a sharded run runs members
	// i mod shards = shard with their global ids. Members that join later
	// get ids above the largest.
	IDs []int
	// OneOfSeveral marks the fleet as one agent's part of a sharded run:
	// the run's other members are on other agents, so this fleet may give
	// up its last member (Leave, Crash); the run keeps one somewhere.
	OneOfSeveral bool
	Workers      int // workers per member processing a polled batch in parallel
	// MaxPollRecords is max.poll.records: the most records one poll hands
	// to the member (share: ShareMaxRecords, a soft limit under
	// AcquireBatchOptimized).
	MaxPollRecords int
	Acquire        AcquireMode // (share)
	Ack            AckMode     // (share)
	Processing     Processing
	// TransientRate is the per-attempt failure probability: share RELEASE
	// (redelivered, delivery count +1), consumer group retry in place.
	TransientRate float64
	// PoisonRate is the per-record probability that a record is poison:
	// share REJECT (archived), consumer group dead-lettered and skipped.
	// Poison is a property of the record, the same on every delivery.
	PoisonRate float64
	// StuckRate is the per-record probability that a record wedges its
	// worker: processing never returns until the member stops (a hung
	// client, for the stall detector's tests). A property of the record,
	// independent of poison.
	StuckRate float64
	// DeliveryLimit is group.share.delivery.count.limit (share): a record
	// released at this delivery count is archived by the broker.
	DeliveryLimit int
	// Renew renews acquisition locks (share, AckExplicit; KIP-1222): a
	// worker whose processing of a record runs past half of the time left
	// until the record's acquisition deadline sends AckRenew, and keeps
	// renewing until it is done.
	Renew bool
	Style Style
	// MaxInFlight bounds the records a StyleContinuous member holds
	// (polled, not finished); 0: Workers × MaxPollRecords.
	MaxInFlight int
	// CloseTimeout bounds the final commit/ack flush on shutdown (default 10s).
	CloseTimeout time.Duration
	// SessionTimeout is the consumer group's session.timeout.ms (0: franz-go's
	// 45s); a crashed member's partitions move after it. It must lie within
	// the broker's group.min/max.session.timeout.ms (6s–30min by default).
	// The heartbeat interval is a third of it.
	SessionTimeout time.Duration
	// Client is the client library the members run on: ClientFranzGo
	// ("" too) in this process, ClientJava in one JVM, ClientSpring in one
	// JVM of the Java runner's Spring build, ClientLibrdkafka in one Python
	// process (java_fleet.go runs every runner).
	Client Client
	// LockDuration is the share group's record lock duration, from which
	// the librdkafka runner estimates each record's acquisition deadline
	// (librdkafka does not report it; 0: no estimate, no lock-expired flag).
	LockDuration time.Duration
	// KafkaVersion is the kafka-clients version the Java runner is built
	// against (ClientJava and ClientSpring; the run's Kafka version).
	KafkaVersion string
	// Hold makes the members join with consumption held: their clients
	// pause the topic (no fetch, so nothing is acquired or handed to a
	// worker) and they do not poll until Fleet.Release. The harness forms
	// the group first, then releases it, so the clock does not include
	// group formation (see docs/explanation/measurement.md, "Group formation").
	// Members that join after the release start consuming at once.
	Hold bool
	// Fetch are the client's fetch settings (zero values: franz-go's
	// defaults).
	Fetch Fetch
	// Groups are the consumer group's protocol knobs (group_protocol.go);
	// ignored by share groups. ClientJava runs the defaults only.
	Groups GroupKnobs
	// OwnJVM are the ids of members that run in a runner process of their
	// own (ClientJava, ClientSpring: a JVM; ClientLibrdkafka: a Python process): the
	// members the run's crash events take. Crash kills such a member's
	// process (SIGKILL), so the broker sees a crash as it would in
	// production; the other members share one process.
	OwnJVM []int
	// Destination, when set, opens each member's writer to the run's
	// destination (its own connection pool): a completed record is written
	// after processing and before its acknowledgement or commit, so the
	// write is part of its hold time. A failed write hands the record back
	// (share RELEASE, consumer group retry in place).
	Destination func(ctx context.Context) (RecordWriter, error)
	// DestinationConfig is the run's destination (the Sink's Config,
	// defaults applied) that a client runner's members write to with their
	// own driver (java_destination.go); set with Destination.
	DestinationConfig destination.Config
}

// Fetch are a member client's fetch settings. Zero values keep franz-go's
// defaults.
type Fetch struct {
	// Prefetch lets the client fetch ahead while records are processed
	// (franz-go MaxConcurrentFetches -1: a fetch per broker in flight or
	// buffered). Off (MaxConcurrentFetches 0), a fetch is issued only when
	// the member polls, so a share member acquires nothing while its
	// workers are busy. nil: franz-go's default, which is on, except that
	// ShareMaxRecordsStrict (acquire_mode record_limit) turns it off.
	Prefetch          *bool
	MaxBytes          int32         // fetch.max.bytes (FetchMaxBytes)
	MaxPartitionBytes int32         // max.partition.fetch.bytes (FetchMaxPartitionBytes)
	MaxWait           time.Duration // fetch.max.wait.ms (FetchMaxWait)
	MinBytes          int32         // fetch.min.bytes (FetchMinBytes)
}

// defaultCloseTimeout is CloseTimeout when it is not set.
const defaultCloseTimeout = 10 * time.Second

// closeTimeout is CloseTimeout or its default.
func (c Config) closeTimeout() time.Duration {
	if c.CloseTimeout <= 0 {
		return defaultCloseTimeout
	}
	return c.CloseTimeout
}

// validate checks the fleet's shape and modes (the processing model is
// NewSampler's).
func (c Config) validate() error {
	if c.Members < 1 || c.Workers < 1 || c.MaxPollRecords < 1 {
		return fmt.Errorf("consumers: members, workers and max_poll_records must be ≥ 1, got %d, %d, %d",
			c.Members, c.Workers, c.MaxPollRecords)
	}
	if len(c.IDs) > 0 {
		if len(c.IDs) != c.Members {
			return fmt.Errorf("consumers: %d member ids for %d members", len(c.IDs), c.Members)
		}
		seen := map[int]bool{}
		for _, id := range c.IDs {
			if id < 0 || seen[id] {
				return fmt.Errorf("consumers: member ids must be distinct and ≥ 0, got %v", c.IDs)
			}
			seen[id] = true
		}
	}
	if len(c.OwnJVM) > 0 {
		if !c.Client.Runner() {
			return fmt.Errorf("consumers: members in a runner process of their own (%v) need client java or librdkafka "+
				"(client %s runs its members in the harness process and crashes one by freezing its connections)", c.OwnJVM, cmp.Or(c.Client, ClientFranzGo))
		}
		seen := map[int]bool{}
		for _, id := range c.OwnJVM {
			if id < 0 || seen[id] {
				return fmt.Errorf("consumers: the ids of members in a JVM of their own must be distinct and ≥ 0, got %v", c.OwnJVM)
			}
			seen[id] = true
		}
	}
	if err := c.validateClient(); err != nil {
		return err
	}
	if c.Style != StyleBlocking && c.Style != StyleContinuous {
		return fmt.Errorf("consumers: style: expected %s or %s, got %q", StyleBlocking, StyleContinuous, c.Style)
	}
	if err := c.Groups.validate(); err != nil {
		return err
	}
	if c.Client == ClientJava && c.Groups.RebalanceTimeout > 0 {
		return errors.New("consumers: rebalance_timeout: client java has no rebalance timeout of its own (KafkaConsumer " +
			"sends max.poll.interval.ms, which the runner bounds by the session timeout); use client franz-go or leave rebalance_timeout out")
	}
	if c.StuckRate < 0 || c.StuckRate >= 1 {
		return fmt.Errorf("consumers: stuck_rate: must be in [0, 1), got %v", c.StuckRate)
	}
	if c.Client == ClientLibrdkafka && c.StuckRate > 0 {
		return fmt.Errorf("consumers: stuck_rate: client %s does not wedge workers (its runner has no such outcome); "+
			"use client franz-go or java, or stuck_rate 0", c.Client)
	}
	if c.Destination != nil && c.Client.Runner() {
		if err := checkRunnerDestination(c.Client, c.DestinationConfig); err != nil {
			return err
		}
	}
	if c.Destination != nil && c.Groups.AutoCommit {
		return errors.New("consumers: destination with commit auto: autocommit commits what was polled, before it is written; use commit after_processing")
	}
	if c.Groups.AutoCommit && c.Style == StyleContinuous {
		return errors.New("consumers: commit auto needs style blocking: autocommit commits what was polled, which a continuous member may still be processing")
	}
	switch c.Type {
	case ConsumerGroup:
		return nil
	case ShareGroup:
	default:
		return fmt.Errorf("consumers: group type: expected %s or %s, got %q", ConsumerGroup, ShareGroup, c.Type)
	}
	if c.Acquire != AcquireBatchOptimized && c.Acquire != AcquireRecordLimit {
		return fmt.Errorf("consumers: acquire mode: expected %s or %s, got %q", AcquireBatchOptimized, AcquireRecordLimit, c.Acquire)
	}
	if c.Ack != AckImplicit && c.Ack != AckExplicit {
		return fmt.Errorf("consumers: ack mode: expected %s or %s, got %q", AckImplicit, AckExplicit, c.Ack)
	}
	if c.Style == StyleContinuous {
		return errors.New("consumers: style continuous is for consumer groups: franz-go ACCEPTs every record of " +
			"the previous share poll that has no terminal acknowledgement yet, so polling while records are processed would accept them unprocessed")
	}
	return nil
}
