package report

import (
	"fmt"
	"io"

	"github.com/sharebench/sharebench/results/runs"
)

// autoscaleHeader is the spike table's header (console, summary.md).
var autoscaleHeader = []string{"run", "bound (rule 3 cap)", "peak replicas", "outs / ins", "flaps", "replica-s",
	"spike recovery", "drain vs goal", "redelivered by scale-in", "longest action pause"}

// autoscaleRow is one run's row of the spike table.
func autoscaleRow(r runs.Record) []string {
	a := r.Autoscale
	drain := "not drained in the window"
	if a.DrainSec != nil {
		drain = fmt.Sprintf("%.1fs", *a.DrainSec)
	}
	if a.GoalSec > 0 {
		drain += fmt.Sprintf(" (goal %.0fs: %s)", a.GoalSec, map[bool]string{true: "met", false: "missed"}[a.WithinGoal])
	}
	if a.DrainSec == nil && a.GoalSec == 0 && a.SpikeRecoverySec == nil {
		drain = "- (no spike)"
	}
	rec := "-"
	if a.SpikeRecoverySec != nil {
		rec = fmt.Sprintf("%.1fs", *a.SpikeRecoverySec)
	}
	return []string{r.RunID, fmt.Sprintf("%d (%d)", a.MaxReplicas, a.Cap.Replicas), fmt.Sprint(a.PeakReplicas),
		fmt.Sprintf("%d / %d", a.ScaleOuts, a.ScaleIns), fmt.Sprint(a.Flaps), fmt.Sprintf("%.0f", a.ReplicaSeconds),
		rec, drain, fmt.Sprint(a.RedeliveredScaleIn), fmt.Sprintf("%.2fs", a.PauseMaxSec)}
}

// writeAutoscale prints each scaled run's figures and actions.
func writeAutoscale(w io.Writer, recs []runs.Record) {
	for _, r := range recs {
		a := r.Autoscale
		if a == nil {
			continue
		}
		row := autoscaleRow(r)
		fmt.Fprintf(w, "autoscale %s:\n", r.RunID)
		for i, h := range autoscaleHeader[1:] {
			fmt.Fprintf(w, "  %-24s %s\n", h, row[i+1])
		}
		fmt.Fprintf(w, "  %-24s %s\n", "cap", a.Cap.Why)
		for _, act := range a.Actions {
			fmt.Fprintf(w, "  +%.1fs %s %d→%d: %s; pause %.2fs, redeliveries %d\n", act.AtSec, act.Action, act.From, act.To,
				act.Trigger, act.PauseMaxSec, act.Redeliveries)
		}
	}
}

// writeMarkdownAutoscale is the spike table of summary.md.
func writeMarkdownAutoscale(w io.Writer, recs []runs.Record) {
	any := false
	for _, r := range recs {
		any = any || r.Autoscale != nil
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "## Autoscaling")
	fmt.Fprintln(w)
	mdHeader(w, "---", autoscaleHeader...)
	for _, r := range recs {
		if r.Autoscale != nil {
			mdRow(w, autoscaleRow(r)...)
		}
	}
	fmt.Fprintln(w)
}
