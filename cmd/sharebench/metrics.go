package main

import (
	"fmt"
	"io"

	"github.com/sharebench/sharebench/collectors"
)

// serveMetrics serves the harness's /metrics on addr (a loopback address)
// for as long as the campaign runs; addr "" serves nothing (nil metrics).
// The campaign reports to the returned metrics (campaign.Options.Metrics);
// stop closes the server.
func serveMetrics(addr string, log io.Writer) (_ *collectors.HarnessMetrics, stop func(), _ error) {
	if addr == "" {
		return nil, func() {}, nil
	}
	m := collectors.NewHarnessMetrics()
	srv, err := m.Listen(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	fmt.Fprintf(log, "harness metrics: %s\n", srv.URL())
	return m, func() { _ = srv.Close() }, nil
}
