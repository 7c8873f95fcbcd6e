package runs

import (
	"fmt"
	"math"
	"slices"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// Destination is a run's destination (run.json destination): how the
// workers wrote, how long the writes took, what the table held after the
// drain and what that says about the writes (docs/explanation/measurement.md,
// "Destination"). Absent for a run without a destination: block.
type Destination struct {
	Kind blocks.DestinationKind `json:"kind"`
	// Server is the database as the reports may name it: "embedded
	// PostgreSQL 15" or the dsn's host and database (never its password).
	Server     string        `json:"server"`
	Table      string        `json:"table"`
	Key        blocks.RowKey `json:"key"`
	Idempotent bool          `json:"idempotent"`
	BatchSize  int           `json:"batch_size"`
	Pool       int           `json:"pool"`
	// Connections is the cap on the whole group's connections, which its
	// members share (0: none, a pool per member).
	Connections int `json:"connections,omitempty"`
	// WriteMs is a record's write: handed to the writer → its statement
	// committed (the wait for a connection and a batch included), every
	// write of the run.
	WriteMs results.Percentiles `json:"write_ms"`
	// ServiceMs is the mean time a record's statement held a connection,
	// per record (a statement's time ÷ its records): the destination's
	// service time, from which its capacity is read.
	ServiceMs float64 `json:"service_ms"`
	// The destination's capacity is the ceiling's (ceiling.destination).
	// The embedded audit is the read-back's (ReconcileDestination); absent
	// when the table could not be read (the run's errors say why).
	*results.DestinationAudit
}

// DestinationInput is what a campaign measured of a run's destination.
type DestinationInput struct {
	Server, Table string
	// Audit is the table read back and reconciled; nil when the read-back
	// failed.
	Audit *results.DestinationAudit
}

// destinationFigures fills the record's destination block from the
// merged write histogram and the read-back.
func destinationFigures(s scenarios.RunSpec, m results.Merged, in *DestinationInput) *Destination {
	d := s.Destination
	if d == nil || in == nil {
		return nil
	}
	out := &Destination{Kind: d.Kind, Server: in.Server, Table: in.Table, Key: d.Key, Idempotent: d.Idempotent,
		BatchSize: d.BatchSize, Pool: d.Pool, Connections: d.Connections, WriteMs: results.SummarizeMillis(m.DestinationWrite), DestinationAudit: in.Audit}
	if m.DestinationWrites > 0 {
		out.ServiceMs = float64(m.DestinationConnNanos) / float64(m.DestinationWrites) / 1e6
	}
	return out
}

// DestinationCapacity is the record writes per second a destination can
// take: the statements it runs at once ÷ the service time per record (a
// statement's time on its connection ÷ its records). Each active member
// has pool connections, and a statement has at least one worker waiting
// for it, so a member runs at most min(pool, workers) statements at once,
// for the share duty of its time it has records to write
// (DestinationDuty; 1: always); connections (above 0) caps the whole
// group's statements at once, however many members share them: members
// that wait between batches leave the shared connections to the others.
func DestinationCapacity(activeMembers, workers, pool, connections int, serviceMs, duty float64) float64 {
	if serviceMs <= 0 || activeMembers < 1 {
		return 0
	}
	at := float64(activeMembers*min(pool, workers)) * min(1, max(0, duty))
	if connections > 0 {
		at = min(at, float64(connections))
	}
	return at * 1000 / serviceMs
}

// DestinationDuty is the share of a blocking member's time its
// connections can be busy. A batch of recordsPerPoll records keeps its
// min(pool, workers) connections busy recordsPerPoll × serviceMs ÷
// min(pool, workers) ms; then they wait for the next batch (gapMs, the
// measured gap between batches) and its first processing (processingMs)
// before the first write: busy ÷ (busy + gapMs + processingMs). 1 when
// the gap is not measured (gapMs 0).
func DestinationDuty(recordsPerPoll, serviceMs float64, pool, workers int, gapMs, processingMs float64) float64 {
	c := min(pool, workers)
	if gapMs <= 0 || recordsPerPoll <= 0 || serviceMs <= 0 || c < 1 {
		return 1
	}
	busy := recordsPerPoll * serviceMs / float64(c)
	return busy / (busy + gapMs + processingMs)
}

// DestinationFlags are the destination's validity flags: writes that
// failed (their records were handed back and retried), and a table that
// does not reconcile with the ledger.
func DestinationFlags(d *Destination) []*Flag {
	if d == nil {
		return nil
	}
	var out []*Flag
	if d.DestinationAudit == nil {
		return []*Flag{{Code: CodeDestinationUnreconciled, Message: "the destination table could not be read back: see the run's errors"}}
	}
	a := d.DestinationAudit
	if a.WriteErrors > 0 {
		out = append(out, &Flag{Code: CodeDestinationWriteErrors, Message: fmt.Sprintf(
			"%d writes to the destination failed (each record was handed back and retried, none dropped); %d succeeded", a.WriteErrors, a.Writes)})
	}
	if !a.Reconciled() {
		out = append(out, &Flag{Code: CodeDestinationUnreconciled, Message: fmt.Sprintf(
			"the destination table does not reconcile with the ledger: %d missing (completed, never written), %d foreign rows, the table applied %d writes where the members counted %d",
			a.Missing, a.Foreign, a.TableWrites, a.Writes)})
	}
	return out
}

// destinationAuditKeys are the read-back's counts as run.json names them
// (results.DestinationAudit): present together, or absent together when
// the table was not read.
var destinationAuditKeys = []string{"writes", "write_errors", "table_writes", "rows", "records", "duplicates_absorbed",
	"duplicate_rows", "missing", "written_not_completed", "foreign"}

// destinationProblems recomputes the destination block from its counts
// (results.ReconcileDestination, docs/explanation/measurement.md "Destination"): the
// block is there exactly when the spec has a destination: block, with the
// spec's settings; every count is ≥ 0 and the counts are the ones a
// read-back makes: rows = records + duplicate_rows + foreign (each row is
// a record's first, one beyond it, or foreign), rows ≤ table_writes (a
// row counts each write it took, at least one), duplicates_absorbed =
// writes − rows with the key and 0 without; records − written_not_completed
// + missing are the records the ledger completed, which the audit counts
// as completed_once + duplicates (+ unacknowledged records a consumer
// completed); without foreign rows the table applied no more writes than
// the members attempted (writes + write_errors). The flags the counts
// raise (DestinationFlags) must be among the record's.
func destinationProblems(r Record, bad func(string, ...any)) {
	var spec *scenarios.Destination
	if r.Spec != nil {
		spec = r.Spec.Destination
	}
	d := r.Destination
	switch {
	case d == nil && spec != nil:
		bad("destination absent from run.json, but the spec has a destination: block (%s): the table's read-back and its reconciliation are missing", spec)
		return
	case d == nil:
		return
	case spec == nil:
		bad("destination block in run.json, but the spec has no destination: block")
		return
	}
	if d.Kind != spec.Kind || d.Key != spec.Key || d.Idempotent != spec.Idempotent || d.BatchSize != spec.BatchSize ||
		d.Pool != spec.Pool || d.Connections != spec.Connections {
		bad("destination says kind %s, key %s, idempotent %t, batch_size %d, pool %d, connections %d; the spec's destination: block says %s",
			d.Kind, d.Key, d.Idempotent, d.BatchSize, d.Pool, d.Connections, spec)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"service_ms", d.ServiceMs}, {"write_ms.mean", d.WriteMs.Mean}, {"write_ms.p50", d.WriteMs.P50},
		{"write_ms.p99", d.WriteMs.P99}, {"write_ms.max", d.WriteMs.Max}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			bad("destination.%s = %g: expected a finite number of milliseconds ≥ 0", f.name, f.v)
		}
	}
	if a := d.DestinationAudit; a != nil {
		reconciliationProblems(*a, d.Idempotent, r.Audit, bad)
	}
	for _, f := range DestinationFlags(d) {
		if !slices.Contains(r.Validity.Codes(), f.Code) {
			bad("validity.flags lacks %s, which the destination's counts raise (%s)", f.Code, f.Message)
		}
	}
}

