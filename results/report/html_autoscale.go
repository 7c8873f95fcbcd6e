package report

import (
	"fmt"
	"math"
	"time"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// scheduleCharts are the charts drawn under the throughput chart of a run
// with a rate_schedule or a scaler: the intended rate per second (the
// warm-up at the schedule's first rate) and the replicas the scaler ran,
// on the throughput chart's x (seconds since the run's start).
func scheduleCharts(t results.SeriesTable, r runs.Record) []chart {
	var out []chart
	n := len(t.Rows)
	ws := r.Phases.WindowStartSec
	if s := r.Spec; s != nil && len(s.RateSchedule) > 0 {
		ys := make(nums, n)
		for i := range ys {
			at := float64(i) - ws
			if at < 0 {
				ys[i] = s.RateSchedule[0].From
			} else {
				ys[i] = scenarios.ScheduledRateAt(s.RateSchedule, time.Duration(at*float64(time.Second)))
			}
		}
		c := chart{Title: "offered rate over time (rate_schedule)", Kind: kindTime, XLabel: "seconds since run start", YLabel: "records/s",
			X: seconds(n), Series: []chartSeries{{Label: "intended records/s", Color: "#999999", Y: ys, Key: "offered"}}}
		markPhases(&c, r.Phases)
		out = append(out, c)
	}
	if a := r.Autoscale; a != nil && len(a.Replicas) > 0 {
		ys := make(nums, n)
		for i := range ys {
			ys[i] = math.NaN()
			at := float64(i) - ws
			if at < 0 || at > r.Phases.MeasureSec {
				continue // the scaler acts in the window only
			}
			for _, st := range a.Replicas {
				if st.AtSec <= at {
					ys[i] = float64(st.Replicas)
				}
			}
		}
		cap := make(nums, n)
		for i := range cap {
			cap[i] = float64(a.MaxReplicas)
		}
		c := chart{Title: "replicas over time (autoscale)", Kind: kindTime, XLabel: "seconds since run start", YLabel: "members",
			X: seconds(n), Series: []chartSeries{
				{Label: "replicas", Color: "#2ca02c", Y: ys, Key: "replicas"},
				{Label: fmt.Sprintf("bound %d (max, rule 3 cap %d)", a.MaxReplicas, a.Cap.Replicas), Color: "#d62728", Dash: true, Y: cap},
			}}
		markPhases(&c, r.Phases)
		out = append(out, c)
	}
	return out
}
