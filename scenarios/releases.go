package scenarios

import (
	"github.com/sharebench/sharebench/vocab"
)

// The Kafka releases the share-group knobs of a run need. Kafka 4.1.x has
// share groups as a preview (vocab.SharePreview: the share.version=1
// feature enables them; its ShareFetch and ShareAcknowledge stop at
// version 1); 4.2.0 made them generally available and added, with version
// 2 of both requests, RENEW and the record_limit acquire mode. Group
// settings carry their release in groupSettings, the dead-letter queue in
// DeadLetterSince.
const (
	// MinKafkaVersion is the oldest release the harness runs.
	MinKafkaVersion = "4.1.0"
	// RenewSince: RENEW acknowledgements (KIP-1222), renew: auto.
	RenewSince = "4.2.0"
	// RecordLimitSince: share.acquire.mode record_limit (KIP-1206).
	RecordLimitSince = "4.2.0"
)

// SharePreview reports whether the run is a share run on a release whose
// share groups are a preview (Kafka 4.1): it carries
// vocab.SharePreviewLabel wherever it is shown.
func (r RunSpec) SharePreview() bool {
	return r.ConsumerType == vocab.ShareGroup && vocab.SharePreview(r.KafkaVersion)
}

// checkShareRelease refuses, for a share run, the knobs its kafka_version
// does not have, naming the release that added them.
func (r RunSpec) checkShareRelease(p *problems) {
	if r.ConsumerType != vocab.ShareGroup || !parseable(r.KafkaVersion) {
		return
	}
	if r.Renew == vocab.RenewAuto && !VersionAtLeast(r.KafkaVersion, RenewSince) {
		p.addf("renew", "auto needs Kafka %s (RENEW, KIP-1222); kafka_version is %s, whose share groups are a preview without it: "+
			"use renew none or kafka_version %s or newer", RenewSince, r.KafkaVersion, RenewSince)
	}
	if r.AcquireMode == vocab.AcquireRecordLimit && !VersionAtLeast(r.KafkaVersion, RecordLimitSince) {
		p.addf("acquire_mode", "record_limit needs Kafka %s (share.acquire.mode, KIP-1206); kafka_version is %s, whose brokers always "+
			"acquire whole batches: use acquire_mode batch_optimized or kafka_version %s or newer", RecordLimitSince, r.KafkaVersion, RecordLimitSince)
	}
}

func parseable(v string) bool { _, ok := parseVersion(v); return ok }
