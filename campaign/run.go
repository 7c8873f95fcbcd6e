package campaign

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// groupReadyTimeout bounds the wait for all members to join.
const groupReadyTimeout = 60 * time.Second

// Measured is one finished run: its record plus the raw data behind it.
type Measured struct {
	Record runs.Record
	Merged results.Merged
	Series *results.Series
}

// RunOne executes one run on a running cluster and returns its measurements.
// The run's topic is created fresh and deleted afterwards. log receives one
// line per phase.
func RunOne(ctx context.Context, cl infra.Cluster, spec scenarios.RunSpec, runID string, log io.Writer) (*Measured, error) {
	if spec.LoadMode == "max_rate" {
		return runMaxRate(ctx, cl, spec, runID, log)
	}
	r, err := newRunState(cl, spec, runID, log)
	if err != nil {
		return nil, err
	}
	defer r.adm.close()
	r.progress = progressOf(ctx, runID)
	r.progress.phase(PhaseSetup, groupReadyTimeout, nil)
	if err := r.createTopicAndGroup(ctx); err != nil {
		return nil, err
	}
	defer r.adm.deleteTopic(context.WithoutCancel(ctx), r.topic)
	pcfg, err := r.newRecorder()
	if err != nil {
		return nil, err
	}
	r.procs.Start(ctx)
	defer r.procs.Stop()
	if live := harnessMetrics(ctx); live != nil {
		live.Begin(collectors.LiveRun{RunID: runID, ConsumerType: spec.ConsumerType, OfferedPerSec: spec.Rate,
			Recorder: r.rec, Warmup: spec.Warmup})
		defer live.End()
	}

	run := r.produceAndDrain
	if spec.Backlog() {
		run = r.fillThenDrain
	}
	if err := run(ctx, pcfg); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return r.measured(), nil
}

// produceAndDrain is load_mode rate: the consumers join, the producers send
// the open-loop schedule (warm-up + window), then the consumers drain.
func (r *runState) produceAndDrain(ctx context.Context, pcfg producer.Config) error {
	cctx, stopConsumers := context.WithCancel(ctx)
	defer stopConsumers()
	ccfg := consumerConfig(r.spec, r.cl.Bootstrap(), r.topic, r.group)
	fleet, err := consumers.Start(cctx, ccfg, r.rec)
	if err != nil {
		return err
	}
	go func() { r.consumerErr <- fleet.Wait() }()
	if err := r.waitGroupReady(ctx); err != nil {
		return err
	}

	r.openWindow(ctx, &pcfg)
	if len(r.spec.Events) > 0 {
		r.runner = &eventRunner{events: r.spec.Events, fleet: fleet, clock: r.clock, log: r.log,
			faults: func() (infra.Faults, error) { return infra.FaultsOf(r.cl) }, broker: r.resolveBroker}
		r.runner.start(ctx, r.window.Start)
		defer r.stopEvents() // on every path: no broker stays paused or cut off
	}
	defer r.scraper.Stop()
	defer r.lag.Stop()
	if live := harnessMetrics(ctx); live != nil {
		live.SetLag(r.lag)
	}
	if err := producer.Run(ctx, pcfg, r.rec); err != nil {
		return fmt.Errorf("producers: %w", err)
	}
	r.stopEvents() // before the drain: timed faults are undone first
	r.drainThenStop(ctx, stopConsumers)
	if r.runner != nil {
		if err := r.runner.restartKilled(ctx); err != nil {
			r.errs = append(r.errs, err.Error())
		}
	}
	return nil
}

// stopEvents stops the event runner once and keeps what it recorded.
func (r *runState) stopEvents() {
	if r.runner != nil && r.events == nil {
		r.events = r.runner.stop()
	}
}

