package bench

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
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
)

// groupReadyTimeout bounds the wait for all members to join.
const groupReadyTimeout = 60 * time.Second

// Measured is one finished run: its record plus the raw data behind it.
type Measured struct {
	Record results.RunRecord
	Merged results.Merged
	Series *results.Series
}

// RunOne executes one run on a running cluster and returns its measurements.
// The run's topic is created fresh and deleted afterwards. log receives one
// line per phase.
func RunOne(ctx context.Context, cl infra.Cluster, spec scenarios.RunSpec, runID string, log io.Writer) (*Measured, error) {
	share := spec.ConsumerType == "share"
	suffix := randomSuffix()
	topic, group := "sharebench-"+runID+"-"+suffix, "sharebench-"+runID+"-"+suffix
	adm, err := newAdmin(cl.Bootstrap())
	if err != nil {
		return nil, err
	}
	defer adm.close()
	if err := adm.createTopic(ctx, topic, spec.Partitions, min(cl.Nodes(), 3)); err != nil {
		return nil, err
	}
	defer adm.deleteTopic(context.WithoutCancel(ctx), topic)
	if share {
		// Share groups start at "latest" by default; the whole schedule must
		// be delivered, including records produced before a member's first fetch.
		if err := adm.setGroupConfig(ctx, group, map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
			return nil, err
		}
	}

	clock := results.NewClock()
	pcfg := producerConfig(spec, cl.Bootstrap(), topic)
	pcfg.Start = clock.Now() // provisional, for sizing only
	perProducer, err := pcfg.PerProducerMax()
	if err != nil {
		return nil, err
	}
	seconds := int((groupReadyTimeout + spec.Warmup + spec.Duration + spec.DrainTimeout + time.Minute) / time.Second)
	series := results.NewSeries(clock.Now(), seconds)
	rec := results.NewRecorder(clock, results.RunTag(runID+"-"+suffix), results.NewLedger(spec.Producers, perProducer), series)
	procs := collectors.NewProcSampler(cl.PIDs(), time.Second)
	procs.Start(ctx)
	defer procs.Stop()
	live := harnessMetrics(ctx)
	if live != nil {
		live.Begin(collectors.LiveRun{RunID: runID, ConsumerType: spec.ConsumerType, OfferedPerSec: spec.Rate,
			Recorder: rec, Warmup: spec.Warmup})
		defer live.End()
	}

	ccfg := consumerConfig(spec, cl.Bootstrap(), topic, group)
	cctx, stopConsumers := context.WithCancel(ctx)
	defer stopConsumers()
	consumerErr := make(chan error, 1)
	go func() { consumerErr <- consumers.Run(cctx, ccfg, rec) }()

	fmt.Fprintf(log, "  %s: waiting for %d %s members\n", runID, spec.Members, spec.ConsumerType)
	readyStart := time.Now()
	err = poll(ctx, groupReadyTimeout, func() (bool, error) {
		select {
		case err := <-consumerErr:
			return false, fmt.Errorf("consumers stopped before the group was ready: %w", err)
		default:
		}
		return adm.groupReady(ctx, group, share, spec.Members)
	}, fmt.Sprintf("group %q: %d members never joined", group, spec.Members))
	if err != nil {
		return nil, err
	}
	if share {
		// The coordinator has assigned every member, but a member learns its
		// assignment only on its next heartbeat: wait one interval so the
		// warm-up does not start with members that cannot fetch yet.
		if !sleepCtx(ctx, spec.ShareHeartbeatInterval()) {
			return nil, ctx.Err()
		}
	}
	readySec := time.Since(readyStart).Seconds()
	fmt.Fprintf(log, "  %s: group ready in %.1fs; assignment %s\n", runID, readySec, adm.assignment(ctx, group, topic, share))

	start := clock.Now() + int64(100*time.Millisecond)
	window := results.Window{Start: start + int64(spec.Warmup), End: start + int64(spec.Warmup+spec.Duration)}
	rec.SetWindow(window)
	pcfg.Start = start
	fmt.Fprintf(log, "  %s: producing %.0f records/s for %v warm-up + %v measurement\n", runID, spec.Rate, spec.Warmup, spec.Duration)

	cpu := &cpuWindow{pids: cl.PIDs(), done: make(chan struct{})}
	go cpu.watch(ctx, clock, window)
	scraper := collectors.NewBrokerScraper(cl.MetricsURLs(), time.Second)
	scraper.Start(ctx)
	defer scraper.Stop()
	lag := collectors.NewLagSampler(adm.groupLag(group, topic, share), time.Second)
	lag.Start(ctx)
	defer lag.Stop()
	if live != nil {
		live.SetLag(lag)
	}
	if err := producer.Run(ctx, pcfg, rec); err != nil {
		return nil, fmt.Errorf("producers: %w", err)
	}
	producedAt := time.Now()
	fmt.Fprintf(log, "  %s: producers done; draining (timeout %v)\n", runID, spec.DrainTimeout)
	drainErr := drain(ctx, rec.Ledger, spec.DrainTimeout, consumerErr)
	drainSec := time.Since(producedAt).Seconds()
	stopConsumers()
	var errs []string
	if cerr := waitConsumers(consumerErr, drainErr); cerr != nil {
		errs = append(errs, cerr.Error())
	}
	lag.Stop()
	scraper.Stop() // a final scrape: the consumers' last acknowledgements are in
	procs.Stop()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	m := rec.Merge()
	r := summarize(spec, runID, m, rec.Ledger.Audit(), window, cl)
	r.StartedAt = clock.Time(start).Format(time.RFC3339)
	r.Phases.GroupReadySec = readySec
	r.Phases.DrainSec = drainSec
	r.Phases.DrainTimedOut = errors.Is(drainErr, errDrainTimeout)
	usage := cpu.usage()
	r.Broker = brokerSummary(scraper, clock, window, r.Throughput.CompletedPerSec*spec.Duration.Seconds())
	r.Phases.WindowStartSec = float64(window.Start-series.Start()) / 1e9
	r.Lag = lag.Summary(clock.Time(window.End))
	if r.Lag.Samples > 0 {
		r.Lag.DrainEstimateSec = results.DrainEstimate(r.Lag.AtWindowEnd, r.Throughput.ProducedPerSec, r.Throughput.CompletedPerSec)
	}
	fillGauges(series, scraper, lag, procs)
	r.Validity = results.Check(results.ValidityInput{
		IsKafka: cl.IsKafka(), Audit: r.Audit, DrainTimedOut: r.Phases.DrainTimedOut,
		ScheduleLagP99Ms: r.Latency.ScheduleLagMs.P99, HarnessCPUPercent: usage.HarnessPercent,
		HostCPUPercent: usage.HostPercent, Ceiling: r.Ceiling, CompletedPerSec: r.Throughput.CompletedPerSec,
		ProduceFailed: m.ProduceFailed, AckErrors: m.AckErrors, PollErrors: m.PollErrors, Errors: errs, CompletedThirds: series.Thirds(results.Completed, window),
		Collectors: collectorHealth(r.Broker, r.Lag),
	})
	r.Resources = usage
	r.Errors = errs
	return &Measured{Record: r, Merged: m, Series: series}, nil
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

// cpuWindow samples CPU counters at the measurement window's edges.
type cpuWindow struct {
	pids       []int
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
	c.start = collectors.ReadCPU(c.pids)
	if !sleep(w.End) {
		return
	}
	c.end = collectors.ReadCPU(c.pids)
}

func (c *cpuWindow) usage() results.CPUUsage {
	<-c.done
	if c.end.At.IsZero() {
		return results.CPUUsage{}
	}
	return collectors.Usage(c.start, c.end)
}
