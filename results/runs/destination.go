package runs

import (
	"fmt"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// Destination is a run's destination (run.json destination): how the
// workers wrote, how long the writes took, what the table held after the
// drain and what that says about the writes (docs/measurement.md,
// "Destination"). Absent for a run without a destination: block.
type Destination struct {
	Kind string `json:"kind"`
	// Server is the database as the reports may name it: "embedded
	// PostgreSQL 15" or the dsn's host and database (never its password).
	Server     string `json:"server"`
	Table      string `json:"table"`
	Key        string `json:"key"`
	Idempotent bool   `json:"idempotent"`
	BatchSize  int    `json:"batch_size"`
	Pool       int    `json:"pool"`
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
// for it, so a member runs at most min(pool, workers) statements at once;
// connections (above 0) caps the whole group's statements at once, however
// many members share them.
func DestinationCapacity(activeMembers, workers, pool, connections int, serviceMs float64) float64 {
	if serviceMs <= 0 || activeMembers < 1 {
		return 0
	}
	at := activeMembers * min(pool, workers)
	if connections > 0 {
		at = min(at, connections)
	}
	return float64(at) * 1000 / serviceMs
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
