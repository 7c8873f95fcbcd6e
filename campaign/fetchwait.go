package campaign

import (
	"context"
	"slices"

	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// fetchesOneAtATime reports whether a share member fetches from one broker
// at a time: acquire_mode record_limit without prefetch on (franz-go's
// ShareMaxRecordsStrict allows one fetch per poll).
func fetchesOneAtATime(s scenarios.RunSpec) bool {
	return s.ConsumerType == vocab.ShareGroup && s.AcquireMode == vocab.AcquireRecordLimit && s.Prefetch != vocab.PrefetchOn
}

// memberBrokers is, per member of the formed group, the brokers leading its
// partitions and how many of those lead a partition the producers' key
// mode sends records to; nil unless the members fetch one broker at a time
// or when the leaders cannot be read.
func (s *runSetup) memberBrokers(ctx context.Context, g groupSnapshot) []runs.MemberBrokers {
	if !fetchesOneAtATime(s.spec) {
		return nil
	}
	md, err := s.adm.adm.Metadata(ctx, s.topic)
	if err != nil {
		return nil
	}
	t, ok := md.Topics[s.topic]
	if !ok || t.Err != nil {
		return nil
	}
	leaders := map[int32]int32{}
	for _, p := range t.Partitions {
		leaders[p.Partition] = p.Leader
	}
	return layout(g.members, leaders, producer.BusyPartitions(s.spec.KeyMode, s.spec.Keys, s.spec.Partitions))
}

// layout counts each member's leader brokers and the busy ones among them,
// in a stable order (by member id).
func layout(members map[string][]int32, leaders map[int32]int32, busy []bool) []runs.MemberBrokers {
	ids := make([]string, 0, len(members))
	for id := range members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]runs.MemberBrokers, 0, len(ids))
	for _, id := range ids {
		all, hot := map[int32]bool{}, map[int32]bool{}
		for _, p := range members[id] {
			l, ok := leaders[p]
			if !ok {
				continue
			}
			all[l] = true
			if int(p) < len(busy) && busy[p] {
				hot[l] = true
			}
		}
		out = append(out, runs.MemberBrokers{Brokers: len(all), Busy: len(hot)})
	}
	return out
}

// fetchWaitInput is the fetch-wait bound's input for a member layout; nil
// without one.
func fetchWaitInput(s scenarios.RunSpec, members []runs.MemberBrokers) *runs.FetchWaitInput {
	if len(members) == 0 {
		return nil
	}
	return &runs.FetchWaitInput{MaxWaitMs: float64(s.EffectiveFetchMaxWait()) / 1e6,
		RecordsPerFetch: float64(s.MaxPollRecords), Members: members}
}
