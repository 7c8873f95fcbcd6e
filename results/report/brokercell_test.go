package report

import (
	"fmt"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// A broker figure the exporter cannot give reads "n/a (naming)", not 0.
func TestBrokerCellUnavailable(t *testing.T) {
	f, err := runs.LookupFigure("broker.heap_after_gc_max_bytes")
	if err != nil {
		t.Fatal(err)
	}
	cell := brokerCell(func(v float64) string { return fmt.Sprint(v) })(f)
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
