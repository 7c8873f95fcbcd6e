package campaign

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

func producerConfig(s scenarios.RunSpec, brokers []string, topic string) producer.Config {
	return producer.Config{
		Brokers: brokers, Topic: topic, Producers: s.Producers, Rate: s.Rate,
		MessageSize: s.MessageSize, KeyMode: s.KeyMode, Acks: s.Acks,
		Linger: s.Linger, BatchSize: s.BatchSize, Duration: s.Warmup + s.Duration,
		Keys: s.Keys, HotShare: s.HotKeys.Share, HotKeys: s.HotKeys.Keys,
	}
}

func consumerConfig(s scenarios.RunSpec, brokers []string, topic, group string) consumers.Config {
	p := s.Processing
	c := consumers.Config{
		Brokers: brokers, Topic: topic, Group: group,
		Type: consumers.ConsumerGroup, Members: s.Members, Workers: s.Workers,
		MaxPollRecords: s.MaxPollRecords, Acquire: consumers.AcquireBatchOptimized,
		Ack: consumers.AckImplicit,
		Processing: consumers.Processing{Model: consumers.ProcessingModel(p.Model), Time: p.Time, Min: p.Min, Max: p.Max,
			Mean: p.Mean, Median: p.Median, P99: p.P99},
		TransientRate: s.TransientRate, PoisonRate: s.PoisonRate,
		DeliveryLimit: s.DeliveryCountLimit(),
		Renew:         s.Renew == "auto",
		Style:         consumers.StyleBlocking, MaxInFlight: s.MaxInFlight,
		SessionTimeout: sessionTimeout(s),
		Client:         consumers.Client(s.Client), KafkaVersion: s.KafkaVersion,
		Fetch: consumers.Fetch{MaxBytes: int32(s.FetchMaxBytes), MaxPartitionBytes: int32(s.FetchMaxPartitionBytes),
			MaxWait: s.FetchMaxWait, MinBytes: int32(s.FetchMinBytes)},
		Groups: groupKnobs(s),
	}
	if s.Prefetch == "on" || s.Prefetch == "off" {
		on := s.Prefetch == "on"
		c.Fetch.Prefetch = &on
	}
	if s.ConsumerType == string(consumers.ShareGroup) {
		c.Type = consumers.ShareGroup
	}
	if s.AcquireMode == string(consumers.AcquireRecordLimit) {
		c.Acquire = consumers.AcquireRecordLimit
	}
	if s.AckMode == string(consumers.AckExplicit) {
		c.Ack = consumers.AckExplicit
	}
	if s.Style == string(consumers.StyleContinuous) {
		c.Style = consumers.StyleContinuous
	}
	return c
}

// defaultMinSessionTimeout is Kafka's group.min.session.timeout.ms default.
const defaultMinSessionTimeout = 6 * time.Second

// sessionTimeout is the consumer-group session timeout of a run that
// crashes members: the broker's minimum (group.min.session.timeout.ms from
// broker_config, else Kafka's 6 s), so a crashed member's partitions move
// soon; 0 (franz-go's 45 s) otherwise. The harness uses the classic group
// protocol (franz-go without ServerSideBalancer).
func sessionTimeout(s scenarios.RunSpec) time.Duration {
	if s.ConsumerType != "share" && s.SessionTimeout > 0 {
		return s.SessionTimeout // session_timeout (classic only; validated)
	}
	if s.ConsumerType != "share" && s.GroupProtocol == "consumer" {
		return 0 // KIP-848: the broker's group.consumer.session.timeout.ms (consumerSessionTimeout)
	}
	if s.ConsumerType == "share" || !slices.ContainsFunc(s.Events, func(e scenarios.Event) bool { return e.Action == scenarios.ActionCrash }) {
		return 0
	}
	if ms, err := strconv.Atoi(s.BrokerConfig["group.min.session.timeout.ms"]); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return defaultMinSessionTimeout
}

// eventReports analyses the run's events (see runs.AnalyzeEvents).
func eventReports(s scenarios.RunSpec, series *results.Series, loadStart int64, w results.Window, events []runs.Event, m results.Merged) ([]runs.EventReport, *runs.EventSummary) {
	n := series.Len()
	completed, redelivered := make([]int64, n), make([]int64, n)
	for i := range n {
		completed[i] = series.Count(results.Completed, i)
		redelivered[i] = series.Count(results.Redelivered, i)
	}
	grace := s.RecordLockDuration()
	if s.ConsumerType != "share" {
		grace = sessionTimeout(s)
	}
	if s.ConsumerType != "share" && s.GroupProtocol == "consumer" {
		grace = consumerSessionTimeout(s)
	}
	reports := runs.AnalyzeEvents(runs.EventInput{Completed: completed, Redelivered: redelivered,
		SeriesStart: series.Start(), LoadStart: loadStart, Window: w, Events: events, Members: m.Members,
		Pauses: m.Pauses, Partitions: s.Partitions, Share: s.ConsumerType == "share", CrashGrace: grace})
	sum := runs.SummarizeEvents(reports, runs.PausesSince(m.Pauses, loadStart), s.Partitions)
	return reports, &sum
}

