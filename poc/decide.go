package poc

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// The thresholds of stage 2 (docs/how-to/run-a-poc.md, "Stage 2: reasons").
const (
	// CapMargin: the share group's completed throughput must reach this
	// multiple of the consumer group's for partition_cap: above run-to-run
	// noise (a few %) and above the 5 % the harness calls equal.
	CapMargin = 1.15
	// LatencyMargin: the share group's completion p99 must be at most this
	// multiple of the consumer group's for head_of_line (a fifth lower: a
	// difference a team notices, well past the p99's trial-to-trial spread).
	LatencyMargin = 0.8
	// DrainMargin: the share group's peak drain must be at most this
	// multiple of the consumer group's for peak_autoscale.
	DrainMargin = 0.8
	// DestinationBand: both arms within this fraction of ceiling.destination
	// make the destination the bound (the destination's capacity is itself
	// a model, its write time measured, so a band rather than a point).
	DestinationBand = 0.15
	// PoisonSigmas: archived may differ from the expected poison records by
	// this many binomial standard deviations (at least one record).
	PoisonSigmas = 4
)

// The figures the decision reads, by their run.json path (results/runs'
// declared figures: one fact, one place).
const (
	figCompleted      = "throughput.completed_per_sec"
	figP99            = "latency.completion_ms.p99"
	figHoldP99        = "latency.hold_ms.p99"
	figBufferedP99    = "latency.buffered_ms.p99"
	figCeilWorkers    = "ceiling.workers"
	figActiveMembers  = "ceiling.active_members"
	figCeilDest       = "ceiling.destination"
	figIdleGap        = "event_summary.idle_gap_max_s"
	figRebalancePause = "event_summary.rebalance_pause_max_s"
	figRedelivered    = "outcomes.redelivered"
	figArchived       = "audit.archived"
	figProduced       = "audit.produced"
	figLost           = "audit.lost"
	figDuplicates     = "audit.duplicates"
	figDeadLettered   = "audit.dead_lettered"
	figPeakReplicas   = "autoscale.peak_replicas"
	figDrain          = "autoscale.drain_s"
	figReplicaSeconds = "autoscale.replica_seconds"
	figPhaseDrain     = "phases.drain_s"
	figMovedCost      = "broker_cost.moved_cpu_seconds_per_million_records"
	figConsumeCost    = "broker_cost.consume_cpu_seconds_per_million_records"
	figHarnessCPU     = "resources.harness_percent"
)

// reasonKeys are stage 2's reasons in the order the decision lists them;
// sweepKey is the settings sweep's experiment.
var reasonKeys = []string{"partition_cap", "head_of_line", "scale_event", "failures", "peak_autoscale", "destination"}

const sweepKey = "settings_sweep"

// measure reads a declared figure of a run as Evidence; ok is false when
// the run has no such figure.
func measure(r runs.Record, figure string) (Evidence, bool) {
	f, err := runs.LookupFigure(figure)
	if err != nil {
		panic(fmt.Sprintf("poc: figure %s is not declared: %v", figure, err)) // a typo here; TestFiguresDeclared names it
	}
	v, ok := f.Value(&r)
	return Evidence{RunID: r.RunID, Figure: f.Path, Value: v, Path: "runs/" + r.RunID + "/run.json", Anchor: "run-" + r.RunID}, ok
}

// pair is one experiment's measured consumer and share arms.
type pair struct {
	consumer, share *runs.Record
}

// armsOf finds an experiment's runs by label: every record, and the
// first of each group type.
func armsOf(label string, recs []runs.Record) (all []runs.Record, p pair) {
	for i := range recs {
		r := &recs[i]
		if r.Spec == nil || r.Spec.Label != label {
			continue
		}
		all = append(all, *r)
		switch {
		case groupOf(*r) == vocab.ShareGroup && p.share == nil:
			p.share = r
		case groupOf(*r) == vocab.ConsumerGroup && p.consumer == nil:
			p.consumer = r
		}
	}
	return all, p
}

func groupOf(r runs.Record) vocab.GroupType {
	if r.Spec != nil && r.Spec.ConsumerType != "" {
		return r.Spec.ConsumerType
	}
	return r.ConsumerType
}

// decider holds what every reason reads.
type decider struct {
	p    Profile
	plan Plan
	recs []runs.Record
}

// experiment is the plan's experiment answering key.
func (d *decider) experiment(key string) (Experiment, bool) {
	i := slices.IndexFunc(d.plan.Experiments, func(e Experiment) bool { return e.Key == key })
	if i < 0 {
		return Experiment{}, false
	}
	return d.plan.Experiments[i], true
}

