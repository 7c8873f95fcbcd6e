package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// Destinations (docs/how-to/test-a-destination.md): a campaign whose runs have a
// destination: block reaches its database once before the first run
// (destinationServer: the dsn, or an embedded PostgreSQL started from the
// machine's server binaries), checks it there with a probe table, and
// stops an embedded server when it ends. Each run writes into a table of
// its own, read back after the drain and dropped.

// destinationServer is the database a campaign's runs write to.
type destinationServer struct {
	dsn string
	// server names it for the reports: "embedded PostgreSQL 15", or the
	// dsn's host and database.
	server string
	pg     *infra.Postgres // the embedded server; nil for a dsn
}

// stop stops an embedded server (a no-op for a dsn, or nil).
func (d *destinationServer) stop() {
	if d != nil && d.pg != nil {
		d.pg.Stop()
	}
}

// destinationDSN is the dsn the runs use: override (--destination-dsn),
// else the scenario's, with ${VAR} expanded from the environment
// (connection.ExpandEnv, as a connection file's values) and read by
// destination.ParseDSN; "" asks for an embedded server, or is no run's.
// An error names where the dsn came from: the flag, or the file and line
// of destination.dsn.
func destinationDSN(sc *scenarios.Scenario, override string) (string, error) {
	if !hasDestination(sc.Runs...) {
		if override != "" {
			return "", errors.New("--destination-dsn: no run has a destination: block to write to; add one to the scenario or leave the flag out")
		}
		return "", nil
	}
	dsn, where := override, "--destination-dsn"
	for _, r := range sc.Runs {
		if dsn == "" && r.Destination != nil && r.Destination.DSN != "" {
			dsn, where = r.Destination.DSN, r.Destination.DSNSource+": destination.dsn"
		}
	}
	if dsn == "" {
		return "", nil
	}
	out, err := expandDSN(dsn, os.LookupEnv)
	if err == nil {
		_, err = destination.ParseDSN(out)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", where, err)
	}
	return out, nil
}

// expandDSN expands the ${VAR}s of a dsn (connection.ExpandEnv). A
// variable inside a secret's value is data, not syntax: its value is
// escaped (redact.EscapeDSNValue), so a password holding a quote, a blank
// or an @ stays the password, whole.
func expandDSN(dsn string, lookup func(string) (string, bool)) (string, error) {
	escaped := func(name string) (string, bool) {
		v, ok := lookup(name)
		return redact.EscapeDSNValue(dsn, v), ok
	}
	fields, _ := redact.DSNFields(dsn) // malformed: ParseDSN says how, after the expansion
	var b strings.Builder
	at := 0
	for _, f := range fields {
		if !redact.IsDSNSecret(f.Key) {
			continue
		}
		before, err := connection.ExpandEnv(dsn[at:f.Start], lookup)
		if err != nil {
			return "", err
		}
		v, err := connection.ExpandEnv(dsn[f.Start:f.End], escaped)
		if err != nil {
			return "", err
		}
		if v == "" && !redact.IsDSNURL(dsn) {
			v = "''" // unquoted, libpq would read the next word as the value
		}
		b.WriteString(before + v)
		at = f.End
	}
	v, err := connection.ExpandEnv(dsn[at:], lookup)
	return b.String() + v, err
}

// CheckDestination checks the campaign's dsn as the run will read it
// (destinationDSN) without connecting: the dry run's and the run's check
// before anything starts.
func CheckDestination(sc *scenarios.Scenario, override string) error {
	_, err := destinationDSN(sc, override)
	return err
}

// hasDestination reports whether any run writes to a destination.
func hasDestination(specs ...scenarios.RunSpec) bool {
	for _, r := range specs {
		if r.Destination != nil {
			return true
		}
	}
	return false
}

