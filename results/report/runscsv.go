package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/sharebench/sharebench/results/runs"
)

// runsCSVColumns are the columns of runs.csv, one row per run, for
// spreadsheets; each reads one figure of run.json.
var runsCSVColumns = []struct {
	name string
	get  func(r runs.Record) string
}{
	{"run_id", func(r runs.Record) string { return r.RunID }},
	{"consumer_type", func(r runs.Record) string { return r.ConsumerType }},
	{"offered_per_sec", func(r runs.Record) string { return f64(r.Throughput.OfferedPerSec) }},
	{"produced_per_sec", func(r runs.Record) string { return f64(r.Throughput.ProducedPerSec) }},
	{"completed_per_sec", func(r runs.Record) string { return f64(r.Throughput.CompletedPerSec) }},
	{"ceiling_per_sec", func(r runs.Record) string { return f64(r.Ceiling.RecordsPerSec) }},
	{"ceiling_bound", func(r runs.Record) string { return r.Ceiling.Bound }},
	{"efficiency", func(r runs.Record) string { return f64(r.Ceiling.Efficiency) }},
	{"completion_p50_ms", func(r runs.Record) string { return f64(r.Latency.CompletionMs.P50) }},
	{"completion_p90_ms", func(r runs.Record) string { return f64(r.Latency.CompletionMs.P90) }},
	{"completion_p99_ms", func(r runs.Record) string { return f64(r.Latency.CompletionMs.P99) }},
	{"completion_p999_ms", func(r runs.Record) string { return f64(r.Latency.CompletionMs.P999) }},
	{"completion_p9999_ms", func(r runs.Record) string { return f64(r.Latency.CompletionMs.P9999) }},
	{"completion_max_ms", func(r runs.Record) string { return f64(r.Latency.CompletionMs.Max) }},
	{"delivery_p99_ms", func(r runs.Record) string { return f64(r.Latency.DeliveryMs.P99) }},
	{"publish_p99_ms", func(r runs.Record) string { return f64(r.Latency.PublishMs.P99) }},
	{"schedule_lag_p99_ms", func(r runs.Record) string { return f64(r.Latency.ScheduleLagMs.P99) }},
	{"redelivered", func(r runs.Record) string { return i64(r.Outcomes.Redelivered) }},
	{"audit_produced", func(r runs.Record) string { return i64(r.Audit.Produced) }},
	{"audit_completed_once", func(r runs.Record) string { return i64(r.Audit.CompletedOnce) }},
	{"audit_duplicates", func(r runs.Record) string { return i64(r.Audit.Duplicates) }},
	{"audit_archived", func(r runs.Record) string { return i64(r.Audit.Archived) }},
	{"audit_in_flight", func(r runs.Record) string { return i64(r.Audit.InFlight) }},
	{"audit_lost", func(r runs.Record) string { return i64(r.Audit.Lost) }},
	{"audit_undelivered", func(r runs.Record) string { return i64(r.Audit.Undelivered) }},
	{"audit_balanced", func(r runs.Record) string { return strconv.FormatBool(r.Audit.Balanced) }},
	{"valid", func(r runs.Record) string { return strconv.FormatBool(r.Validity.Valid) }},
	{"flags", func(r runs.Record) string {
		codes := make([]string, len(r.Validity.Flags))
		for i, f := range r.Validity.Flags {
			codes[i] = f.Code
		}
		return strings.Join(codes, " ")
	}},
	{"provider", func(r runs.Record) string { return r.Environment.Provider }},
	{"kafka_version", func(r runs.Record) string { return r.Environment.KafkaVersion }},
	{"is_kafka", func(r runs.Record) string { return strconv.FormatBool(r.Environment.IsKafka) }},
	// Measurement truth (group formation, the lock-holding bound, the
	// client's buffering, bursts); empty in files written before them.
	{"group_formation_s", func(r runs.Record) string { return f64(r.Phases.GroupFormationSec) }},
	{"lock_holders_per_sec", func(r runs.Record) string { return f64(r.Ceiling.LockHolders) }},
	{"records_per_acquisition_p90", func(r runs.Record) string { return f64(r.Polls.RecordsPerAcquisition.P90) }},
	{"buffered_p99_ms", func(r runs.Record) string { return f64(r.Latency.BufferedMs.P99) }},
	{"end_to_end_s", func(r runs.Record) string {
		if r.Burst == nil {
			return ""
		}
		return f64(r.Burst.EndToEndSec)
	}},
}

func f64(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
func i64(v int64) string   { return strconv.FormatInt(v, 10) }

// writeCSV writes one row per run with the summary figures.
func writeCSV(w io.Writer, recs []runs.Record) error {
	cw := csv.NewWriter(w)
	header := make([]string, len(runsCSVColumns))
	for i, c := range runsCSVColumns {
		header[i] = c.name
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range recs {
		row := make([]string, len(runsCSVColumns))
		for i, c := range runsCSVColumns {
			row[i] = c.get(r)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
