package runs_test

import (
	"testing"

	"github.com/sharebench/sharebench/results/runs"
)

// TestCollectorCostFigures: the collectors' CPU and its share of the
// harness's (2 s of 40 s is 5 %) are read from run.json's resources; a run
// where they were not measured has neither, rather than a 0 that would read
// as "observing cost nothing".
func TestCollectorCostFigures(t *testing.T) {
	var r runs.Record
	secs, err := runs.LookupFigure("resources.collector_cpu_s")
	if err != nil {
		t.Fatal(err)
	}
	pct, err := runs.LookupFigure("collector_percent") // the CSV column name resolves too
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []runs.Figure{secs, pct} {
		if _, ok := f.Value(&r); ok {
			t.Errorf("%s: a value without a measurement", f.Path)
		}
	}
	r.Resources.HarnessCPUSeconds = 40
	r.Resources.SetCollectorCPU(2)
	if v, ok := secs.Value(&r); !ok || v != 2 {
		t.Errorf("collector_cpu_s = %v, %v; want 2", v, ok)
	}
	if v, ok := pct.Value(&r); !ok || v != 5 {
		t.Errorf("collector_percent = %v, %v; want 5", v, ok)
	}
	r.Resources.HarnessCPUSeconds = 0 // no harness CPU read: no share
	r.Resources.SetCollectorCPU(2)
	if _, ok := pct.Value(&r); ok {
		t.Error("collector_percent without the harness's CPU")
	}
}

// TestHarnessRSSFigure: the harness's peak memory is read from run.json's
// resources, and absent when no sample was read.
func TestHarnessRSSFigure(t *testing.T) {
	f, err := runs.LookupFigure("resources.harness_rss_max_mib")
	if err != nil {
		t.Fatal(err)
	}
	var r runs.Record
	if _, ok := f.Value(&r); ok {
		t.Error("a value without a sample")
	}
	v := 412.5
	r.Resources.HarnessRSSMaxMiB = &v
	if got, ok := f.Value(&r); !ok || got != 412.5 {
		t.Errorf("harness_rss_max_mib = %v, %v; want 412.5", got, ok)
	}
}
