package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

const sec = int64(1e9)

func fptr(v float64) *float64 { return &v }

// The event report renders in every output: one console line, a summary.md
// table, an HTML table; share runs say why they show no rebalance pause.
func TestEventRendering(t *testing.T) {
	r := runs.Record{RunID: "r02-share", ConsumerType: "share", Events: []runs.EventReport{{
		Event:          runs.Event{AtSec: 8, Action: "join", Label: "join 1", Target: "members 2", Members: []int{2}},
		BaselinePerSec: 200, DipPercent: 0, RecoverySec: fptr(0), FirstRecord: []runs.MemberFirstRecord{{Member: 2, Sec: fptr(0.31)}},
		IdleGapMaxSec: 0.4,
	}}}
	line := EventLine(r, r.Events[0])
	for _, want := range []string{"+8.0s join 1 (members 2)", "baseline 200.0/s", "first record m2 0.31s",
		"rebalance pauses 0 (share groups do not revoke; longest member idle gap 0.4s)"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	var md, html, con strings.Builder
	if err := Markdown(runs.Campaign{}, []runs.Record{r})(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Events") || !strings.Contains(md.String(), "| r02-share | +8.0s | join 1 |") ||
		!strings.Contains(md.String(), "| --- | --- | --- |") {
		t.Errorf("summary.md has no events table:\n%s", md.String())
	}
	if err := HTML("", runs.Campaign{}, []runs.Record{r})(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `data-table="events"`) || !strings.Contains(html.String(), "m2 0.31s") {
		t.Error("report.html has no events table")
	}
	_ = Events([]runs.Record{r, {RunID: "r01"}})(&con)
	if got := strings.Count(con.String(), "\n"); got != 2 {
		t.Errorf("console: %d lines, want a header and one event:\n%s", got, con.String())
	}
}

// Events are shaded on the throughput chart of report.html.
func TestEventBandsOnThroughputChart(t *testing.T) {
	dir := t.TempDir()
	s := results.NewSeries(0, 20)
	for i := range 20 {
		s.Add(results.Completed, int64(i)*sec, 100)
	}
	runDir := filepath.Join(dir, "runs", "r1")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(runDir, "timeseries.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteCSV(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := runs.Record{RunID: "r1", ConsumerType: "share", Phases: runs.Phases{WindowStartSec: 4, WarmupSec: 2, MeasureSec: 12},
		Events: []runs.EventReport{{Event: runs.Event{Label: "slow ×2 for 3s"}, StartSec: 3, EndSec: 6}}}
	var b strings.Builder
	if err := HTML(dir, runs.Campaign{}, []runs.Record{r})(&b); err != nil {
		t.Fatal(err)
	}
	c := chartByTitle(pageCharts(t, b.String()), "throughput over time")
	if c == nil {
		t.Fatal("no throughput chart")
	}
	found := false
	for _, band := range c.Bands {
		found = found || (band.Name == "event-1" && band.Start == 7 && band.End == 10 && band.Label == "slow ×2 for 3s")
	}
	if !found {
		t.Errorf("no event band at 7–10 s on the chart: %+v", c.Bands)
	}
}

// A consumer group's pause figures: partitions paused, at once, the group
// stop, the longest wait and partition-seconds, each its own number.
func TestEventPauseFiguresRendered(t *testing.T) {
	r := runs.Record{RunID: "r01-consumer", ConsumerType: "consumer", Events: []runs.EventReport{{
		Event:           runs.Event{AtSec: 5, Action: "join", Label: "join 2", Target: "members 2,3", Members: []int{2, 3}},
		RebalancePauses: 5, RebalancePartitions: 4, RebalancePeakPaused: 3, GroupStopSec: 0.08, RebalancePauseMaxS: 0.1,
		RebalancePauseSec: 0.36,
	}}}
	want := "rebalance pauses 5 (4 partitions, 3 at once; group stop 0.08s; longest wait 0.10s; 0.36 partition-s)"
	if line := EventLine(r, r.Events[0]); !strings.Contains(line, want) {
		t.Errorf("line %q lacks %q", line, want)
	}
	var md strings.Builder
	if err := Markdown(runs.Campaign{}, []runs.Record{r})(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| 4 (3 at once) / 0.08s / 0.10s / 0.36 |") {
		t.Errorf("summary.md lacks the pause cell:\n%s", md.String())
	}
}
