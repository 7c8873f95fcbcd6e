package campaign

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/destination"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"

	"github.com/sharebench/sharebench/vocab"
)

// groupReadyTimeout bounds the wait for the group to form.
const groupReadyTimeout = 60 * time.Second

// Measured is one finished run: its record plus the raw data behind it.
type Measured struct {
	Record runs.Record
	Merged results.Merged
	Series *results.Series
	// Files are written beside run.json (a stall's thread dumps and client
	// state).
	Files []runs.RunFile
}

// RunOne executes one run on a running cluster, outside a campaign: no
// progress display, no live metrics. The run's topic is created fresh and
// deleted afterwards. log receives one line per phase.
func RunOne(ctx context.Context, cl infra.Cluster, spec scenarios.RunSpec, runID string, log io.Writer) (*Measured, error) {
	rn := runner{cl: cl, log: log, env: environment(ctx, cl, nil),
		progress: runProgress{p: NoProgress{}, run: 1, recs: 1, id: runID}}
	return rn.runOne(ctx, spec, runID)
}

// runner runs the runs of one cluster and carries what every run reports
// to: the campaign's log, its progress display (with the current run's
// number and name), the harness's live metrics and the environment record.
type runner struct {
	cl       infra.Cluster
	log      io.Writer
	progress runProgress
	metrics  *collectors.HarnessMetrics // nil: no live /metrics
	env      runs.Environment
	shards   ShardOptions // runs with shards > 1 (sharded.go)
	// produceOnly keeps the produce-only phases this cluster ran
	// (produceonly.go); nil (RunOne): rate runs have no produce-only phase.
	produceOnly *produceOnlyCache
	// settle waits for the brokers' CPU to return near idle before each
	// run and after its produce-only phase (settle.go); false (RunOne): no
	// wait.
	settle bool
	// dest is the campaign's destination database (destination.go); nil
	// without one, or for RunOne (which reaches one per run).
	dest *destinationServer
}

// runOne runs spec by its load mode (mode.go).
func (rn runner) runOne(ctx context.Context, spec scenarios.RunSpec, runID string) (*Measured, error) {
	mode, err := modeOf(spec)
	if err != nil {
		return nil, err
	}
	return mode.run(ctx, rn, spec, runID)
}

// loadFunc is the part of a run that differs by load mode: it starts the
// consumers and the producers, fixes the measurement window and drains.
type loadFunc func(ctx context.Context, r *run, pcfg producer.Config) error

