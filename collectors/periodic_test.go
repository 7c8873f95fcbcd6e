package collectors

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// The loop samples at once and then every interval, ends with its context,
// and stop waits for a sample under way.
func TestPeriodicSamplesUntilStopped(t *testing.T) {
	var n, running atomic.Int32
	p := startPeriodic(context.Background(), 5*time.Millisecond, func(ctx context.Context) {
		running.Add(1)
		defer running.Add(-1)
		n.Add(1)
		time.Sleep(2 * time.Millisecond)
	})
	time.Sleep(60 * time.Millisecond)
	p.stop()
	p.stop() // twice is fine
	if running.Load() != 0 {
		t.Error("stop returned while a sample ran")
	}
	got := n.Load()
	if got < 3 {
		t.Errorf("%d samples in 60 ms at 5 ms, want several", got)
	}
	time.Sleep(20 * time.Millisecond)
	if n.Load() != got {
		t.Error("sampled after stop")
	}
	var nilLoop *periodic
	nilLoop.stop()

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{}, 1)
	q := startPeriodic(ctx, time.Hour, func(context.Context) { first <- struct{}{} })
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