// notMeasured is the finding of a reason whose experiment did not run,
// with the plan's reason for leaving it out.
func (d *decider) notMeasured(key string) Finding {
	return Finding{Key: key, Says: "Not measured: " + d.leftOutWhy(key) + "."}
}

// leftOutWhy is the plan's left-out line for key ("partition_cap: 3m10s,
// left 1m of the 15m budget"), or the stage-1 line that left out every
// share-group experiment.
func (d *decider) leftOutWhy(key string) string {
	for _, l := range d.plan.LeftOut {
		if strings.HasPrefix(l, key+":") {
			return "the plan left it out (" + l + ")"
		}
	}
	for _, l := range d.plan.LeftOut {
		if strings.HasPrefix(l, "the share-group experiments") {
			return "the plan left it out (" + l + ")"
		}
	}
	return "its experiment (" + key + ") is not in the plan"
}

// measuredPair is the experiment's pair, or the not-measured finding.
func (d *decider) measuredPair(key string) (pair, *Finding) {
	exp, ok := d.experiment(key)
	if !ok {
		f := d.notMeasured(key)
		return pair{}, &f
	}
	_, p := armsOf(exp.Label, d.recs)
	if p.consumer == nil || p.share == nil {
		missing := "consumer-group"
		if p.consumer != nil {
			missing = "share-group"
		} else if p.share == nil {
			missing = "consumer-group and share-group"
		}
		return p, &Finding{Key: key, Says: fmt.Sprintf("Not measured: the %s run of experiment %s is missing from the campaign's records.", missing, exp.Label)}
	}
	return p, nil
}

// evidence reads figures of a run, skipping those it lacks.
func evidence(r *runs.Record, figures ...string) []Evidence {
	var out []Evidence
	for _, f := range figures {
		if e, ok := measure(*r, f); ok {
			out = append(out, e)
		}
	}
	return out
}

// value is a figure of a run (0 when absent) and whether it is present.
func value(r *runs.Record, figure string) (float64, bool) {
	e, ok := measure(*r, figure)
	return e.Value, ok
}

func (d *decider) partitionCap() Finding {
	p, nm := d.measuredPair("partition_cap")
	if nm != nil {
		return *nm
	}
	c, _ := value(p.consumer, figCompleted)
	s, _ := value(p.share, figCompleted)
	ceil, _ := value(p.consumer, figCeilWorkers)
	active, _ := value(p.consumer, figActiveMembers)
	members := p.consumer.Spec.Members
	capped := p.consumer.Ceiling.Bound == runs.BoundWorkers && int(active) < members
	f := Finding{Key: "partition_cap", Measured: true,
		Evidence: append(evidence(p.consumer, figCompleted, figCeilWorkers, figActiveMembers), evidence(p.share, figCompleted)...)}
	f.Applies = capped && s >= CapMargin*c && s > ceil
	switch {
	case f.Applies:
		f.Says = fmt.Sprintf("The share group completed %s records/s where the consumer group, capped by its %d partitions (%d of %d members hold one; ceiling %s records/s), completed %s: %.2f× (at least %.2f× needed).",
			num1(s), p.consumer.Spec.Partitions, int(active), members, num1(ceil), num1(c), s/c, CapMargin)
	case !capped:
		f.Says = fmt.Sprintf("The consumer group was not bound by its partitions (ceiling bound %s, %d of %d members active), so the partition cap is not what limits this workload: %s records/s (consumer) and %s (share).",
			p.consumer.Ceiling.Bound, int(active), members, num1(c), num1(s))
	default:
		f.Says = fmt.Sprintf("The share group completed %s records/s against the consumer group's %s (%.2f×, below the %.2f× that would show a share group past the partition cap of %s records/s).",
			num1(s), num1(c), ratio(s, c), CapMargin, num1(ceil))
	}
	return f
}

