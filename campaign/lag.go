package campaign

import (
	"context"
	"fmt"
	"runtime"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// groupLag returns a LagFunc reading the group's total lag on topic from the
// Admin API: share groups through DescribeShareGroupOffsets (Kafka 4.2
// returns the lag per share partition), consumer groups through kadm's Lag
// (committed offsets against end offsets). A partition whose lag is unknown
// (an error, or -1) fails the reading (collectors.TotalLag): a partial sum
// would read as a smaller backlog, or none.
func (a *admin) groupLag(group, topic string, share bool) collectors.LagFunc {
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
			for _, p := range g.Offsets[topic] {
				parts = append(parts, collectors.PartitionLag{Partition: p.Partition, Lag: p.Lag, Err: p.Err})
			}
			total, err := collectors.TotalLag(topic, parts)
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

// brokerSummary derives the run's broker figures from the scrapes.
func brokerSummary(s *collectors.BrokerScraper, clock *results.Clock, w results.Window, completed float64) results.BrokerMetrics {
	b := collectors.SummarizeBroker(s.Samples(), clock.Time(w.Start), clock.Time(w.End), int64(completed+0.5), runtime.NumCPU())
	b.ScrapeErrors, b.LastScrapeError = s.Errors()
	return b
}

// collectorHealth tells the validity check how the samplers fared.
func collectorHealth(b results.BrokerMetrics, l results.LagSummary) []runs.CollectorHealth {
	var out []runs.CollectorHealth
	if b.Endpoints > 0 {
		out = append(out, runs.CollectorHealth{Name: "broker metrics scrape", Attempts: b.Samples + b.ScrapeErrors,
			Failures: b.ScrapeErrors, LastError: b.LastScrapeError, NoWindow: b.WindowSec == 0})
	}
	out = append(out, runs.CollectorHealth{Name: "group lag", Attempts: l.Samples + l.Errors, Failures: l.Errors, LastError: l.LastError})
	return out
}