// startDestination reaches the campaign's database: the dsn, or an
// embedded server started for it, and checks it with a probe table (the
// grants to create, write, read and drop one), so a wrong dsn, wrong
// credentials or a missing grant fail before the first run. nil when no
// run has a destination.
func startDestination(ctx context.Context, sc *scenarios.Scenario, override string, log io.Writer) (*destinationServer, error) {
	dsn, err := destinationDSN(sc, override)
	if err != nil || !hasDestination(sc.Runs...) {
		return nil, err
	}
	d := &destinationServer{dsn: dsn, server: describeDSN(dsn)}
	if dsn == "" {
		pg, err := infra.StartPostgres(ctx, log)
		if err != nil {
			return nil, err
		}
		d.pg, d.dsn, d.server = pg, pg.DSN(), "embedded PostgreSQL "+pg.Version()
	}
	probe, err := destination.Open(ctx, destination.Config{Table: "sharebench_probe_" + randomSuffix(), Topic: "probe",
		Destination: blocks.Destination{DSN: d.dsn, Idempotent: true}})
	if err != nil {
		d.stop()
		return nil, err
	}
	err = probe.Drop(ctx)
	probe.Close()
	if err != nil {
		d.stop()
		return nil, fmt.Errorf("destination: drop the probe table at %s: %w", probe.Host(), err)
	}
	fmt.Fprintf(log, "destination: %s reachable, may create, write, read and drop tables\n", d.server)
	return d, nil
}

// describeDSN names a dsn's server without its credentials.
func describeDSN(dsn string) string {
	if dsn == "" {
		return ""
	}
	cfg, err := destination.ParseDSN(dsn)
	if err != nil {
		return "PostgreSQL"
	}
	return fmt.Sprintf("PostgreSQL at %s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
}

// openSink creates the run's table, reaching the campaign's database (or,
// for a run made outside a campaign, starting one for the run: the
// returned stop stops it).
func (s *runSetup) openSink(ctx context.Context) (func(), error) {
	d := s.spec.Destination
	if d == nil {
		return func() {}, nil
	}
	server := s.dest
	stopServer := func() {}
	if server == nil {
		sc := &scenarios.Scenario{Runs: []scenarios.RunSpec{s.spec}}
		var err error
		if server, err = startDestination(ctx, sc, "", s.log); err != nil {
			return nil, err
		}
		stopServer = server.stop
	}
	table := "sharebench_" + strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToLower(s.id+"_"+s.suffix))
	if len(table) > 63 {
		table = table[:63]
	}
	sink, err := destination.Open(ctx, sinkConfig(d, server.dsn, table, s.topic))
	if err != nil {
		stopServer()
		return nil, err
	}
	s.sink, s.destIn = sink, &runs.DestinationInput{Server: server.server, Table: table}
	fmt.Fprintf(s.log, "  %s: destination: table %s on %s (%s)\n", s.id, table, server.server, d)
	return func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := sink.Drop(dctx); err != nil {
			fmt.Fprintf(s.log, "  %s: destination: drop %s: %v\n", s.id, table, err)
		}
		sink.Close()
		stopServer()
	}, nil
}

// sinkConfig is the destination package's view of a run's destination:
// block, writing into table.
func sinkConfig(d *scenarios.Destination, dsn, table, topic string) destination.Config {
	block := *d
	block.DSN = dsn
	return destination.Config{Destination: block, Table: table, Topic: topic}
}

// destinationWriter opens a member's writer (consumers.Config.Destination).
func (s *runSetup) destinationWriter(ctx context.Context) (consumers.RecordWriter, error) {
	return s.sink.Writer(ctx)
}

// reconcileDestination reads the run's table back once the consumers have
// stopped and reconciles it with the ledger and the members' write counts;
// a read that fails is one of the run's errors (and the run is flagged).
func (r *run) reconcileDestination(ctx context.Context) {
	s := r.setup
	if s.sink == nil {
		return
	}
	rows, err := s.sink.ReadBack(ctx)
	if err != nil {
		r.fleet.errs = append(r.fleet.errs, fmt.Sprintf("destination: read back %s: %v", s.destIn.Table, err))
		fmt.Fprintf(s.log, "  %s: destination: read back: %v\n", s.id, err)
		return
	}
	c := r.rc.rec.Counts()
	a := results.ReconcileDestination(r.rc.rec.Ledger, c.DestinationWrites, c.DestinationWriteErrors, s.spec.Destination.Idempotent, rows)
	s.destIn.Audit = &a
	fmt.Fprintf(s.log, "  %s: destination: %d writes (%d failed), %d rows of %d records: %d duplicates absorbed, %d duplicate rows, %d missing, %d written not completed, %d foreign\n",
		s.id, a.Writes, a.WriteErrors, a.Rows, a.Records, a.DuplicatesAbsorbed, a.DuplicateRows, a.Missing, a.WrittenNotCompleted, a.Foreign)
}
