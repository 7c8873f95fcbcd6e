package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// sideBySide renders runs as columns of one table, the way a user compares a
// consumer-group arm with a share-group arm.
func sideBySide(w io.Writer, recs []runs.Record) error {
	if len(recs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range sideBySideRows() {
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
	}
	return nil
}

// tableRow is one row of the side-by-side table: a label and a cell per run.
type tableRow struct {
	label string
	cell  func(r runs.Record) string
}

// sideBySideRows are the rows of the side-by-side table, shared by the
// console and Markdown renderings.
func sideBySideRows() []tableRow {
	num := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	return []tableRow{
		{"run", func(r runs.Record) string { return r.RunID }},
		{"consumer type", func(r runs.Record) string { return r.ConsumerType }},
		{"group protocol", groupCell},
		{"offered records/s", func(r runs.Record) string { return num(r.Throughput.OfferedPerSec) }},
		{"ceiling records/s", func(r runs.Record) string {
			return fmt.Sprintf("%.1f (%s)", r.Ceiling.RecordsPerSec, r.Ceiling.Bound)
		}},
		{"completed records/s", func(r runs.Record) string { return num(r.Throughput.CompletedPerSec) }},
		{"efficiency vs ceiling", func(r runs.Record) string { return fmt.Sprintf("%.0f%%", 100*r.Ceiling.Efficiency) }},
		{"active members", func(r runs.Record) string { return fmt.Sprint(r.Ceiling.ActiveMembers) }},
		{"completion p50 ms", func(r runs.Record) string { return num(r.Latency.CompletionMs.P50) }},
		{"completion p99 ms", func(r runs.Record) string { return num(r.Latency.CompletionMs.P99) }},
		{"completion p99.9 ms", func(r runs.Record) string { return num(r.Latency.CompletionMs.P999) }},
		{"completion max ms", func(r runs.Record) string { return num(r.Latency.CompletionMs.Max) }},
		{"publish p99 ms", func(r runs.Record) string { return num(r.Latency.PublishMs.P99) }},
		{"records/poll p50", func(r runs.Record) string { return num(r.Polls.RecordsPerPoll.P50) }},
		{"redelivered", func(r runs.Record) string { return fmt.Sprint(r.Outcomes.Redelivered) }},
		{"drain s", func(r runs.Record) string { return num(r.Phases.DrainSec) }},
		{"audit produced", func(r runs.Record) string { return fmt.Sprint(r.Audit.Produced) }},
		{"audit completed once", func(r runs.Record) string { return fmt.Sprint(r.Audit.CompletedOnce) }},
		{"audit duplicates", func(r runs.Record) string { return fmt.Sprint(r.Audit.Duplicates) }},
		{"audit archived", func(r runs.Record) string { return fmt.Sprint(r.Audit.Archived) }},
		{"audit in flight", func(r runs.Record) string { return fmt.Sprint(r.Audit.InFlight) }},
		{"audit lost", func(r runs.Record) string { return fmt.Sprint(r.Audit.Lost) }},
		{"audit balanced", func(r runs.Record) string { return yesNO(r.Audit.Balanced) }},
		{"order violations", orderCell},
		{"validity", validityCodes},
		// Broker rows (the JMX exporter scrape; "-" when there was none).
		{"broker CPU s/M records", brokerCell(func(b results.BrokerMetrics) string { return num(b.CPUSecondsPerMillionRecords) })},
		{"broker heap after GC MB", brokerCell(func(b results.BrokerMetrics) string { return num(b.HeapAfterGCMaxBytes / (1 << 20)) })},
		{"share coord writes/s", brokerCell(func(b results.BrokerMetrics) string { return num(b.ShareCoordinatorWriteRateAvg) })},
	}
}

// brokerCell renders a broker figure, or "-" for a run without broker scrapes.
func brokerCell(f func(results.BrokerMetrics) string) func(runs.Record) string {
	return func(r runs.Record) string {
		if r.Broker.Samples == 0 {
			return "-"
		}
		return f(r.Broker)
	}
}

func yesNO(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// validityCodes is "ok" or the run's flag codes, comma-separated.
func validityCodes(r runs.Record) string {
	if r.Validity.Valid {
		return "ok"
	}
	return strings.Join(r.Validity.Codes(), ",")
}