func (d *decider) headOfLine() Finding {
	p, nm := d.measuredPair("head_of_line")
	if nm != nil {
		return *nm
	}
	c, _ := value(p.consumer, figCompleted)
	s, _ := value(p.share, figCompleted)
	cp, _ := value(p.consumer, figP99)
	sp, _ := value(p.share, figP99)
	f := Finding{Key: "head_of_line", Measured: true,
		Evidence: append(evidence(p.consumer, figP99, figCompleted), evidence(p.share, figP99, figCompleted)...)}
	equal := math.Abs(s-c) <= runs.EqualThroughputTolerance*(s+c)/2
	f.Applies = equal && cp > 0 && sp <= LatencyMargin*cp
	model := d.p.Processing.String()
	switch {
	case !equal:
		f.Says = fmt.Sprintf("Under processing %s the arms did not complete the same throughput (%s and %s records/s, more than %.0f %% apart), so their completion p99s (%s and %s ms) do not compare.",
			model, num1(c), num1(s), 100*runs.EqualThroughputTolerance, num1(cp), num1(sp))
	case f.Applies:
		f.Says = fmt.Sprintf("Under processing %s a slow record does not block the records behind it in a share group: completion p99 %s ms against the consumer group's %s ms at equal throughput (%.2f×, at most %.2f× needed).",
			model, num1(sp), num1(cp), ratio(sp, cp), LatencyMargin)
	default:
		f.Says = fmt.Sprintf("Under processing %s the share group's completion p99 (%s ms) is not at most %.2f× the consumer group's (%s ms, %.2f×), so head-of-line blocking does not cost this workload much.",
			model, num1(sp), LatencyMargin, num1(cp), ratio(sp, cp))
	}
	return f
}

func (d *decider) scaleEvent() Finding {
	p, nm := d.measuredPair("scale_event")
	if nm != nil {
		return *nm
	}
	cg, cok := value(p.consumer, figIdleGap)
	sg, sok := value(p.share, figIdleGap)
	if !cok || !sok {
		return Finding{Key: "scale_event", Says: "Not measured: the runs of the scale-event experiment carry no event report."}
	}
	f := Finding{Key: "scale_event", Measured: true,
		Evidence: append(evidence(p.consumer, figIdleGap, figRebalancePause), evidence(p.share, figIdleGap)...)}
	f.Applies = sg < cg
	if f.Applies {
		f.Says = fmt.Sprintf("Members joining and leaving move no partitions in a share group: the longest pause in a member's deliveries after an event was %s s against the consumer group's %s s.", num1(sg), num1(cg))
	} else {
		f.Says = fmt.Sprintf("The share group's longest pause after a join or leave (%s s) was not shorter than the consumer group's (%s s), so scale events do not favour it here.", num1(sg), num1(cg))
	}
	return f
}

func (d *decider) failures() Finding {
	if d.p.TransientRate <= 0 && d.p.PoisonRate <= 0 {
		return Finding{Key: "failures", Says: "Does not arise: the profile has no failing records (transient_rate and poison_rate are 0)."}
	}
	p, nm := d.measuredPair("failures")
	if nm != nil {
		return *nm
	}
	s := p.share
	a := s.Audit
	expected := d.p.PoisonRate * float64(a.Produced)
	tol := max(1, PoisonSigmas*math.Sqrt(expected*(1-d.p.PoisonRate)))
	complete := a.Lost == 0 && a.InFlight == 0 && a.Undelivered == 0 && a.CompletedOnce+a.Duplicates+a.Archived == a.Produced
	f := Finding{Key: "failures", Measured: true,
		Evidence: append(evidence(s, figProduced, figRedelivered, figArchived, figDeadLettered, figLost), evidence(p.consumer, figRedelivered, figArchived)...)}
	f.Applies = complete && math.Abs(float64(a.Archived)-expected) <= tol
	switch {
	case f.Applies:
		f.Says = fmt.Sprintf("The share group handled failures per record: %d redeliveries, %d archived at the delivery limit %d (%s poison records expected ± %s), every other record completed and none lost.",
			s.Outcomes.Redelivered, a.Archived, d.p.DeliveryLimit, num1(expected), num1(tol))
	case !complete:
		f.Says = fmt.Sprintf("The share group did not account for every record (%d produced: %d completed once, %d duplicates, %d archived, %d in flight, %d lost, %d undelivered), so per-record failure handling is not shown.",
			a.Produced, a.CompletedOnce, a.Duplicates, a.Archived, a.InFlight, a.Lost, a.Undelivered)
	default:
		f.Says = fmt.Sprintf("The share group archived %d records where the poison rate makes %s expected (± %s): it archived records that should have completed, or kept poison ones.",
			a.Archived, num1(expected), num1(tol))
	}
	return f
}