// reconciliationProblems checks a destination read-back's counts against
// each other and against the run's audit (destinationProblems).
func reconciliationProblems(a results.DestinationAudit, idempotent bool, au results.Audit, bad func(string, ...any)) {
	negative := false
	for _, c := range []struct {
		name string
		v    int64
	}{{"writes", a.Writes}, {"write_errors", a.WriteErrors}, {"table_writes", a.TableWrites}, {"rows", a.Rows},
		{"records", a.Records}, {"duplicate_rows", a.DuplicateRows}, {"missing", a.Missing},
		{"written_not_completed", a.WrittenNotCompleted}, {"foreign", a.Foreign}} {
		if c.v < 0 {
			bad("destination.%s = %d is negative", c.name, c.v)
			negative = true
		}
	}
	if negative {
		return // the sums below would only restate it
	}
	if got := a.Records + a.DuplicateRows + a.Foreign; a.Rows != got {
		bad("destination.rows = %d, but records %d + duplicate_rows %d + foreign %d = %d: every row is a record's first, one beyond it, or foreign",
			a.Rows, a.Records, a.DuplicateRows, a.Foreign, got)
	}
	if a.Rows > a.TableWrites {
		bad("destination.rows = %d is more than the %d writes the table applied (table_writes): every row took at least one write", a.Rows, a.TableWrites)
	}
	if want := a.Writes - a.Rows; idempotent && a.DuplicatesAbsorbed != want {
		bad("destination.duplicates_absorbed = %d, but writes %d − rows %d = %d (idempotent: the upsert absorbs every write beyond a row's first)",
			a.DuplicatesAbsorbed, a.Writes, a.Rows, want)
	} else if !idempotent && a.DuplicatesAbsorbed != 0 {
		bad("destination.duplicates_absorbed = %d without a key (idempotent false): every write is a row, nothing is absorbed", a.DuplicatesAbsorbed)
	}
	if a.Records < a.WrittenNotCompleted {
		bad("destination.written_not_completed = %d is more than the %d records the table holds", a.WrittenNotCompleted, a.Records)
	}
	completed, withUnacked := au.CompletedOnce+au.Duplicates, au.CompletedOnce+au.Duplicates+au.Unacknowledged
	if got := a.Records - a.WrittenNotCompleted + a.Missing; got < completed || got > withUnacked {
		want := fmt.Sprint(completed)
		if withUnacked > completed {
			want = fmt.Sprintf("between %d and %d (with the unacknowledged)", completed, withUnacked)
		}
		bad("destination: records %d − written_not_completed %d + missing %d = %d completed records, but the audit completed %s (completed_once %d + duplicates %d): the table's read-back does not account for the records the run completed",
			a.Records, a.WrittenNotCompleted, a.Missing, got, want, au.CompletedOnce, au.Duplicates)
	}
	if attempted := a.Writes + a.WriteErrors; a.Foreign == 0 && a.TableWrites > attempted {
		bad("destination.table_writes = %d is more than the %d writes the members attempted (writes %d + write_errors %d)",
			a.TableWrites, attempted, a.Writes, a.WriteErrors)
	}
}

