package destination

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results"
)

// Config is one run's destination: the scenario's destination: block
// (its DSN the database's connection string, a URL or key=value pairs; an
// empty Key keys by offset) and where the run writes.
type Config struct {
	blocks.Destination
	// Table is the run's table, created fresh by Open and dropped by Drop.
	Table string
	// Topic is the run's topic (a column of every row).
	Topic string
}

// Sink is one run's table in the destination database.
type Sink struct {
	c    Config
	pool *pgxpool.Pool // Open's own, for the table's setup, read-back and drop
	// shared is the members' pool under Config.Connections (nil without a
	// cap), opened by the first Writer.
	sharedMu sync.Mutex
	shared   *pgxpool.Pool
	host     string
	user     string
}

// tableRE is what a table name may be (it is written into statements).
var tableRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Open connects to the database and creates the run's table, checking on
// the way that the server is reachable, the credentials are right and the
// user may create, write, read and drop the table; every failure says
// which host and user, and what to grant.
func Open(ctx context.Context, c Config) (*Sink, error) {
	s, cctx, cancel, err := connect(ctx, c)
	if err != nil {
		return nil, err
	}
	defer cancel()
	if err := s.create(cctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Attach connects to the table another process opened (the coordinator
// of a sharded run, for its agents' members): it checks the server and
// the credentials as Open does, and creates nothing. Its Close leaves the
// table; only its opener reads it back and drops it.
func Attach(ctx context.Context, c Config) (*Sink, error) {
	s, _, cancel, err := connect(ctx, c)
	if err != nil {
		return nil, err
	}
	cancel()
	return s, nil
}

// connect checks c and reaches its database (bounded by 15 s: the
// returned context).
func connect(ctx context.Context, c Config) (*Sink, context.Context, context.CancelFunc, error) {
	if c.Key == "" {
		c.Key = blocks.KeyOffset
	}
	if !slices.Contains(c.Key.Values(), string(c.Key)) {
		return nil, nil, nil, fmt.Errorf("destination: key: expected %s, got %q", blocks.Or(c.Key.Values()), c.Key)
	}
	if !tableRE.MatchString(c.Table) {
		return nil, nil, nil, fmt.Errorf("destination: table %q: lower-case letters, digits and '_', at most 63", c.Table)
	}
	c.BatchSize, c.Pool, c.Connections = max(c.BatchSize, 1), max(c.Pool, 1), max(c.Connections, 0)
	cfg, err := ParseDSN(c.DSN)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("destination: dsn: %w", err)
	}
	cfg.MaxConns = 1
	s := &Sink{c: c, host: fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port), user: cfg.ConnConfig.User}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	s.pool, err = pgxpool.NewWithConfig(cctx, cfg)
	if err == nil {
		err = s.pool.Ping(cctx)
	}
	if err != nil {
		cancel()
		s.Close()
		return nil, nil, nil, s.connectError(err)
	}
	return s, cctx, cancel, nil
}

// Host and User are the server address and user the DSN names.
func (s *Sink) Host() string { return s.host }
func (s *Sink) User() string { return s.user }

// Config is the sink's configuration, defaults applied.
func (s *Sink) Config() Config { return s.c }

// create makes the run's table (dropping a leftover of the same name) and
// writes, reads and deletes one probe row, so a missing grant fails here.
func (s *Sink) create(ctx context.Context) error {
	t := pgx.Identifier{s.c.Table}.Sanitize()
	if _, err := s.pool.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
		return s.grantError(err, "drop a leftover table "+s.c.Table, "make "+s.user+" the owner of "+s.c.Table+" or drop it yourself")
	}
	key := ""
	if s.c.Idempotent {
		key = ", PRIMARY KEY (topic, part, off)"
		if s.c.Key == blocks.KeySequence {
			key = ", PRIMARY KEY (producer, seq)"
		}
	}
	ddl := "CREATE TABLE " + t + " (topic text NOT NULL, part integer NOT NULL, off bigint NOT NULL, " +
		"producer bigint NOT NULL, seq bigint NOT NULL, writes integer NOT NULL DEFAULT 1, written_at timestamptz NOT NULL DEFAULT now()" + key + ")"
	if _, err := s.pool.Exec(ctx, ddl); err != nil {
		return s.grantError(err, "create table "+s.c.Table, "GRANT CREATE ON SCHEMA public TO "+s.user)
	}
	probe := []results.DestinationRecord{{Producer: 1<<31 - 1, Seq: 1<<62 - 1, Partition: -1, Offset: -1}}
	if _, err := s.pool.Exec(ctx, s.c.Statement(), s.args(probe)...); err != nil {
		return s.grantError(err, "write into "+s.c.Table, "GRANT INSERT, UPDATE, SELECT, DELETE ON "+s.c.Table+" TO "+s.user)
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM "+t+" WHERE part = -1"); err != nil {
		return s.grantError(err, "delete from "+s.c.Table, "GRANT DELETE ON "+s.c.Table+" TO "+s.user)
	}
	return nil
}

