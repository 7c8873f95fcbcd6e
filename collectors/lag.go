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
// readings are counted, never fatal.
type LagSampler struct {
	fn       LagFunc
	interval time.Duration
	// Tick and Now replace the wall clock (tests); nil: RealTicker, time.Now.
	Tick Ticker
	Now  func() time.Time

	mu      sync.Mutex
	samples []LagSample
	errors  int
	lastErr string

	loop *periodic
}

// NewLagSampler returns a sampler of fn every interval (default 1 s); each
// reading is bounded by the interval (at least 2 s).
func NewLagSampler(fn LagFunc, interval time.Duration) *LagSampler {
	if interval <= 0 {
		interval = time.Second
	}
	return &LagSampler{fn: fn, interval: interval}
}

// Start samples at once, then every interval, until Stop or ctx ends.
func (l *LagSampler) Start(ctx context.Context) {
	l.loop = startPeriodic(ctx, l.interval, l.Tick, l.sample)
}

func (l *LagSampler) sample(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, max(l.interval, 2*time.Second))
	defer cancel()
	at := now(l.Now)
	lag, err := l.fn(rctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			l.errors++
			l.lastErr = err.Error()
		}
		return
	}
	if len(l.samples) < maxSamples {
		l.samples = append(l.samples, LagSample{At: at, Lag: lag})
	}
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
