package infra

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Features is what a running cluster supports, read from its brokers at
// start: the finalized feature levels (ApiVersions) and the names of the
// configs a GROUP resource accepts (DescribeConfigs on a group that need
// not exist). What was seen on process clusters (2026-11-30):
//
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
//	       writing to it (docs/kafka-versions.md)
type Features struct {
	Finalized    map[string]int16 `json:"finalized"`
	GroupConfigs []string         `json:"group_configs"`
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
