package runs

import (
	"fmt"
	"slices"
)

// ClockSkewLimitMs is the clock-offset uncertainty above which a sharded
// run is flagged clock_skew: latencies measured across agents (sent on
// one, completed on another) are corrected by each agent's measured offset
// to the coordinator, and their error is bounded by the sum of two agents'
// uncertainties. 10 ms is a tenth of the harness's schedule-lag limit and
// above what a ping round trip over a local broker takes (a few ms);
// an agent whose best ping took longer than 20 ms cannot place its
// timestamps well enough for millisecond latencies.
const ClockSkewLimitMs = 10.0

// Shards records a run split over agents (docs/how-to/run-sharded.md).
type Shards struct {
	Count    int    `json:"count"`
	Launcher string `json:"launcher"` // "local", "k8s"
	// MaxUncertaintyMs is the largest clock-offset uncertainty of any
	// agent; above LimitMs the run is flagged clock_skew.
	MaxUncertaintyMs float64 `json:"max_uncertainty_ms"`
	LimitMs          float64 `json:"clock_skew_limit_ms"`
	// MergeSec is the coordinator's time to decode every agent's results
	// and absorb them into one recorder (ledger marks, counters,
	// histograms), after the last agent sent them.
	MergeSec float64      `json:"merge_s"`
	PerShard []ShardStats `json:"per_shard"`
}

// ShardStats are one agent's figures.
type ShardStats struct {
	Shard int `json:"shard"`
	// OffsetMs is what the agent added to its clock to read the
	// coordinator's (the minimum-RTT ping's estimate), UncertaintyMs half
	// that ping's round trip: the true offset lies within ±UncertaintyMs.
	OffsetMs      float64 `json:"offset_ms"`
	UncertaintyMs float64 `json:"uncertainty_ms"`
	Pings         int     `json:"pings"`
	// Producers and Members are the indices it ran (i mod count = shard).
	Producers []int `json:"producers"`
	Members   []int `json:"members"`
	// Acked are produce acknowledgements its producers received;
	// Completed the completions its members made (of any shard's records).
	Acked     int64 `json:"acked"`
	Completed int64 `json:"completed"`
	// CPUSec is the agent process's user+system CPU time over its life,
	// MaxRSSMiB its peak resident memory (getrusage).
	CPUSec    float64 `json:"cpu_sec"`
	MaxRSSMiB float64 `json:"max_rss_mib"`
}

// SkewFlag is the clock_skew flag of a sharded run whose largest offset
// uncertainty exceeds its limit (nil: none).
func (s *Shards) SkewFlag() *Flag {
	if s == nil || s.MaxUncertaintyMs <= s.LimitMs {
		return nil
	}
	i := slices.IndexFunc(s.PerShard, func(p ShardStats) bool { return p.UncertaintyMs == s.MaxUncertaintyMs })
	shard := -1
	if i >= 0 {
		shard = s.PerShard[i].Shard
	}
	return &Flag{Code: CodeClockSkew, Message: fmt.Sprintf(
		"shard %d's clock offset to the coordinator is known only to ±%.1f ms (limit %.0f ms): latencies between agents may be off by that much",
		shard, s.MaxUncertaintyMs, s.LimitMs)}
}