// peakAutoscale compares the arms' drains of the peak under the autoscale
// policy; a plan that scales only the share group (a consumer group could
// not use more members than partitions) is judged on the share arm alone:
// it drained the peak with more replicas than the topic has partitions.
func (d *decider) peakAutoscale() Finding {
	const key = "peak_autoscale"
	exp, ok := d.experiment(key)
	if !ok {
		return d.notMeasured(key)
	}
	_, p := armsOf(exp.Label, d.recs)
	if p.share == nil {
		return Finding{Key: key, Says: fmt.Sprintf("Not measured: the share-group run of experiment %s is missing from the campaign's records.", exp.Label)}
	}
	if p.share.Autoscale == nil || (p.consumer != nil && p.consumer.Autoscale == nil) {
		return Finding{Key: key, Says: "Not measured: the runs of the peak experiment carry no autoscale report."}
	}
	drain := func(v float64, ok bool) string {
		if !ok {
			return "did not drain within the run"
		}
		return "drained in " + num1(v) + " s"
	}
	sd, sdrained := value(p.share, figDrain)
	sr, _ := value(p.share, figPeakReplicas)
	srs, _ := value(p.share, figReplicaSeconds)
	f := Finding{Key: key, Measured: true, Evidence: evidence(p.share, figPeakReplicas, figDrain, figReplicaSeconds)}
	f.Says = fmt.Sprintf("At the peak the share group scaled to %d replicas and %s (%s replica-seconds)", int(sr), drain(sd, sdrained), num1(srs))
	if p.consumer == nil {
		parts := p.share.Spec.Partitions
		f.Applies = sdrained && int(sr) > parts
		if f.Applies {
			f.Says += fmt.Sprintf(": more replicas than the %d partitions a consumer group could use, so the share group absorbs a peak a consumer group could not scale for.", parts)
		} else {
			f.Says += fmt.Sprintf(": it did not need more replicas than the %d partitions a consumer group could use, or did not drain, so the peak does not call for a share group.", parts)
		}
		return f
	}
	cd, cdrained := value(p.consumer, figDrain)
	cr, _ := value(p.consumer, figPeakReplicas)
	crs, _ := value(p.consumer, figReplicaSeconds)
	f.Evidence = append(evidence(p.consumer, figPeakReplicas, figDrain, figReplicaSeconds), f.Evidence...)
	f.Applies = sdrained && (!cdrained || sd <= DrainMargin*cd)
	f.Says += fmt.Sprintf("; the consumer group scaled to %d and %s (%s replica-seconds)", int(cr), drain(cd, cdrained), num1(crs))
	if f.Applies {
		f.Says += fmt.Sprintf(": the share group works the backlog off faster (at most %.2f× the consumer group's drain needed).", DrainMargin)
	} else {
		f.Says += ": the share group does not drain the peak markedly faster."
	}
	return f
}

// destinationBound reports whether a run completed within DestinationBand
// of its destination's capacity, or its ceiling names the destination.
func destinationBound(r *runs.Record) bool {
	c, _ := value(r, figCompleted)
	dest, ok := value(r, figCeilDest)
	return r.Ceiling.Bound == runs.BoundDestination || r.Ceiling.Held == runs.BoundDestination ||
		(ok && dest > 0 && math.Abs(c-dest) <= DestinationBand*dest)
}

func (d *decider) destination() Finding {
	if d.p.Destination == nil {
		return Finding{Key: "destination", Says: "Does not arise: the profile has no destination."}
	}
	p, nm := d.measuredPair("destination")
	if nm != nil {
		return *nm
	}
	c, _ := value(p.consumer, figCompleted)
	s, _ := value(p.share, figCompleted)
	dest, _ := value(p.consumer, figCeilDest)
	f := Finding{Key: "destination", Measured: true,
		Evidence: append(evidence(p.consumer, figCompleted, figCeilDest), evidence(p.share, figCompleted, figCeilDest)...)}
	f.Applies = destinationBound(p.consumer) && destinationBound(p.share)
	if f.Applies {
		f.Says = fmt.Sprintf("The destination bounds both group types at %s records/s: the consumer group completed %s and the share group %s, both within %.0f %% of the destination's capacity, so more consumers do not help.",
			num1(dest), num1(c), num1(s), 100*DestinationBand)
	} else {
		f.Says = fmt.Sprintf("The destination (capacity %s records/s) does not bound both group types: the consumer group completed %s and the share group %s records/s.", num1(dest), num1(c), num1(s))
	}
	return f
}

