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

// Ticker makes the ticks a sampler waits on between readings: a channel and
// a function that stops it. The samplers use RealTicker unless a test
// injects its own (a channel it sends on), so unit tests need no sleeps.
type Ticker func(interval time.Duration) (ticks <-chan time.Time, stop func())

// RealTicker ticks every interval on the wall clock (time.NewTicker).
func RealTicker(interval time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(interval)
	return t.C, t.Stop
}

// startPeriodic runs sample(ctx) at once and then on every tick of
// tick(interval) (RealTicker when nil) until ctx ends or stop is called. A
// sample that takes longer than the interval delays the next one; ticks are
// not queued up. With an unbuffered injected channel, a send returns once the
// previous sample has finished.
func startPeriodic(ctx context.Context, interval time.Duration, tick Ticker, sample func(ctx context.Context)) *periodic {
	if tick == nil {
		tick = RealTicker
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &periodic{cancel: cancel, done: make(chan struct{})}
	ticks, stopTicks := tick(interval)
	go func() {
		defer close(p.done)
		defer stopTicks()
		for {
			sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-ticks:
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
