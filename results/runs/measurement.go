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
	// BrokerScrapes is the scrapes of the brokers' endpoints taken in the
	// window (collectors.ScrapesIn), for broker_cost's scrape figures.
	BrokerScrapes int
	// ProduceOnly is the run's produce-only phase (Records, Sec and
	// CPUSeconds measured; nil: none), for broker_cost.
	ProduceOnly *ProduceOnly
	// Settle are the settles before the run's measurement (nil: none).
	Settle    []SettleStep
	Lag       results.LagSummary
	Resources results.CPUUsage
	// Harness are the readings of the harness process in the window (its
	// RSS, goroutines, open files, recorder memory), for run.json's harness
	// block and the harness_growth flag.
	Harness []HarnessSample
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

// FromMeasurement builds a run's record from what was measured, in one
// direction: the run's context, then pure stages (throughput → latency →
// ceiling → validity, the events beside them), each returning the blocks
// it writes, which no later stage writes again.
func FromMeasurement(in Measurement) Record {
	r := recordContext(in)
	r.Phases, r.Throughput, r.Lag, r.BrokerCost = throughputStage(in)
	r.Outcomes, r.Audit, r.PerMember = outcomesStage(in)
	r.Events, r.EventSummary, r.Members, r.Autoscale = eventsStage(in)
	r.Latency, r.Polls, r.Destination, r.Requests = latencyStage(in)
	r.Ceiling, r.Burst = ceilingStage(in, r)
	r.Validity = validityStage(in, r)
	return r
}

// recordContext is what the record takes from the measurement as it is:
// the run's identity, spec and environment, the group and client read
// back, the brokers' metrics, the shards, settles, resources and errors.
func recordContext(in Measurement) Record {
	s := in.Spec
	return Record{SchemaVersion: SchemaVersion, RunID: in.RunID, ConsumerType: s.ConsumerType, Spec: &s,
		StartedAt: in.StartedAt.Format(time.RFC3339), Client: in.Client, TopicConfig: in.TopicConfig,
		GroupConfig: in.GroupConfig, Group: in.Group, Environment: in.Environment, Broker: in.Broker,
		Stall: in.Stall, Shards: in.Shards, Settle: NewSettle(in.Settle), Resources: in.Resources, Errors: in.Errors,
		Harness: NewHarnessSeries(in.Harness, in.Window.Seconds())}
}

// throughputStage is the run's phases and rates over its window, the lag
// with its drain estimate and the broker CPU per record. A load_mode
// backlog run's window is the drain (release → last finish): nothing is
// offered on a schedule, the producers' figure is the fill rate and the
// completed ratio the fraction of the backlog completed.
func throughputStage(in Measurement) (Phases, Throughput, results.LagSummary, *BrokerCost) {
	s, m, secs := in.Spec, in.Merged, in.Window.Seconds()
	p := Phases{WarmupSec: s.Warmup.Seconds(), MeasureSec: secs, GroupReadySec: in.FormationSec,
		GroupFormationSec: in.FormationSec, FormationRounds: in.FormationRounds, DrainSec: in.DrainSec,
		DrainTimedOut: in.DrainTimedOut, WindowStartSec: float64(in.Window.Start-in.Series.Start()) / 1e9}
	t := Throughput{OfferedPerSec: offered(s, in.Window), ProducedPerSec: float64(m.AckedWindow) / secs,
		CompletedPerSec: float64(m.CompletedInWindow) / secs, UsefulPerSec: float64(m.CompletedInWindow-m.LockExpiredInWindow) / secs}
	if t.ProducedPerSec > 0 {
		t.CompletedRatio = t.CompletedPerSec / t.ProducedPerSec
	}
	if s.Backlog() {
		p.FillSec, p.WarmupSec = in.FillSec, 0
		t.OfferedPerSec, t.ProducedPerSec, t.CompletedRatio = 0, 0, 0
		if in.FillSec > 0 {
			t.ProducedPerSec = float64(m.Acked) / in.FillSec
		}
		if m.Acked > 0 {
			t.CompletedRatio = float64(m.CompletedInWindow) / float64(m.Acked)
		}
	}
	lag := in.Lag
	if lag.Samples > 0 {
		lag.DrainEstimateSec = DrainEstimate(lag.AtWindowEnd, t.ProducedPerSec, t.CompletedPerSec)
	}
	return p, t, lag, brokerCost(in, m)
}

