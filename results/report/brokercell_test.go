package report

import (
	"fmt"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// A broker figure the exporter cannot give reads "n/a (naming)", not 0.
func TestBrokerCellUnavailable(t *testing.T) {
	cell := brokerCell("heap_after_gc_max_bytes", func(b results.BrokerMetrics) string { return fmt.Sprint(b.HeapAfterGCMaxBytes) })
	r := runs.Record{Broker: results.BrokerMetrics{Samples: 10, Naming: "strimzi", Unavailable: []string{"heap_after_gc_max_bytes"}}}
	if got := cell(r); got != "n/a (strimzi)" {
		t.Errorf("unavailable: %q", got)
	}
	r.Broker.Unavailable, r.Broker.HeapAfterGCMaxBytes = nil, 3
	if got := cell(r); got == "n/a (strimzi)" || got == "-" {
		t.Errorf("available: %q", got)
	}
	if got := cell(runs.Record{}); got != "-" {
		t.Errorf("no scrapes: %q", got)
	}
}
