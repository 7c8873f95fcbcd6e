package infra

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/vocab"
)

// Features is what a running cluster supports, read from its brokers at
// start: the finalized feature levels (ApiVersions) and the names of the
// configs a GROUP resource accepts (DescribeConfigs on a group that need
// not exist). What was seen on process clusters (2026-11-30; 4.1.2 on
// 2026-12-06):
//
//	4.1.2  share.version 0 after a plain format (supported 0–1): share groups
//	       are a preview, off until share.version=1 is finalized (formatting
//	       with --feature share.version=1, or an UpdateFeatures upgrade on a
//	       running cluster, which took effect at once); metadata.version 27;
//	       the same five share.* GROUP configs as 4.2.2; the same
//	       group.share.* broker settings and bounds as 4.2.2;
//	       ShareGroupHeartbeat, ShareGroupDescribe, ShareFetch and
//	       ShareAcknowledge at version 1 only, DescribeShareGroupOffsets at
//	       version 0 (no lag: that is KIP-1226, 4.2)
//	4.2.2  share.version 1 (supported 0–1); GROUP configs share.auto.offset.reset,
//	       share.record.lock.duration.ms, share.session.timeout.ms,
//	       share.heartbeat.interval.ms, share.isolation.level (+ consumer.*, streams.*)
//	4.3.1  share.version 1 (supported 0–1); + share.delivery.count.limit,
//	       share.partition.max.record.locks, share.renew.acknowledge.enable,
//	       share.assignment.interval.ms
//	4.4.0  share.version 2 (supported 0–2, finalized at format time without
//	       any flag); + errors.deadletterqueue.topic.name,
//	       errors.deadletterqueue.copy.record.enable; broker settings
//	       errors.deadletterqueue.auto.create.topics.enable (false) and
//	       errors.deadletterqueue.topic.name.prefix ("dlq."), both dynamic;
//	       the DLQ topic itself needs errors.deadletterqueue.group.enable=true
//	       (a topic config, default false), else the broker archives without
//	       writing to it (docs/how-to/test-kafka-versions.md)
type Features struct {
	Finalized    map[string]int16 `json:"finalized"`
	GroupConfigs []string         `json:"group_configs"`
}

// FormatFeatures are the feature levels a cluster of Kafka version is
// formatted with on top of the release's defaults, as the storage tool's
// --feature arguments (NAME=LEVEL). Kafka 4.1 finalizes share.version 0 by
// default, so its share groups would never consume: the providers format
// it with share.version=1, the way 4.1 enables its share group preview.
// Later releases finalize share.version by themselves.
func FormatFeatures(version string) []string {
	if vocab.SharePreview(version) {
		return []string{"share.version=1"}
	}
	return nil
}

// formatArgs renders FormatFeatures(version) as storage tool arguments.
func formatArgs(version string) []string {
	var args []string
	for _, f := range FormatFeatures(version) {
		args = append(args, "--feature", f)
	}
	return args
}

// ShareVersion is the finalized share.version (0 when absent).
func (f Features) ShareVersion() int16 { return f.Finalized["share.version"] }

// AcceptsGroupConfig reports whether the brokers know key as a GROUP config.
func (f Features) AcceptsGroupConfig(key string) bool { return slices.Contains(f.GroupConfigs, key) }

// ReadFeatures asks the cluster for its finalized features and the GROUP
// configs it accepts (10 s at most).
func ReadFeatures(ctx context.Context, bootstrap []string) (Features, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		return Features{}, fmt.Errorf("features: %w", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	av, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return Features{}, fmt.Errorf("features: ApiVersions: %w", err)
	}
	f := Features{Finalized: map[string]int16{}}
	for _, x := range av.FinalizedFeatures {
		f.Finalized[x.Name] = x.MaxVersionLevel
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = "sharebench-features-probe"
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return f, fmt.Errorf("features: DescribeConfigs GROUP: %w", err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			return f, fmt.Errorf("features: DescribeConfigs GROUP: error code %d", r.ErrorCode)
		}
		for _, c := range r.Configs {
			f.GroupConfigs = append(f.GroupConfigs, c.Name)
		}
	}
	slices.Sort(f.GroupConfigs)
	return f, nil
}
