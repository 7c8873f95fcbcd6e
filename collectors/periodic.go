package collectors

import (
	"context"
	"time"
)

// periodic is the sampling loop of every sampler of the package: a sample
// function run at once and then every interval, in a goroutine the
// periodic owns, until its context ends or stop, which waits for it.
type periodic struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startPeriodic runs sample(ctx) at once and then every interval until ctx
// ends or stop is called. A sample that takes longer than the interval
// delays the next one; ticks are not queued up.
func startPeriodic(ctx context.Context, interval time.Duration, sample func(ctx context.Context)) *periodic {
	ctx, cancel := context.WithCancel(ctx)
	p := &periodic{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// stop ends the loop and returns once a sample under way has finished. It
// is safe on a nil periodic and more than once.
func (p *periodic) stop() {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
}
