package campaign

import (
	"context"
	"maps"
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
	sp := s.spec
	return layout(g.members, leaders, producer.PartitionShares(sp.KeyMode, sp.Keys, sp.Partitions, sp.HotKeys.Share, sp.HotKeys.Keys, sp.PartitionSkew))
}

// layout is, per member in a stable order (by member id), its leader
// brokers, the busy ones among them (a partition there receives records)
// and each broker's share of all records for it: the shares of the
// member's partitions that broker leads, each divided among the members
// holding the partition (a share partition can have several).
func layout(members map[string][]int32, leaders map[int32]int32, shares []float64) []runs.MemberBrokers {
	ids := make([]string, 0, len(members))
	holders := map[int32]int{}
	for id, ps := range members {
		ids = append(ids, id)
		for _, p := range ps {
			holders[p]++
		}
	}
	slices.Sort(ids)
	out := make([]runs.MemberBrokers, 0, len(ids))
	for _, id := range ids {
		perBroker := map[int32]float64{}
		for _, p := range members[id] {
			l, ok := leaders[p]
			if !ok {
				continue
			}
			perBroker[l] += 0 // led, with or without records
			if int(p) < len(shares) && p >= 0 {
				perBroker[l] += shares[p] / float64(holders[p])
			}
		}
		brokers := slices.Sorted(maps.Keys(perBroker))
		m := runs.MemberBrokers{Brokers: len(brokers), Shares: make([]float64, len(brokers))}
		for i, b := range brokers {
			m.Shares[i] = perBroker[b]
			if perBroker[b] > 0 {
				m.Busy++
			}
		}
		out = append(out, m)
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