// retentionMeasured completes stage 1's retention finding with the worst
// drain the share-group runs measured (a peak's drain, a backlog's drain).
func (d *decider) retentionMeasured(f Finding) Finding {
	span, ok := RetentionSpan(d.p)
	if !ok {
		return f
	}
	var worst *Evidence
	for i := range d.recs {
		r := &d.recs[i]
		if groupOf(*r) != vocab.ShareGroup {
			continue
		}
		for _, fig := range []string{figDrain, figPhaseDrain} {
			if e, ok := measure(*r, fig); ok && (worst == nil || e.Value > worst.Value) {
				worst = &e
			}
		}
	}
	if worst == nil {
		f.Says = fmt.Sprintf("Not measured: no share-group run measured a drain to compare with the %s the topic keeps at the peak rate.", span.Round(time.Second))
		return f
	}
	drain := time.Duration(worst.Value * float64(time.Second))
	f.Measured, f.Evidence = true, []Evidence{*worst}
	f.Applies = drain > span
	if f.Applies {
		f.Says = fmt.Sprintf("The worst measured drain (%s s) is longer than the %s the topic keeps at the peak rate: retention would delete undelivered records (a share group does not hold the log); keep it on a consumer group, or raise retention above the drain; %s.",
			num1(worst.Value), span.Round(time.Second), consumerGroupTuning)
	} else {
		f.Says = fmt.Sprintf("The worst measured drain (%s s) fits in the %s the topic keeps at the peak rate, so retention does not delete undelivered records.", num1(worst.Value), span.Round(time.Second))
	}
	return f
}

// Decide turns the plan's measured runs into the decision (docs/how-to/run-a-poc.md):
// stage 1 from the profile (StageOne, retention from the measured drain),
// stage 2's reasons each from its experiment's pair (matched by
// RunSpec.Label), the verdict, the settings and the cost. notKafka (the
// runs used kfake) gives no verdict: inconclusive with NotKafka set.
func Decide(p Profile, plan Plan, recs []runs.Record, notKafka bool) Decision {
	d := &decider{p: p, plan: plan, recs: recs}
	dec := Decision{SchemaVersion: 1, Profile: p.Name, LeftOut: plan.LeftOut}
	for _, f := range StageOne(p) {
		if f.Key == "retention" {
			f = d.retentionMeasured(f)
		}
		dec.Restrictions = append(dec.Restrictions, f)
	}
	reasons := map[string]func() Finding{
		"partition_cap": d.partitionCap, "head_of_line": d.headOfLine, "scale_event": d.scaleEvent,
		"failures": d.failures, "peak_autoscale": d.peakAutoscale, "destination": d.destination,
	}
	for _, k := range reasonKeys {
		dec.Reasons = append(dec.Reasons, reasons[k]())
	}
	for _, r := range recs {
		dec.Problems = append(dec.Problems, runProblems(r)...)
	}
	dec.Verdict, dec.Headline = d.verdict(dec)
	dec.Settings = d.settings(dec.Verdict)
	dec.Cost = d.cost()
	if notKafka {
		dec.NotKafka = true
		dec.Verdict = VerdictInconclusive
		dec.Headline = "NOT KAFKA: these runs used kfake, an in-process stand-in for a broker, so no verdict is claimed; run the proof of concept on a Kafka cluster."
	}
	return dec
}

// runProblems are the reasons a run makes the decision inconclusive: its
// errors, and the run verdict's problems (runs.Problems: an inconsistent
// record, records lost or left undelivered, an unbalanced audit, a
// verdict validity flag).
func runProblems(r runs.Record) []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, fmt.Sprintf("run %s failed: %s", r.RunID, e))
	}
	return append(out, runs.Problems(r, nil)...)
}

// verdict applies the verdict rules in order (docs/how-to/run-a-poc.md, "Verdicts").
func (d *decider) verdict(dec Decision) (Verdict, string) {
	var held []string
	for _, f := range dec.Restrictions {
		if f.Applies {
			held = append(held, f.Key)
		}
	}
	if len(held) > 0 {
		return VerdictConsumerGroup, fmt.Sprintf("Consumer group: stage 1 keeps this workload on a consumer group (%s); run it with the measured consumer-group settings below.", strings.Join(held, ", "))
	}
	if len(dec.Problems) > 0 {
		return VerdictInconclusive, fmt.Sprintf("Inconclusive: %d problem(s) in the runs make the measurements untrustworthy, first: %s.", len(dec.Problems), dec.Problems[0])
	}
	var shown []string
	for _, f := range dec.Reasons {
		if f.Key == "destination" && f.Applies {
			return VerdictDestinationBound, strings.Replace(f.Says, "The destination bounds", "Destination bound: the destination bounds", 1)
		}
		if f.Applies {
			shown = append(shown, f.Key)
		}
	}
	if len(shown) > 0 {
		return VerdictShareGroup, fmt.Sprintf("Share group: the measurements on this workload show %d reason(s) for a share group (%s); run it with the settings below.", len(shown), strings.Join(shown, ", "))
	}
	return VerdictConsumerGroup, "Consumer group: no reason measured: the consumer group with its own tuning is the lower-risk path."
}

