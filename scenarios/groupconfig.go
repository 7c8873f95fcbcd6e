package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sharebench/sharebench/vocab"
)

// Per-group share settings (group_config): dynamic configs of the GROUP
// resource, set with IncrementalAlterConfigs on each run's share group
// before its members join. Which keys a release accepts was read from
// running brokers with DescribeConfigs on a GROUP resource (process
// provider, 2026-11-30; 4.1.0 and 4.1.2 on 2026-12-06):
//
//	4.1.0  share.auto.offset.reset, share.record.lock.duration.ms,
//	4.1.2  share.session.timeout.ms, share.heartbeat.interval.ms,
//	       share.isolation.level (with share.version=1; a preview)
//	4.2.2  share.auto.offset.reset, share.record.lock.duration.ms,
//	       share.session.timeout.ms, share.heartbeat.interval.ms,
//	       share.isolation.level
//	4.3.1  the above + share.delivery.count.limit,
//	       share.partition.max.record.locks, share.renew.acknowledge.enable,
//	       share.assignment.interval.ms (KIP-1240)
//	4.4.0  the above + errors.deadletterqueue.topic.name,
//	       errors.deadletterqueue.copy.record.enable (KIP-1191; the brokers
//	       finalize share.version 2 at format time)
//
// A group value must lie inside the broker's bounds for it
// (group.share.min.* / group.share.max.*).

// GroupKey* are the group_config keys the harness knows.
const (
	GroupKeyAutoOffsetReset    = "share.auto.offset.reset"
	GroupKeyRecordLockDuration = "share.record.lock.duration.ms"
	GroupKeySessionTimeout     = "share.session.timeout.ms"
	GroupKeyHeartbeat          = "share.heartbeat.interval.ms"
	GroupKeyIsolationLevel     = "share.isolation.level"
	GroupKeyDeliveryCountLimit = "share.delivery.count.limit"
	GroupKeyRecordLocks        = "share.partition.max.record.locks"
	GroupKeyRenewEnable        = "share.renew.acknowledge.enable"
	GroupKeyAssignmentInterval = "share.assignment.interval.ms"
	GroupKeyDLQTopic           = "errors.deadletterqueue.topic.name"
	GroupKeyDLQCopyRecord      = "errors.deadletterqueue.copy.record.enable"
)

// groupSetting describes one group_config key.
type groupSetting struct {
	since  string // the first Kafka release that accepts it on a GROUP resource
	broker string // the broker-level setting it overrides ("" when none)
	// kind: "int" (bounded by the broker's minKey/maxKey, defaults
	// lo/hi), "bool", or one of enum.
	kind         string
	minKey       string
	maxKey       string
	lo, hi, def  int
	enum         []string
	short        string // run-name prefix
	harnessOwned string // why the harness refuses a user value ("" when none)
}

var groupSettings = map[string]groupSetting{
	GroupKeyAutoOffsetReset: {since: "4.1.0", kind: "enum", enum: []string{"earliest", "latest"},
		harnessOwned: "the harness sets it to earliest on every share group, so that every produced record is delivered"},
	GroupKeyRecordLockDuration: {since: "4.1.0", broker: KeyRecordLockDuration, kind: "int",
		minKey: KeyMinLockDuration, maxKey: KeyMaxLockDuration, lo: 15000, hi: 60000, def: 30000, short: "glockms"},
	GroupKeySessionTimeout: {since: "4.1.0", broker: "group.share.session.timeout.ms", kind: "int",
		minKey: "group.share.min.session.timeout.ms", maxKey: "group.share.max.session.timeout.ms", lo: 45000, hi: 60000, def: 45000, short: "gsession"},
	GroupKeyHeartbeat: {since: "4.1.0", broker: KeyShareHeartbeat, kind: "int",
		minKey: "group.share.min.heartbeat.interval.ms", maxKey: "group.share.max.heartbeat.interval.ms", lo: 5000, hi: 15000, def: 5000, short: "ghb"},
	GroupKeyIsolationLevel: {since: "4.1.0", kind: "enum", enum: []string{"read_committed", "read_uncommitted"}, short: "giso-"},
	GroupKeyDeliveryCountLimit: {since: "4.3.0", broker: KeyDeliveryCountLimit, kind: "int",
		minKey: "group.share.min.delivery.count.limit", maxKey: "group.share.max.delivery.count.limit", lo: 2, hi: 10, def: 5, short: "gdcl"},
	GroupKeyRecordLocks: {since: "4.3.0", broker: KeyRecordLocks, kind: "int",
		minKey: "group.share.min.partition.max.record.locks", maxKey: "group.share.max.partition.max.record.locks", lo: 100, hi: 4000, def: 2000, short: "glocks"},
	GroupKeyRenewEnable: {since: "4.3.0", kind: "bool", short: "grenew-"},
	GroupKeyAssignmentInterval: {since: "4.3.0", broker: "group.share.assignment.interval.ms", kind: "int",
		minKey: "group.share.min.assignment.interval.ms", maxKey: "group.share.max.assignment.interval.ms", lo: 0, hi: 15000, def: 1000, short: "gassign"},
	GroupKeyDLQTopic: {since: "4.4.0", kind: "string", short: "dlq-",
		harnessOwned: "write the dead_letter: block instead ({topic: ..., copy_record: ...}): the harness reads the topic back"},
	GroupKeyDLQCopyRecord: {since: "4.4.0", kind: "bool", short: "dlqcopy-",
		harnessOwned: "write dead_letter: {copy_record: true} instead"},
}

