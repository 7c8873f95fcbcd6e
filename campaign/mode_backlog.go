package campaign

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// backlogMode runs load_mode backlog: the producers send backlog_records
// as fast as they can and every acknowledgement is in before the consumers
// start; the run then measures how long the consumers take to drain it.
type backlogMode struct{}

func (backlogMode) run(ctx context.Context, rn runner, s scenarios.RunSpec, runID string) (*Measured, error) {
	return rn.phases(ctx, s, runID, fillThenDrain)
}

// fillThenDrain is the backlog mode's load. The members join with
// consumption held until the group has formed; the drain (the measurement
// window) runs from their release to the last completion or archive, so
// group formation is not part of it.
func fillThenDrain(ctx context.Context, r *run, pcfg producer.Config) error {
	s, rc, ld := r.setup, r.rc, r.ld
	if formsOnEmptyTopic(s.spec) {
		return formThenFill(ctx, r, pcfg)
	}
	// The recorder counts every record and completion; measured() reports
	// them over the drain.
	rc.start = rc.clock.Now()
	rc.rec.SetWindow(results.Window{Start: rc.start, End: math.MaxInt64})
	pcfg.Start = rc.start
	rc.startSamplers(ctx, s)
	defer rc.scraper.Stop()
	defer rc.lag.Stop()
	if err := fill(ctx, r, pcfg); err != nil {
		return err
	}
	rc.cpu = rc.newCPUWindow(ctx, s.cl.PIDs)
	defer func() {
		select {
		case <-rc.cpu.done:
		default:
			close(rc.cpu.done)
		}
	}()
	s.progress.phase(PhaseDrain, groupReadyTimeout+s.spec.DrainTimeout, ld.counts) // formation, then the drain
	if err := ld.startMembers(ctx, true); err != nil {
		return err
	}
	var err error
	if r.times.form, err = s.formGroup(ctx, ld.exited(), ld.generation); err != nil {
		return err
	}
	rc.cpu.start = rc.cpu.read()
	released, err := ld.release(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.log, "  %s: draining the backlog (timeout %v)\n", s.id, s.spec.DrainTimeout)
	if err := drainFrom(ctx, r, released); err != nil {
		return err
	}
	fmt.Fprintf(s.log, "  %s: drained in %.2fs (release of the formed group → last completion)\n", s.id, r.times.drain)
	return nil
}

// formsOnEmptyTopic reports whether s's backlog drain forms its group on
// the empty topic before the fill (formThenFill): the client runners' (java,
// librdkafka) share consumers cannot hold consumption, and the runners do
// not hold their consumer-group members either. franz-go's members join
// held after the fill.
func formsOnEmptyTopic(s scenarios.RunSpec) bool { return s.Client.Runner() }

// fill produces the backlog and waits for every acknowledgement, bounded by
// the run's drain_timeout (the dry run states it: "fill and drain each up
// to"). A fill that outlasts its bound fails the run, naming how much of
// the backlog was acknowledged; an interrupted fill is the interruption
// (context.Canceled), never a short backlog handed on to the consumers.
func fill(ctx context.Context, r *run, pcfg producer.Config) error {
	s, rc, ld := r.setup, r.rc, r.ld
	bound := s.spec.DrainTimeout
	fmt.Fprintf(s.log, "  %s: filling a backlog of %d records (bounded by drain_timeout %v)\n", s.id, s.spec.BacklogRecords, bound)
	s.progress.phase(PhaseFill, bound, ld.counts)
	fctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	deadline, _ := fctx.Deadline()
	pcfg.FlushTimeout = min(flushOrDefault(pcfg.FlushTimeout), bound)
	err := ld.produce(fctx, pcfg, results.Window{Start: rc.start, End: math.MaxInt64})
	r.times.fill = float64(rc.clock.Now()-rc.start) / 1e9
	acked := ld.counts().Acked
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	// The bound is read from the clock, not only from fctx: the flush's own
	// timer (capped at the bound) can fire before fctx's cancellation has
	// run on a loaded host, and its "context deadline exceeded" is the
	// same bound passing.
	case fctx.Err() != nil, err != nil && !time.Now().Before(deadline):
		return fmt.Errorf("backlog fill: %d of %d records acknowledged when its bound, drain_timeout %v, passed "+
			"(raise drain_timeout or lower backlog_records)", acked, s.spec.BacklogRecords, bound)
	case err != nil:
		return fmt.Errorf("producers: %w", err)
	}
	next := "starting the consumers"
	if formsOnEmptyTopic(s.spec) {
		next = "the formed group consumes them"
	}
	fmt.Fprintf(s.log, "  %s: %d records acknowledged in %.1fs (%.0f records/s); %s\n",
		s.id, acked, r.times.fill, float64(acked)/max(r.times.fill, 1e-9), next)
	return nil
}

