package destination_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results"
)

// server starts an embedded PostgreSQL for the test (skipped where the
// server binaries are missing, except under CI).
func server(t *testing.T) string {
	t.Helper()
	if _, err := infra.FindPostgresBin(); err != nil {
		testkit.Unavailable(t, err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pg, err := infra.StartPostgres(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Stop)
	return pg.DSN()
}

func rec(seq uint64, part int32, off int64) results.DestinationRecord {
	return results.DestinationRecord{Producer: 0, Seq: seq, Partition: part, Offset: off}
}

// byID sorts read-back rows.
func byID(rows []results.DestinationRows) []results.DestinationRows {
	slices.SortFunc(rows, func(a, b results.DestinationRows) int { return int(a.Seq) - int(b.Seq) })
	return rows
}

func TestSinkWritesAndReadsBack(t *testing.T) {
	dsn := server(t)
	ctx := context.Background()
	// Records 0..3; record 1 written three times (twice in one batch),
	// record 2 twice.
	writes := []results.DestinationRecord{rec(0, 0, 10), rec(1, 1, 11), rec(1, 1, 11), rec(2, 0, 12), rec(1, 1, 11), rec(2, 0, 12), rec(3, 1, 13)}
	for _, c := range []struct {
		name       string
		key        blocks.RowKey
		idempotent bool
		batch      int
		want       []results.DestinationRows
	}{
		{"upsert by offset, per record", blocks.KeyOffset, true, 1,
			[]results.DestinationRows{{Seq: 0, Rows: 1, Writes: 1}, {Seq: 1, Rows: 1, Writes: 3}, {Seq: 2, Rows: 1, Writes: 2}, {Seq: 3, Rows: 1, Writes: 1}}},
		{"upsert by sequence, batches of 4", blocks.KeySequence, true, 4,
			[]results.DestinationRows{{Seq: 0, Rows: 1, Writes: 1}, {Seq: 1, Rows: 1, Writes: 3}, {Seq: 2, Rows: 1, Writes: 2}, {Seq: 3, Rows: 1, Writes: 1}}},
		{"no key: a row per write", blocks.KeyOffset, false, 3,
			[]results.DestinationRows{{Seq: 0, Rows: 1, Writes: 1}, {Seq: 1, Rows: 3, Writes: 3}, {Seq: 2, Rows: 2, Writes: 2}, {Seq: 3, Rows: 1, Writes: 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := destination.Open(ctx, destination.Config{Table: "t_" + strings.ReplaceAll(string(c.key), "_", ""), Topic: "bench",
				Destination: blocks.Destination{DSN: dsn, Key: c.key, Idempotent: c.idempotent, BatchSize: c.batch, BatchWait: 20 * time.Millisecond, Pool: 2}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			w, err := s.Writer(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for _, r := range writes {
				wg.Go(func() {
					conn, err := w.Write(ctx, r)
					if err != nil || conn <= 0 {
						t.Errorf("write: %v, connection time %v", err, conn)
					}
				})
			}
			wg.Wait()
			w.Close()
			if _, err := w.Write(ctx, rec(9, 0, 19)); c.batch > 1 && err == nil {
				t.Error("a write after Close succeeded")
			}
			got, err := s.ReadBack(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(byID(got), c.want) {
				t.Errorf("read back %+v, want %+v", got, c.want)
			}
			if err := s.Drop(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Bad input fails in Open, naming host, user and what to do.
func TestSinkOpenErrors(t *testing.T) {
	dsn := server(t)
	ctx := context.Background()
	u, _ := url.Parse(dsn)
	pass, _ := u.User.Password()
	// A role that may log in but create nothing (PostgreSQL 15 revokes
	// CREATE on schema public from PUBLIC).
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE ROLE reader LOGIN PASSWORD 'readerpw'"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	with := func(f func(u *url.URL)) string {
		v := *u
		f(&v)
		return v.String()
	}
	for _, c := range []struct {
		name string
		dsn  string
		want []string
	}{
		{"wrong password", with(func(v *url.URL) { v.User = url.UserPassword("sharebench", "wrong-pw-123") }),
			[]string{u.Host, `user "sharebench"`, "password"}},
		{"unreachable", with(func(v *url.URL) { v.Host = "127.0.0.1:1" }),
			[]string{"127.0.0.1:1 unreachable", `user "sharebench"`}},
		{"no grant to create", with(func(v *url.URL) { v.User = url.UserPassword("reader", "readerpw") }),
			[]string{u.Host, `user "reader"`, "GRANT CREATE ON SCHEMA public TO reader"}},
		{"not a dsn", "postgres://%zz", []string{"destination: dsn"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := destination.Open(ctx, destination.Config{Table: "t_bad", Topic: "bench", Destination: blocks.Destination{DSN: c.dsn, Idempotent: true}})
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, secret := range []string{pass, "wrong-pw-123", "readerpw"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q leaks a password", err)
				}
			}
		})
	}
}

// Under Connections the members' writers share one pool: three writers of
// pool 2 hold 2 connections in all (not 6), every write lands, and a
// writer's Close leaves the shared pool to the others.
func TestSinkSharedConnections(t *testing.T) {
	dsn := server(t)
	ctx := context.Background()
	s, err := destination.Open(ctx, destination.Config{Table: "t_shared", Topic: "bench", Destination: blocks.Destination{DSN: dsn, Idempotent: true, Pool: 2, Connections: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ws []*destination.Writer
	for range 3 {
		w, err := s.Writer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Go(func() {
			if _, err := ws[i%3].Write(ctx, rec(uint64(i), 0, int64(i))); err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	// The server's client connections: the sink's own, the shared pool's
	// 2, and this check's.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = current_database()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1+2+1 {
		t.Errorf("%d client connections, want 4 (the sink's, 2 shared, the check's)", n)
	}
	ws[0].Close()
	if _, err := ws[1].Write(ctx, rec(300, 0, 300)); err != nil {
		t.Errorf("a write after another writer closed: %v", err)
	}
	ws[1].Close()
	ws[2].Close()
	got, err := s.ReadBack(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 301 {
		t.Errorf("read back %d records, want 301", len(got))
	}
}
