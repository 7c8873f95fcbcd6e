package runs

import (
	"math"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// Measurement is what a campaign measured in one run, before it is a
// record: the merged recorder and its audit, the window, what the
// samplers and the admin client read, and the phase timings. FromMeasurement
// turns it into the run's Record, so the way from a stamp to a report row
// runs one way: campaign → results → runs.
type Measurement struct {
	Spec       scenarios.RunSpec
	RunID      string
	Merged     results.Merged
	Audit      results.Audit
	DeadLetter *results.DeadLetterAudit // the DLQ read back and reconciled; nil without one
	// Destination is the destination's read-back (nil without one).
	Destination *DestinationInput
	Window      results.Window
	Series      *results.Series // per-second counts: the window's thirds, the events
	LoadStart   int64           // when the producers' schedule started (recorder clock, ns)
	StartedAt   time.Time       // LoadStart on the wall clock
	Environment Environment
	// ClientStats are the client's own histograms (nil: none measured):
	// the wait in the client, records per acquisition and per response.
	ClientStats *ClientHistograms
	// LastEvent is the recorder's last recorded time (Recorder.Span), for
	// a burst's end to end; HasSpan is false when nothing was recorded.
	LastEvent int64
	HasSpan   bool

	Client      *Client
	TopicConfig map[string]string
	GroupConfig *GroupConfig
	Group       *GroupInfo
	// PerPartition is, per partition, the members the formed group
	// assigned it to (nil: predicted from members and partitions).
	PerPartition []int
	// FetchWait is the fetch-wait bound's input from the formed group's
	// member/broker layout (nil: members fetch from their brokers
	// concurrently, or the layout is unknown).
	FetchWait *FetchWaitInput
	// Requests are the members' request timings per broker and kind.
	Requests        results.RequestTimings
	FormationSec    float64
	FormationRounds int
	FillSec         float64 // load_mode backlog: producing the backlog
	DrainSec        float64
	DrainTimedOut   bool
	// Stall is the run's stall, as detected (nil: none).
	Stall *Stall

	Broker results.BrokerMetrics
	// ProduceOnly is the run's produce-only phase (Records, Sec and
	// CPUSeconds measured; nil: none), for broker_cost.
	ProduceOnly *ProduceOnly
	// Settle are the settles before the run's measurement (nil: none).
	Settle    []SettleStep
	Lag       results.LagSummary
	Resources results.CPUUsage
	// Fired are the events as they fired; CrashGrace is how long a crashed
	// member's records stay out of reach (lock duration or session timeout).
	Fired      []Event
	CrashGrace time.Duration
	// Scaler is the scaler's log (autoscale: runs; nil otherwise).
	Scaler *ScalerLog
	// Checks is the validity input of what the campaign alone knows
	// (IsKafka, CPU, collectors, connection, errors); FromMeasurement adds
	// the measured figures.
	Checks ValidityInput
	Errors []string
	// Shards is how a sharded run was split over its agents (nil: one
	// process); its clock uncertainty is the clock_skew flag's input.
	Shards *Shards
}

// ClientHistograms are a fleet's client-side histograms.
type ClientHistograms struct {
	Buffered, PerAcquisition, PerResponse *hdrhistogram.Histogram
}

// FromMeasurement builds a run's record from what was measured.
func FromMeasurement(in Measurement) Record {
	s, m := in.Spec, in.Merged
	rr := summarize(s, in.RunID, m, in.Audit, in.Window, in.Environment)
	if in.DeadLetter != nil {
		rr.Audit.DeadLetterAudit = *in.DeadLetter
	}
	rr.Destination = destinationFigures(s, m, in.Destination)
	if rr.Destination != nil && len(s.Events) > 0 { // summarize's ceiling had no write time
		rr.Ceiling = ComputeCeiling(ceilingInput(s, rr, s.Rate, Measurement{})).WithMeasured(rr.Throughput.CompletedPerSec)
	}
	if cs := in.ClientStats; cs != nil {
		rr.Latency.BufferedMs = results.SummarizeMillis(cs.Buffered)
		rr.Polls.RecordsPerAcquisition = countPercentiles(cs.PerAcquisition)
		rr.Polls.RecordsPerResponse = countPercentiles(cs.PerResponse)
	}
	if !s.ChangesMembers() { // joins change the assignment: keep the prediction
		rr.Ceiling = ComputeCeiling(ceilingInput(s, rr, s.Rate, in)).
			WithMeasured(rr.Throughput.CompletedPerSec)
	}
	rr.StartedAt = in.StartedAt.Format(time.RFC3339)
	rr.Client = in.Client
	rr.TopicConfig = in.TopicConfig
	rr.Phases.GroupReadySec = in.FormationSec
	rr.Phases.GroupFormationSec = in.FormationSec
	rr.Phases.FormationRounds = in.FormationRounds
	rr.GroupConfig = in.GroupConfig
	rr.Group = in.Group
	rr.Phases.DrainSec = in.DrainSec
	rr.Requests = RequestFigures(in.Requests, consumingSec(rr))
	rr.Phases.DrainTimedOut = in.DrainTimedOut
	rr.Phases.WindowStartSec = float64(in.Window.Start-in.Series.Start()) / 1e9
	thirds := in.Series.Thirds(results.Completed, in.Window)
	if !s.Backlog() && !s.ChangesMembers() && rr.Phases.DrainSec > rr.Phases.MeasureSec {
		rr.Burst = burstFigures(in, rr)
	}
	if s.Backlog() {
		backlogFigures(&rr, s, m, in.FillSec, in)
		thirds = [3]int64{} // a drain has no steady state to check
	}
	rr.Broker = in.Broker
	rr.BrokerCost = brokerCost(in, m)
	rr.Lag = in.Lag
	if rr.Lag.Samples > 0 {
		rr.Lag.DrainEstimateSec = DrainEstimate(rr.Lag.AtWindowEnd, rr.Throughput.ProducedPerSec, rr.Throughput.CompletedPerSec)
	}
	if s.ChangesMembers() {
		thirds = [3]int64{} // intentional dips are not a short warm-up
		rr.Events, rr.EventSummary = eventReports(in)
		rr.Members = MemberLives(m.Members, in.Window)
	}
	if len(s.RateSchedule) > 0 {
		thirds = [3]int64{} // a rate that changes on purpose is not a short warm-up
	}
	if s.Autoscale != nil && in.Scaler != nil {
		rr.Autoscale = AutoscaleFigures(AutoscaleInput{Policy: *s.Autoscale, Cap: in.Scaler.Cap, MaxReplicas: in.Scaler.MaxReplicas,
			Start: in.Scaler.Start, WindowSec: in.Window.Seconds(), Decisions: in.Scaler.Decisions, Schedule: s.RateSchedule,
			Reports: rr.Events, ActionEvents: ScalerEvents(rr.Events)})
	}
	rr.Ceiling = rr.Ceiling.Judge(rr.Throughput.CompletedPerSec, saturation(rr, in.Resources))
	if (s.Autoscale != nil || len(s.RateSchedule) > 0) && rr.Ceiling.Held == BoundUnexplained {
		// The steady-state model bounds the peak; a window whose rate or
		// membership changes on purpose averages below it by design.
		rr.Ceiling.Held = rr.Ceiling.Bound
		rr.Ceiling.Evidence = "rate_schedule or autoscale: the load or the members change on purpose, so the window's mean is below the steady-state bound; read the autoscale figures"
		rr.Ceiling.Move = Move(rr.Ceiling.Held)
	}
	v := in.Checks
	v.Audit, v.DrainTimedOut = rr.Audit, rr.Phases.DrainTimedOut
	v.ScheduleLagP99Ms = rr.Latency.ScheduleLagMs.P99
	v.Ceiling, v.CompletedPerSec = rr.Ceiling, rr.Throughput.CompletedPerSec
	v.ProduceFailed, v.AckErrors, v.PollErrors = m.ProduceFailed, m.AckErrors, m.PollErrors
	v.CompletedThirds = thirds
	v.LockExpiry = lockExpiryInput(s, rr)
	v.Stall, rr.Stall = in.Stall, in.Stall
	rr.Validity = Check(v)
	rr.Validity.Flag(rr.Group.FallbackFlag())
	rr.Validity.Flag(DeadLetterFlag(rr.Audit))
	for _, f := range DestinationFlags(rr.Destination) {
		rr.Validity.Flag(f)
	}
	rr.Shards = in.Shards
	rr.Settle = NewSettle(in.Settle)
	rr.Validity.Flag(in.Shards.SkewFlag())
	rr.Resources = in.Resources
	rr.Errors = in.Errors
	return rr
}

// eventReports analyses the run's events (see AnalyzeEvents).
func eventReports(in Measurement) ([]EventReport, *EventSummary) {
	s, series, m := in.Spec, in.Series, in.Merged
	n := series.Len()
	completed, redelivered := make([]int64, n), make([]int64, n)
	for i := range n {
		completed[i] = series.Count(results.Completed, i)
		redelivered[i] = series.Count(results.Redelivered, i)
	}
	reports := AnalyzeEvents(EventInput{Completed: completed, Redelivered: redelivered,
		SeriesStart: series.Start(), LoadStart: in.LoadStart, Window: in.Window, Events: in.Fired, Members: m.Members,
		Pauses: m.Pauses, Partitions: s.Partitions, Share: s.ConsumerType == vocab.ShareGroup, CrashGrace: in.CrashGrace})
	sum := SummarizeEvents(reports, PausesSince(m.Pauses, in.LoadStart), s.Partitions)
	return reports, &sum
}

// summarize turns a run's merged measurements into its record's figures.
func summarize(s scenarios.RunSpec, runID string, m results.Merged, audit results.Audit, w results.Window, env Environment) Record {
	secs := w.Seconds()
	r := Record{
		SchemaVersion: SchemaVersion, RunID: runID, ConsumerType: s.ConsumerType, Spec: &s,
		Phases: Phases{WarmupSec: s.Warmup.Seconds(), MeasureSec: secs},
		Throughput: Throughput{
			OfferedPerSec:   offered(s, w),
			ProducedPerSec:  float64(m.AckedWindow) / secs,
			CompletedPerSec: float64(m.CompletedInWindow) / secs,
		},
		Latency: Latencies{
			CompletionMs: results.SummarizeMillis(m.Completion), DeliveryMs: results.SummarizeMillis(m.Delivery),
			PublishMs: results.SummarizeMillis(m.Publish), ScheduleLagMs: results.SummarizeMillis(m.ScheduleLag),
			QueueMs: results.SummarizeMillis(m.Queue), HoldMs: results.SummarizeMillis(m.Hold),
		},
		Polls: Polls{Count: m.Polls, Empty: m.EmptyPolls, RecordsPerPoll: countPercentiles(m.PollSize)},
		Outcomes: Outcomes{
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
	if s.ConsumerType == vocab.ShareGroup {
		r.Outcomes.DeliveryCounts = trimZeros(m.DeliveryCounts[:])
	}
	r.Ceiling = ComputeCeiling(ceilingInput(s, r, s.Rate, Measurement{})).WithMeasured(r.Throughput.CompletedPerSec)
	return r
}

// ceilingInput is the capacity formulas' input for a run's record at a
// producer rate: with joins the largest membership (an upper bound over
// the window); records per acquisition measured (p90; records per poll
// when no acquisition was seen), consumers per partition from the formed
// group's assignment (nil: predicted).
func ceilingInput(s scenarios.RunSpec, r Record, producerRate float64, layout Measurement) CeilingInput {
	acq := r.Polls.RecordsPerAcquisition.P90
	if acq == 0 {
		acq = r.Polls.RecordsPerPoll.P90
	}
	in := CeilingInput{
		Share: s.ConsumerType == vocab.ShareGroup, Members: s.MaxMembers(), Workers: s.Workers, Partitions: s.Partitions,
		ProcessingMs: float64(s.ProcessingMean()) / 1e6, TransientRate: s.TransientRate, PoisonRate: s.PoisonRate,
		ProducerRate: producerRate, RecordLocks: s.RecordLocks(), HoldMs: r.Latency.HoldMs.Mean,
		RecordsPerAcquisition: acq, ConsumersPerPartition: layout.PerPartition,
		BatchOptimized: s.ConsumerType == vocab.ShareGroup && s.AcquireMode != vocab.AcquireRecordLimit,
		LockDurationMs: lockDurationMs(s), BufferedMs: r.Latency.BufferedMs.P50,
		FetchWait: layout.FetchWait,
	}
	if d := r.Destination; d != nil && s.Destination != nil {
		in.DestinationWriteMs, in.DestinationServiceMs, in.DestinationPool = d.WriteMs.Mean, d.ServiceMs, s.Destination.Pool
		in.DestinationConnections = s.Destination.Connections
	}
	return in
}

// lockDurationMs is the record lock a share run's acquisitions can outlive:
// 0 for consumer groups and renew auto (renewed locks do not expire).
func lockDurationMs(s scenarios.RunSpec) float64 {
	if s.ConsumerType != vocab.ShareGroup || s.Renew == vocab.RenewAuto {
		return 0
	}
	return float64(s.RecordLockDuration()) / 1e6
}

// saturation is the run's broker, host and request evidence for the
// measured bounds (Ceiling.Judge); the handler idle is -1 without broker
// scrapes or when the exporter cannot give it.
func saturation(rr Record, usage results.CPUUsage) Saturation {
	idle := -1.0
	if rr.Broker.Samples > 0 && !slices.Contains(rr.Broker.Unavailable, "request_handler_idle_min") {
		idle = rr.Broker.RequestHandlerIdleMin
	}
	return Saturation{HandlerIdleMin: idle, BrokerCPUPercent: rr.Broker.CPUPercentAvg,
		HostCPUPercent: usage.HostPercent, Requests: rr.Requests}
}

// consumingSec is how long the members consumed: warm-up, window and drain.
func consumingSec(rr Record) float64 {
	return rr.Phases.WarmupSec + rr.Phases.MeasureSec + rr.Phases.DrainSec
}

// countPercentiles summarizes a histogram whose values are counts, not
// microseconds (records per poll, per acquisition, per response).
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

// burstFigures reads a rate run whose drain outlasted its window as a
// burst: first record (schedule start) → last completion, against
// max(production time, records ÷ the ceiling without the producer bound).
func burstFigures(in Measurement, rr Record) *Burst {
	s, m := in.Spec, in.Merged
	if !in.HasSpan || m.Acked == 0 {
		return nil
	}
	c := ComputeCeiling(ceilingInput(s, rr, math.Inf(1), in))
	b := &Burst{Records: m.Acked, EndToEndSec: float64(in.LastEvent-in.LoadStart) / 1e9, Bound: c.Bound}
	produce := (s.Warmup + s.Duration).Seconds()
	b.PredictedSec = produce
	if !math.IsInf(c.RecordsPerSec, 1) && c.RecordsPerSec > 0 {
		b.ConsumeCeiling = c.RecordsPerSec
		b.PredictedSec = max(produce, float64(m.Acked)/c.RecordsPerSec)
	}
	return b
}

// backlogFigures rewrites a load_mode backlog run's throughput and ceiling:
// the window is the drain (release → last finish), nothing is offered
// on a schedule, the producers' figure is the fill rate, and the producer
// rate does not bound the drain.
func backlogFigures(rr *Record, s scenarios.RunSpec, m results.Merged, fillSec float64, layout Measurement) {
	rr.Phases.FillSec = fillSec
	rr.Phases.WarmupSec = 0
	t := &rr.Throughput
	t.OfferedPerSec = 0
	t.ProducedPerSec = 0
	if fillSec > 0 {
		t.ProducedPerSec = float64(m.Acked) / fillSec
	}
	// CompletedPerSec (completions ÷ drain) stands; the ratio is the
	// fraction of the backlog completed.
	t.CompletedRatio = 0
	if m.Acked > 0 {
		t.CompletedRatio = float64(m.CompletedInWindow) / float64(m.Acked)
	}
	c := ComputeCeiling(ceilingInput(s, *rr, math.Inf(1), layout))
	if math.IsInf(c.RecordsPerSec, 1) {
		c.RecordsPerSec, c.Bound = 0, BoundNone // no processing bound
	}
	c.ProducerRate = 0
	rr.Ceiling = c.WithMeasured(t.CompletedPerSec)
}

// lockExpiryInput is the lock_expiry_risk check's input: share runs
// without renew auto only.
func lockExpiryInput(s scenarios.RunSpec, rr Record) LockExpiryInput {
	if s.ConsumerType != vocab.ShareGroup || s.Renew == vocab.RenewAuto {
		return LockExpiryInput{}
	}
	acq := rr.Polls.RecordsPerAcquisition.P90
	if acq == 0 {
		acq = rr.Polls.RecordsPerPoll.P90
	}
	return LockExpiryInput{LockDurationMs: float64(s.RecordLockDuration()) / 1e6, RecordsPerAcquisition: acq,
		ProcessingMs: float64(s.ProcessingMean()) / 1e6, Workers: s.Workers, Hold: rr.Latency.HoldMs,
		BufferedP99Ms: rr.Latency.BufferedMs.P99}
}

// brokerCost is the run's broker_cost from the window's broker CPU, the
// records produced and completed in it, the produce-only phase and the
// cluster's scrape calibration.
func brokerCost(in Measurement, m results.Merged) *BrokerCost {
	bc := BrokerCostInput{CPUSeconds: in.Broker.CPUSeconds, WindowSec: in.Window.Seconds(),
		Produced: m.AckedWindow, Completed: m.CompletedInWindow}
	if p := in.Environment.Priming; p != nil && p.ScrapeCost != nil && in.Broker.CPUSource == "" {
		bc.ScrapeCostCores = p.ScrapeCost.CostCores // measured on the JVMs' /proc CPU, as JMX's ProcessCpuTime counts
	}
	if p := in.ProduceOnly; p != nil {
		bc.ProduceOnlySec, bc.ProduceOnlyRecords, bc.ProduceOnlyCPU, bc.ProduceOnlyJIT = p.Sec, p.Records, p.CPUSeconds, p.JITCompileSec
	}
	return ComputeBrokerCost(bc)
}

// offered is the open-loop rate of the window: rate, or with a
// rate_schedule the records it schedules in the window ÷ its length.
func offered(s scenarios.RunSpec, w results.Window) float64 {
	if len(s.RateSchedule) == 0 || w.Seconds() <= 0 {
		return s.Rate
	}
	return scenarios.ScheduledRecords(s.RateSchedule, time.Duration(w.End-w.Start)) / w.Seconds()
}
