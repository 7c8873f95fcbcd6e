package collectors

import (
	"context"
	"math"
	"time"

	"github.com/sharebench/sharebench/internal/retry"
)

// SettleConfig bounds a settle: the brokers' CPU rate is sampled every
// Interval until it is back near idle, for at most Max.
type SettleConfig struct {
	Interval time.Duration
	Max      time.Duration
	// Baseline is the idle brokers' CPU rate in cores (the scrape
	// calibration's idle phases); a negative Baseline means none is known
	// yet (before the calibration).
	Baseline float64
}

// SettleResult is what a settle did: how long it sampled, the CPU rate of
// its last interval and whether that rate met SettleDone (false: the bound
// ended it).
type SettleResult struct {
	Sec, EndCores, Baseline, Margin float64
	Samples                         int
	Settled                         bool
}

// SettleMargin is how far above the idle baseline the brokers' CPU rate may
// read and count as settled: half the baseline, at least 0.02 cores (two
// clock ticks per second of /proc CPU time, its resolution over a 1 s
// interval).
func SettleMargin(baseline float64) float64 { return math.Max(0.02, 0.5*baseline) }

// SettleDone is the settle decision on the CPU rates (cores) sampled so
// far, oldest first. With a baseline (≥ 0) the brokers are settled when the
// last rate is at most baseline + margin. Without one they are settled when
// the rate has stopped falling: the last two rates are within margin of
// each other. No sample is never settled.
func SettleDone(rates []float64, baseline, margin float64) bool {
	n := len(rates)
	if n == 0 {
		return false
	}
	if baseline >= 0 {
		return rates[n-1] <= baseline+margin
	}
	return n >= 2 && math.Abs(rates[n-1]-rates[n-2]) <= margin
}

// Settle waits until the brokers' CPU is back near idle (SettleDone),
// reading the CPU time of the processes pids returns (ReadCPU, as the runs'
// broker CPU figures do) every cfg.Interval, for at most cfg.Max. It
// returns early, unsettled, when ctx ends.
func Settle(ctx context.Context, pids func() []int, cfg SettleConfig) SettleResult {
	margin := SettleMargin(max(cfg.Baseline, 0))
	out := SettleResult{Baseline: cfg.Baseline, Margin: margin}
	began := time.Now()
	var rates []float64
	prev := ReadCPU(pids())
	for time.Since(began) < cfg.Max {
		if !retry.Sleep(ctx, cfg.Interval) {
			break
		}
		cur := ReadCPU(pids())
		u := Usage(prev, cur)
		prev = cur
		if u.Seconds <= 0 {
			continue
		}
		rates = append(rates, u.BrokerCPUSeconds/u.Seconds)
		if SettleDone(rates, cfg.Baseline, margin) {
			out.Settled = true
			break
		}
	}
	out.Sec, out.Samples = time.Since(began).Seconds(), len(rates)
	if len(rates) > 0 {
		out.EndCores = rates[len(rates)-1]
	}
	return out
}
