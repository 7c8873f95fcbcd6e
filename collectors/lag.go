package collectors

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sharebench/sharebench/results"
)

// LagFunc returns a group's total lag now.
type LagFunc func(ctx context.Context) (int64, error)

// LagSample is one lag reading.
type LagSample struct {
	At  time.Time
	Lag int64
}

// LagSampler calls a LagFunc every interval in the background. Failed
// readings are counted and kept as gaps (Gaps), never fatal, never a 0.
type LagSampler struct {
	fn       LagFunc
	interval time.Duration
	// Tick and Now replace the wall clock (tests); nil: RealTicker, time.Now.
	Tick Ticker
	Now  func() time.Time

	mu      sync.Mutex
	samples []LagSample
	gaps    []time.Time // readings that failed
	errors  int
	lastErr string
	// answers are the last readings' answer times (a ring of
	// lagAnswerWindow); timeout is the next reading's bound and
	// maxTimeout the largest used.
	answers    []time.Duration
	timeout    time.Duration
	maxTimeout time.Duration

	loop *periodic
	cost CPUMeter // the readings' own CPU on the harness (selfcost.go)
}

// CPU is the harness CPU the lag readings took in this sampler's goroutine
// (CPUMeter: the client's decoding of the answers is not in it).
func (l *LagSampler) CPU() *CPUMeter {
	if l == nil {
		return nil
	}
	return &l.cost
}

// The lag reading's timeout scales with the broker's answer times: 4 × the
// slowest of the last lagAnswerWindow answers, at least max(interval, 2 s)
// and at most lagTimeoutCap; a reading that timed out doubles it (a busy
// broker answers late, not never).
const (
	lagAnswerWindow = 8
	lagTimeoutCap   = 30 * time.Second
)

// NewLagSampler returns a sampler of fn every interval (default 1 s); each
// reading is bounded by a timeout that follows the broker's answer times
// (at least max(interval, 2 s), at most 30 s).
func NewLagSampler(fn LagFunc, interval time.Duration) *LagSampler {
	if interval <= 0 {
		interval = time.Second
	}
	return &LagSampler{fn: fn, interval: interval}
}

// minTimeout is the reading timeout's floor.
func (l *LagSampler) minTimeout() time.Duration { return max(l.interval, 2*time.Second) }

// nextTimeout is the bound of the next reading; callers hold l.mu.
func (l *LagSampler) nextTimeout() time.Duration {
	if l.timeout <= 0 {
		l.timeout = l.minTimeout()
	}
	return l.timeout
}

// answered updates the timeout after a reading that took d (ok: it
// answered; else it failed, timedOut: by the timeout); callers hold l.mu.
func (l *LagSampler) answered(d time.Duration, ok, timedOut bool) {
	switch {
	case ok:
		if len(l.answers) == lagAnswerWindow {
			l.answers = l.answers[1:]
		}
		l.answers = append(l.answers, d)
		slowest := slices.Max(l.answers)
		l.timeout = min(max(4*slowest, l.minTimeout()), lagTimeoutCap)
	case timedOut:
		l.timeout = min(2*l.nextTimeout(), lagTimeoutCap)
	}
}

// Start samples at once, then every interval, until Stop or ctx ends.
func (l *LagSampler) Start(ctx context.Context) {
	l.loop = startPeriodic(ctx, l.interval, l.Tick, func(ctx context.Context) { l.cost.Measure(func() { l.sample(ctx) }) })
}

func (l *LagSampler) sample(ctx context.Context) {
	l.mu.Lock()
	timeout := l.nextTimeout()
	l.maxTimeout = max(l.maxTimeout, timeout)
	l.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	at := now(l.Now)
	start := time.Now()
	lag, err := l.fn(rctx)
	took := time.Since(start)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			l.errors++
			l.lastErr = err.Error()
			if rctx.Err() != nil {
				l.lastErr = fmt.Sprintf("no answer within %v: %v", timeout, err)
			}
			if len(l.gaps) < maxSamples {
				l.gaps = append(l.gaps, at)
			}
			l.answered(took, false, rctx.Err() != nil)
		}
		return
	}
	l.answered(took, true, false)
	if len(l.samples) < maxSamples {
		l.samples = append(l.samples, LagSample{At: at, Lag: lag})
	}
}

// Gaps returns when the readings that failed were taken: the lag series'
// gaps (a gap is unknown, never 0).
func (l *LagSampler) Gaps() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.gaps)
}

// Missing lists the lag figures the report prints that the readings
// cannot give: lag.max and lag.at_window_end without any reading, and
// lag.at_window_end when no reading lies within lagEndSlack of the
// window's end. Failed readings between good ones are gaps, not missing
// figures.
func (l *LagSampler) Missing(windowEnd time.Time) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return MissingLag(l.samples, windowEnd, max(lagEndSlack, 3*l.interval))
}

// lagEndSlack is how far from the window's end the reading behind
// lag.at_window_end may lie.
const lagEndSlack = 5 * time.Second

