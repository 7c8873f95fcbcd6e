package poc

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sharebench/sharebench/advisor"
	"github.com/sharebench/sharebench/scenarios"
)

// Experiment keys (Experiment.Key, Finding.Key).
const (
	KeyPartitionCap  = "partition_cap"
	KeyHeadOfLine    = "head_of_line"
	KeySettingsSweep = "settings_sweep"
	KeyFailures      = "failures"
	KeyScaleEvent    = "scale_event"
	KeyPeakAutoscale = "peak_autoscale"
	KeyDestination   = "destination"
)

// RunOverhead is a run's wall time beyond its warm-up, window and drain: the
// fresh topic, the group forming, the settle before the warm-up, the
// collectors' last scrape and the run folder's files. Measured from
// campaign.json and run.json timestamps (a run's start to the next run's
// start, less its warm-up, window and drain) of a single-broker process
// campaign on a busy 2-core host: 7.1 s a run; rounded up.
const RunOverhead = 8 * time.Second

// CampaignOverhead is the campaign's one-off wall time before its first
// run: the broker's start, the priming and the JIT warm-up (bounded by
// jit_warmup, which the plan sets to scenarios.MinJITWarmup). Measured as
// for RunOverhead: 68 s from the campaign's start to its first run's.
const CampaignOverhead = 60*time.Second + scenarios.MinJITWarmup

// phases are the warm-up and measurement window every run of a plan takes,
// scaled to the budget: a 15-minute budget gets 20-second windows, a
// 4-minute one 6 seconds.
type phases struct{ warmup, window time.Duration }

func phasesFor(budget time.Duration) phases {
	w := min(max(budget/45, 5*time.Second), 30*time.Second).Round(time.Second)
	return phases{warmup: min(max(w/3, 2*time.Second), 5*time.Second).Round(time.Second), window: w}
}

// part is one experiment before its estimate: its runs' YAML, the number
// of runs and each run's drain bound.
type part struct {
	exp   Experiment
	yaml  string
	runs  int
	drain time.Duration // each run's drain_timeout: the bound of its drain
	span  time.Duration // each run's warm-up + window
}

// estimate is the part's wall time: per run the warm-up, the window, the
// drain bound and RunOverhead.
func (p part) estimate() time.Duration {
	return time.Duration(p.runs) * (p.span + p.drain + RunOverhead)
}

// PlanCampaign plans the proof of concept of a profile within budget (0:
// the profile's budget): the advisor sizes the share group for the peak
// rate (advisor.Advise), each experiment is a scenario part with its runs'
// label, and the experiments are taken in priority order while they fit
// the budget (after CampaignOverhead); the rest are LeftOut with their
// estimate and what was left. With a stage-1 restriction only the
// consumer-group settings sweep is planned. The returned plan's Scenario
// joins the parts (scenarios.Join: each part is validated like a file).
func PlanCampaign(p Profile, budget time.Duration) (Plan, error) {
	if budget <= 0 {
		budget = p.Budget
	}
	if budget <= 0 {
		return Plan{}, fmt.Errorf("%s: budget: expected a duration > 0 (like 15m), got %s", p.Source, budget)
	}
	in := advisorInput(p)
	a, err := advisor.Advise(in)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: the advisor cannot size this profile: %w", p.Source, err)
	}
	w := newWriter(p, a, phasesFor(budget))
	var parts []part
	var leftOut []string
	if restricted := restrictions(p); len(restricted) > 0 {
		parts = []part{w.consumerSweep()}
		leftOut = append(leftOut, fmt.Sprintf("the share-group experiments: stage 1 keeps this workload on a consumer group (%s)", strings.Join(restricted, ", ")))
	} else {
		parts = w.shareParts(&leftOut)
	}
	plan := Plan{Profile: p, Budget: budget}
	left := budget - CampaignOverhead
	var joined []scenarios.LabelledScenario
	for _, pt := range parts {
		pt.exp.Estimate = pt.estimate()
		if pt.exp.Estimate > left {
			leftOut = append(leftOut, fmt.Sprintf("%s: %s, left %s of the %s budget", pt.exp.Key, pt.exp.Estimate, max(left, 0), budget))
			continue
		}
		left -= pt.exp.Estimate
		plan.Experiments = append(plan.Experiments, pt.exp)
		joined = append(joined, scenarios.LabelledScenario{Label: pt.exp.Label, Name: p.Source + " (" + pt.exp.Key + ")", YAML: []byte(pt.yaml)})
	}
	plan.LeftOut = leftOut
	if len(joined) == 0 {
		return plan, fmt.Errorf("%s: budget %s: no experiment fits (the smallest needs %s after the campaign's %s set-up); give a larger --budget",
			p.Source, budget, smallest(parts), CampaignOverhead)
	}
	if plan.Scenario, err = scenarios.Join(scenarioName(p.Name), joined); err != nil {
		return plan, fmt.Errorf("%s: a planned experiment is not a valid scenario (a sharebench bug): %w", p.Source, err)
	}
	plan.Scenario.Description = fmt.Sprintf("sharebench poc %s: %d experiment(s) planned within %s", p.Name, len(plan.Experiments), budget)
	return plan, nil
}

