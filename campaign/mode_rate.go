package campaign

import (
	"context"
	"fmt"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/retry"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// rateMode runs load_mode rate: the consumers join, the producers send the
// open-loop schedule (warm-up + window), then the consumers drain.
type rateMode struct{}

func (rateMode) run(ctx context.Context, rn runner, s scenarios.RunSpec, runID string) (*Measured, error) {
	return rn.phases(ctx, s, runID, produceAndDrain)
}

// produceAndDrain is the rate mode's load.
func produceAndDrain(ctx context.Context, r *run, pcfg producer.Config) error {
	s, rc, f, ld := r.setup, r.rc, r.fleet, r.ld
	po, settled, err := s.produceOnlySettled(ctx) // produceonly.go: before any consumer, so producing is all the brokers do
	if err != nil {
		return err
	}
	r.times.produceOnly = po
	if settled != nil {
		r.times.settle = append(r.times.settle, *settled)
	}
	// The group forms before the warm-up starts.
	if err := ld.startMembers(ctx, true); err != nil {
		return err
	}
	if r.times.form, err = s.formGroup(ctx, ld.exited(), ld.generation); err != nil {
		return err
	}
	if _, err := ld.release(ctx); err != nil {
		return err
	}
	openWindow(ctx, s, rc, ld, &pcfg)
	if !s.spec.ChangesMembers() {
		r.watchStalls(ctx) // with events or a scaler, from the drain on (below): an event's pause is no stall
	}
	if len(s.spec.Events) > 0 {
		f.events = &eventRunner{events: s.spec.Events, fleet: ld, clock: rc.clock, log: s.log,
			faults: func() (infra.Faults, error) { return infra.FaultsOf(s.cl) }, broker: s.resolveBroker,
			roll: clusterRolling{s: s, count: ld.counts}}
		f.events.start(ctx, rc.window.Start)
		defer f.stopEvents() // on every path: no broker stays paused or cut off
	}
	if s.spec.Autoscale != nil {
		if f.scaler, err = newScaler(s.spec, ld, rc.lag, ld.counts, rc.clock, s.log); err != nil {
			return err
		}
		f.scaler.run(ctx, rc.window.Start)
		defer f.stopScaler()
	}
	defer rc.scraper.Stop()
	defer rc.lag.Stop()
	if err := ld.produce(ctx, pcfg, rc.window); err != nil {
		return fmt.Errorf("producers: %w", err)
	}
	f.stopEvents() // before the drain: timed faults are undone first
	f.stopScaler() // the scaler acts in the window only
	if f.stall == nil {
		r.watchStalls(ctx)
	}
	s.progress.phase(PhaseDrain, s.spec.DrainTimeout, ld.counts)
	fmt.Fprintf(s.log, "  %s: producers done; draining (timeout %v)\n", s.id, s.spec.DrainTimeout)
	if r.times.drain, err = drainThenStop(ctx, r); err != nil {
		return err
	}
	if f.events != nil {
		if err := f.events.restartKilled(ctx); err != nil {
			f.errs = append(f.errs, err.Error())
		}
	}
	return nil
}

// stopEvents stops the event runner once and keeps what it recorded.
func (f *fleet) stopEvents() {
	if f.events != nil && f.fired == nil {
		f.fired = f.events.stop()
	}
}

// stopScaler stops the scaler once and keeps what it recorded.
func (f *fleet) stopScaler() {
	if f.scaler != nil && f.scalerLog == nil {
		f.scalerLog, f.scaled = f.scaler.stop()
	}
}

// openWindow fixes the schedule start (the load's lead ahead of now) and
// the measurement window and starts the samplers that watch it.
func openWindow(ctx context.Context, s *runSetup, rc *recording, ld load, pcfg *producer.Config) {
	sp := s.spec
	start := rc.clock.Now() + int64(ld.lead())
	rc.start = start
	rc.window = results.Window{Start: rc.start + int64(sp.Warmup), End: rc.start + int64(sp.Warmup+sp.Duration)}
	rc.rec.SetWindow(rc.window)
	pcfg.Start = rc.start
	if len(sp.RateSchedule) > 0 {
		fmt.Fprintf(s.log, "  %s: producing the rate_schedule (%d steps, %.0f to %.0f records/s, %.0f records in the window) for %v warm-up at %.0f records/s + %v measurement\n",
			s.id, len(sp.RateSchedule), minRate(sp.RateSchedule), sp.Rate, scenarios.ScheduledRecords(sp.RateSchedule, sp.Duration), sp.Warmup, sp.RateSchedule[0].From, sp.Duration)
	} else {
		fmt.Fprintf(s.log, "  %s: producing %.0f records/s for %v warm-up + %v measurement\n", s.id, sp.Rate, sp.Warmup, sp.Duration)
	}
	s.progress.phase(PhaseWarmup, sp.Warmup+time.Duration(start-rc.clock.Now()), ld.counts)
	go func() {
		if retry.Sleep(ctx, time.Duration(rc.window.Start-rc.clock.Now())) {
			s.progress.phase(PhaseMeasure, sp.Duration, ld.counts)
		}
	}()
	rc.cpu = rc.newCPUWindow(ctx, s.cl.PIDs)
	go rc.cpu.watch(ctx, rc.clock, rc.window)
	rc.startSamplers(ctx, s)
}

// minRate is the lowest rate of a schedule.
func minRate(steps []scenarios.RateStep) float64 {
	m := steps[0].From
	for _, s := range steps {
		m = min(m, s.From, s.To)
	}
	return m
}
