package report

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

func TestRunsCSVCarriesRunJSONFigures(t *testing.T) {
	recs := []runs.Record{
		{RunID: "r01-consumer", ConsumerType: "consumer", Throughput: runs.Throughput{CompletedPerSec: 379.25},
			Latency: runs.Latencies{CompletionMs: results.Percentiles{P99: 40566.8}}, Ceiling: runs.Ceiling{RecordsPerSec: 400, Bound: "workers"},
			Audit: results.Audit{Produced: 25000, CompletedOnce: 25000, Balanced: true}, Validity: runs.Validity{Flags: []runs.Flag{{Code: "host_cpu"}, {Code: "error"}}}},
		{RunID: "r02-share", ConsumerType: "share", Throughput: runs.Throughput{CompletedPerSec: 1000.7}},
	}
	var b bytes.Buffer
	if err := CSV(recs)(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("rows %d err %v\n%s", len(rows), err, b.String())
	}
	col := map[string]int{}
	for i, n := range rows[0] {
		col[n] = i
	}
	get := func(row int, name string) string { return rows[row][col[name]] }
	if v, _ := strconv.ParseFloat(get(1, "completed_per_sec"), 64); v != 379.25 {
		t.Errorf("completed_per_sec %v", v)
	}
	if get(1, "completion_p99_ms") != "40566.8" || get(1, "ceiling_bound") != "workers" || get(1, "audit_produced") != "25000" {
		t.Errorf("row 1: %v", rows[1])
	}
	if get(1, "flags") != "host_cpu error" || get(2, "run_id") != "r02-share" || get(2, "consumer_type") != "share" {
		t.Errorf("rows: %v", rows)
	}
}
