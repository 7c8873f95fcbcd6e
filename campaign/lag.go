package campaign

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// groupLag returns a LagFunc reading the group's total lag on topic from the
// Admin API: share groups through DescribeShareGroupOffsets (Kafka 4.2
// returns the lag per share partition), consumer groups through kadm's Lag
// (committed offsets against end offsets). A partition whose lag is unknown
// (an error, or -1) fails the reading (collectors.TotalLag): a partial sum
// would read as a smaller backlog, or none; a share-partition at -1 whose
// log is empty never held a record and counts 0 (emptyLogs). startLag:
// the brokers give no share lag (Kafka 4.1), so it is estimated from the
// share-partition start offsets (startOffsetLag).
func (a *admin) groupLag(group, topic string, share, startLag bool) collectors.LagFunc {
	return func(ctx context.Context) (int64, error) {
		if share {
			d, err := a.adm.DescribeShareGroupOffsets(ctx, group)
			if err != nil {
				return 0, fmt.Errorf("share group %q: lag: %w", group, err)
			}
			g, ok := d[group]
			if !ok || g.Err != nil {
				return 0, fmt.Errorf("share group %q: lag: %v", group, g.Err)
			}
			var parts []collectors.PartitionLag
			starts := map[int32]int64{}
			for _, p := range g.Offsets[topic] {
				parts = append(parts, collectors.PartitionLag{Partition: p.Partition, Lag: p.Lag, Err: p.Err})
				starts[p.Partition] = p.StartOffset
			}
			if startLag {
				parts = a.startOffsetLag(ctx, topic, parts, starts)
			}
			total, err := collectors.TotalLag(topic, collectors.KnownEmpty(parts, a.emptyLogs(ctx, topic, parts)))
			if err != nil {
				return 0, fmt.Errorf("share group %q: %w", group, err)
			}
			return total, nil
		}
		d, err := a.adm.Lag(ctx, group)
		if err != nil {
			if total, ok := a.lag848(ctx, group, topic); ok {
				return total, nil
			}
			return 0, fmt.Errorf("consumer group %q: lag: %w", group, err)
		}
		g, ok := d[group]
		if !ok {
			return 0, fmt.Errorf("consumer group %q: lag: not described", group)
		}
		if err := g.Error(); err != nil {
			if total, ok := a.lag848(ctx, group, topic); ok { // KIP-848 (group_protocol.go)
				return total, nil
			}
			return 0, fmt.Errorf("consumer group %q: lag: %w", group, err)
		}
		var parts []collectors.PartitionLag
		for _, p := range g.Lag[topic] {
			parts = append(parts, collectors.PartitionLag{Partition: p.Partition, Lag: p.Lag, Err: p.Err})
		}
		total, err := collectors.TotalLag(topic, parts)
		if err != nil {
			return 0, fmt.Errorf("consumer group %q: %w", group, err)
		}
		return total, nil
	}
}

// emptyLogs reads, only when some partition's lag came back unknown (-1),
// which partitions of topic have an empty log (end offset = start offset):
// those never held a record, so their lag is 0 (collectors.KnownEmpty).
// nil when none is unknown or the offsets cannot be read (the lag then
// stays unknown).
func (a *admin) emptyLogs(ctx context.Context, topic string, parts []collectors.PartitionLag) map[int32]bool {
	if !slices.ContainsFunc(parts, func(p collectors.PartitionLag) bool { return p.Err == nil && p.Lag < 0 }) {
		return nil
	}
	ends, err := a.adm.ListEndOffsets(ctx, topic)
	if err != nil || ends.Error() != nil {
		return nil
	}
	starts, err := a.adm.ListStartOffsets(ctx, topic)
	if err != nil || starts.Error() != nil {
		return nil
	}
	out := map[int32]bool{}
	for p, end := range ends[topic] {
		if start, ok := starts.Lookup(topic, p); ok && start.Err == nil && end.Err == nil && end.Offset == start.Offset {
			out[p] = true
		}
	}
	return out
}

// startOffsetLag fills in the share lag Kafka 4.1 does not give as log end
// offset − share-partition start offset (collectors.LagFromStartOffsets);
// parts unchanged when the end offsets cannot be read.
func (a *admin) startOffsetLag(ctx context.Context, topic string, parts []collectors.PartitionLag, starts map[int32]int64) []collectors.PartitionLag {
	ends, err := a.adm.ListEndOffsets(ctx, topic)
	if err != nil || ends.Error() != nil {
		return parts
	}
	end := map[int32]int64{}
	for p, o := range ends[topic] {
		end[p] = o.Offset
	}
	return collectors.LagFromStartOffsets(parts, starts, end)
}

// brokerSummary derives the run's broker figures from the scrapes.
func brokerSummary(s *collectors.BrokerScraper, clock *results.Clock, w results.Window, completed float64) results.BrokerMetrics {
	b := collectors.SummarizeBroker(s.Samples(), clock.Time(w.Start), clock.Time(w.End), int64(completed+0.5), runtime.NumCPU())
	b.ScrapeErrors, b.LastScrapeError = s.Errors()
	return b
}

// collectorHealth tells the validity check how the samplers fared.
// lagMissing are the printed lag figures its readings could not give
// (collectors.LagSampler.Missing).
func collectorHealth(b results.BrokerMetrics, l results.LagSummary, lagMissing []string) []runs.CollectorHealth {
	var out []runs.CollectorHealth
	if b.Endpoints > 0 {
		out = append(out, runs.CollectorHealth{Name: "broker metrics scrape", Attempts: b.Samples + b.ScrapeErrors,
			Failures: b.ScrapeErrors, LastError: b.LastScrapeError, NoWindow: b.WindowSec == 0})
	}
	out = append(out, runs.CollectorHealth{Name: "group lag", Attempts: l.Samples + l.Errors, Failures: l.Errors, LastError: l.LastError,
		Missing: lagMissing})
	return out
}
