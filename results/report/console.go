package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sharebench/sharebench/results/runs"
)

// sideBySide renders runs as columns of one table, the way a user compares a
// consumer-group arm with a share-group arm.
func sideBySide(w io.Writer, recs []runs.Record) error {
	if len(recs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range rowsFor(recs) {
		cells := []string{row.label}
		for _, r := range recs {
			cells = append(cells, row.cell(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range recs {
		for _, f := range r.Validity.Flags {
			fmt.Fprintf(w, "  %s: %s\n", r.RunID, f.Message)
		}
		if !r.Environment.IsKafka {
			fmt.Fprintf(w, "  %s: NOT KAFKA: measured on %s\n", r.RunID, r.Environment.KafkaVersion)
		}
		if l := r.PreviewLine(); l != "" {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	return nil
}

// tableRow is one row of the side-by-side table: a label and a cell per run.
type tableRow struct {
	label string
	cell  func(r runs.Record) string
}

// rowsFor are the side-by-side rows that say something about recs: a row
// whose every cell is "-" (a figure none of the runs has, such as group
// formation on records written before it existed, or end-to-end time
// without a burst) is left out, so the table stays short.
func rowsFor(recs []runs.Record) []tableRow {
	rows, _ := splitRows(recs)
	return rows
}

// splitRows are rowsFor's rows and the labels of the rows it left out
// (summary.md and report.html list them under the table).
func splitRows(recs []runs.Record) (kept []tableRow, dropped []string) {
	all := sideBySideRows()
	kept = all[:1:1]
	for _, row := range all[1:] {
		has := false
		for _, r := range recs {
			if row.cell(r) != "-" {
				has = true
				break
			}
		}
		if has {
			kept = append(kept, row)
		} else {
			dropped = append(dropped, row.label)
		}
	}
	return kept, dropped
}

// droppedNote is the footnote naming the rows no run has a value for, or "".
func droppedNote(dropped []string) string {
	if len(dropped) == 0 {
		return ""
	}
	return "Left out, no run has a value: " + strings.Join(dropped, "; ") + "."
}

// sideBySideRows are the rows of the side-by-side table, shared by the
// console and Markdown renderings: the table's own rows and, by their
// run.json path, the registry's console figures (label and cell from the
// registry unless the row says more, such as the ceiling's bound). A
// console figure the layout does not place comes after it.
func sideBySideRows() []tableRow {
	placed := map[string]bool{}
	figure := func(path string, cell func(f runs.Figure) func(r runs.Record) string) tableRow {
		placed[path] = true
		f, err := runs.LookupFigure(path)
		if err != nil {
			return tableRow{path + " (not registered)", func(runs.Record) string { return "-" }}
		}
		if cell == nil {
			return figureRow(f)
		}
		return tableRow{f.Label, cell(f)}
	}
	num := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	rows := []tableRow{
		{"run", func(r runs.Record) string { return r.RunID }},
		{"consumer type", func(r runs.Record) string { return string(r.ConsumerType) }},
		// A burst (the drain outlasted the window) leads with its end-to-end
		// time beside the formula's; a backlog run with its drain.
		{"end-to-end s (formula)", endToEnd},
		{"group formation s (rounds)", func(r runs.Record) string {
			if r.Phases.GroupFormationSec == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f (%d)", r.Phases.GroupFormationSec, r.Phases.FormationRounds)
		}},
		{"group protocol", groupCell},
		{"sharded", shardsCell},
		figure("throughput.offered_per_sec", nil),
		figure("ceiling.records_per_sec", func(runs.Figure) func(runs.Record) string {
			return func(r runs.Record) string {
				c := r.Ceiling
				if c.Bound == runs.BoundLocks {
					// The lock-holding bound: who can hold records, at what size.
					return fmt.Sprintf("%.1f (locks: holders %v at %.0f/acquisition)", c.RecordsPerSec, c.HoldersPerPartition, c.RecordsPerAcquisition)
				}
				return fmt.Sprintf("%.1f (%s)", c.RecordsPerSec, c.Bound)
			}
		}),
		{"bound held (what would move it)", func(r runs.Record) string {
			c := r.Ceiling
			if c.Move == "" {
				return string(c.HeldBound())
			}
			return fmt.Sprintf("%s (%s)", c.HeldBound(), c.Move)
		}},
		figure("throughput.completed_per_sec", nil),
		figure("ceiling.efficiency", func(runs.Figure) func(runs.Record) string {
			return func(r runs.Record) string {
				if r.Burst != nil {
					return fmt.Sprintf("%.0f%% (a burst: read end-to-end)", 100*r.Ceiling.Efficiency)
				}
				return fmt.Sprintf("%.0f%%", 100*r.Ceiling.Efficiency)
			}
		}),
		figure("latency.completion_ms.p50", nil),
		figure("latency.completion_ms.p99", nil),
		figure("latency.completion_ms.p999", nil),
		figure("latency.completion_ms.max", nil),
		figure("latency.publish_ms.p99", nil),
		{"records/poll p50 · acquisition p90 · buffered p99 ms", func(r runs.Record) string {
			out := num(r.Polls.RecordsPerPoll.P50)
			if p := r.Polls.RecordsPerAcquisition; p.Count > 0 {
				out += fmt.Sprintf(" · %.0f", p.P90)
			} else {
				out += " · -"
			}
			if b := r.Latency.BufferedMs; b.Count > 0 {
				return out + " · " + num(b.P99)
			}
			return out + " · -"
		}},
		figure("outcomes.redelivered", nil),
		figure("phases.drain_s", nil),
		figure("audit.produced", nil),
		figure("audit.completed_once", nil),
		figure("audit.duplicates", nil),
		figure("audit.archived", nil),
		figure("audit.in_flight", nil),
		figure("audit.lost", nil),
		figure("audit.undelivered", nil),
		figure("audit.balanced", nil),
		{"order violations", orderCell},
		{"validity", validityCodes},
		// Broker rows (the JMX exporter scrape; "-" when there was none).
		// broker_cost: both arms on one basis (runs/brokercost.go); "-" without broker CPU.
		figure("broker_cost.consume_cpu_seconds_per_million_records", nil),
		figure("broker_cost.moved_cpu_seconds_per_million_records", nil),
		// Beside the cost: a window in which the brokers were still
		// compiling charges the compiling to the run (docs/explanation/measurement.md).
		figure("broker.jit_compile_s", nil),
		// run.json has bytes, the table MiB.
		relabel(figure("broker.heap_after_gc_max_bytes", brokerCell(func(v float64) string { return num(v / (1 << 20)) })),
			"broker heap after GC MB"),
		figure("broker.share_coordinator_write_rate_avg", brokerCell(num)),
	}
	for _, f := range runs.Figures() {
		if f.Console && !placed[f.Path] {
			rows = append(rows, figureRow(f))
		}
	}
	return rows
}

func relabel(row tableRow, label string) tableRow { row.label = label; return row }

// figureRow is a registry figure as a row: its label, its cell.
func figureRow(f runs.Figure) tableRow {
	return tableRow{f.Label, func(r runs.Record) string { return f.Cell(&r) }}
}

// endToEnd is a burst's end-to-end time beside the formula's, a backlog
// run's drain beside backlog ÷ ceiling, else "-".
func endToEnd(r runs.Record) string {
	switch {
	case r.Burst != nil:
		return fmt.Sprintf("%.1f (%.1f, %s)", r.Burst.EndToEndSec, r.Burst.PredictedSec, r.Burst.Bound)
	case r.Spec != nil && r.Spec.Backlog() && r.Ceiling.RecordsPerSec > 0:
		return fmt.Sprintf("%.1f (%.1f, %s)", r.Phases.DrainSec, float64(r.Spec.BacklogRecords)/r.Ceiling.RecordsPerSec, r.Ceiling.Bound)
	}
	return "-"
}

// brokerCell renders a broker figure, "-" for a run without broker scrapes,
// "n/a (NAMING)" when the exporter cannot give it (broker.unavailable names
// it by its path without "broker.").
func brokerCell(format func(float64) string) func(runs.Figure) func(runs.Record) string {
	return func(f runs.Figure) func(runs.Record) string {
		key := strings.TrimPrefix(f.Path, "broker.")
		return func(r runs.Record) string {
			if r.Broker.Samples == 0 {
				return "-"
			}
			if slices.Contains(r.Broker.Unavailable, key) {
				return "n/a (" + r.Broker.Naming + ")"
			}
			v, _ := f.Value(&r)
			return format(v)
		}
	}
}

// shardsCell says how a sharded run was split: "over 3 agents (local),
// clock ±0.7 ms"; "-" for a run in one process.
func shardsCell(r runs.Record) string {
	if r.Shards == nil {
		return "-"
	}
	return fmt.Sprintf("over %d agents (%s), clock ±%.1f ms", r.Shards.Count, r.Shards.Launcher, r.Shards.MaxUncertaintyMs)
}

// validityCodes is "ok" or the run's flag codes, comma-separated.
func validityCodes(r runs.Record) string {
	if r.Validity.Valid {
		return "ok"
	}
	return runs.JoinCodes(r.Validity.Codes(), ",")
}