// Estimate is the plan's wall time: CampaignOverhead and every experiment's
// estimate.
func (p Plan) Estimate() time.Duration {
	t := CampaignOverhead
	for _, e := range p.Experiments {
		t += e.Estimate
	}
	return t
}

func smallest(parts []part) time.Duration {
	s := time.Duration(math.MaxInt64)
	for _, p := range parts {
		s = min(s, p.estimate())
	}
	return s
}

// scenarioName is the campaign's name: "poc-" and the profile's name, kept
// to what a scenario name may hold.
func scenarioName(name string) string {
	n := "poc-" + name
	return n[:min(len(n), scenarios.MaxNameLen)]
}

// restrictions are the keys of the stage-1 findings that apply.
func restrictions(p Profile) []string {
	var out []string
	for _, f := range StageOne(p) {
		if f.Applies {
			out = append(out, f.Key)
		}
	}
	return out
}

// MaxHold bounds the time a record stays Acquired in the plan's sizing
// (the advisor's --max-hold): the advisor then takes the smallest
// max.poll.records that meets the rate rather than the largest the locks
// allow, so a batch fits the short windows of a proof of concept many
// times over and completion latency measures the workload, not the batch.
const MaxHold = time.Second

// advisorInput is the advisor's input for the profile: its peak rate,
// processing, partitions, workers, ordering and modelled destination, and
// MaxHold.
func advisorInput(p Profile) advisor.Input {
	in := advisor.Defaults()
	in.MaxHold = MaxHold
	in.Rate, in.Processing, in.Partitions = p.PeakRate, p.Processing, p.Partitions
	in.Workers = max(p.Workers, 1)
	if p.Restrictions.OrderingPerKey {
		in.Ordering = "per-key"
	}
	if d := p.Destination; d != nil {
		in.DestinationWrite, in.DestinationCapacity = d.WriteTime, d.Capacity
	}
	return in
}

// writer writes the parts' YAML with what every part shares: the profile's
// topic, records and processing, and one broker configuration (the advice's
// record locks and lock duration), so that every run shares one cluster
// and the runs keep the plan's order (campaign.Run groups runs by cluster).
type writer struct {
	p   Profile
	a   advisor.Advice
	ph  phases
	cgc float64 // the consumer group's ceiling with members capped at the partitions
}

func newWriter(p Profile, a advisor.Advice, ph phases) *writer {
	return &writer{p: p, a: a, ph: ph, cgc: float64(min(a.Members, p.Partitions)*a.Workers) * 1000 / a.ProcessingMs}
}

// run is one part's runs: who, at what rate, with which extra keys.
type run struct {
	types   string // "[consumer, share]", "share", "consumer"
	members string // "8" or "[4, 8]"
	mpr     string
	rate    float64
	window  time.Duration
	ceiling float64 // the slowest arm's ceiling at rate: bounds the drain
	extra   string  // more YAML keys
	sweep   string  // sweep: block
	// schedule: extra holds a rate_schedule, which replaces rate.
	schedule bool
}