// MissingLag is LagSampler.Missing on given readings, slack the distance
// allowed between the window's end and its nearest reading.
func MissingLag(samples []LagSample, windowEnd time.Time, slack time.Duration) []string {
	if len(samples) == 0 {
		return []string{"lag.max", "lag.at_window_end"}
	}
	nearest := absDur(samples[0].At.Sub(windowEnd))
	for _, s := range samples[1:] {
		nearest = min(nearest, absDur(s.At.Sub(windowEnd)))
	}
	if nearest > slack {
		return []string{"lag.at_window_end"}
	}
	return nil
}

// Stop ends the sampling loop.
func (l *LagSampler) Stop() {
	l.loop.stop()
	l.loop = nil
}

// Samples returns a copy of the readings.
func (l *LagSampler) Samples() []LagSample {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LagSample(nil), l.samples...)
}

// Latest returns the most recent reading; ok is false before the first.
func (l *LagSampler) Latest() (s LagSample, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.samples) == 0 {
		return LagSample{}, false
	}
	return l.samples[len(l.samples)-1], true
}

// Summary returns the run's lag summary; windowEnd picks AtWindowEnd.
func (l *LagSampler) Summary(windowEnd time.Time) results.LagSummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := SummarizeLag(l.samples, l.errors, windowEnd)
	out.LastError = l.lastErr
	out.TimeoutMaxMs = float64(l.maxTimeout) / 1e6
	for _, a := range l.answers {
		out.AnswerMaxMs = max(out.AnswerMaxMs, float64(a)/1e6)
	}
	return out
}

// SummarizeLag is LagSampler.Summary on given readings.
func SummarizeLag(samples []LagSample, errors int, windowEnd time.Time) results.LagSummary {
	out := results.LagSummary{Samples: len(samples), Errors: errors}
	best := -1
	for i, s := range samples {
		out.Max = max(out.Max, s.Lag)
		if best < 0 || absDur(s.At.Sub(windowEnd)) < absDur(samples[best].At.Sub(windowEnd)) {
			best = i
		}
	}
	if best >= 0 {
		out.AtWindowEnd = samples[best].Lag
	}
	return out
}

// PartitionLag is one partition's lag as the Admin API returned it: Lag is
// -1 (or any negative) when the broker could not compute it, Err set when
// the partition's offsets failed.
type PartitionLag struct {
	Partition int32
	Lag       int64
	Err       error
}

// KnownEmpty gives a partition whose lag the broker could not compute
// (negative, no error) a lag of 0 when its log is empty (log end offset =
// log start offset, read from the broker): a share-partition that never
// held a record has no state, so Kafka answers -1 for it, yet there is
// nothing to deliver. Any other negative lag stays unknown. empty reports,
// per partition, whether its log is empty; a partition it does not know
// stays as it was.
func KnownEmpty(parts []PartitionLag, empty map[int32]bool) []PartitionLag {
	out := slices.Clone(parts)
	for i, p := range out {
		if p.Err == nil && p.Lag < 0 && empty[p.Partition] {
			out[i].Lag = 0
		}
	}
	return out
}

// TotalLag sums the partitions' lag. A partition whose offsets failed or
// whose lag is unknown makes the total unknown: the reading is an error
// naming the partitions (the sampler counts it as a failed reading), never
// a partial sum, which would read as a smaller backlog (or 0, "no backlog",
// and a drain estimate of 0 s). No partitions at all is unknown too.
func TotalLag(topic string, parts []PartitionLag) (int64, error) {
	if len(parts) == 0 {
		return 0, fmt.Errorf("lag of topic %q unknown: no partitions described", topic)
	}
	var total int64
	var bad []string
	for _, p := range parts {
		switch {
		case p.Err != nil:
			bad = append(bad, fmt.Sprintf("partition %d: %v", p.Partition, p.Err))
		case p.Lag < 0:
			bad = append(bad, fmt.Sprintf("partition %d: lag %d (unknown)", p.Partition, p.Lag))
		default:
			total += p.Lag
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return 0, fmt.Errorf("lag of topic %q unknown: %d of %d partitions failed: %s", topic, len(bad), len(parts), strings.Join(bad, "; "))
	}
	return total, nil
}

// LagFromStartOffsets gives a share partition whose lag the broker did not
// compute (negative, no error) the lag end − start, from its share-partition
// start offset (start) and its log end offset (end). Kafka 4.1's
// DescribeShareGroupOffsets (version 0) returns the start offset but no lag
// (KIP-1226 added it in 4.2). Records acknowledged above the start offset
// count as lag here, so the figure is an upper bound of 4.2's (equal to it
// when no record above the start offset is acknowledged yet), and 0 once
// the group has acknowledged everything. A partition whose start
// or end offset is unknown (negative or absent) keeps its unknown lag.
func LagFromStartOffsets(parts []PartitionLag, start, end map[int32]int64) []PartitionLag {
	out := slices.Clone(parts)
	for i, p := range out {
		s, okS := start[p.Partition]
		e, okE := end[p.Partition]
		if p.Err == nil && p.Lag < 0 && okS && okE && s >= 0 && e >= s {
			out[i].Lag = e - s
		}
	}
	return out
}