// outcomesStage is what became of the records: the outcome counts, the
// audit (with the order and the dead-letter read-back) and the completions
// per member.
func outcomesStage(in Measurement) (Outcomes, results.Audit, []int64) {
	m := in.Merged
	o := Outcomes{Delivered: m.Delivered, Completed: m.Completed, Redelivered: m.Redelivered,
		Released: m.Released, Rejected: m.Rejected, RetriedInPlace: m.Retried,
		LockExpiredCompleted: m.LockExpired, Renewals: m.Renewals, AckErrors: m.AckErrors, AckLockExpired: m.AckLockExpired, PollErrors: m.PollErrors, ProduceFailed: m.ProduceFailed}
	if in.Spec.ConsumerType == vocab.ShareGroup {
		o.DeliveryCounts = trimZeros(m.DeliveryCounts[:])
	}
	a := in.Audit
	a.Order = m.Order
	if in.DeadLetter != nil {
		a.DeadLetterAudit = *in.DeadLetter
	}
	return o, a, m.PerMember
}

// eventsStage is what the run's events, its members' lives and its scaler
// did (runs whose members change: events or autoscale).
func eventsStage(in Measurement) ([]EventReport, *EventSummary, []MemberLife, *Autoscale) {
	s := in.Spec
	if !s.ChangesMembers() {
		return nil, nil, nil, nil
	}
	reports, sum := eventReports(in)
	var as *Autoscale
	if s.Autoscale != nil && in.Scaler != nil {
		as = AutoscaleFigures(AutoscaleInput{Policy: *s.Autoscale, Cap: in.Scaler.Cap, MaxReplicas: in.Scaler.MaxReplicas,
			Start: in.Scaler.Start, WindowSec: in.Window.Seconds(), Decisions: in.Scaler.Decisions, Schedule: s.RateSchedule,
			Reports: reports, ActionEvents: ScalerEvents(reports)})
	}
	return reports, sum, MemberLives(in.Merged.Members, in.Window), as
}

// latencyStage is the run's times: the latency histograms (the client's
// own wait among them), the polls and acquisitions, the destination's
// writes and the requests per broker over the time the members consumed.
func latencyStage(in Measurement) (Latencies, Polls, *Destination, []RequestFigure) {
	m := in.Merged
	l := Latencies{
		CompletionMs: results.SummarizeMillis(m.Completion), DeliveryMs: results.SummarizeMillis(m.Delivery),
		PublishMs: results.SummarizeMillis(m.Publish), ScheduleLagMs: results.SummarizeMillis(m.ScheduleLag),
		QueueMs: results.SummarizeMillis(m.Queue), HoldMs: results.SummarizeMillis(m.Hold),
	}
	p := Polls{Count: m.Polls, Empty: m.EmptyPolls, RecordsPerPoll: countPercentiles(m.PollSize), GapMs: results.SummarizeMillis(m.PollGap)}
	if m.Polls > 0 {
		p.EmptyRatio = float64(m.EmptyPolls) / float64(m.Polls)
	}
	if cs := in.ClientStats; cs != nil {
		l.BufferedMs = results.SummarizeMillis(cs.Buffered)
		p.RecordsPerAcquisition = countPercentiles(cs.PerAcquisition)
		p.RecordsPerResponse = countPercentiles(cs.PerResponse)
	}
	// The members consumed through the warm-up (the spec's, which a
	// backlog's members also run through before the drain), the window
	// and the drain.
	consuming := in.Spec.Warmup.Seconds() + in.Window.Seconds() + in.DrainSec
	return l, p, destinationFigures(in.Spec, m, in.Destination), RequestFigures(in.Requests, consuming)
}