func (w *writer) part(key, label, why string, n int, r run) part {
	if r.window == 0 {
		r.window = w.ph.window
	}
	if r.mpr == "" {
		r.mpr = fmt.Sprint(w.a.MaxPollRecords)
	}
	proc, err := advisor.ProcessingYAML(w.p.Processing)
	if err != nil { // the advisor accepted the model, so it can be written
		proc = "{model: constant, time: 1ms}"
	}
	drain := drainBound(r.rate, r.ceiling, r.window)
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\nconsumer_type: %s\npartitions: %d\nproducers: %d\nmessage_size: %d\n",
		key, r.types, w.p.Partitions, max(1, min(4, int(math.Ceil(r.rate/5000)))), max(w.p.RecordBytes, 64))
	if !r.schedule {
		fmt.Fprintf(&b, "rate: %.6g\n", r.rate)
	}
	b.WriteString(keysYAML(w.p.Keys))
	fmt.Fprintf(&b, "members: %s\nworkers: %d\nmax_poll_records: %s\nprocessing: %s\nack_mode: explicit\n", r.members, w.a.Workers, r.mpr, proc)
	fmt.Fprintf(&b, "warmup: %s\nduration: %s\ndrain_timeout: %s\njit_warmup: %s\n", w.ph.warmup, r.window, drain, scenarios.MinJITWarmup)
	if w.p.Client != "" {
		fmt.Fprintf(&b, "client: %s\n", w.p.Client)
	}
	fmt.Fprintf(&b, "broker_config:\n  %s: %d\n  %s: %d\n  %s: %d\n", scenarios.KeyRecordLocks, w.a.RecordLocks,
		scenarios.KeyRecordLockDuration, w.a.LockDurationMs, scenarios.KeyDeliveryCountLimit, deliveryLimit(w.p))
	if w.a.Members > 200 {
		fmt.Fprintf(&b, "  %s: %d\n", scenarios.KeyShareGroupMaxSize, w.a.ShareGroupMaxSize)
	}
	b.WriteString(r.sweep)
	b.WriteString(r.extra)
	return part{exp: Experiment{Key: key, Label: label, Why: why}, yaml: b.String(), runs: n, drain: drain, span: w.ph.warmup + r.window}
}

// deliveryLimit is the profile's delivery limit, Kafka's default 5 when
// it gives none.
func deliveryLimit(p Profile) int {
	if p.DeliveryLimit < 1 {
		return 5
	}
	return p.DeliveryLimit
}

// destinationSlowdown is how much slower than the advisor's ceiling the
// destination pair's drain is bounded for: the database's capacity is what
// the pair measures, so it is not known when the plan is made, and a
// drain bounded at the ceiling left records undelivered (a destination
// pair on the embedded server drained at 46 % of its consumer arm's
// ceiling). A write that holds a worker four times its processing is
// covered; a slower destination ends the drain with undelivered records,
// which makes the decision inconclusive and says so. The pair's window is
// half the others' (the backlog it leaves, and so its drain bound, half).
const destinationSlowdown = 4

// drainBound is a run's drain_timeout: what the window leaves behind when
// the offered rate exceeds the ceiling, drained at the ceiling, twice over
// and 10 s more (a bound, not a guess: the estimate uses it), at most 2m.
func drainBound(rate, ceiling float64, window time.Duration) time.Duration {
	backlog := 0.0
	if ceiling > 0 && rate > ceiling {
		backlog = (rate - ceiling) * window.Seconds() / ceiling
	}
	return min(time.Duration(2*backlog*float64(time.Second))+10*time.Second, 2*time.Minute).Round(time.Second)
}

// keysYAML writes the profile's keys as the scenario's key model.
func keysYAML(keys string) string {
	switch keys {
	case "uniform":
		return "key_mode: hashed\nkeys: 1000\n"
	case "hot":
		return "key_mode: hashed\nkeys: 1000\nhot_keys: {share: 0.2, keys: 3}\n"
	}
	return "key_mode: round-robin\n"
}