// phases runs the phases every run shares, at any scale: setup (topic,
// group, destination table), recording, the load (in this process, or on
// the agents of a run with shards > 1: newLoad), the mode's part, then the
// reconciliations and the record.
func (rn runner) phases(ctx context.Context, spec scenarios.RunSpec, runID string, mode loadFunc) (*Measured, error) {
	s, err := newRunSetup(rn, spec, runID)
	if err != nil {
		return nil, err
	}
	defer s.adm.close()
	if err := s.checkShards(); err != nil { // sharded.go: before anything is created
		return nil, err
	}
	if risk, batch := spec.LockExpiryRisk(); risk {
		fmt.Fprintf(s.log, "  %s: warning: lock expiry predicted: %d records per acquisition × %v ÷ %d workers = %v "+
			"exceeds the %v record lock; records will be delivered again while processed (lower max_poll_records, "+
			"add workers, lengthen group.share.record.lock.duration.ms or use renew: auto)\n",
			runID, spec.PredictedAcquisition(), spec.ProcessingMean(), spec.Workers, batch.Round(time.Millisecond), spec.RecordLockDuration())
	}
	if c := predictedCeiling(spec); c.Bound == runs.BoundLocks {
		fmt.Fprintf(s.log, "  %s: predicted: the record locks bind at %.0f records/s (%v members of each partition can hold "+
			"%d-record acquisitions of %d locks at once; workers allow %.0f)\n",
			runID, c.RecordsPerSec, c.HoldersPerPartition, spec.PredictedAcquisition(), spec.RecordLocks(), c.Workers)
	}
	s.progress.phase(PhaseSetup, groupReadyTimeout, nil)
	var settled []runs.SettleStep
	if rn.settle { // before anything of this run: the previous run's topic deletion and flushes
		if st := settleBrokers(ctx, rn.cl, rn.baseline(), settleAfterPrevious, runID, s.log); st != nil {
			settled = append(settled, *st)
		}
	}
	if err := s.createTopicAndGroup(ctx); err != nil {
		return nil, err
	}
	defer s.dropTopic(context.WithoutCancel(ctx), s.topic)
	defer s.deleteDeadLetterTopic(context.WithoutCancel(ctx)) // deadletter.go
	closeSink, err := s.openSink(ctx)                         // destination.go
	if err != nil {
		return nil, err
	}
	defer closeSink()
	rc, pcfg, err := newRecording(s)
	if err != nil {
		return nil, err
	}
	rc.procs.Start(ctx)
	defer rc.procs.Stop()
	ld, closeLoad, err := s.newLoad(ctx, rc)
	if err != nil {
		return nil, err
	}
	defer closeLoad()
	if s.metrics != nil {
		s.metrics.Begin(collectors.LiveRun{RunID: runID, ConsumerType: string(spec.ConsumerType), OfferedPerSec: spec.Rate,
			Recorder: rc.rec, Warmup: spec.Warmup})
		defer s.metrics.End()
	}
	r := &run{setup: s, rc: rc, ld: ld, fleet: &fleet{}}
	r.times.settle = settled
	defer r.fleet.endStallWatch() // on every path: the watch's goroutine ends with the run
	if err := mode(ctx, r, pcfg); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	r.reconcileDeadLetters(ctx) // deadletter.go
	r.reconcileDestination(ctx) // destination.go
	r.checkUndelivered(ctx)     // undelivered.go: lost or still deliverable
	m := r.measured()
	if sh := m.Record.Shards; sh != nil {
		fmt.Fprintf(s.log, "  %s: sharded over %d agents (%s); largest clock uncertainty ±%.1f ms\n",
			s.id, sh.Count, sh.Launcher, sh.MaxUncertaintyMs)
	}
	return m, nil
}

// newLoad is where the run's producers and members run: this process, or
// the agents of a run with shards > 1 (sharded.go).
func (s *runSetup) newLoad(ctx context.Context, rc *recording) (load, func(), error) {
	if s.spec.ShardCount() > 1 {
		return s.shardedLoad(ctx, rc)
	}
	l := newLocalLoad(ctx, s.consumerConfig(), rc.rec)
	return l, l.stopMembers, nil
}

// predictedCeiling is the run's ceiling before it runs
// (runs.PlannedCeilingInput).
func predictedCeiling(s scenarios.RunSpec) runs.Ceiling {
	return runs.ComputeCeiling(runs.PlannedCeilingInput(s))
}

// run is one run in progress, by phase: setup (what and where), recording
// (the recorder and its samplers), its load (producers and members, in
// this process or on agents), fleet (the events, the scaler and what they
// did) and the phase lengths.
type run struct {
	setup *runSetup
	rc    *recording
	ld    load // where its producers and members run
	fleet *fleet
	times phaseTimes
}

// runSetup is the setup phase: the run's spec, topic, group and admin
// client, and the runner it reports through.
type runSetup struct {
	runner
	spec         scenarios.RunSpec
	id, suffix   string
	share        bool
	topic, group string
	adm          *admin
	conn         clientConn               // how its clients connect (connection.go)
	groupCfg     *runs.GroupConfig        // share runs: as applied and read back (groupconfig.go)
	groupInfo    *runs.GroupInfo          // the group protocol read back once ready (group_protocol.go)
	dlq          *results.DeadLetterAudit // the DLQ read back and reconciled (deadletter.go)
	sink         *destination.Sink        // the run's destination table (destination.go; nil: none)
	destIn       *runs.DestinationInput   // the table read back and reconciled
}

// recording is the recording phase: the clock, the recorder and its time
// series, the samplers beside the workload, the schedule start and the
// measurement window.
type recording struct {
	clock   *results.Clock
	series  *results.Series
	rec     *results.Recorder
	procs   *collectors.ProcSampler
	scraper *collectors.BrokerScraper
	lag     *collectors.LagSampler
	cpu     *cpuWindow
	start   int64 // schedule start, Clock ns
	window  results.Window
}