// GroupSettingSince is the first Kafka release whose brokers accept key as
// a group config, or "" for a key the harness does not know.
func GroupSettingSince(key string) string { return groupSettings[key].since }

// GroupSettingKeys lists the group_config keys the harness knows, sorted.
func GroupSettingKeys() []string { return sortedKeys(groupSettings) }

// isSettingsMap reports whether a top-level key is a map of Kafka settings
// whose entries are sweep dimensions of their own.
func isSettingsMap(top string) bool { return top == "broker_config" || top == "group_config" }

// groupShort is the run-name prefix of a swept group_config key.
func groupShort(key string) string {
	if s := groupSettings[key].short; s != "" {
		return s
	}
	return "g" + strings.ReplaceAll(strings.TrimPrefix(key, "share."), ".", "_") + "-"
}

// VersionAtLeast reports whether Kafka release v (X.Y.Z) is at least min;
// a version that does not parse is not.
func VersionAtLeast(v, min string) bool {
	a, ok1 := parseVersion(v)
	b, ok2 := parseVersion(min)
	if !ok1 || !ok2 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return true
}

func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	m := kafkaVersionRE.FindStringSubmatch(strings.SplitN(v, "-", 2)[0])
	if m == nil {
		return out, false
	}
	for i := range out {
		out[i], _ = strconv.Atoi(m[i+1])
	}
	return out, true
}

// checkGroupConfig checks group_config against the group type, the release
// that accepts each key and the broker's bounds, before any cluster starts.
func (r RunSpec) checkGroupConfig(p *problems) {
	if len(r.GroupConfig) > 0 && r.ConsumerType != vocab.ShareGroup {
		// Sweeping consumer_type with a group_config is normal: the
		// settings apply to the share runs only.
		return
	}
	for _, key := range sortedKeys(r.GroupConfig) {
		path := "group_config." + key
		v := strings.TrimSpace(r.GroupConfig[key])
		gs, ok := groupSettings[key]
		switch {
		case !ok && strings.HasPrefix(key, "group.share."):
			p.addf(path, "%q is a broker setting; write it under broker_config, or the group setting %q under group_config", key, strings.TrimPrefix(key, "group."))
			continue
		case !ok:
			p.addf(path, "not a share-group setting the harness knows (%s)", strings.Join(GroupSettingKeys(), ", "))
			continue
		case gs.harnessOwned != "":
			p.addf(path, "%s", gs.harnessOwned)
			continue
		}
		if !VersionAtLeast(r.KafkaVersion, gs.since) {
			alt := "no broker-level setting replaces it"
			if gs.broker != "" {
				alt = fmt.Sprintf("on %s it exists only at broker level: use broker_config %s (a cluster of its own per value)", r.KafkaVersion, gs.broker)
			}
			p.addf(path, "Kafka %s has no group setting %s (it is a group setting from Kafka %s on); %s, or kafka_version %s",
				r.KafkaVersion, key, gs.since, alt, gs.since)
			continue
		}
		switch gs.kind {
		case "int":
			n, err := strconv.Atoi(v)
			lo, hi := r.groupBound(gs.minKey, gs.lo), r.groupBound(gs.maxKey, gs.hi)
			if err != nil {
				p.addf(path, "expected an integer, got %q", r.GroupConfig[key])
			} else if n < lo || n > hi {
				p.addf(path, "%d is outside the broker's bounds %d–%d (%s, %s); set those in broker_config to widen them", n, lo, hi, gs.minKey, gs.maxKey)
			}
		case "bool":
			if v != "true" && v != "false" {
				p.addf(path, "expected true or false, got %q", r.GroupConfig[key])
			}
		case "enum":
			oneOf(p, path, v, gs.enum...)
		}
	}
}

// groupBound is a broker bound on a group setting: broker_config's value
// when it is an integer, else Kafka's default.
func (r RunSpec) groupBound(key string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(r.BrokerConfig[key])); err == nil {
		return n
	}
	return def
}

// effectiveInt is a share setting as the run's group sees it: the
// group_config value when the run sets one (share runs), else the broker
// setting (or its default).
func (r RunSpec) effectiveInt(groupKey, brokerKey string) int {
	if r.ConsumerType == vocab.ShareGroup {
		if n, err := strconv.Atoi(strings.TrimSpace(r.GroupConfig[groupKey])); err == nil {
			return n
		}
	}
	return r.brokerInt(brokerKey)
}

// ShareGroupConfig is what the harness sets on the run's share group: the
// group_config entries (share runs only), plus the dead-letter settings.
// The harness adds share.auto.offset.reset itself.
func (r RunSpec) ShareGroupConfig() map[string]string {
	if r.ConsumerType != vocab.ShareGroup {
		return nil
	}
	out := map[string]string{}
	for k, v := range r.GroupConfig {
		out[k] = strings.TrimSpace(v)
	}
	if r.DeadLetter != nil && r.DeadLetter.Topic != "" {
		out[GroupKeyDLQTopic] = r.DeadLetter.Topic
		out[GroupKeyDLQCopyRecord] = strconv.FormatBool(r.DeadLetter.CopyRecord)
	}
	return out
}