// shareParts are the stage-2 experiments in priority order (the
// destination's second when the profile has one); an experiment
// the profile gives no reason to run is noted in leftOut.
func (w *writer) shareParts(leftOut *[]string) []part {
	p, a := w.p, w.a
	m := a.Members
	shareCeil := float64(m*a.Workers) * 1000 / a.ProcessingMs
	both := fmt.Sprintf("%d", m)
	// Both arms at a rate both complete, with as many members as the
	// consumer group can use.
	cm := min(m, p.Partitions)
	even := math.Min(p.PeakRate, 0.8*w.cgc)
	var parts []part
	if m > p.Partitions {
		parts = append(parts, w.part(KeyPartitionCap, "cap", fmt.Sprintf("both group types at the peak %.6g records/s with the advisor's %d members on %d partitions: does the share group pass the consumer group's cap of %d members?", p.PeakRate, m, p.Partitions, p.Partitions),
			2, run{types: "[consumer, share]", members: both, rate: p.PeakRate, ceiling: math.Min(w.cgc, shareCeil)}))
	} else {
		*leftOut = append(*leftOut, fmt.Sprintf("%s: the advisor's %d member(s) complete the peak %.6g records/s on %d partitions: the partition cap does not bind",
			KeyPartitionCap, m, p.PeakRate, p.Partitions))
	}
	parts = append(parts, w.part(KeyHeadOfLine, "hol", fmt.Sprintf("both group types with %d members at %.6g records/s (≤ 0.8 × the consumer group's ceiling %.6g): completion p99 under %s, and the broker CPU per record of each", cm, even, w.cgc, a.Processing),
		2, run{types: "[consumer, share]", members: fmt.Sprint(cm), rate: even, ceiling: w.cgc}))
	// With a destination, whether it bounds the throughput comes next:
	// it decides whether the other reasons matter.
	switch d := p.Destination; {
	case d == nil:
	case d.Embedded || d.DSN != "":
		dest := "destination:\n  kind: postgres\n  key: offset\n  idempotent: true\n"
		if d.DSN != "" {
			dest += fmt.Sprintf("  dsn: %q\n", d.DSN)
		}
		if d.Connections > 0 {
			dest += fmt.Sprintf("  connections: %d\n", d.Connections)
		}
		parts = slices.Insert(parts, min(1, len(parts)), w.part(KeyDestination, "dest", fmt.Sprintf("both group types with %d members at the peak %.6g records/s writing every record to the destination: does the destination, not the group type, bound the throughput?", m, p.PeakRate),
			2, run{types: "[consumer, share]", members: both, rate: p.PeakRate, ceiling: math.Min(w.cgc, shareCeil) / destinationSlowdown,
				window: max(time.Second, w.ph.window/2), extra: dest}))
	default:
		*leftOut = append(*leftOut, KeyDestination+fmt.Sprintf(": a modelled write (%s, %.6g records/s) cannot be run (a scenario's destination is a database: give embedded: true or a dsn); the advisor's sizing includes it", d.WriteTime, d.Capacity))
	}
	// The settings sweep: the advisor's verify points, share only.
	pts := advisor.VerifyPoints(a)
	var members, mprs []string
	for _, pt := range pts {
		members = append(members, fmt.Sprint(pt.Members))
		mprs = append(mprs, fmt.Sprint(pt.MaxPollRecords))
	}
	parts = append(parts, w.part(KeySettingsSweep, "sweep", fmt.Sprintf("the share group at the advisor's %d verify points around members %d, max.poll.records %d: the measured best max.poll.records (recommend:)", len(pts), m, a.MaxPollRecords),
		len(pts), run{types: "share", members: "[" + strings.Join(members, ", ") + "]", mpr: "[" + strings.Join(mprs, ", ") + "]", rate: a.DesignRate, ceiling: shareCeil,
			sweep: "sweep: {together: [[members, max_poll_records]]}\n" + recommendYAML}))
	if p.TransientRate > 0 || p.PoisonRate > 0 {
		parts = append(parts, w.part(KeyFailures, "fail", fmt.Sprintf("both group types with %.3g transient and %.3g poison failures, delivery limit %d: redeliveries, archived records, what a DLQ must take", p.TransientRate, p.PoisonRate, deliveryLimit(p)),
			2, run{types: "[consumer, share]", members: fmt.Sprint(cm), rate: even, ceiling: w.cgc,
				extra: fmt.Sprintf("transient_rate: %g\npoison_rate: %g\n", p.TransientRate, p.PoisonRate)}))
	} else {
		*leftOut = append(*leftOut, KeyFailures+": the profile has no failures (transient_rate and poison_rate are 0)")
	}
	// A scale event: half the consumer group's members, one more joins and
	// leaves; the rate is what the fewer members complete.
	half := max(1, cm/2)
	k := max(1, half/2)
	win := max(w.ph.window, 12*time.Second)
	sr := math.Min(even, 0.8*float64(half*a.Workers)*1000/a.ProcessingMs)
	parts = append(parts, w.part(KeyScaleEvent, "scale", fmt.Sprintf("both group types with %d members: %d join at a third of the window and leave at two thirds: the pause each event costs", half, k),
		2, run{types: "[consumer, share]", members: fmt.Sprint(half), rate: sr, window: win, ceiling: float64(half*a.Workers) * 1000 / a.ProcessingMs,
			extra: fmt.Sprintf("events:\n  - {at: %s, action: join, members: %d}\n  - {at: %s, action: leave, members: %d}\n", win/3, k, 2*win/3, k)}))
	if p.PeakRate > p.SteadyRate {
		parts = append(parts, w.autoscalePart(a))
	} else {
		*leftOut = append(*leftOut, KeyPeakAutoscale+": the profile has no peak (peak_rate equals steady_rate)")
	}
	return parts
}

