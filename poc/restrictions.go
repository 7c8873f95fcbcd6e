package poc

import (
	"fmt"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// consumerGroupTuning is what helps a workload that stays on a consumer
// group: the roadmap's "own tuning" of a consumer group.
const consumerGroupTuning = "run a consumer group with the cooperative-sticky assignor or the KIP-848 consumer protocol " +
	"(group.protocol=consumer), static membership (group.instance.id) for members that restart, " +
	"max.poll.records from the measured sweep (see the settings) and offsets committed after processing"

// SharePreviewVersion and ShareGAVersion are the Kafka releases where share
// groups (KIP-932) arrived as a preview and became generally available.
var (
	SharePreviewVersion = [3]int{4, 1, 0}
	ShareGAVersion      = [3]int{4, 2, 0}
)

// StageOne lists the restrictions of the adoption roadmap that the profile
// answers (docs/how-to/run-a-poc.md, "Stage 1: restrictions"), one Finding each, in a
// fixed order: Applies says the restriction holds, Says what it means for
// this workload (with the consumer-group settings that help when it
// holds). Stage-1 findings are facts of the profile, not measurements
// (Measured false). retention needs the measured worst drain: StageOne
// gives the span of log the retention keeps, Decide compares the drain
// with it.
func StageOne(p Profile) []Finding {
	rs := p.Restrictions
	out := []Finding{
		flag("ordering_per_key", rs.OrderingPerKey,
			"the application needs each key's records in order, and a share group delivers the records of a partition to many members at once with no order",
			"the application does not need per-key order, so a share group's unordered delivery is acceptable"),
		flag("exactly_once", rs.ExactlyOnce,
			"the application consumes, transforms and produces in transactions, and share-group acknowledgements take no part in a transaction",
			"the application does not use transactions for exactly-once processing"),
		framework(rs.Framework),
		flag("fetch_from_follower", rs.FetchFromFollower,
			"the consumers fetch from follower replicas (client.rack), which share groups do not offer",
			"the consumers fetch from partition leaders, as share groups do"),
		flag("static_membership", rs.StaticMembership,
			"the consumers use static membership (group.instance.id), which share groups do not have",
			"the consumers do not rely on static membership"),
		flag("client_side_assignor", rs.ClientSideAssignor,
			"the consumers use a client-side partition assignor, and a share group's assignment is the broker's alone",
			"the consumers use no client-side assignor"),
		platform(rs.Platform, rs.KafkaVersion),
		retention(p),
	}
	return out
}

// flag is a yes/no restriction.
func flag(key string, holds bool, yes, no string) Finding {
	if holds {
		return Finding{Key: key, Applies: true, Says: capital(yes) + ": keep it on a consumer group; " + consumerGroupTuning + "."}
	}
	return Finding{Key: key, Says: capital(no) + "."}
}

func framework(fw string) Finding {
	switch fw {
	case "kafka_connect":
		return Finding{Key: "framework", Applies: true, Says: "Kafka Connect sink tasks consume through consumer groups only (share-group sinks are a proposal, KIP-1302): keep it on a consumer group; " + consumerGroupTuning + "."}
	case "kafka_streams":
		return Finding{Key: "framework", Applies: true, Says: "Kafka Streams consumes through consumer groups only (its tasks own partitions): keep it on a consumer group; " + consumerGroupTuning + "."}
	case "spring":
		return Finding{Key: "framework", Says: "Spring for Apache Kafka 4.0 and later has share consumers, so the framework does not keep the workload on a consumer group."}
	}
	return Finding{Key: "framework", Says: "A plain Kafka client has share consumers (KafkaShareConsumer from Kafka 4.2), so the framework does not keep the workload on a consumer group."}
}

func platform(pl, version string) Finding {
	v, _ := scenarios.ParseKafkaVersion(version)
	f := Finding{Key: "platform"}
	switch {
	case pl == "msk_express":
		f.Applies = true
		f.Says = "Amazon MSK Express brokers lack KIP-932 share groups"
	case less(v, SharePreviewVersion):
		f.Applies = true
		f.Says = fmt.Sprintf("Kafka %s brokers have no share groups (KIP-932 arrived as a preview in 4.1 and is generally available from 4.2)", version)
	case less(v, ShareGAVersion):
		f.Applies = true
		f.Says = fmt.Sprintf("on Kafka %s brokers share groups are only a preview", version)
		if pl == "msk_standard" {
			f.Says = fmt.Sprintf("on Amazon MSK Standard brokers (Kafka %s) share groups are only a preview", version)
		}
	default:
		return Finding{Key: "platform", Says: fmt.Sprintf("The %s brokers run Kafka %s, where share groups are generally available.", pl, version)}
	}
	f.Says = capital(f.Says) + ": keep production on a consumer group until the platform offers them; " + consumerGroupTuning + "."
	return f
}

// less reports whether version a is before b.
func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// RetentionSpan is how long the topic keeps a record before retention may
// delete it, at the peak rate: the span of log retention_bytes holds per
// partition (retention_bytes ÷ (record_bytes × peak_rate ÷ partitions)),
// or retention_time, whichever is shorter; ok is false when the profile
// gives neither.
func RetentionSpan(p Profile) (span time.Duration, ok bool) {
	rs := p.Restrictions
	if rs.RetentionBytes > 0 && p.RecordBytes > 0 && p.PeakRate > 0 {
		perPartition := float64(p.RecordBytes) * p.PeakRate / float64(max(p.Partitions, 1)) // bytes/s
		span, ok = time.Duration(float64(rs.RetentionBytes)/perPartition*float64(time.Second)), true
	}
	if rs.RetentionTime > 0 && (!ok || rs.RetentionTime < span) {
		span, ok = rs.RetentionTime, true
	}
	return span, ok
}

// retention is the retention restriction as far as the profile decides
// it: the span the log keeps, to be compared with the measured worst
// drain (Decide).
func retention(p Profile) Finding {
	span, ok := RetentionSpan(p)
	if !ok {
		return Finding{Key: "retention", Says: "The profile gives no retention by size or time, so undelivered records are not at risk of deletion."}
	}
	return Finding{Key: "retention", Says: fmt.Sprintf("The topic keeps about %s of records at the peak rate of %s records/s (retention_bytes and retention_time); "+
		"a share group does not hold the log, so a drain longer than that lets retention delete records before they are delivered: "+
		"not measured yet (it needs the measured worst drain)", span.Round(time.Second), num(p.PeakRate))}
}

func capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
