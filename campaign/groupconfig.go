package campaign

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// autoOffsetReset is the group setting every share run gets: share groups
// start at "latest" by default, and the whole schedule must be delivered,
// including records produced before a member's first fetch.
var autoOffsetReset = map[string]string{scenarios.GroupKeyAutoOffsetReset: "earliest"}

// applyGroupConfig sets the share group's settings before its members join
// (share.auto.offset.reset=earliest, the run's group_config and dead-letter
// settings) in one IncrementalAlterConfigs on the GROUP resource, reads them
// back with DescribeConfigs and records both. A value read back that
// differs from the one set fails the run: it would measure another group.
func (s *runSetup) applyGroupConfig(ctx context.Context) error {
	want := maps.Clone(autoOffsetReset)
	maps.Copy(want, s.spec.ShareGroupConfig())
	s.dlqGroupTopic(want) // the run's own DLQ topic (deadletter.go)
	if err := s.adm.setGroupConfig(ctx, s.group, want); err != nil {
		return err
	}
	// The brokers apply a GROUP config from the metadata log, a moment
	// after IncrementalAlterConfigs returns (seen on 4.3.1: an immediate
	// DescribeConfigs read the defaults back): poll until the values are in
	// force, so no member joins a group that still has the old ones.
	var got, src map[string]string
	var err error
	var diff []string
	start := time.Now()
	_ = poll(ctx, groupConfigTimeout, func() (bool, error) {
		got, src, err = s.adm.describeGroupConfig(ctx, s.group, slices.Sorted(maps.Keys(want)))
		diff = configDiff(want, got)
		return err == nil && len(diff) == 0, nil
	}, "group config not in force")
	s.groupCfg = &runs.GroupConfig{Applied: want, ReadBack: got, Source: src,
		InForceAfterMs: float64(time.Since(start).Microseconds()) / 1e3}
	if err != nil {
		if len(want) == len(autoOffsetReset) {
			fmt.Fprintf(s.log, "  %s: group config not read back: %v\n", s.id, err)
			return nil // the harness's own setting: IncrementalAlterConfigs succeeded
		}
		return fmt.Errorf("group_config: read back: %w", err)
	}
	if len(diff) > 0 {
		return fmt.Errorf("group %q: group_config not in force after %v: %s", s.group, groupConfigTimeout, strings.Join(diff, "; "))
	}
	if len(want) > len(autoOffsetReset) {
		fmt.Fprintf(s.log, "  %s: group config %s (read back, in force after %.0f ms)\n", s.id, formatSettings(got), s.groupCfg.InForceAfterMs)
	}
	return nil
}

// groupConfigTimeout bounds the wait for group settings to be in force.
const groupConfigTimeout = 15 * time.Second

// configDiff lists the settings of want that got does not hold.
func configDiff(want, got map[string]string) []string {
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			diff = append(diff, fmt.Sprintf("%s set %q, read back %q", k, want[k], got[k]))
		}
	}
	return diff
}

// describeGroupConfig reads the named GROUP configs of group: values and
// their sources (GROUP_CONFIG, DEFAULT_CONFIG, ...).
func (a *admin) describeGroupConfig(ctx context.Context, group string, names []string) (map[string]string, map[string]string, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	res.ConfigNames = names
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, a.cl)
	if err != nil {
		return nil, nil, fmt.Errorf("group %q: describe configs: %w", group, err)
	}
	vals, srcs := map[string]string{}, map[string]string{}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			msg := ""
			if r.ErrorMessage != nil {
				msg = *r.ErrorMessage
			}
			return nil, nil, fmt.Errorf("group %q: describe configs: error code %d %s", group, r.ErrorCode, msg)
		}
		for _, c := range r.Configs {
			if c.Value != nil {
				vals[c.Name] = *c.Value
			}
			srcs[c.Name] = c.Source.String()
		}
	}
	return vals, srcs, nil
}