// recommendYAML asks for the best max.poll.records under no loss and no
// lock expiry (as advise --verify asks).
const recommendYAML = "recommend:\n  knob: max_poll_records\n  maximize: throughput.completed_per_sec\n" +
	"  where: [\"audit.lost == 0\", \"audit.undelivered == 0\", \"outcomes.lock_expired_completions == 0\"]\n"

// autoscalePart is the share group from one member under the lag rule,
// offered the steady rate, then the peak, then the steady rate again.
func (w *writer) autoscalePart(a advisor.Advice) part {
	p := w.p
	win := max(2*w.ph.window, 30*time.Second)
	third := (win / 3).Round(time.Second)
	peak := min(p.PeakFor, third)
	if peak <= 0 {
		peak = third
	}
	rest := win - third - peak
	maxR := max(2, a.Members)
	threshold := max(10, int(p.SteadyRate*0.5))
	extra := fmt.Sprintf("rate_schedule:\n  - {duration: %s, rate: %.6g}\n  - {duration: %s, rate: %.6g, spike: true}\n  - {duration: %s, rate: %.6g}\n",
		third, p.SteadyRate, peak, p.PeakRate, rest, p.SteadyRate) +
		fmt.Sprintf("autoscale:\n  signal: lag\n  threshold: %d\n  goal: 30s\n  window: 3s\n  out_after: 2s\n  in_after: 10s\n  in_below: %d\n  cooldown: 4s\n  step: %d\n  min: 1\n  max: %d\n  poll: 1s\n",
			threshold, max(1, threshold/10), max(1, maxR/4), maxR)
	ceil := float64(maxR*a.Workers) * 1000 / a.ProcessingMs
	return w.part(KeyPeakAutoscale, "peak", fmt.Sprintf("the share group from 1 member under the lag rule (to %d), offered %.6g records/s, a %s peak at %.6g, then %.6g again: replicas, drain time, replica-seconds", maxR, p.SteadyRate, peak, p.PeakRate, p.SteadyRate),
		1, run{types: "share", members: "1", rate: p.SteadyRate, window: win, ceiling: ceil, extra: extra, schedule: true})
}

// consumerSweep is the consumer group's max.poll.records sweep at the
// steady rate, from the advisor's value to 64 times it: what a workload
// stage 1 keeps on a consumer group runs with.
func (w *writer) consumerSweep() part {
	mpr := w.a.MaxPollRecords
	vals := []int{mpr, min(10000, 4*mpr), min(10000, 16*mpr), min(10000, 64*mpr)}
	var s []string
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			s = append(s, fmt.Sprint(v))
		}
	}
	cm := min(w.a.Members, w.p.Partitions)
	rate := math.Min(w.p.SteadyRate, 0.8*w.cgc)
	return w.part(KeySettingsSweep, "cgsweep", fmt.Sprintf("the consumer group with %d members at %.6g records/s, max.poll.records %s: the measured best (recommend:)", cm, rate, strings.Join(s, ", ")),
		len(s), run{types: "consumer", members: fmt.Sprint(cm), mpr: "[" + strings.Join(s, ", ") + "]", rate: rate, ceiling: w.cgc, sweep: recommendYAML})
}
