package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The schedule and replica charts put the window's offsets on the run's
// seconds: a window starting at 2 s, a step of 100/s for 3 s then a spike
// at 900/s; replicas 1, then 3 from 2.5 s into the window.
func TestScheduleCharts(t *testing.T) {
	tab := results.SeriesTable{Columns: []string{"completed"}, Rows: make([][]float64, 9)}
	for i := range tab.Rows {
		tab.Rows[i] = []float64{0}
	}
	r := runs.Record{RunID: "r01-share",
		Spec: &scenarios.RunSpec{RateSchedule: []scenarios.RateStep{{Duration: 3 * time.Second, From: 100, To: 100},
			{Duration: 2 * time.Second, From: 900, To: 900, Spike: true}}},
		Phases:    runs.Phases{WindowStartSec: 2, MeasureSec: 5},
		Autoscale: &runs.Autoscale{MaxReplicas: 4, Cap: scenarios.ReplicaCap{Replicas: 200}, Replicas: []runs.ReplicaStep{{AtSec: 0, Replicas: 1}, {AtSec: 2.5, Replicas: 3}}},
	}
	cs := scheduleCharts(tab, r)
	if len(cs) != 2 {
		t.Fatalf("%d charts, want 2", len(cs))
	}
	wantRate := []float64{100, 100, 100, 100, 100, 900, 900, 900, 900} // warm-up at the first rate; the last rate holds
	for i, w := range wantRate {
		if got := cs[0].Series[0].Y[i]; got != w {
			t.Errorf("rate at %d s = %v, want %v", i, got, w)
		}
	}
	wantRep := []float64{math.NaN(), math.NaN(), 1, 1, 1, 3, 3, 3, math.NaN()}
	for i, w := range wantRep {
		got := cs[1].Series[0].Y[i]
		if (math.IsNaN(w) && !math.IsNaN(got)) || (!math.IsNaN(w) && got != w) {
			t.Errorf("replicas at %d s = %v, want %v", i, got, w)
		}
	}
	if cs[1].Series[1].Y[0] != 4 || cs[1].Series[1].Label != "bound 4 (max, rule 3 cap 200)" {
		t.Errorf("bound line %+v", cs[1].Series[1])
	}
}

func TestAutoscaleRows(t *testing.T) {
	d, rec := 12.0, 8.0
	r := runs.Record{RunID: "r02-share", Autoscale: &runs.Autoscale{MaxReplicas: 8, Cap: scenarios.ReplicaCap{Replicas: 200, Why: "share group"},
		PeakReplicas: 7, ScaleOuts: 3, ScaleIns: 3, Flaps: 0, ReplicaSeconds: 231.4, SpikeRecoverySec: &rec, DrainSec: &d, GoalSec: 30, WithinGoal: true,
		RedeliveredScaleIn: 4, PauseMaxSec: 0,
		Actions: []runs.ScaleAction{{AtSec: 19, Action: "out", From: 1, To: 3, Trigger: "lag per replica 1061 > 200 for 2.0s"}}}}
	want := []string{"r02-share", "8 (200)", "7", "3 / 3", "0", "231", "8.0s", "12.0s (goal 30s: met)", "4", "0.00s"}
	got := autoscaleRow(r)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cell %q = %q, want %q", autoscaleHeader[i], got[i], want[i])
		}
	}
	var b strings.Builder
	writeAutoscale(&b, []runs.Record{r})
	if !strings.Contains(b.String(), "+19.0s out 1→3: lag per replica 1061 > 200 for 2.0s; pause 0.00s, redeliveries 0") {
		t.Errorf("console:\n%s", b.String())
	}
}
