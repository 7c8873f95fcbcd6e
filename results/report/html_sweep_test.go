package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

func sweepRun(typ vocab.GroupType, mpr int, trial int, tput, p99 float64) runs.Record {
	return runs.Record{RunID: string(typ), ConsumerType: typ,
		Spec:       &scenarios.RunSpec{ConsumerType: typ, Fleet: scenarios.Fleet{MaxPollRecords: mpr}, Trial: trial, Processing: scenarios.Processing{Model: "constant"}},
		Throughput: runs.Throughput{CompletedPerSec: tput}, Latency: runs.Latencies{CompletionMs: results.Percentiles{P99: p99}}}
}

func TestSweepSectionsPlotEachMeasureAgainstTheSweptKnob(t *testing.T) {
	recs := []runs.Record{
		sweepRun("consumer", 10, 0, 300, 900), sweepRun("consumer", 100, 0, 390, 800), sweepRun("consumer", 1000, 0, 380, 700),
		sweepRun("share", 10, 0, 800, 50), sweepRun("share", 100, 0, 1000, 40), sweepRun("share", 1000, 0, 600, 400),
		sweepRun("share", 100, 1, 980, 50), // a second trial: the points are means, 990 and 45
	}
	secs := sweepSections(recs)
	if len(secs) != 1 || secs[0].Dimension != "max_poll_records" {
		t.Fatalf("sections %+v, want one for max_poll_records (trial must not count)", secs)
	}
	s := secs[0]
	if len(s.Charts) != len(sweepFigures) || len(s.Charts[0].Series) != 2 {
		t.Fatalf("%d charts, %d lines", len(s.Charts), len(s.Charts[0].Series))
	}
	best := strings.Join(s.Best, "\n")
	for _, w := range []string{
		"share: best completed records/s 990 at max_poll_records=100",
		"consumer: best completed records/s 390 at max_poll_records=100",
		"consumer: best completion p99 ms 700 at max_poll_records=1000",
		"share: best completion p99 ms 45 at max_poll_records=100",
	} {
		if !strings.Contains(best, w) {
			t.Errorf("best lines lack %q:\n%s", w, best)
		}
	}
	// Numeric order, not string order: 10, 100, 1000.
	if got := s.Charts[0].Categories; len(got) != 3 || got[0] != "10" || got[2] != "1000" {
		t.Errorf("x categories %v", got)
	}
	var b bytes.Buffer
	if err := HTML("", runs.Campaign{Name: "sweep"}, recs)(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `id="sweep-max_poll_records"`) || !strings.Contains(b.String(), "completed records/s vs max_poll_records") {
		t.Error("report.html lacks the sweep section")
	}
}

func TestNoSweepWhenOnlyConsumerTypeVaries(t *testing.T) {
	recs := []runs.Record{sweepRun("consumer", 10, 0, 1, 1), sweepRun("share", 10, 0, 2, 2)}
	if secs := sweepSections(recs); len(secs) != 0 {
		t.Fatalf("sections %+v", secs)
	}
}
