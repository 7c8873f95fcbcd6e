package collectors

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// manualTicker is a Ticker a test drives: tick(n) returns once the loop has
// taken n ticks, so the samples before the last one have finished (the loop
// takes a tick only between samples). No wall-clock sleep is involved.
type manualTicker struct {
	c        chan time.Time
	interval atomic.Int64
	stopped  atomic.Bool
}

func newManualTicker() *manualTicker { return &manualTicker{c: make(chan time.Time)} }

func (m *manualTicker) Ticker(interval time.Duration) (<-chan time.Time, func()) {
	m.interval.Store(int64(interval))
	return m.c, func() { m.stopped.Store(true) }
}

// tick sends n ticks; it fails the test if the loop stops taking them.
func (m *manualTicker) tick(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case m.c <- time.Time{}:
		case <-time.After(10 * time.Second):
			t.Fatal("the loop took no tick for 10 s")
		}
	}
}

// The loop samples at once and then once per tick, never between ticks,
// ends with stop (waiting for a sample under way) or its context, and
// stops its ticker.
func TestPeriodicSamplesUntilStopped(t *testing.T) {
	mt := newManualTicker()
	var n, running atomic.Int32
	p := startPeriodic(context.Background(), 5*time.Millisecond, mt.Ticker, func(ctx context.Context) {
		running.Add(1)
		defer running.Add(-1)
		n.Add(1)
	})
	mt.tick(t, 3) // the third send returns after the sample of the second tick
	if got := n.Load(); got < 3 || got > 4 {
		t.Errorf("%d samples after 3 ticks, want the first + 2 finished (+1 under way)", got)
	}
	mt.tick(t, 1)
	p.stop()
	p.stop() // twice is fine
	if running.Load() != 0 {
		t.Error("stop returned while a sample ran")
	}
	if got := n.Load(); got != 5 {
		t.Errorf("%d samples: want 1 at start + 1 per tick = 5", got)
	}
	if mt.interval.Load() != int64(5*time.Millisecond) || !mt.stopped.Load() {
		t.Errorf("ticker interval %v stopped %v", time.Duration(mt.interval.Load()), mt.stopped.Load())
	}
	select {
	case mt.c <- time.Time{}:
		t.Error("the loop took a tick after stop")
	default:
	}
	var nilLoop *periodic
	nilLoop.stop()

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{}, 1)
	q := startPeriodic(ctx, time.Hour, nil, func(context.Context) { first <- struct{}{} })
	select {
	case <-first: // at once, not after the interval
	case <-time.After(5 * time.Second):
		t.Fatal("no sample at start")
	}
	cancel()
	select {
	case <-q.done:
	case <-time.After(5 * time.Second):
		t.Fatal("loop did not end with its context")
	}
}
