package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/collectors"
)

// serveMetrics serves the harness's /metrics on addr (a loopback address)
// for as long as the campaign runs; addr "" serves nothing. The returned
// context carries the metrics to every run; stop closes the server.
func serveMetrics(ctx context.Context, addr string, log io.Writer) (_ context.Context, stop func(), _ error) {
	if addr == "" {
		return ctx, func() {}, nil
	}
	m := collectors.NewHarnessMetrics()
	srv, err := m.Listen(addr)
	if err != nil {
		return ctx, nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	fmt.Fprintf(log, "harness metrics: %s\n", srv.URL())
	return campaign.WithHarnessMetrics(ctx, m), func() { _ = srv.Close() }, nil
}