// summarize turns a run's merged measurements into its record.
func summarize(s scenarios.RunSpec, runID string, m results.Merged, audit results.Audit, w results.Window, env runs.Environment) runs.Record {
	secs := w.Seconds()
	r := runs.Record{
		SchemaVersion: runs.SchemaVersion, RunID: runID, ConsumerType: s.ConsumerType, Spec: &s,
		Phases: runs.Phases{WarmupSec: s.Warmup.Seconds(), MeasureSec: secs},
		Throughput: runs.Throughput{
			OfferedPerSec:   s.Rate,
			ProducedPerSec:  float64(m.AckedWindow) / secs,
			CompletedPerSec: float64(m.CompletedInWindow) / secs,
		},
		Latency: runs.Latencies{
			CompletionMs: results.SummarizeMillis(m.Completion), DeliveryMs: results.SummarizeMillis(m.Delivery),
			PublishMs: results.SummarizeMillis(m.Publish), ScheduleLagMs: results.SummarizeMillis(m.ScheduleLag),
			QueueMs: results.SummarizeMillis(m.Queue), HoldMs: results.SummarizeMillis(m.Hold),
		},
		Polls: runs.Polls{Count: m.Polls, Empty: m.EmptyPolls, RecordsPerPoll: countSummary(m)},
		Outcomes: runs.Outcomes{
			Delivered: m.Delivered, Completed: m.Completed, Redelivered: m.Redelivered,
			Released: m.Released, Rejected: m.Rejected, RetriedInPlace: m.Retried,
			LockExpiredCompleted: m.LockExpired, Renewals: m.Renewals, AckErrors: m.AckErrors, PollErrors: m.PollErrors, ProduceFailed: m.ProduceFailed,
		},
		PerMember:   m.PerMember,
		Audit:       audit,
		Environment: env,
	}
	r.Audit.Order = m.Order
	if r.Throughput.ProducedPerSec > 0 {
		r.Throughput.CompletedRatio = r.Throughput.CompletedPerSec / r.Throughput.ProducedPerSec
	}
	if m.Polls > 0 {
		r.Polls.EmptyRatio = float64(m.EmptyPolls) / float64(m.Polls)
	}
	if s.ConsumerType == "share" {
		r.Outcomes.DeliveryCounts = trimZeros(m.DeliveryCounts[:])
	}
	r.Ceiling = runs.ComputeCeiling(ceilingInput(s, r, s.Rate, nil, nil)).WithMeasured(r.Throughput.CompletedPerSec)
	return r
}

// ceilingInput is the capacity formulas' input for a run's record at a
// producer rate: with joins the largest membership (an upper bound over
// the window); records per acquisition measured (p90; records per poll
// when no acquisition was seen), consumers per partition from the formed
// group's assignment (nil: predicted).
func ceilingInput(s scenarios.RunSpec, r runs.Record, producerRate float64, perPartition []int, brokers []runs.MemberBrokers) runs.CeilingInput {
	acq := r.Polls.RecordsPerAcquisition.P90
	if acq == 0 {
		acq = r.Polls.RecordsPerPoll.P90
	}
	return runs.CeilingInput{
		Share: s.ConsumerType == "share", Members: s.MaxMembers(), Workers: s.Workers, Partitions: s.Partitions,
		ProcessingMs: float64(s.ProcessingMean()) / 1e6, TransientRate: s.TransientRate, PoisonRate: s.PoisonRate,
		ProducerRate: producerRate, RecordLocks: s.RecordLocks(), HoldMs: r.Latency.HoldMs.Mean,
		RecordsPerAcquisition: acq, ConsumersPerPartition: perPartition,
		BatchOptimized: s.ConsumerType == "share" && s.AcquireMode != "record_limit",
		LockDurationMs: lockDurationMs(s), BufferedMs: r.Latency.BufferedMs.P50,
		FetchWait: fetchWaitInput(s, brokers),
	}
}

// lockDurationMs is the record lock a share run's acquisitions can outlive:
// 0 for consumer groups and renew auto (renewed locks do not expire).
func lockDurationMs(s scenarios.RunSpec) float64 {
	if s.ConsumerType != "share" || s.Renew == "auto" {
		return 0
	}
	return float64(s.RecordLockDuration()) / 1e6
}