// fillThenDrain is load_mode backlog: the producers send backlog_records as
// fast as they can and every acknowledgement is in before the consumers
// start; the run then measures how long the consumers take to drain it.
// The drain (the measurement window) is first delivery → last completion or
// archive, so the members' join time is not part of it.
func (r *runState) fillThenDrain(ctx context.Context, pcfg producer.Config) error {
	// The recorder counts every record and completion; measured() reports
	// them over the drain.
	r.start = r.clock.Now()
	r.rec.SetWindow(results.Window{Start: r.start, End: math.MaxInt64})
	pcfg.Start = r.start
	r.scraper = collectors.NewBrokerScraper(r.cl.MetricsURLs(), time.Second)
	r.scraper.Start(ctx)
	defer r.scraper.Stop()
	r.lag = collectors.NewLagSampler(r.adm.groupLag(r.group, r.topic, r.share), time.Second)
	r.lag.Start(ctx)
	defer r.lag.Stop()
	if live := harnessMetrics(ctx); live != nil {
		live.SetLag(r.lag)
	}
	fmt.Fprintf(r.log, "  %s: filling a backlog of %d records\n", r.id, r.spec.BacklogRecords)
	r.progress.phase(PhaseFill, 0, r.rec)
	if err := producer.Run(ctx, pcfg, r.rec); err != nil {
		return fmt.Errorf("producers: %w", err)
	}
	r.fillSec = float64(r.clock.Now()-r.start) / 1e9
	acked := r.rec.Counts().Produced
	fmt.Fprintf(r.log, "  %s: %d records acknowledged in %.1fs (%.0f records/s); starting the consumers\n",
		r.id, acked, r.fillSec, float64(acked)/max(r.fillSec, 1e-9))

	cctx, stopConsumers := context.WithCancel(ctx)
	defer stopConsumers()
	r.cpu = &cpuWindow{pids: r.cl.PIDs, done: make(chan struct{})}
	r.cpu.start = collectors.ReadCPU(r.cpu.pids())
	r.progress.phase(PhaseDrain, groupReadyTimeout+r.spec.DrainTimeout, r.rec)
	ccfg := consumerConfig(r.spec, r.cl.Bootstrap(), r.topic, r.group)
	go func() { r.consumerErr <- consumers.Run(cctx, ccfg, r.rec) }()
	if err := r.waitGroupReady(ctx); err != nil {
		close(r.cpu.done)
		return err
	}
	r.drainThenStop(ctx, stopConsumers)
	r.cpu.end = collectors.ReadCPU(r.cpu.pids())
	close(r.cpu.done)
	first, last, ok := r.rec.Span()
	if !ok {
		first, last = r.start, r.clock.Now()
	}
	r.window = results.Window{Start: first, End: max(last, first+int64(time.Millisecond))}
	r.drainSec = r.window.Seconds()
	fmt.Fprintf(r.log, "  %s: drained in %.2fs (first delivery → last completion)\n", r.id, r.drainSec)
	return nil
}

// runState is one run in progress: what RunOne's phases share.
type runState struct {
	cl           infra.Cluster
	spec         scenarios.RunSpec
	id, suffix   string
	log          io.Writer
	share        bool
	topic, group string
	adm          *admin

	clock       *results.Clock
	series      *results.Series
	rec         *results.Recorder
	consumerErr chan error
	procs       *collectors.ProcSampler
	scraper     *collectors.BrokerScraper
	lag         *collectors.LagSampler
	cpu         *cpuWindow

	start              int64 // schedule start, Clock ns
	window             results.Window
	readySec, drainSec float64
	fillSec            float64 // load_mode backlog
	progress           runProgress
	runner             *eventRunner
	events             []runs.Event
	drainErr           error
	errs               []string
}

func newRunState(cl infra.Cluster, spec scenarios.RunSpec, runID string, log io.Writer) (*runState, error) {
	suffix := randomSuffix()
	adm, err := newAdmin(cl.Bootstrap())
	if err != nil {
		return nil, err
	}
	name := "sharebench-" + runID + "-" + suffix
	return &runState{cl: cl, spec: spec, id: runID, suffix: suffix, log: log, share: spec.ConsumerType == "share",
		topic: name, group: name, adm: adm, consumerErr: make(chan error, 1)}, nil
}

func (r *runState) createTopicAndGroup(ctx context.Context) error {
	if err := r.adm.createTopic(ctx, r.topic, r.spec.Partitions, min(r.cl.Nodes(), 3)); err != nil {
		return err
	}
	if !r.share {
		return nil
	}
	// Share groups start at "latest" by default; the whole schedule must be
	// delivered, including records produced before a member's first fetch.
	return r.adm.setGroupConfig(ctx, r.group, map[string]string{"share.auto.offset.reset": "earliest"})
}

// newRecorder sizes the ledger and the time series for the run's schedule
// and prepares the process sampler; the producer config it returns gets its
// start time when the group is ready.
func (r *runState) newRecorder() (producer.Config, error) {
	r.clock = results.NewClock()
	pcfg := producerConfig(r.spec, r.cl.Bootstrap(), r.topic)
	perProducer, seconds, err := runSizes(r.spec)
	if err != nil {
		return pcfg, err
	}
	if r.spec.Backlog() {
		pcfg.Backlog = uint64(r.spec.BacklogRecords)
	}
	s := r.spec
	r.series = results.NewSeries(r.clock.Now(), seconds)
	r.rec = results.NewRecorder(r.clock, results.RunTag(r.id+"-"+r.suffix), results.NewLedger(s.Producers, perProducer), r.series)
	r.procs = collectors.NewProcSampler(r.cl.PIDs, time.Second)
	return pcfg, nil
}