// ceilingStage is the run's ceiling, judged against what the run
// completed on its brokers and host, and a rate run's burst (its drain
// outlasted its window), from the one ceiling input of the run
// (Measurement.CeilingInput).
func ceilingStage(in Measurement, r Record) (Ceiling, *Burst) {
	s := in.Spec
	ci := in.CeilingInput(r)
	c := ComputeCeiling(ci)
	if s.Backlog() { // the producer rate does not bound a drain
		if math.IsInf(c.RecordsPerSec, 1) {
			c.RecordsPerSec, c.Bound = 0, BoundNone // no processing bound
		}
		c.ProducerRate = 0
	}
	c = c.WithMeasured(r.Throughput.UsefulPerSec).Judge(r.Throughput.UsefulPerSec, saturation(r, in.Resources))
	if (s.Autoscale != nil || len(s.RateSchedule) > 0) && c.Held == BoundUnexplained {
		// The steady-state model bounds the peak; a window whose rate or
		// membership changes on purpose averages below it by design.
		c.Held = c.Bound
		c.Evidence = "rate_schedule or autoscale: the load or the members change on purpose, so the window's mean is below the steady-state bound; read the autoscale figures"
		c.Move = Move(c.Held)
	}
	var b *Burst
	if !s.Backlog() && !s.ChangesMembers() && r.Phases.DrainSec > r.Phases.MeasureSec {
		b = burstFigures(in, ci)
	}
	return c, b
}

