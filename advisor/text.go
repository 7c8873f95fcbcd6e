package advisor

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// row is one line of the text report: a label, the JSON field it shows
// (whose formula is printed next to it) and the value.
type row struct {
	label, field, value string
}

func (a Advice) rows() []row {
	yesNo := map[bool]string{true: "yes", false: "no"}
	rows := []row{
		{"design rate records/s", "design_records_per_sec", num(a.DesignRate)},
		{"members", "members", strconv.Itoa(a.Members)},
		{"workers per member", "workers", strconv.Itoa(a.Workers)},
		{scenarios.KeyShareGroupMaxSize, "share_group_max_size", strconv.Itoa(a.ShareGroupMaxSize)},
		{"consumers per partition", "consumers_per_partition", strconv.Itoa(a.ConsumersPerPartition)},
		{"max.poll.records lock bound", "max_poll_records_lock_bound", strconv.Itoa(a.MaxPollRecordsLockBound)},
		{"max.poll.records duration bound", "max_poll_records_duration_bound", strconv.Itoa(a.MaxPollRecordsDurationBound)},
		{"max.poll.records", "max_poll_records", strconv.Itoa(a.MaxPollRecords)},
		{"batch ms", "batch_ms", num(a.BatchMs)},
		{"W ms (time Acquired)", "w_ms", num(a.WMs)},
		{"record locks needed", "record_locks_needed", strconv.Itoa(a.RecordLocksNeeded)},
		{scenarios.KeyRecordLocks, "record_locks", strconv.Itoa(a.RecordLocks)},
		{"partitions needed (locks)", "partitions_needed", strconv.Itoa(a.PartitionsNeeded)},
		{scenarios.KeyRecordLockDuration, "lock_duration_ms", strconv.FormatInt(a.LockDurationMs, 10)},
		{"share worker ceiling records/s", "share_worker_ceiling_records_per_sec", num(a.ShareWorkerCeiling)},
		{"share lock ceiling records/s", "lock_ceiling_records_per_sec", num(a.LockCeiling)},
		{"share ceiling records/s", "ceiling_records_per_sec", num(a.Ceiling)},
		{"consumer group ceiling records/s", "consumer_group_ceiling_records_per_sec", num(a.ConsumerGroupCeiling)},
		{"consumer group partitions needed", "consumer_group_partitions_needed", strconv.Itoa(a.ConsumerGroupPartitionsNeeded)},
		{"share group worth it", "share_worth_it", yesNo[a.ShareWorthIt]},
	}
	if a.DestinationWriteMs > 0 {
		rows = append([]row{{"P ms (processing + write)", "processing_ms", num(a.ProcessingMs)}}, rows...)
	}
	if a.DestinationCapacity > 0 {
		rows = append(rows, row{"destination capacity records/s", "", num(a.DestinationCapacity)})
	}
	if a.PredictedP99Ms > 0 { // --p99-budget or --max-hold
		rows = append(rows, row{"predicted completion p99 ms", "predicted_p99_ms", num(a.PredictedP99Ms)})
	}
	if a.Renew == vocab.RenewAuto {
		rows = append(rows, row{"renew", "renew", "auto (a batch outlasts the longest lock)"})
	}
	return rows
}

// WriteText writes the plan as a table of value and formula, then the
// reasons for the verdict and the notes.
func (a Advice) WriteText(w io.Writer) error {
	bw := &errWriter{w: w}
	fmt.Fprintf(bw, "target %s records/s + %s%% headroom; processing %s, P = %s ms; %d partitions; poll overhead %s ms\n\n",
		num(a.TargetRate), num(100*a.Headroom), a.Processing, num(a.ProcessingMs), a.Partitions, num(a.PollOverheadMs))
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	for _, r := range a.rows() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.label, r.value, a.Formulas[r.field])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(bw, "\nwhy:")
	for _, r := range a.Reasons {
		fmt.Fprintf(bw, "  - %s\n", r)
	}
	if len(a.Notes) > 0 {
		fmt.Fprintln(bw, "\nnotes:")
		for _, n := range a.Notes {
			fmt.Fprintf(bw, "  - %s\n", n)
		}
	}
	return bw.err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