// countSummary reads the records-per-poll histogram, whose values are
// counts, not microseconds.
func countSummary(m results.Merged) results.Percentiles { return countPercentiles(m.PollSize) }

// countPercentiles summarizes a histogram whose values are counts.
func countPercentiles(h *hdrhistogram.Histogram) results.Percentiles {
	if h == nil || h.TotalCount() == 0 {
		return results.Percentiles{}
	}
	q := h.ValueAtPercentilesSlice([]float64{50, 90, 99, 99.9, 99.99})
	return results.Percentiles{Count: h.TotalCount(), Mean: h.Mean(), P50: float64(q[0]), P90: float64(q[1]),
		P99: float64(q[2]), P999: float64(q[3]), P9999: float64(q[4]), Max: float64(h.Max())}
}

func trimZeros(v []int64) []int64 {
	n := len(v)
	for n > 0 && v[n-1] == 0 {
		n--
	}
	return append([]int64(nil), v[:n]...)
}

// measured turns the run's raw data into its record.
func (r *run) measured() *Measured {
	s, rc, f := r.setup, r.rc, r.fleet
	m := rc.rec.Merge()
	rr := summarize(s.spec, s.id, m, rc.rec.Ledger.Audit(), rc.window, s.env)
	if s.dlq != nil {
		rr.Audit.DeadLetterAudit = *s.dlq // deadletter.go
	}
	var requests results.RequestTimings
	if f.fl != nil || f.merged.Buffered != nil {
		cs := f.merged
		if f.fl != nil {
			cs = f.fl.ClientStats()
		}
		rr.Latency.BufferedMs = results.SummarizeMillis(cs.Buffered)
		rr.Polls.RecordsPerAcquisition = countPercentiles(cs.PerAcquisition)
		rr.Polls.RecordsPerResponse = countPercentiles(cs.PerResponse)
		requests = cs.Requests
	}
	if len(s.spec.Events) == 0 { // joins change the assignment: keep the prediction
		rr.Ceiling = runs.ComputeCeiling(ceilingInput(s.spec, rr, s.spec.Rate, r.times.form.perPartition, r.times.form.brokers)).
			WithMeasured(rr.Throughput.CompletedPerSec)
	}
	rr.StartedAt = rc.clock.Time(rc.start).Format(time.RFC3339)
	rr.Client = clientRecord(s.spec, rc.rec)
	rr.TopicConfig = maps.Clone(topicConfigs)
	rr.Phases.GroupReadySec = r.times.form.sec
	rr.Phases.GroupFormationSec = r.times.form.sec
	rr.Phases.FormationRounds = r.times.form.rounds
	rr.GroupConfig = s.groupCfg
	rr.Group = s.groupInfo
	rr.Phases.DrainSec = r.times.drain
	rr.Requests = runs.RequestFigures(requests, consumingSec(rr))
	rr.Phases.DrainTimedOut = errors.Is(f.drainErr, errDrainTimeout)
	rr.Phases.WindowStartSec = float64(rc.window.Start-rc.series.Start()) / 1e9
	thirds := rc.series.Thirds(results.Completed, rc.window)
	if !s.spec.Backlog() && len(s.spec.Events) == 0 && rr.Phases.DrainSec > rr.Phases.MeasureSec {
		rr.Burst = burstFigures(s.spec, rr, m, rc, r.times.form)
	}
	if s.spec.Backlog() {
		backlogFigures(&rr, s.spec, m, r.times.fill, r.times.form)
		thirds = [3]int64{} // a drain has no steady state to check
	}
	usage := rc.cpu.usage()
	rr.Broker = brokerSummary(rc.scraper, rc.clock, rc.window, rr.Throughput.CompletedPerSec*rc.window.Seconds())
	recordLockLimit(&rr.Broker, s.spec) // groupconfig.go
	for _, line := range collectors.UnavailableLines(rr.Broker.Naming, rr.Broker.Unavailable, rr.Broker.CPUSource) {
		fmt.Fprintf(s.log, "  %s: %s\n", s.id, line) // e.g. broker CPU: unavailable from this exporter (strimzi)
	}
	rr.Lag = rc.lag.Summary(rc.clock.Time(rc.window.End))
	if rr.Lag.Samples > 0 {
		rr.Lag.DrainEstimateSec = runs.DrainEstimate(rr.Lag.AtWindowEnd, rr.Throughput.ProducedPerSec, rr.Throughput.CompletedPerSec)
	}
	if len(s.spec.Events) > 0 {
		thirds = [3]int64{} // intentional dips are not a short warm-up
		rr.Events, rr.EventSummary = eventReports(s.spec, rc.series, rc.start, rc.window, f.fired, m)
		rr.Members = runs.MemberLives(m.Members, rc.window)
	}
	fillGauges(rc.series, rc.scraper, rc.lag, rc.procs)
	rr.Ceiling = rr.Ceiling.Judge(rr.Throughput.CompletedPerSec, saturation(rr, usage))
	rr.Validity = runs.Check(s.conn.validity(runs.ValidityInput{
		IsKafka: s.cl.IsKafka(), Audit: rr.Audit, DrainTimedOut: rr.Phases.DrainTimedOut,
		ScheduleLagP99Ms: rr.Latency.ScheduleLagMs.P99, HarnessCPUPercent: usage.HarnessPercent,
		HostCPUPercent: usage.HostPercent, Ceiling: rr.Ceiling, CompletedPerSec: rr.Throughput.CompletedPerSec,
		ProduceFailed: m.ProduceFailed, AckErrors: m.AckErrors, PollErrors: m.PollErrors, Errors: f.errs,
		CompletedThirds: thirds,
		LockExpiry:      lockExpiryInput(s.spec, rr),
		Collectors:      collectorHealth(rr.Broker, rr.Lag),
	})) // with tls_insecure and throttled from the connection
	rr.Validity.Flag(rr.Group.FallbackFlag())
	rr.Validity.Flag(runs.DeadLetterFlag(rr.Audit))
	rr.Resources = usage
	rr.Errors = f.errs
	return &Measured{Record: rr, Merged: m, Series: rc.series}
}