func formatSettings(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// checkFeatures reads what the started cluster supports (finalized
// features, GROUP configs), records it in the environment and refuses the
// cluster's runs, before the first of them, when one needs a group setting
// or a feature the brokers lack: the error names the release that has it,
// or for share groups that are off (Kafka 4.1's preview without
// share.version 1), the command that turns them on. shareOff reports a
// Kafka cluster whose share groups are off (then no run of the group is a
// share run): priming leaves share groups out.
func (c *campaign) checkFeatures(ctx context.Context, cl infra.Cluster, group []int, env *runs.Environment) (shareOff bool, err error) {
	var need featureNeeds
	for _, i := range group {
		r := c.sc.Runs[i]
		for k := range r.ShareGroupConfig() {
			if !slices.Contains(need.groupKeys, k) {
				need.groupKeys = append(need.groupKeys, k)
			}
		}
		need.share = need.share || (r.ConsumerType == vocab.ShareGroup && cl.IsKafka()) // kfake is not Kafka's feature table
		need.dlq = need.dlq || (r.ConsumerType == vocab.ShareGroup && r.DeadLetter != nil)
	}
	f, err := infra.ReadFeatures(ctx, cl.Bootstrap())
	if err != nil {
		if len(need.groupKeys) == 0 {
			fmt.Fprintf(c.log, "cluster features not read: %v\n", err)
			return false, nil
		}
		return false, fmt.Errorf("group_config: %w", err)
	}
	if env.Broker != nil {
		env.Broker.GroupConfigs = f.GroupConfigs
	}
	shareOff = cl.IsKafka() && f.ShareVersion() < 1
	if shareOff && !need.share {
		fmt.Fprintf(c.log, "share groups are off on this cluster (share.version not finalized): priming through a consumer group only\n")
	}
	return shareOff, featureProblems(f, need, cl.KafkaVersion())
}

// featureNeeds is what a cluster's runs ask of its brokers.
type featureNeeds struct {
	groupKeys []string // the group settings the runs set (ShareGroupConfig)
	share     bool     // a share run on Apache Kafka: share.version ≥ 1
	dlq       bool     // a dead_letter: block: share.version ≥ 2
}

// featureProblems is checkFeatures' verdict on what the cluster offers.
func featureProblems(f infra.Features, need featureNeeds, version string) error {
	var probs []string
	if need.share && f.ShareVersion() < 1 {
		// Nothing else is worth saying: no share run can consume.
		return fmt.Errorf("refused before any run on this cluster: consumer_type share: the brokers (Kafka %s) have share groups off "+
			"(share.version is not finalized; Kafka 4.1 ships them as a preview that must be enabled): enable them with "+
			"kafka-features.sh --bootstrap-server HOST:PORT upgrade --feature share.version=1 (or format the storage with "+
			"--feature share.version=1), or run consumer_type consumer only", version)
	}
	keys := slices.Sorted(slices.Values(need.groupKeys))
	for _, k := range keys {
		if !f.AcceptsGroupConfig(k) {
			since := scenarios.GroupSettingSince(k)
			probs = append(probs, fmt.Sprintf("group_config.%s: the brokers (Kafka %s) do not accept it as a group setting; it needs Kafka %s or newer",
				k, version, since))
		}
	}
	if need.dlq && f.ShareVersion() < 2 {
		probs = append(probs, fmt.Sprintf("dead_letter: needs share.version 2 (Kafka 4.4.0 or newer); the brokers (Kafka %s) finalized share.version %d",
			version, f.ShareVersion()))
	}
	if len(probs) > 0 {
		return fmt.Errorf("refused before any run on this cluster: %s", strings.Join(probs, "; "))
	}
	return nil
}

// recordLockLimit puts the run's record-lock limit (group setting, else
// broker setting) beside the largest per-partition in-flight count.
func recordLockLimit(b *results.BrokerMetrics, spec scenarios.RunSpec) {
	sp := b.SharePartitions
	if sp == nil || spec.ConsumerType != vocab.ShareGroup {
		return
	}
	sp.RecordLocksLimit = spec.RecordLocks()
	if sp.RecordLocksLimit > 0 {
		sp.InFlightOfLimitMax = sp.InFlightMessagesPartitionMax / float64(sp.RecordLocksLimit)
	}
}