// validityStage is the run's validity: the checks of what the campaign
// alone knows (Measurement.Checks) with the record's figures, and the
// flags of the group, the dead letters, the destination and the shards.
func validityStage(in Measurement, r Record) Validity {
	s, m := in.Spec, in.Merged
	v := in.Checks
	v.Audit, v.DrainTimedOut = r.Audit, r.Phases.DrainTimedOut
	v.ScheduleLagP99Ms = r.Latency.ScheduleLagMs.P99
	v.Ceiling, v.UsefulPerSec = r.Ceiling, r.Throughput.UsefulPerSec
	v.ProduceFailed, v.AckErrors, v.PollErrors = m.ProduceFailed, m.AckErrors, m.PollErrors
	// A drain has no steady state to check; intentional dips (members
	// that change, a rate that changes on purpose) are not a short warm-up.
	if !s.Backlog() && !s.ChangesMembers() && len(s.RateSchedule) == 0 {
		v.CompletedThirds = in.Series.Thirds(results.Completed, in.Window)
	}
	v.LockExpiry = lockExpiryInput(s, r)
	v.Stall = in.Stall
	val := Check(v)
	val.Flag(r.Group.FallbackFlag())
	val.Flag(DeadLetterFlag(r.Audit))
	for _, f := range DestinationFlags(r.Destination) {
		val.Flag(f)
	}
	val.Flag(in.Shards.SkewFlag())
	val.Flag(r.Harness.GrowthFlag())
	return val
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

// CeilingInput is the capacity formulas' input of a measured run: the
// spec's (PlannedCeilingInput) with what the run measured in place of the
// predictions — the mean hold time, the records per acquisition (p90 of
// the client's acquisitions; of the polls when none was seen), the
// client's wait, the formed group's assignment and fetch layout, the
// destination's write and service times. Joins or a scaler change the
// membership over a rate run's window: then the membership is the largest
// (an upper bound), the assignment and fetch layout the predicted ones,
// and the client's histograms, which span several memberships, are not
// read (a backlog's drain reads them as they are).
func (in Measurement) CeilingInput(r Record) CeilingInput {
	s := in.Spec
	c := PlannedCeilingInput(s)
	c.HoldMs = r.Latency.HoldMs.Mean
	c.RecordsPerAcquisition = r.Polls.RecordsPerPoll.P90
	if s.Backlog() || !s.ChangesMembers() {
		if acq := r.Polls.RecordsPerAcquisition.P90; acq != 0 {
			c.RecordsPerAcquisition = acq
		}
		c.BufferedMs = r.Latency.BufferedMs.P50
		c.ConsumersPerPartition, c.FetchWait = in.PerPartition, in.FetchWait
		if fw := in.FetchWait; fw != nil {
			measured := *fw
			measured.RoundTripMs = FetchRoundTripMs(r.Requests)
			c.FetchWait = &measured
		}
	}
	if d := r.Destination; d != nil {
		c.DestinationWriteMs, c.DestinationServiceMs = d.WriteMs.Mean, d.ServiceMs
		if s.Style != vocab.StyleContinuous {
			c.RecordsPerPoll, c.PollGapMs = r.Polls.RecordsPerPoll.Mean, r.Polls.GapMs.Mean
		}
	}
	return c
}

// PlannedCeilingInput is the capacity formulas' input from a run's spec
// alone, before it runs: the largest membership, the predicted records per
// acquisition and consumers per partition, no measured hold time (so no
// lock window) and no destination times; a backlog's drain is not bounded
// by a producer rate.
func PlannedCeilingInput(s scenarios.RunSpec) CeilingInput {
	rate := s.Rate
	if s.Backlog() {
		rate = math.Inf(1)
	}
	share := s.ConsumerType == vocab.ShareGroup
	c := CeilingInput{
		Share: share, Members: s.MaxMembers(), Workers: s.Workers, Partitions: s.Partitions,
		ProcessingMs: float64(s.ProcessingMean()) / 1e6, TransientRate: s.TransientRate, PoisonRate: s.PoisonRate,
		ProducerRate: rate, RecordLocks: s.RecordLocks(), RecordsPerAcquisition: float64(s.PredictedAcquisition()),
		BatchOptimized: share && s.AcquireMode != vocab.AcquireRecordLimit, LockDurationMs: lockDurationMs(s),
	}
	if d := s.Destination; d != nil {
		c.DestinationPool, c.DestinationConnections, c.DestinationBatchSize = d.Pool, d.Connections, d.BatchSize
	}
	if s.Client == vocab.ClientSpring {
		// A Spring member is a listener container whose concurrency is the
		// workers: that many clients, each processing its own records one
		// at a time (docs/how-to/compare-clients.md). For the formulas it is
		// members × workers single-worker members: a consumer group's
		// partitions go to that many clients, and each share consumer
		// holds its own acquisitions.
		// A member's destination pool stays the member's, shared by its
		// threads: at most members × pool connections.
		if c.DestinationPool > 0 {
			conns := c.Members * c.DestinationPool
			if c.DestinationConnections > 0 {
				conns = min(conns, c.DestinationConnections)
			}
			c.DestinationConnections = conns
		}
		c.Members, c.Workers = c.Members*s.Workers, 1
	}
	return c
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
func burstFigures(in Measurement, ci CeilingInput) *Burst {
	s, m := in.Spec, in.Merged
	if !in.HasSpan || m.Acked == 0 {
		return nil
	}
	ci.ProducerRate = math.Inf(1)
	c := ComputeCeiling(ci)
	b := &Burst{Records: m.Acked, EndToEndSec: float64(in.LastEvent-in.LoadStart) / 1e9, Bound: c.Bound}
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
		Produced: m.AckedWindow, Completed: m.CompletedInWindow, Scrapes: in.BrokerScrapes}
	if p := in.Environment.Priming; p != nil && p.ScrapeCost != nil && in.Broker.CPUSource != "host" {
		// measured on the JVMs' /proc CPU, which the run's broker CPU is
		bc.ScrapeCPUSeconds = p.ScrapeCost.CPUMsPerScrape / 1e3 * float64(in.BrokerScrapes)
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