// destinationFigureList declares the destination's figures (absent for a
// run without a destination; the audit's when the table was not read).
func destinationFigureList() []Figure {
	pct := func(leaf, label string, get func(p *results.Percentiles) float64, console bool) Figure {
		f := fig("destination.write_ms."+leaf, "ms", Quantity, LowerIsBetter, func(r *Record) (float64, bool) {
			if r.Destination == nil {
				return 0, false
			}
			return get(&r.Destination.WriteMs), true
		}).label("destination write " + label + " ms").column("destination_write_" + leaf + "_ms").
			doc("a record's write to the destination: handed to the writer → its statement committed (waits included), every write: " + label)
		if console {
			f = f.console()
		}
		return f
	}
	out := []Figure{
		fig("destination.service_ms", "ms", Quantity, LowerIsBetter, func(r *Record) (float64, bool) {
			if r.Destination == nil {
				return 0, false
			}
			return r.Destination.ServiceMs, true
		}).label("destination service ms").column("destination_service_ms").
			doc("mean time a record's statement held a connection, per record (statement time ÷ its records)"),
		pct("p50", "p50", func(p *results.Percentiles) float64 { return p.P50 }, false),
		pct("p99", "p99", func(p *results.Percentiles) float64 { return p.P99 }, true),
		pct("max", "max", func(p *results.Percentiles) float64 { return p.Max }, false),
		pct("mean", "mean", func(p *results.Percentiles) float64 { return p.Mean }, false),
	}
	audit := func(leaf, label, doc string, better Direction, console bool, get func(a *results.DestinationAudit) int64) Figure {
		f := fig("destination."+leaf, "records", Count, better, func(r *Record) (float64, bool) {
			if r.Destination == nil || r.Destination.DestinationAudit == nil {
				return 0, false
			}
			return float64(get(r.Destination.DestinationAudit)), true
		}).label(label).column("destination_" + leaf).doc(doc)
		if console {
			f = f.console()
		}
		return f
	}
	return append(out,
		audit("writes", "destination writes", "record writes the members saw succeed (a redelivered record is written again)", LowerIsBetter, true,
			func(a *results.DestinationAudit) int64 { return a.Writes }),
		audit("write_errors", "destination write errors", "record writes that failed; the record was handed back and retried", LowerIsBetter, false,
			func(a *results.DestinationAudit) int64 { return a.WriteErrors }),
		audit("table_writes", "destination table writes", "writes the table applied: the sum of its rows' write counts", LowerIsBetter, false,
			func(a *results.DestinationAudit) int64 { return a.TableWrites }),
		audit("rows", "destination rows", "the table's rows after the drain", LowerIsBetter, true,
			func(a *results.DestinationAudit) int64 { return a.Rows }),
		audit("records", "destination records", "distinct records (producer, sequence) among the rows", LowerIsBetter, false,
			func(a *results.DestinationAudit) int64 { return a.Records }),
		audit("duplicates_absorbed", "destination duplicates absorbed", "writes − rows: repeat writes the upsert absorbed (idempotent)", LowerIsBetter, true,
			func(a *results.DestinationAudit) int64 { return a.DuplicatesAbsorbed }),
		audit("duplicate_rows", "destination duplicate rows", "rows − records: what a non-idempotent consumer leaves", LowerIsBetter, true,
			func(a *results.DestinationAudit) int64 { return a.DuplicateRows }),
		audit("missing", "destination missing", "completed (acknowledged or committed) records with no row: must be 0", LowerIsBetter, true,
			func(a *results.DestinationAudit) int64 { return a.Missing }),
		audit("written_not_completed", "destination written not completed", "records with a row the ledger never completed (a crash after the write, or archived)", LowerIsBetter, false,
			func(a *results.DestinationAudit) int64 { return a.WrittenNotCompleted }),
		audit("foreign", "destination foreign", "rows whose id the ledger never produced", LowerIsBetter, false,
			func(a *results.DestinationAudit) int64 { return a.Foreign }),
	)
}