// waitGroupReady waits until every member has joined with an assignment.
func (r *runState) waitGroupReady(ctx context.Context) error {
	fmt.Fprintf(r.log, "  %s: waiting for %d %s members\n", r.id, r.spec.Members, r.spec.ConsumerType)
	readyStart := time.Now()
	err := poll(ctx, groupReadyTimeout, func() (bool, error) {
		select {
		case err := <-r.consumerErr:
			return false, fmt.Errorf("consumers stopped before the group was ready: %w", err)
		default:
		}
		return r.adm.groupReady(ctx, r.group, r.share, r.spec.Members)
	}, fmt.Sprintf("group %q: %d members never joined", r.group, r.spec.Members))
	if err != nil {
		return err
	}
	// A share member learns its assignment only on its next heartbeat: wait
	// one interval so the warm-up does not start with members that cannot
	// fetch yet.
	if r.share && !sleepCtx(ctx, r.spec.ShareHeartbeatInterval()) {
		return ctx.Err()
	}
	r.readySec = time.Since(readyStart).Seconds()
	fmt.Fprintf(r.log, "  %s: group ready in %.1fs; assignment %s\n", r.id, r.readySec,
		r.adm.assignment(ctx, r.group, r.topic, r.share))
	return nil
}

// openWindow fixes the schedule start and the measurement window and starts
// the samplers that watch it.
func (r *runState) openWindow(ctx context.Context, pcfg *producer.Config) {
	s := r.spec
	r.start = r.clock.Now() + int64(100*time.Millisecond)
	r.window = results.Window{Start: r.start + int64(s.Warmup), End: r.start + int64(s.Warmup+s.Duration)}
	r.rec.SetWindow(r.window)
	pcfg.Start = r.start
	fmt.Fprintf(r.log, "  %s: producing %.0f records/s for %v warm-up + %v measurement\n", r.id, s.Rate, s.Warmup, s.Duration)
	r.progress.phase(PhaseWarmup, s.Warmup+100*time.Millisecond, r.rec)
	go func() {
		if sleepCtx(ctx, time.Duration(r.window.Start-r.clock.Now())) {
			r.progress.phase(PhaseMeasure, s.Duration, r.rec)
		}
	}()
	r.cpu = &cpuWindow{pids: r.cl.PIDs, done: make(chan struct{})}
	go r.cpu.watch(ctx, r.clock, r.window)
	r.scraper = collectors.NewBrokerScraper(r.cl.MetricsURLs(), time.Second)
	r.scraper.Start(ctx)
	r.lag = collectors.NewLagSampler(r.adm.groupLag(r.group, r.topic, r.share), time.Second)
	r.lag.Start(ctx)
}

// drainThenStop waits for the consumers to finish every record (or the
// drain timeout), stops them, and takes the samplers' final readings.
func (r *runState) drainThenStop(ctx context.Context, stopConsumers context.CancelFunc) {
	producedAt := time.Now()
	if !r.spec.Backlog() {
		r.progress.phase(PhaseDrain, r.spec.DrainTimeout, r.rec)
	}
	if r.spec.Backlog() {
		fmt.Fprintf(r.log, "  %s: draining the backlog (timeout %v)\n", r.id, r.spec.DrainTimeout)
	} else {
		fmt.Fprintf(r.log, "  %s: producers done; draining (timeout %v)\n", r.id, r.spec.DrainTimeout)
	}
	r.drainErr = drain(ctx, r.rec.Ledger, r.spec.DrainTimeout, r.consumerErr)
	r.drainSec = time.Since(producedAt).Seconds()
	stopConsumers()
	if cerr := waitConsumers(r.consumerErr, r.drainErr); cerr != nil {
		r.errs = append(r.errs, cerr.Error())
	}
	r.lag.Stop()
	r.scraper.Stop() // a final scrape: the consumers' last acknowledgements are in
	r.procs.Stop()
}

