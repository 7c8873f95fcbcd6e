package campaign

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/results/runs"
)

// A settle samples the brokers' CPU every settleInterval for at most
// settleMax (docs/explanation/measurement.md#settle).
const (
	settleInterval = time.Second
	settleMax      = 20 * time.Second
)

// Settle step names (runs.SettleStep.After).
const (
	settleAfterPriming     = "priming"
	settleAfterPrevious    = "previous_run"
	settleAfterProduceOnly = "produce_only"
)

// settleBrokers waits, bounded, until the brokers' CPU rate is back within
// a margin of baseline (the scrape calibration's idle cores; nil: before
// the calibration, until the rate stops falling), so that work a previous
// phase left behind (log flushes, share-state and coordinator writes, a
// deleted topic, garbage collection) is not charged to the next measured
// window. nil when the brokers' processes are unknown (external clusters,
// kfake).
func settleBrokers(ctx context.Context, cl infra.Cluster, baseline *runs.ScrapeCost, after, id string, log io.Writer) *runs.SettleStep {
	if len(cl.PIDs()) == 0 {
		return nil
	}
	cfg := collectors.SettleConfig{Interval: settleInterval, Max: settleMax, Baseline: -1}
	if baseline != nil {
		cfg.Baseline = baseline.IdleCores
	}
	res := collectors.Settle(ctx, cl.PIDs, cfg)
	st := &runs.SettleStep{After: after, Sec: res.Sec, EndCores: res.EndCores, MarginCores: res.Margin,
		Samples: res.Samples, Settled: res.Settled}
	target := "the rate stopped falling"
	if baseline != nil {
		b := baseline.IdleCores
		st.BaselineCores = &b
		target = fmt.Sprintf("idle %.3f + %.3f cores", b, res.Margin)
	}
	verdict := "settled"
	if !res.Settled {
		verdict = fmt.Sprintf("not settled within %v", settleMax)
	}
	if id != "" {
		id += ": "
	}
	fmt.Fprintf(log, "  %ssettle after %s: brokers at %.3f cores after %.1fs (%s; %s)\n",
		id, after, st.EndCores, st.Sec, target, verdict)
	return st
}

// baseline is the idle brokers' CPU the runs settle to (nil: not measured).
func (rn runner) baseline() *runs.ScrapeCost {
	if rn.env.Priming == nil {
		return nil
	}
	return rn.env.Priming.ScrapeCost
}