// fleet is the consumer fleet's side of a run: the event runner and what
// the events did, the scaler, the drain's outcome and the run's errors.
type fleet struct {
	events *eventRunner
	fired  []runs.Event
	// scaler is the run's autoscaler (nil without autoscale:); scalerLog
	// and scaled are what it recorded once stopped.
	scaler    *scaler
	scalerLog *runs.ScalerLog
	scaled    []runs.Event
	drainErr  error
	errs      []string
	// stall watches for a stall (stall.go; nil: not watched), stalled and
	// stallFiles are what it found.
	stall      *stallWatch
	stalled    *runs.Stall
	stallFiles []runs.RunFile
	// clientExit is how the consumer client process ended, when it has a
	// flag of its own (client_close_timeout, client_killed).
	clientExit *runs.ClientExit
}

// watchStalls starts the stall watch over the run's consumers.
func (r *run) watchStalls(ctx context.Context) {
	r.fleet.stall = newStallWatch(r.setup, r.rc, r.ld)
	r.fleet.stall.start(ctx)
}

// endStallWatch stops the stall watch (once) and keeps what it found.
func (f *fleet) endStallWatch() {
	if f.stall != nil && f.stalled == nil {
		f.stalled, f.stallFiles = f.stall.finish(time.Now())
	}
}

// noteConsumerErr keeps the consumers' end: a client process that did not
// close within the close timeout or was killed from outside gets its own
// flag (consumers.RunnerExit), anything else is one of the run's errors.
func (f *fleet) noteConsumerErr(err error) {
	if x, ok := consumers.AsRunnerExit(err); ok {
		f.clientExit = &runs.ClientExit{Killed: !x.CloseTimeoutExceeded(), Message: x.Error()}
		return
	}
	f.errs = append(f.errs, err.Error())
}

// phaseTimes are the phase lengths a run measures itself, in seconds.
type phaseTimes struct {
	drain, fill float64
	form        formation
	produceOnly *runs.ProduceOnly // rate runs: the produce-only phase (produceonly.go)
	settle      []runs.SettleStep // settle.go: before the run, after its produce-only phase
}

func newRunSetup(rn runner, spec scenarios.RunSpec, runID string) (*runSetup, error) {
	suffix := randomSuffix()
	conn, err := connOf(rn.cl, spec)
	if err != nil {
		return nil, err
	}
	adm, err := newAdmin(rn.cl.Bootstrap(), conn.opts...)
	if err != nil {
		return nil, err
	}
	name := "sharebench-" + runID + "-" + suffix
	return &runSetup{runner: rn, spec: spec, id: runID, suffix: suffix, share: spec.ConsumerType == vocab.ShareGroup,
		topic: name, group: name, adm: adm, conn: conn}, nil
}

func (s *runSetup) createTopicAndGroup(ctx context.Context) error {
	if err := s.adm.createTopic(ctx, s.topic, s.spec.Partitions, min(s.cl.Nodes(), 3)); err != nil {
		return err
	}
	if !s.share {
		return nil
	}
	if err := s.createDeadLetterTopic(ctx); err != nil { // deadletter.go
		return err
	}
	// Share groups start at "latest" by default; the whole schedule must be
	// delivered, including records produced before a member's first fetch.
	return s.applyGroupConfig(ctx) // share.auto.offset.reset=earliest + group_config, read back
}

// newRecording sizes the ledger and the time series for the run's schedule
// and prepares the process sampler; the producer config it returns gets its
// start time from the load mode.
func newRecording(s *runSetup) (*recording, producer.Config, error) {
	clock := results.NewClock()
	pcfg := s.producerConfig()
	sz, err := modeSizing(s.spec)
	if err != nil {
		return nil, pcfg, err
	}
	perProducer, seconds, err := runSizes(s.spec)
	if err != nil {
		return nil, pcfg, err
	}
	pcfg.Backlog = sz.Backlog
	series := results.NewSeries(clock.Now(), seconds)
	rec := results.NewRecorder(clock, results.RunTag(s.id+"-"+s.suffix), results.NewLedger(s.spec.Producers, perProducer), series)
	procs := collectors.NewProcSampler(s.cl.PIDs, time.Second)
	procs.Recorder = rec.Held // the recorder's memory beside the process's (run.json harness)
	return &recording{clock: clock, series: series, rec: rec, procs: procs}, pcfg, nil
}

