package campaign

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// groupKnobs are the run's consumer-group protocol knobs for the fleet.
func groupKnobs(s scenarios.RunSpec) consumers.GroupKnobs {
	return consumers.GroupKnobs{
		Protocol: consumers.GroupProtocol(s.GroupProtocol), RemoteAssignor: s.RemoteAssignor, Assignor: s.Assignor,
		Static: s.StaticMembership, AutoCommit: s.Commit == vocab.CommitAuto, AutoCommitInterval: s.AutoCommitInterval,
		RebalanceTimeout: s.RebalanceTimeout,
	}
}

// defaultConsumerSessionTimeout is Kafka's group.consumer.session.timeout.ms.
const defaultConsumerSessionTimeout = 45 * time.Second

// consumerSessionTimeout is the session timeout of a KIP-848 group: the
// broker's group.consumer.session.timeout.ms (the client has no say).
func consumerSessionTimeout(s scenarios.RunSpec) time.Duration {
	if ms, err := strconv.Atoi(s.BrokerConfig["group.consumer.session.timeout.ms"]); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return defaultConsumerSessionTimeout
}

// groupProtocol reads back the protocol the broker runs the run's group
// with: ConsumerGroupDescribe answers for KIP-848 groups only (a classic
// group gives GROUP_ID_NOT_FOUND there), DescribeGroups tells a classic
// group by its protocol type and names the chosen assignor.
func (a *admin) groupProtocol(ctx context.Context, group string, s scenarios.RunSpec) *runs.GroupInfo {
	info := &runs.GroupInfo{Requested: string(cmp.Or(s.GroupProtocol, vocab.ProtocolClassic)), Static: s.StaticMembership, Commit: cmp.Or(s.Commit, vocab.CommitAfterProcessing)}
	if s.ConsumerType == vocab.ShareGroup {
		info.Requested, info.Protocol, info.Assignor, info.Static, info.Commit = "share", "share", "simple", false, ""
		if d, err := a.adm.DescribeShareGroups(ctx, group); err == nil && d[group].Err == nil {
			if n := d[group].Assignor; n != "" {
				info.Assignor = n
			}
		}
		info.Rebalance = runs.RebalanceOf("share", "")
		return info
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if d, err := a.adm.DescribeConsumerGroups(ctx, group); err == nil && d[group].Err == nil && len(d[group].Members) > 0 {
		info.Protocol, info.Assignor = "consumer", d[group].AssignorName
	} else if g, err := a.adm.DescribeGroups(ctx, group); err != nil {
		info.Error = err.Error()
	} else if dg := g[group]; dg.Err != nil {
		info.Error = dg.Err.Error()
	} else if dg.ProtocolType == "consumer" {
		info.Protocol, info.Assignor = "classic", dg.Protocol
	} else {
		info.Error = fmt.Sprintf("group %q: protocol type %q, state %q", group, dg.ProtocolType, dg.State)
	}
	info.Rebalance = runs.RebalanceOf(info.Protocol, info.Assignor)
	info.Fallback = info.Protocol != "" && info.Protocol != info.Requested
	return info
}

// lag848 is a KIP-848 group's lag on topic, which kadm's Lag cannot read
// (it describes the group with the classic DescribeGroups): committed
// offsets (OffsetFetch, which serves both protocols) against end offsets; a
// partition with no commit yet lags from its start offset (the members
// reset to the earliest offset). ok is false when the group is not a
// KIP-848 group or a reading failed.
func (a *admin) lag848(ctx context.Context, group, topic string) (int64, bool) {
	if d, err := a.adm.DescribeConsumerGroups(ctx, group); err != nil || d[group].Err != nil {
		return 0, false
	}
	committed, err := a.adm.FetchOffsets(ctx, group)
	if err != nil || committed.Error() != nil {
		return 0, false
	}
	ends, err := a.adm.ListEndOffsets(ctx, topic)
	if err != nil || ends.Error() != nil {
		return 0, false
	}
	starts, err := a.adm.ListStartOffsets(ctx, topic)
	if err != nil || starts.Error() != nil {
		return 0, false
	}
	var total int64
	for p, end := range ends[topic] {
		at := starts[topic][p].Offset
		if c, ok := committed.Lookup(topic, p); ok && c.At >= 0 {
			at = c.At
		}
		total += max(0, end.Offset-at)
	}
	return total, true
}
