package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sharebench/sharebench/results/runs"

	"github.com/sharebench/sharebench/vocab"
)

// EventLine states what one event did, in one line (console, summary.md).
func EventLine(r runs.Record, e runs.EventReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%.1fs %s", e.AtSec, e.Label)
	if e.Target != "" {
		fmt.Fprintf(&b, " (%s)", e.Target)
	}
	if e.Error != "" {
		fmt.Fprintf(&b, ": ERROR %s", e.Error)
	}
	fmt.Fprintf(&b, ": baseline %.1f/s, dip %.0f%%, recovery %s", e.BaselinePerSec, e.DipPercent, recoveryText(e))
	if len(e.FirstRecord) > 0 {
		fmt.Fprintf(&b, ", first record %s", firstRecordText(e))
	}
	fmt.Fprintf(&b, ", %s, redeliveries %d", pausesText(r, e), e.Redeliveries)
	return b.String()
}

func recoveryText(e runs.EventReport) string {
	if e.RecoverySec == nil {
		return "not recovered"
	}
	return fmt.Sprintf("%.1fs", *e.RecoverySec)
}

func firstRecordText(e runs.EventReport) string {
	parts := make([]string, len(e.FirstRecord))
	for i, f := range e.FirstRecord {
		if f.Sec == nil {
			parts[i] = fmt.Sprintf("m%d never", f.Member)
		} else {
			parts[i] = fmt.Sprintf("m%d %.2fs", f.Member, *f.Sec)
		}
	}
	return strings.Join(parts, ", ")
}

// pausesText reports rebalance pauses; share groups have none to measure (no
// partition is revoked), so their members' idle gaps are named instead.
func pausesText(r runs.Record, e runs.EventReport) string {
	if r.ConsumerType == vocab.ShareGroup {
		return fmt.Sprintf("rebalance pauses %d (share groups do not revoke; longest member idle gap %.1fs)", e.RebalancePauses, e.IdleGapMaxSec)
	}
	return fmt.Sprintf("rebalance pauses %d (%d partitions, %d at once; group stop %.2fs; longest wait %.2fs; %.2f partition-s)",
		e.RebalancePauses, e.RebalancePartitions, e.RebalancePeakPaused, e.GroupStopSec, e.RebalancePauseMaxS, e.RebalancePauseSec)
}

// pausesCell is the events table's pause cell: partitions paused (most at
// once) / group stop / longest wait / partition-seconds.
func pausesCell(e runs.EventReport) string {
	return fmt.Sprintf("%d (%d at once) / %.2fs / %.2fs / %.2f", e.RebalancePartitions, e.RebalancePeakPaused,
		e.GroupStopSec, e.RebalancePauseMaxS, e.RebalancePauseSec)
}

// writeEvents prints one line per event of every run that had events.
func writeEvents(w io.Writer, recs []runs.Record) {
	for _, r := range recs {
		if len(r.Events) == 0 {
			continue
		}
		fmt.Fprintf(w, "events %s:\n", r.RunID)
		for _, e := range r.Events {
			fmt.Fprintf(w, "  %s\n", EventLine(r, e))
			for _, l := range RollingStepLines(e) {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
	}
}

// eventRow is one row of the events table (summary.md, report.html).
func eventRow(r runs.Record, e runs.EventReport) []string {
	target := e.Target
	if e.Error != "" {
		target += " ERROR: " + e.Error
	}
	first := "-"
	if len(e.FirstRecord) > 0 {
		first = firstRecordText(e)
	}
	pauses := pausesCell(e)
	if r.ConsumerType == vocab.ShareGroup {
		pauses = fmt.Sprintf("0 (share: no revocation; idle gap %.1fs)", e.IdleGapMaxSec)
		if e.RebalancePauses > 0 {
			pauses = fmt.Sprint(e.RebalancePauses)
		}
	}
	return []string{r.RunID, fmt.Sprintf("+%.1fs", e.AtSec), e.Label, target, fmt.Sprintf("%.1f", e.BaselinePerSec),
		fmt.Sprintf("%.0f%%", e.DipPercent), recoveryText(e), first, pauses, fmt.Sprint(e.Redeliveries)}
}

var eventHeader = []string{"run", "at", "event", "target", "baseline/s", "dip", "recovery", "first record",
	"partitions paused (at once) / group stop / longest wait / partition-s", "redeliveries"}

func writeMarkdownEvents(w io.Writer, recs []runs.Record) {
	any := false
	for _, r := range recs {
		any = any || len(r.Events) > 0
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "## Events")
	fmt.Fprintln(w)
	mdHeader(w, "---", eventHeader...)
	for _, r := range recs {
		for _, e := range r.Events {
			mdRow(w, eventRow(r, e)...)
		}
	}
	fmt.Fprintln(w)
	for _, r := range recs {
		for _, e := range r.Events {
			if len(e.Steps) == 0 {
				continue
			}
			fmt.Fprintf(w, "Rolling steps of %s, %s:\n\n", r.RunID, e.Label)
			for _, l := range RollingStepLines(e) {
				fmt.Fprintf(w, "- %s\n", l)
			}
			fmt.Fprintln(w)
		}
	}
}

// RollingStepLines describes each broker of a rolling restart or upgrade:
// its release before → after, when it went and came back (from the
// window's start), shutdown / start / in-sync times, the longest run of
// seconds without a completion, redeliveries and duplicate completions in
// its span, and the coordinators before → after.
func RollingStepLines(e runs.EventReport) []string {
	out := make([]string, 0, len(e.Steps))
	coord := func(p *int32) string {
		if p == nil || *p < 0 {
			return "?"
		}
		return fmt.Sprint(*p)
	}
	for _, st := range e.Steps {
		g0, g1 := st.GroupCoordinatorBefore, st.GroupCoordinatorAfter
		l := fmt.Sprintf("broker %d %s → %s: +%.1fs → +%.1fs (shutdown %.1fs", st.Broker, st.VersionBefore, st.VersionAfter,
			st.StartSec, st.EndSec, st.ShutdownSec)
		if st.KilledAfterGrace {
			l += ", killed after the grace"
		}
		l += fmt.Sprintf(", start %.1fs, in sync %.1fs), completion gap %.0fs, lowest %.0f/s, redeliveries %d, duplicate completions %d, group coordinator %s → %s",
			st.StartupSec, st.InSyncSec, st.CompletionGapMaxSec, st.LowestPerSec, st.Redeliveries, st.DuplicateCompletions, coord(&g0), coord(&g1))
		if st.ShareCoordinatorBefore != nil || st.ShareCoordinatorAfter != nil {
			l += fmt.Sprintf(", share coordinator %s → %s", coord(st.ShareCoordinatorBefore), coord(st.ShareCoordinatorAfter))
		}
		if st.CoordinatorErrors != "" {
			l += " (lookups: " + st.CoordinatorErrors + ")"
		}
		if st.Error != "" {
			l += ": ERROR " + st.Error
		}
		out = append(out, l)
	}
	return out
}

// markEvents shades each event on the throughput chart, from its start to
// its end (at least half a second, so an instant event shows).
func markEvents(c *chart, r runs.Record) {
	if r.Phases.WindowStartSec <= 0 {
		return
	}
	for i, e := range r.Events {
		from := r.Phases.WindowStartSec + e.StartSec
		to := max(r.Phases.WindowStartSec+e.EndSec, from+0.5)
		c.addBand(fmt.Sprintf("event-%d", i+1), e.Label, "#f4a582", from, to)
	}
}