// settings are stage 3: what to run the chosen group type with, each with
// its measurement.
func (d *decider) settings(v Verdict) []Setting {
	group := vocab.ConsumerGroup
	if v == VerdictShareGroup {
		group = vocab.ShareGroup
	}
	best, swept := d.bestSweepRun(group)
	var out []Setting
	if best == nil {
		why := fmt.Sprintf("Not measured: no %s-group run of the plan completed without a problem.", group)
		out = append(out, Setting{Name: "members", Value: "not measured", Why: why}, Setting{Name: "max.poll.records", Value: "not measured", Why: why})
	} else {
		ev := evidence(best, figCompleted, figLost)
		from := "the settings sweep's best " + string(group) + "-group run"
		if !swept {
			from = fmt.Sprintf("the best %s-group run of the plan (the settings sweep has none: %s)", group, d.sweepAbsence())
		}
		members := best.Spec.Members
		capNote := best.Spec.AutoscaleCap()
		out = append(out,
			Setting{Name: "members", Value: strconv.Itoa(members), Evidence: ev,
				Why: fmt.Sprintf("%s (%s records/s completed, none lost) ran %d members; more members than %d cannot take records (%s)", from, num1(best.Throughput.CompletedPerSec), members, capNote.Replicas, capNote.Why)},
			Setting{Name: "max.poll.records", Value: strconv.Itoa(best.Spec.MaxPollRecords), Evidence: ev,
				Why: fmt.Sprintf("the value of %s, the highest completed throughput with no record lost", from)})
	}
	if group == vocab.ShareGroup {
		out = append(out, d.shareSettings(best)...)
		out = append(out, d.verification(best, swept))
	}
	if d.p.Destination != nil {
		s := Setting{Name: "idempotency key", Value: "the record's topic, partition and offset (or its business key)",
			Why: "a record can be delivered again (a rebalance, a lock that expires, a crash), so the destination's write must be idempotent on a key of the record"}
		if _, p := d.destinationPair(); p != nil {
			s.Evidence = evidence(p, figDuplicates)
			s.Why += fmt.Sprintf("; the %s-group run of the destination experiment completed %d records more than once", groupOf(*p), p.Audit.Duplicates)
		}
		out = append(out, s)
	}
	return out
}

// VerifiedShare is the share of the peak rate a run with the recommended
// members and max.poll.records must complete, with nothing lost, for the
// settings to count as verified.
const VerifiedShare = 0.95

// verification says whether the settings were run at the peak: the
// settings sweep offers the advisor's design rate (the peak plus its
// headroom), so its best run is a run of the recommended members and
// max.poll.records at or above the peak. It states the share of the peak
// completed and the broker's lock settings it ran with, and "not verified"
// when the sweep has no such run.
func (d *decider) verification(best *runs.Record, swept bool) Setting {
	s := Setting{Name: "verified at the peak"}
	if best == nil || !swept {
		s.Value = "not verified"
		s.Why = "no run of the settings sweep has the recommended members and max.poll.records at the peak (" + d.sweepAbsence() + ")"
		return s
	}
	s.Evidence = evidence(best, figCompleted, figLost)
	share := best.Throughput.CompletedPerSec / d.p.PeakRate
	s.Value = fmt.Sprintf("%s %% of the peak", num1(100*share))
	locks, duration := best.Spec.BrokerConfig["group.share.partition.max.record.locks"], best.Spec.BrokerConfig["group.share.record.lock.duration.ms"]
	ran := fmt.Sprintf("run %s (offered %s records/s, record locks %s, lock duration %s ms as the broker ran them) completed %s records/s against the peak %s, nothing lost",
		best.RunID, num(best.Spec.Rate), orDefault(locks), orDefault(duration), num1(best.Throughput.CompletedPerSec), num(d.p.PeakRate))
	if share >= VerifiedShare && best.Audit.Lost == 0 {
		s.Why = fmt.Sprintf("%s: at least %s %% of the peak, so these settings carry it", ran, num(100*VerifiedShare))
	} else {
		s.Value = "falls short: " + s.Value
		s.Why = fmt.Sprintf("%s: below the %s %% of the peak the settings must carry; run more members or a larger budget before relying on them", ran, num(100*VerifiedShare))
	}
	return s
}