// measured turns the run's raw data into its record.
func (r *runState) measured() *Measured {
	m := r.rec.Merge()
	rr := summarize(r.spec, r.id, m, r.rec.Ledger.Audit(), r.window, r.cl)
	rr.StartedAt = r.clock.Time(r.start).Format(time.RFC3339)
	rr.Client = clientRecord(r.spec, r.rec)
	rr.Phases.GroupReadySec = r.readySec
	rr.Phases.DrainSec = r.drainSec
	rr.Phases.DrainTimedOut = errors.Is(r.drainErr, errDrainTimeout)
	rr.Phases.WindowStartSec = float64(r.window.Start-r.series.Start()) / 1e9
	thirds := r.series.Thirds(results.Completed, r.window)
	if r.spec.Backlog() {
		backlogFigures(&rr, r.spec, m, r.fillSec)
		thirds = [3]int64{} // a drain has no steady state to check
	}
	usage := r.cpu.usage()
	rr.Broker = brokerSummary(r.scraper, r.clock, r.window, rr.Throughput.CompletedPerSec*r.window.Seconds())
	rr.Lag = r.lag.Summary(r.clock.Time(r.window.End))
	if rr.Lag.Samples > 0 {
		rr.Lag.DrainEstimateSec = runs.DrainEstimate(rr.Lag.AtWindowEnd, rr.Throughput.ProducedPerSec, rr.Throughput.CompletedPerSec)
	}
	if len(r.spec.Events) > 0 {
		thirds = [3]int64{} // intentional dips are not a short warm-up
		rr.Events, rr.EventSummary = eventReports(r.spec, r.series, r.start, r.window, r.events, m)
		rr.Members = runs.MemberLives(m.Members, r.window)
	}
	fillGauges(r.series, r.scraper, r.lag, r.procs)
	rr.Validity = runs.Check(runs.ValidityInput{
		IsKafka: r.cl.IsKafka(), Audit: rr.Audit, DrainTimedOut: rr.Phases.DrainTimedOut,
		ScheduleLagP99Ms: rr.Latency.ScheduleLagMs.P99, HarnessCPUPercent: usage.HarnessPercent,
		HostCPUPercent: usage.HostPercent, Ceiling: rr.Ceiling, CompletedPerSec: rr.Throughput.CompletedPerSec,
		ProduceFailed: m.ProduceFailed, AckErrors: m.AckErrors, PollErrors: m.PollErrors, Errors: r.errs,
		CompletedThirds: thirds,
		Collectors:      collectorHealth(rr.Broker, rr.Lag),
	})
	rr.Resources = usage
	rr.Errors = r.errs
	return &Measured{Record: rr, Merged: m, Series: r.series}
}

var errDrainTimeout = errors.New("drain timed out")

// drain waits until every acknowledged record is completed or archived, the
// consumers fail, or the timeout passes.
func drain(ctx context.Context, ledger *results.Ledger, timeout time.Duration, consumerErr chan error) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		a := ledger.Audit()
		if a.CompletedOnce+a.Duplicates+a.Archived >= a.Produced {
			return nil
		}
		if time.Now().After(deadline) {
			return errDrainTimeout
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-consumerErr:
			consumerErr <- err // keep it for waitConsumers
			return fmt.Errorf("consumers stopped during drain: %w", err)
		case <-tick.C:
		}
	}
}

func waitConsumers(consumerErr chan error, drainErr error) error {
	select {
	case err := <-consumerErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("consumers: %w", err)
		}
	case <-time.After(30 * time.Second):
		return errors.New("consumers did not stop within 30s")
	}
	if drainErr != nil && !errors.Is(drainErr, errDrainTimeout) {
		return drainErr
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func randomSuffix() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// cpuWindow samples CPU counters at the measurement window's edges. pids
// is asked at each edge, so a broker started again after a fault is counted
// on its new pid (collectors.Usage).
type cpuWindow struct {
	pids       func() []int
	start, end collectors.CPUSnapshot
	done       chan struct{}
}

func (c *cpuWindow) watch(ctx context.Context, clock *results.Clock, w results.Window) {
	defer close(c.done)
	sleep := func(until int64) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Duration(until - clock.Now())):
			return true
		}
	}
	if !sleep(w.Start) {
		return
	}
	c.start = collectors.ReadCPU(c.pids())
	if !sleep(w.End) {
		return
	}
	c.end = collectors.ReadCPU(c.pids())
}

func (c *cpuWindow) usage() results.CPUUsage {
	<-c.done
	if c.end.At.IsZero() {
		return results.CPUUsage{}
	}
	return collectors.Usage(c.start, c.end)
}
