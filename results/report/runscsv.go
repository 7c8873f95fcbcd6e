package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/sharebench/sharebench/results/runs"
)

// csvColumn is a column of runs.csv.
type csvColumn struct {
	name string
	get  func(r runs.Record) string
}

// runsCSVColumns are the columns of runs.csv, one row per run, for
// spreadsheets: the file's own columns and, by their run.json path, the
// registry's figures (column name and formatting from the registry). A
// figure with a column the layout does not place comes last.
func runsCSVColumns() []csvColumn {
	placed := map[string]bool{}
	figure := func(path string) csvColumn {
		placed[path] = true
		f, err := runs.LookupFigure(path)
		if err != nil {
			return csvColumn{path, func(runs.Record) string { return "" }}
		}
		return figureColumn(f)
	}
	cols := []csvColumn{
		{"run_id", func(r runs.Record) string { return r.RunID }},
		{"consumer_type", func(r runs.Record) string { return string(r.ConsumerType) }},
		figure("throughput.offered_per_sec"),
		figure("throughput.produced_per_sec"),
		figure("throughput.completed_per_sec"),
		figure("ceiling.records_per_sec"),
		{"ceiling_bound", func(r runs.Record) string { return string(r.Ceiling.Bound) }},
		// The bound that held after the run (Judge) and what would move it.
		{"ceiling_held", func(r runs.Record) string { return string(r.Ceiling.HeldBound()) }},
		{"ceiling_move", func(r runs.Record) string { return r.Ceiling.Move }},
		figure("ceiling.efficiency"),
		figure("latency.completion_ms.p50"),
		figure("latency.completion_ms.p90"),
		figure("latency.completion_ms.p99"),
		figure("latency.completion_ms.p999"),
		figure("latency.completion_ms.p9999"),
		figure("latency.completion_ms.max"),
		figure("latency.delivery_ms.p99"),
		figure("latency.publish_ms.p99"),
		figure("latency.schedule_lag_ms.p99"),
		figure("outcomes.redelivered"),
		figure("audit.produced"),
		figure("audit.completed_once"),
		figure("audit.duplicates"),
		figure("audit.archived"),
		figure("audit.in_flight"),
		figure("audit.lost"),
		figure("audit.undelivered"),
		figure("audit.balanced"),
		{"valid", func(r runs.Record) string { return strconv.FormatBool(r.Validity.Valid) }},
		{"flags", func(r runs.Record) string {
			return runs.JoinCodes(r.Validity.Codes(), " ")
		}},
		{"provider", func(r runs.Record) string { return r.Environment.Provider }},
		{"kafka_version", func(r runs.Record) string { return r.Environment.KafkaVersion }},
		{"is_kafka", func(r runs.Record) string { return strconv.FormatBool(r.Environment.IsKafka) }},
		{"share_preview", func(r runs.Record) string { return r.Environment.SharePreview }},
		// Measurement truth (group formation, the lock-holding bound, the
		// client's buffering, bursts); empty in files written before them.
		figure("phases.group_formation_s"),
		figure("ceiling.lock_holders"),
		figure("polls.records_per_acquisition.p90"),
		figure("latency.buffered_ms.p99"),
		figure("burst.end_to_end_s"),
	}
	for _, f := range runs.Figures() {
		if f.Column != "" && !placed[f.Path] {
			cols = append(cols, figureColumn(f))
		}
	}
	return cols
}

func figureColumn(f runs.Figure) csvColumn {
	return csvColumn{f.Column, func(r runs.Record) string { return f.CSV(&r) }}
}

// writeCSV writes one row per run with the summary figures.
func writeCSV(w io.Writer, recs []runs.Record) error {
	cw := csv.NewWriter(w)
	columns := runsCSVColumns()
	header := make([]string, len(columns))
	for i, c := range columns {
		header[i] = c.name
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range recs {
		row := make([]string, len(columns))
		for i, c := range columns {
			row[i] = c.get(r)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