// startSamplers starts the broker scraper and the lag sampler.
func (rc *recording) startSamplers(ctx context.Context, s *runSetup) {
	rc.scraper = collectors.NewBrokerScraper(s.cl.MetricsURLs(), s.spec.BrokerMetricsInterval)
	rc.scraper.Start(ctx)
	rc.lag = collectors.NewLagSampler(s.adm.groupLag(s.group, s.topic, s.share, s.spec.SharePreview()), time.Second)
	rc.lag.Start(ctx)
	if s.metrics != nil {
		s.metrics.SetLag(rc.lag)
	}
}

var (
	errDrainTimeout = errors.New("drain timed out")
	errStalled      = errors.New("drain stopped: the run stalled")
)

// drain waits until every acknowledged record is completed or archived, the
// consumers fail, the run stalls (stalled reports true: its evidence is
// taken) or the timeout passes.
func drain(ctx context.Context, ld load, timeout time.Duration, stalled func() bool) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(drainCheckEvery)
	defer tick.Stop()
	for {
		n, err := ld.unfinished(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if stalled() {
			return errStalled
		}
		if time.Now().After(deadline) {
			return errDrainTimeout
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ld.exited():
			ld.exited() <- err // keep it for stop
			return consumersStopped(ctx, "during drain", err)
		case <-tick.C:
		}
	}
}

// drainCheckEvery is the drain's poll interval (drain_s's resolution).
const drainCheckEvery = 250 * time.Millisecond

func waitConsumers(consumerErr chan error, drainErr error) error {
	select {
	case err := <-consumerErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("consumers: %w", err)
		}
	case <-time.After(30 * time.Second):
		return errors.New("consumers did not stop within 30s")
	}
	if drainErr != nil && !errors.Is(drainErr, errDrainTimeout) && !errors.Is(drainErr, errStalled) {
		return drainErr
	}
	return nil
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
	pids func() []int
	// scrape scrapes the brokers' endpoints once (nil: none): after each
	// edge's CPU reading, so that the broker figures' counters are read at
	// the window's edges whatever the scrape interval, and the start edge's
	// scrape is inside the window's CPU as the end edge's is outside.
	scrape     func()
	start, end collectors.CPUSnapshot
	done       chan struct{}
}

// newCPUWindow is the run's CPU window, whose edges scrape rc's brokers.
func (rc *recording) newCPUWindow(ctx context.Context, pids func() []int) *cpuWindow {
	return &cpuWindow{pids: pids, done: make(chan struct{}), scrape: func() {
		if rc.scraper != nil {
			rc.scraper.ScrapeAll(ctx)
		}
	}}
}

// read is one edge: the CPU counters, then the edge's scrape.
func (c *cpuWindow) read() collectors.CPUSnapshot {
	s := collectors.ReadCPU(c.pids())
	if c.scrape != nil {
		c.scrape()
	}
	return s
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
	c.start = c.read()
	if !sleep(w.End) {
		return
	}
	c.end = c.read()
}

func (c *cpuWindow) usage() results.CPUUsage {
	<-c.done
	if c.end.At.IsZero() {
		return results.CPUUsage{}
	}
	return collectors.Usage(c.start, c.end)
}

// consumersStopped is the error of a consumer fleet that ended while the
// run still needed it (during phase). A fleet that ended because the run
// was interrupted is the interruption (context.Canceled, exit status 130),
// never wrapped as a failure; a fleet that ended without an error says so
// (fmt's %w of a nil error would print "%!w(<nil>)").
func consumersStopped(ctx context.Context, phase string, err error) error {
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
		return ctx.Err()
	}
	if err == nil {
		err = errors.New("every member ended without an error")
	}
	return fmt.Errorf("consumers stopped %s: %w", phase, err)
}