// saturation is the run's broker, host and request evidence for the
// measured bounds (runs.Ceiling.Judge); the handler idle is -1 without
// broker scrapes or when the exporter cannot give it.
func saturation(rr runs.Record, usage results.CPUUsage) runs.Saturation {
	idle := -1.0
	if rr.Broker.Samples > 0 && !slices.Contains(rr.Broker.Unavailable, "request_handler_idle_min") {
		idle = rr.Broker.RequestHandlerIdleMin
	}
	return runs.Saturation{HandlerIdleMin: idle, BrokerCPUPercent: rr.Broker.CPUPercentAvg,
		HostCPUPercent: usage.HostPercent, Requests: rr.Requests}
}

// consumingSec is how long the members consumed: warm-up, window and drain.
func consumingSec(rr runs.Record) float64 {
	return rr.Phases.WarmupSec + rr.Phases.MeasureSec + rr.Phases.DrainSec
}

// burstFigures reads a rate run whose drain outlasted its window as a
// burst: first record (schedule start) → last completion, against
// max(production time, records ÷ the ceiling without the producer bound).
func burstFigures(s scenarios.RunSpec, rr runs.Record, m results.Merged, rc *recording, form formation) *runs.Burst {
	_, last, ok := rc.rec.Span()
	if !ok || m.Acked == 0 {
		return nil
	}
	c := runs.ComputeCeiling(ceilingInput(s, rr, math.Inf(1), form.perPartition, form.brokers))
	b := &runs.Burst{Records: m.Acked, EndToEndSec: float64(last-rc.start) / 1e9, Bound: c.Bound}
	produce := (s.Warmup + s.Duration).Seconds()
	b.PredictedSec = produce
	if !math.IsInf(c.RecordsPerSec, 1) && c.RecordsPerSec > 0 {
		b.ConsumeCeiling = c.RecordsPerSec
		b.PredictedSec = max(produce, float64(m.Acked)/c.RecordsPerSec)
	}
	return b
}

// lockExpiryInput is the lock_expiry_risk check's input: share runs
// without renew auto only.
func lockExpiryInput(s scenarios.RunSpec, rr runs.Record) runs.LockExpiryInput {
	if s.ConsumerType != "share" || s.Renew == "auto" {
		return runs.LockExpiryInput{}
	}
	acq := rr.Polls.RecordsPerAcquisition.P90
	if acq == 0 {
		acq = rr.Polls.RecordsPerPoll.P90
	}
	return runs.LockExpiryInput{LockDurationMs: float64(s.RecordLockDuration()) / 1e6, RecordsPerAcquisition: acq,
		ProcessingMs: float64(s.ProcessingMean()) / 1e6, Workers: s.Workers, Hold: rr.Latency.HoldMs,
		BufferedP99Ms: rr.Latency.BufferedMs.P99}
}

// fillGauges writes the samplers' readings into the series' gauge columns.
func fillGauges(series *results.Series, scraper *collectors.BrokerScraper, lag *collectors.LagSampler, procs *collectors.ProcSampler) {
	collectors.FillBrokerGauges(series, scraper.Samples(), runtime.NumCPU())
	collectors.FillLagGauge(series, lag.Samples())
	collectors.FillProcGauges(series, procs.Samples(), runtime.NumCPU())
}