// formThenFill is the backlog mode's load with the client runners (java,
// librdkafka). The Java share consumer cannot hold consumption: it joins
// the group on its first poll, and from that poll on its background thread
// keeps sending ShareFetch requests until one acquires records
// (kafka-clients 4.2's ShareConsumeRequestManager; KafkaShareConsumer has
// no pause); librdkafka's ShareConsumer has no pause either. So the
// members join the empty topic and poll it until the group has formed, seen
// from the broker's side as for franz-go; only then do the producers fill
// the backlog. The drain's clock starts when the fill starts, so no record
// was acquired (share) or fetched (consumer group) before it, and group
// formation is not part of it. The members consume while the producers
// fill: the drain includes the fill only where the fill is slower than the
// consumers (docs/explanation/clients.md, "Backlog drains"; docs/how-to/compare-clients.md).
func formThenFill(ctx context.Context, r *run, pcfg producer.Config) error {
	s, rc, ld := r.setup, r.rc, r.ld
	s.progress.phase(PhaseSetup, groupReadyTimeout, ld.counts)
	if err := ld.startMembers(ctx, false); err != nil {
		return err
	}
	var err error
	if r.times.form, err = s.formGroup(ctx, ld.exited(), ld.generation); err != nil {
		return err
	}
	if n := ld.counts().Delivered; n != 0 {
		return fmt.Errorf("%s members were handed %d records while the group formed on the empty topic", s.spec.Client, n)
	}
	rc.start = rc.clock.Now()
	rc.rec.SetWindow(results.Window{Start: rc.start, End: math.MaxInt64})
	pcfg.Start = rc.start
	rc.startSamplers(ctx, s)
	defer rc.scraper.Stop()
	defer rc.lag.Stop()
	rc.cpu = rc.newCPUWindow(ctx, s.cl.PIDs)
	defer func() {
		select {
		case <-rc.cpu.done:
		default:
			close(rc.cpu.done)
		}
	}()
	rc.cpu.start = rc.cpu.read()
	if err := fill(ctx, r, pcfg); err != nil {
		return err
	}
	s.progress.phase(PhaseDrain, s.spec.DrainTimeout, ld.counts)
	fmt.Fprintf(s.log, "  %s: backlog filled; draining (timeout %v)\n", s.id, s.spec.DrainTimeout)
	if err := drainFrom(ctx, r, rc.start); err != nil {
		return err
	}
	fmt.Fprintf(s.log, "  %s: drained in %.2fs (fill start, group formed on the empty topic → last completion)\n", s.id, r.times.drain)
	return nil
}

// flushOrDefault is producer.Config.FlushTimeout with its default (30 s).
func flushOrDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return 30 * time.Second
	}
	return d
}

// drainFrom is a backlog drain's end, the same for both ways a drain
// starts: it watches for stalls, drains and stops the consumers, closes the
// CPU window, and makes the window start (Clock ns) → the last completion
// or archive the drain's measured window.
func drainFrom(ctx context.Context, r *run, start int64) error {
	rc := r.rc
	r.watchStalls(ctx)
	if _, err := drainThenStop(ctx, r); err != nil {
		return err
	}
	rc.cpu.end = rc.cpu.read()
	close(rc.cpu.done)
	last := rc.clock.Now()
	if _, l, ok := rc.rec.Span(); ok { // every shard's results are in by now
		last = l
	}
	rc.window = results.Window{Start: start, End: max(last, start+int64(time.Millisecond))}
	r.times.drain = rc.window.Seconds()
	return nil
}
