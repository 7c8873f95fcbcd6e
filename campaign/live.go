package campaign

import (
	"context"
	"runtime"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/results"
)

type harnessMetricsKey struct{}

// WithHarnessMetrics returns a context under which every run (RunOne,
// Run) reports its counters, lag and phase to m, the harness's own
// /metrics, while it runs.
func WithHarnessMetrics(ctx context.Context, m *collectors.HarnessMetrics) context.Context {
	return context.WithValue(ctx, harnessMetricsKey{}, m)
}

func harnessMetrics(ctx context.Context) *collectors.HarnessMetrics {
	m, _ := ctx.Value(harnessMetricsKey{}).(*collectors.HarnessMetrics)
	return m
}

// fillGauges writes the samplers' readings into the series' gauge columns.
func fillGauges(series *results.Series, scraper *collectors.BrokerScraper, lag *collectors.LagSampler, procs *collectors.ProcSampler) {
	collectors.FillBrokerGauges(series, scraper.Samples(), runtime.NumCPU())
	collectors.FillLagGauge(series, lag.Samples())
	collectors.FillProcGauges(series, procs.Samples(), runtime.NumCPU())
}
