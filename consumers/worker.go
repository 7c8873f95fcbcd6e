package consumers

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/results"
)

// maxCarry is the longest a worker may start late on its last attempt's
// due end and still be taken as having gone straight on (see worker.begin):
// longer, and the worker was waiting for work, which is real time.
const maxCarry = 2 * time.Millisecond

// worker is one worker of a member: its random source and its work clock.
type worker struct {
	rng *rand.Rand
	// due is when the worker's last attempt was due to end (Clock ns; 0:
	// none yet, or the batch is new).
	due int64
}

// newWorkers makes n workers, each with a random source of its own seeded
// by the run, the member and the worker.
func newWorkers(run uint64, member, n int) []*worker {
	out := make([]*worker, n)
	for w := range out {
		out[w] = &worker{rng: rand.New(rand.NewPCG(run, uint64(member<<16|w)))}
	}
	return out
}

// begin starts an attempt of d at now and returns when it ends (Clock ns).
// A sleep wakes late (the scheduler, a busy host): 10 ms sleeps measured
// 1.7-2.6 % long on a 2-core host. An attempt that starts within maxCarry
// after the last one was due to end starts from that due end instead, so
// the lateness is taken off this attempt and a worker that goes straight
// on is busy for the model's time per record, not the model's plus the
// scheduler's. A worker that waited longer (for a poll, for records) starts
// from now: its wait is real and stays in the figures.
func (w *worker) begin(now int64, d time.Duration) (end int64) {
	start := now
	if w.due > 0 && now >= w.due && now-w.due <= int64(maxCarry) {
		start = w.due
	}
	w.due = start + int64(d)
	return w.due
}

// end is when an attempt of d that starts now ends (begin), 0 for no
// processing: a run without processing reads no clock per record.
func (w *worker) end(clock *results.Clock, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return w.begin(clock.Now(), d)
}

// sleep is one attempt of d: it sleeps until the attempt's end and reports
// whether it finished (false: ctx ended first).
func (w *worker) sleep(ctx context.Context, clock *results.Clock, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	now := clock.Now()
	return retry.Sleep(ctx, time.Duration(w.begin(now, d)-now))
}

// idle marks the worker as waiting for work: its next attempt starts from
// its own start (a new batch begins after a poll).
func (w *worker) idle() { w.due = 0 }
