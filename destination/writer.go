package destination

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/results"
)

// Writer is one member's writer: its own pool of Config.Pool connections
// (or, under Config.Connections, at most Pool connections of the members'
// shared pool), and with BatchSize > 1 a batcher that gathers records from
// the member's workers into one statement. Write is safe for concurrent
// use.
type Writer struct {
	s    *Sink
	pool *pgxpool.Pool
	// slots bounds the member's statements at once to Pool on the shared
	// pool (nil with a pool of its own, which its size bounds).
	slots chan struct{}
	stmt  string

	// The batcher (BatchSize > 1).
	reqs    chan *request
	stop    chan struct{}
	wg      sync.WaitGroup
	closeMu sync.Once
}

// request is one record waiting for its batch's statement.
type request struct {
	rec  results.DestinationRecord
	ctx  context.Context
	done chan result
}

// result is a batch statement's outcome for one of its records.
type result struct {
	conn time.Duration // the record's share of the statement's time
	err  error
}

// Writer opens a member's writer and connects its pool's connections, so
// the first writes do not pay for the connecting.
func (s *Sink) Writer(ctx context.Context) (*Writer, error) {
	w := &Writer{s: s, stmt: s.c.Statement()}
	if s.c.Connections > 0 {
		pool, err := s.sharedPool(ctx)
		if err != nil {
			return nil, err
		}
		w.pool, w.slots = pool, make(chan struct{}, s.c.Pool)
	} else {
		pool, err := s.connect(ctx, s.c.Pool)
		if err != nil {
			return nil, err
		}
		w.pool = pool
	}
	if s.c.BatchSize > 1 {
		w.reqs, w.stop = make(chan *request), make(chan struct{})
		w.wg.Add(1)
		go w.batcher()
	}
	return w, nil
}

// connect opens a pool of n connections and connects them all, so the
// first writes do not pay for the connecting.
func (s *Sink) connect(ctx context.Context, n int) (*pgxpool.Pool, error) {
	cfg, err := ParseDSN(s.c.DSN)
	if err != nil {
		return nil, fmt.Errorf("destination: dsn: %w", err)
	}
	cfg.MaxConns, cfg.MinConns = int32(n), 0
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.connectError(err)
	}
	conns := make([]*pgxpool.Conn, 0, n)
	for range n {
		var c *pgxpool.Conn
		if c, err = pool.Acquire(ctx); err != nil {
			break
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
	if err != nil {
		pool.Close()
		return nil, s.connectError(err)
	}
	return pool, nil
}

// sharedPool is the members' shared pool of Connections connections,
// opened by the first writer that asks.
func (s *Sink) sharedPool(ctx context.Context) (*pgxpool.Pool, error) {
	s.sharedMu.Lock()
	defer s.sharedMu.Unlock()
	if s.shared == nil {
		pool, err := s.connect(ctx, s.c.Connections)
		if err != nil {
			return nil, err
		}
		s.shared = pool
	}
	return s.shared, nil
}

// Write writes one record and returns once its statement committed (or
// failed), with the record's share of the time the statement held its
// connection (the statement's time ÷ its records: the destination's
// service time, without the wait for a connection or a batch). With
// batching the record waits at most BatchWait for others.
func (w *Writer) Write(ctx context.Context, r results.DestinationRecord) (time.Duration, error) {
	if w.reqs == nil {
		return w.exec(ctx, []results.DestinationRecord{r})
	}
	q := &request{rec: r, ctx: ctx, done: make(chan result, 1)}
	select {
	case w.reqs <- q:
	case <-w.stop:
		return 0, fmt.Errorf("destination: writer closed")
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	res := <-q.done
	return res.conn, res.err
}

// exec runs one statement over recs on a connection of the pool and
// returns each record's share of the statement's time.
func (w *Writer) exec(ctx context.Context, recs []results.DestinationRecord) (time.Duration, error) {
	if w.slots != nil {
		select {
		case w.slots <- struct{}{}:
			defer func() { <-w.slots }()
		case <-ctx.Done():
			return 0, fmt.Errorf("destination: write %d record(s) into %s: wait for a connection: %w", len(recs), w.s.c.Table, ctx.Err())
		}
	}
	c, err := w.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("destination: write %d record(s) into %s: connect: %s", len(recs), w.s.c.Table, redact.Text(err.Error()))
	}
	defer c.Release()
	start := time.Now()
	_, err = c.Exec(ctx, w.stmt, w.s.args(recs)...)
	took := time.Since(start) / time.Duration(len(recs))
	if err != nil {
		return took, fmt.Errorf("destination: write %d record(s) into %s: %s", len(recs), w.s.c.Table, redact.Text(err.Error()))
	}
	return took, nil
}

// batcher gathers requests into batches of at most BatchSize, waiting at
// most BatchWait after a batch's first, and runs each batch's statement on
// its own goroutine (the pool bounds how many run at once).
func (w *Writer) batcher() {
	defer w.wg.Done()
	for {
		var batch []*request
		select {
		case q := <-w.reqs:
			batch = append(batch, q)
		case <-w.stop:
			return
		}
		timer := time.NewTimer(w.s.c.BatchWait)
	gather:
		for len(batch) < w.s.c.BatchSize {
			select {
			case q := <-w.reqs:
				batch = append(batch, q)
			case <-timer.C:
				break gather
			case <-w.stop:
				break gather
			}
		}
		timer.Stop()
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			recs := make([]results.DestinationRecord, len(batch))
			for i, q := range batch {
				recs[i] = q.rec
			}
			// The batch's writes share one statement: it runs under the
			// first record's context (the members write under contexts
			// that shutdown does not cancel).
			conn, err := w.exec(batch[0].ctx, recs)
			for _, q := range batch {
				q.done <- result{conn, err}
			}
		}()
	}
}

// Close stops the batcher after the batches under way and closes the
// member's own pool (the shared pool is the Sink's to close). Writes after
// Close fail.
func (w *Writer) Close() {
	w.closeMu.Do(func() {
		if w.stop != nil {
			close(w.stop)
		}
		w.wg.Wait()
		if w.slots == nil {
			w.pool.Close()
		}
	})
}
