package results

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// SideBySide renders runs as columns of one table, the way a user compares a
// consumer-group arm with a share-group arm.
func SideBySide(w io.Writer, runs []RunRecord) error {
	if len(runs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, f func(r RunRecord) string) {
		cells := []string{label}
		for _, r := range runs {
			cells = append(cells, f(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	num := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	row("run", func(r RunRecord) string { return r.RunID })
	row("consumer type", func(r RunRecord) string { return r.ConsumerType })
	row("offered records/s", func(r RunRecord) string { return num(r.Throughput.OfferedPerSec) })
	row("ceiling records/s", func(r RunRecord) string {
		return fmt.Sprintf("%.1f (%s)", r.Ceiling.RecordsPerSec, r.Ceiling.Bound)
	})
	row("completed records/s", func(r RunRecord) string { return num(r.Throughput.CompletedPerSec) })
	row("efficiency vs ceiling", func(r RunRecord) string { return fmt.Sprintf("%.0f%%", 100*r.Ceiling.Efficiency) })
	row("active members", func(r RunRecord) string { return fmt.Sprint(r.Ceiling.ActiveMembers) })
	row("completion p50 ms", func(r RunRecord) string { return num(r.Latency.CompletionMs.P50) })
	row("completion p99 ms", func(r RunRecord) string { return num(r.Latency.CompletionMs.P99) })
	row("completion p99.9 ms", func(r RunRecord) string { return num(r.Latency.CompletionMs.P999) })
	row("completion max ms", func(r RunRecord) string { return num(r.Latency.CompletionMs.Max) })
	row("publish p99 ms", func(r RunRecord) string { return num(r.Latency.PublishMs.P99) })
	row("records/poll p50", func(r RunRecord) string { return num(r.Polls.RecordsPerPoll.P50) })
	row("redelivered", func(r RunRecord) string { return fmt.Sprint(r.Outcomes.Redelivered) })
	row("drain s", func(r RunRecord) string { return num(r.Phases.DrainSec) })
	row("audit produced", func(r RunRecord) string { return fmt.Sprint(r.Audit.Produced) })
	row("audit completed once", func(r RunRecord) string { return fmt.Sprint(r.Audit.CompletedOnce) })
	row("audit duplicates", func(r RunRecord) string { return fmt.Sprint(r.Audit.Duplicates) })
	row("audit archived", func(r RunRecord) string { return fmt.Sprint(r.Audit.Archived) })
	row("audit in flight", func(r RunRecord) string { return fmt.Sprint(r.Audit.InFlight) })
	row("audit lost", func(r RunRecord) string { return fmt.Sprint(r.Audit.Lost) })
	row("audit balanced", func(r RunRecord) string {
		if r.Audit.Balanced {
			return "yes"
		}
		return "NO"
	})
	row("validity", func(r RunRecord) string {
		if r.Validity.Valid {
			return "ok"
		}
		codes := make([]string, len(r.Validity.Flags))
		for i, f := range r.Validity.Flags {
			codes[i] = f.Code
		}
		return strings.Join(codes, ",")
	})
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range runs {
		for _, f := range r.Validity.Flags {
			fmt.Fprintf(w, "  %s: %s\n", r.RunID, f.Message)
		}
		if !r.Environment.IsKafka {
			fmt.Fprintf(w, "  %s: NOT KAFKA: measured on %s\n", r.RunID, r.Environment.KafkaVersion)
		}
	}
	return nil
}