// orDefault is a broker setting's value, or "Kafka's default" when the run
// left it unset.
func orDefault(v string) string {
	if v == "" {
		return "Kafka's default"
	}
	return v
}

// sweepAbsence says why the settings sweep has no run of the verdict's
// group type.
func (d *decider) sweepAbsence() string {
	if _, ok := d.experiment(sweepKey); ok {
		return "it swept the other group type, or its runs had problems"
	}
	return d.leftOutWhy(sweepKey)
}

// destinationPair is the destination experiment's run of the chosen
// arm's kind, share first.
func (d *decider) destinationPair() (Experiment, *runs.Record) {
	exp, ok := d.experiment("destination")
	if !ok {
		return exp, nil
	}
	_, p := armsOf(exp.Label, d.recs)
	if p.share != nil {
		return exp, p.share
	}
	return exp, p.consumer
}

// bestSweepRun is the settings sweep's run of the group type with the
// highest completed throughput among those with no problem (nothing lost);
// swept is false when the sweep has no run of the group type (a plan
// sweeps only the group type it expects to recommend) and the best is
// taken from every run of the plan.
func (d *decider) bestSweepRun(group vocab.GroupType) (best *runs.Record, swept bool) {
	pick := func(rs []runs.Record) *runs.Record {
		var best *runs.Record
		for i := range rs {
			r := &rs[i]
			if groupOf(*r) != group || len(runProblems(*r)) > 0 {
				continue
			}
			if best == nil || r.Throughput.CompletedPerSec > best.Throughput.CompletedPerSec {
				best = r
			}
		}
		return best
	}
	if exp, ok := d.experiment(sweepKey); ok {
		all, _ := armsOf(exp.Label, d.recs)
		if best := pick(all); best != nil {
			return best, true
		}
	}
	var planned []runs.Record
	for _, e := range d.plan.Experiments {
		all, _ := armsOf(e.Label, d.recs)
		planned = append(planned, all...)
	}
	return pick(planned), false
}

// shareSettings are the share group's own settings: the record lock
// duration and renew against the measured time a record is held, the
// record locks by Little's law at the peak rate, and the delivery limit.
func (d *decider) shareSettings(best *runs.Record) []Setting {
	var out []Setting
	held := d.heldRun(best)
	lockRange := scenarios.RangeOf(scenarios.KeyRecordLockDuration)
	locksRange := scenarios.RangeOf(scenarios.KeyRecordLocks)
	maxLock := scenarios.RangeOf(scenarios.KeyMaxLockDuration).Default
	if held == nil {
		why := "Not measured: no share-group run measured the time a record is held."
		out = append(out, Setting{Name: scenarios.KeyRecordLockDuration, Value: "not measured", Why: why},
			Setting{Name: scenarios.KeyRecordLocks, Value: "not measured", Why: why})
	} else {
		hold, _ := value(held, figHoldP99)
		buffered, _ := value(held, figBufferedP99)
		w := hold + buffered // ms from acquisition to acknowledgement, at p99
		lock := min(max(lockRange.Default, int(math.Ceil(2*w/1000))*1000), lockRange.Max)
		ev := evidence(held, figHoldP99, figBufferedP99)
		out = append(out, Setting{Name: scenarios.KeyRecordLockDuration, Value: strconv.Itoa(lock), Evidence: ev,
			Why: fmt.Sprintf("twice the measured p99 time a record is held, buffered in the client and then processed (%s + %s ms, the destination write included), and at least Kafka's default %d ms", num1(buffered), num1(hold), lockRange.Default)})
		renew, renewWhy := "none", fmt.Sprintf("the lock covers the measured hold time within the broker's default maximum lock (%d ms)", maxLock)
		if lock > maxLock {
			renew, renewWhy = "auto", fmt.Sprintf("the lock needed (%d ms) is above the broker's default maximum (%d ms): renew the locks of long tasks (RENEW) instead of raising the maximum", lock, maxLock)
		}
		out = append(out, Setting{Name: "renew", Value: renew, Why: renewWhy, Evidence: ev})
		locks := int(math.Ceil(d.p.PeakRate / float64(max(d.p.Partitions, 1)) * w / 1000))
		value := strconv.Itoa(max(locksRange.Default, locks))
		why := fmt.Sprintf("Little's law at the peak: %s records/s ÷ %d partitions × %s ms held = %d records in flight per partition, and at least Kafka's default %d",
			num(d.p.PeakRate), d.p.Partitions, num1(w), locks, locksRange.Default)
		if locks > locksRange.Max {
			value = strconv.Itoa(locksRange.Max)
			why += fmt.Sprintf("; above Kafka's maximum %d: add partitions so each holds fewer", locksRange.Max)
		}
		out = append(out, Setting{Name: scenarios.KeyRecordLocks, Value: value, Why: why, Evidence: ev})
	}
	dl := Setting{Name: scenarios.KeyDeliveryCountLimit, Value: strconv.Itoa(d.p.DeliveryLimit),
		Why: "the profile's delivery limit: a record that fails this many times is archived without a word, so the application writes it to its own dead-letter topic before it REJECTs it"}
	if exp, ok := d.experiment("failures"); ok {
		if _, p := armsOf(exp.Label, d.recs); p.share != nil {
			dl.Evidence = evidence(p.share, figRedelivered, figArchived)
		}
	}
	out = append(out, dl)
	if exp, ok := d.experiment("peak_autoscale"); ok {
		if _, p := armsOf(exp.Label, d.recs); p.share != nil && p.share.Autoscale != nil {
			out = append(out, Setting{Name: "autoscale", Value: fmt.Sprintf("up to %d replicas", p.share.Autoscale.MaxReplicas),
				Why:      fmt.Sprintf("the policy of the peak experiment's share-group run; `sharebench autoscale render --run runs/%s/run.json` writes it as a KEDA ScaledObject", p.share.RunID),
				Evidence: evidence(p.share, figPeakReplicas, figDrain)})
		}
	}
	return out
}