// Statement is the write of a batch: $1 the topic, $2..$5 the arrays of
// partitions, offsets, producers and sequences, each placeholder once and
// in that order (the client runners' writes run it too, with their
// drivers' placeholders). The upsert groups a batch's repeats of one id
// first (one statement may not update a row twice) and adds them to the
// row's write count.
func (c Config) Statement() string {
	t := pgx.Identifier{c.Table}.Sanitize()
	src := " FROM unnest($2::integer[], $3::bigint[], $4::bigint[], $5::bigint[]) AS u(part, off, producer, seq)"
	if !c.Idempotent {
		return "INSERT INTO " + t + " (topic, part, off, producer, seq) SELECT $1, part, off, producer, seq" + src
	}
	conflict := "(topic, part, off)"
	if c.Key == blocks.KeySequence {
		conflict = "(producer, seq)"
	}
	return "INSERT INTO " + t + " AS t (topic, part, off, producer, seq, writes) SELECT $1, min(part), min(off), producer, seq, count(*)::integer" +
		src + groupBy(c.Key) + " ON CONFLICT " + conflict + " DO UPDATE SET writes = t.writes + EXCLUDED.writes, written_at = now()"
}

// groupBy groups a batch by the key's columns.
func groupBy(k blocks.RowKey) string {
	if k == blocks.KeySequence {
		return " GROUP BY producer, seq"
	}
	return " GROUP BY part, off, producer, seq"
}

// args are a batch's statement arguments.
func (s *Sink) args(recs []results.DestinationRecord) []any {
	parts, offs, prods, seqs := make([]int32, len(recs)), make([]int64, len(recs)), make([]int64, len(recs)), make([]int64, len(recs))
	for i, r := range recs {
		parts[i], offs[i], prods[i], seqs[i] = r.Partition, r.Offset, int64(r.Producer), int64(r.Seq)
	}
	return []any{s.c.Topic, parts, offs, prods, seqs}
}

// ReadBack reads the run's table: one entry per record id (producer,
// sequence) with its rows and the writes they absorbed.
func (s *Sink) ReadBack(ctx context.Context) ([]results.DestinationRows, error) {
	rows, err := s.pool.Query(ctx, "SELECT producer, seq, count(*), sum(writes) FROM "+pgx.Identifier{s.c.Table}.Sanitize()+" GROUP BY producer, seq")
	if err != nil {
		return nil, s.grantError(err, "read back "+s.c.Table, "GRANT SELECT ON "+s.c.Table+" TO "+s.user)
	}
	defer rows.Close()
	var out []results.DestinationRows
	for rows.Next() {
		var p, seq, n, w int64
		if err := rows.Scan(&p, &seq, &n, &w); err != nil {
			return nil, err
		}
		out = append(out, results.DestinationRows{Producer: uint32(p), Seq: uint64(seq), Rows: n, Writes: w})
	}
	return out, rows.Err()
}

// Drop drops the run's table.
func (s *Sink) Drop(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{s.c.Table}.Sanitize())
	return err
}

// Close closes the sink's own connection and the members' shared pool
// (members close their Writers first).
func (s *Sink) Close() {
	if s.pool != nil {
		s.pool.Close()
	}
	s.sharedMu.Lock()
	defer s.sharedMu.Unlock()
	if s.shared != nil {
		s.shared.Close()
		s.shared = nil
	}
}

// connectError says why the database could not be reached, naming host
// and user.
func (s *Sink) connectError(err error) error {
	var pe *pgconn.PgError
	msg := redact.Text(err.Error())
	switch {
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		return fmt.Errorf("destination: %s refused user %q (%s): check the user and password in the dsn (or --destination-dsn), and pg_hba.conf for this client", s.host, s.user, pe.Message)
	case errors.As(err, &pe) && pe.Code == "3D000":
		return fmt.Errorf("destination: %s: %s: create the database or name another in the dsn", s.host, pe.Message)
	case errors.Is(err, syscall.ECONNREFUSED) || isNetError(err):
		return fmt.Errorf("destination: %s unreachable for user %q: %s: is PostgreSQL running there, listening on that address (listen_addresses) and port?", s.host, s.user, msg)
	}
	return fmt.Errorf("destination: connect to %s as %q: %s", s.host, s.user, msg)
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || strings.Contains(err.Error(), "dial")
}

// grantError says what failed and, when the server refused it for want of
// a privilege, the grant to add.
func (s *Sink) grantError(err error, what, grant string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42501" {
		return fmt.Errorf("destination: %s at %s: user %q may not %s (%s): %s", s.c.Table, s.host, s.user, what, pe.Message, grant)
	}
	return fmt.Errorf("destination: %s at %s as %q: %s: %s", s.c.Table, s.host, s.user, what, redact.Text(err.Error()))
}