// heldRun is the share-group run whose hold time sizes the locks: the
// sweep's best, else the first share run with a destination, else the
// first share run.
func (d *decider) heldRun(best *runs.Record) *runs.Record {
	if best != nil {
		return best
	}
	if _, r := d.destinationPair(); r != nil && groupOf(*r) == vocab.ShareGroup {
		return r
	}
	for i := range d.recs {
		if groupOf(d.recs[i]) == vocab.ShareGroup {
			return &d.recs[i]
		}
	}
	return nil
}

// cost compares the brokers' CPU per record of the first pair of the
// plan's experiments measured at equal completed throughput.
func (d *decider) cost() []Finding {
	var apart *runs.CostDifference
	for _, exp := range d.plan.Experiments {
		_, p := armsOf(exp.Label, d.recs)
		if p.consumer == nil || p.share == nil {
			continue
		}
		diff, ok := runs.Pair{Consumer: *p.consumer, Share: *p.share}.BrokerCostDifference()
		if !ok {
			continue
		}
		if !diff.EqualThroughput {
			if apart == nil {
				apart = &diff
			}
			continue
		}
		figs := []string{figMovedCost, figCompleted}
		if diff.HasConsume {
			figs = append(figs, figConsumeCost)
		}
		broker := Finding{Key: "broker_cpu_per_record", Measured: true,
			Evidence: append(evidence(p.consumer, figs...), evidence(p.share, figs...)...),
			Says: fmt.Sprintf("At equal completed throughput (%s and %s records/s) the brokers spent %s CPU-s per million records moved for the consumer group and %s for the share group (%+.0f s/M).",
				num1(diff.ConsumerCompletedPerSec), num1(diff.ShareCompletedPerSec), num1(diff.ConsumerMovedPerMillion), num1(diff.ShareMovedPerMillion), diff.MovedPerMillion)}
		harness := Finding{Key: "harness_cpu", Measured: true,
			Evidence: append(evidence(p.consumer, figHarnessCPU), evidence(p.share, figHarnessCPU)...),
			Says:     "The harness's own figures, not the brokers' nor the application's: the load generator and the members' CPU share of the host in the same pair."}
		return []Finding{broker, harness}
	}
	if apart != nil {
		return []Finding{{Key: "broker_cpu_per_record", Says: "Not measured: " + apart.Line() + "."}}
	}
	return []Finding{{Key: "broker_cpu_per_record", Says: "Not measured: no pair of runs carries the brokers' CPU (a broker the harness can scrape is needed)."}}
}

// num1 prints a measured figure with at most one decimal: 812, 12.5.
func num1(v float64) string { return num(math.Round(v*10) / 10) }

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
