package runs

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sharebench/sharebench/results"
)

// Event is one scale event or fault as the run's event runner fired it.
type Event struct {
	// AtSec is the planned offset into the measurement window.
	AtSec  float64 `json:"at_s"`
	Action string  `json:"action"`
	Label  string  `json:"label"` // e.g. "join 2", "slow ×3 for 5s"
	// Target names what the event acted on: member ids, or "broker 1
	// (share-coordinator)".
	Target string `json:"target,omitempty"`
	// Members are the ids of the members joined, left or crashed.
	Members []int `json:"members,omitempty"`
	// StartNs is when the action was issued, EndNs when it had taken effect
	// (members left, broker back), Clock ns.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// Duration is the planned length of a timed event (slow, pause,
	// disconnect, a kill with restart); its effect is measured from its end.
	Duration time.Duration `json:"duration,omitempty"`
	Error    string        `json:"error,omitempty"`
	// Steps are a rolling restart's or upgrade's brokers, one step each, in
	// the order they went (broker_rolling_restart, broker_rolling_upgrade).
	Steps []RollingStep `json:"steps,omitempty"`
	// Versions is the release every broker ran before the rolling event
	// and after it (process provider: as each JVM was started; a provider
	// that cannot say gives the cluster's release for both).
	Versions []BrokerVersion `json:"broker_versions,omitempty"`
	// MetadataVersionBefore and MetadataVersionAfter are the cluster's
	// finalized metadata.version feature level before and after a rolling
	// event (0: not read). A rolling upgrade does not bump it.
	MetadataVersionBefore int16 `json:"metadata_version_before,omitempty"`
	MetadataVersionAfter  int16 `json:"metadata_version_after,omitempty"`
}

// BrokerVersion is the Kafka release one broker ran before and after a
// rolling event.
type BrokerVersion struct {
	Node   int    `json:"node"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// RollingStep is one broker of a rolling restart or upgrade: stopped with
// a controlled shutdown, started again (on VersionAfter's release), waited
// for until metadata lists it and no partition is under-replicated, then
// the event's pause. Its span, for the figures measured over it, runs from
// StartNs (SIGTERM) to SpanEndNs (the pause after it ended: the next
// step's start), so records disturbed by this broker and redelivered
// during the pause count here.
type RollingStep struct {
	Broker        int    `json:"broker"`
	VersionBefore string `json:"version_before"`
	VersionAfter  string `json:"version_after"`
	// StartNs is when the broker was sent SIGTERM; EndNs when it was back
	// (serving, listed, every partition's ISR equal to its replicas);
	// SpanEndNs when the pause after it ended (Clock ns).
	StartNs   int64 `json:"start_ns"`
	EndNs     int64 `json:"end_ns"`
	SpanEndNs int64 `json:"span_end_ns"`
	// StartSec and EndSec are StartNs and EndNs from the window's start
	// (AnalyzeEvents fills them).
	StartSec float64 `json:"start_s"`
	EndSec   float64 `json:"end_s"`
	// ShutdownSec is SIGTERM → the old JVM gone; KilledAfterGrace says the
	// controlled shutdown did not end within the provider's grace and the
	// JVM was SIGKILLed. StartupSec is the new JVM's start → serving;
	// InSyncSec is serving → no under-replicated partition (0 when the
	// provider does not split its restart's times: container).
	ShutdownSec      float64 `json:"shutdown_s"`
	KilledAfterGrace bool    `json:"killed_after_grace,omitempty"`
	StartupSec       float64 `json:"startup_s"`
	InSyncSec        float64 `json:"in_sync_s"`
	// CompletionGapMaxSec is the longest run of whole seconds of the 1 s
	// series without a completion in the step's span: the run's group
	// (consumer or share, its consumer_type) stopping. 0: every second
	// completed something. LowestPerSec is the fewest completions in one
	// of those seconds.
	CompletionGapMaxSec float64 `json:"completion_gap_max_s"`
	LowestPerSec        float64 `json:"lowest_per_sec"`
	// Redeliveries and DuplicateCompletions are the recorder's counters'
	// growth over the span: records delivered again (share: delivery
	// count ≥ 2; consumer group: seen again) and completions of a record
	// already completed.
	Redeliveries         int64 `json:"redeliveries"`
	DuplicateCompletions int64 `json:"duplicate_completions"`
	// The coordinators of the run's group before the broker was stopped
	// and once it was back: the group coordinator (FindCoordinator key type
	// 0; consumer and share groups alike), and for share runs the share
	// coordinator holding partition 0's share-partition state (key type 2,
	// "group:topicId:0"). -1: the lookup failed (CoordinatorErrors says why).
	GroupCoordinatorBefore int32  `json:"group_coordinator_before"`
	GroupCoordinatorAfter  int32  `json:"group_coordinator_after"`
	ShareCoordinatorBefore *int32 `json:"share_coordinator_before,omitempty"`
	ShareCoordinatorAfter  *int32 `json:"share_coordinator_after,omitempty"`
	CoordinatorErrors      string `json:"coordinator_errors,omitempty"`
	Error                  string `json:"error,omitempty"`
}

// EventInput is what the per-event analysis reads: the 1 s series and the
// per-member data of one run.
type EventInput struct {
	Completed, Redelivered []int64 // counts per second from SeriesStart
	SeriesStart            int64
	LoadStart              int64 // schedule start: baselines never reach before it
	Window                 results.Window
	Events                 []Event
	Members                []results.MemberTimes
	Pauses                 []results.RebalancePause
	// Partitions is the topic's partition count: a group-wide stop is a
	// time during which all of them were paused (0: not measured).
	Partitions int
	Share      bool
	// CrashGrace extends the redelivery count of a crash or broker fault:
	// the lock duration (share) or the session timeout (consumer group).
	CrashGrace time.Duration
}

// EventReport is what one event did (run.json events[]).
type EventReport struct {
	Event
	// StartSec and EndSec are the event's start and end from the start of
	// the measurement window (the actual times; AtSec is the plan).
	StartSec float64 `json:"start_s"`
	EndSec   float64 `json:"end_s"`
	// BaselinePerSec is the mean completions/s over the (up to) 5 whole
	// seconds before the event's second, not before the load started.
	BaselinePerSec float64 `json:"baseline_per_sec"`
	// LowestPerSec is the lowest completions in one second of the event's
	// effect span (its second up to the next event's second or the
	// window's end); DipPercent is 1 − LowestPerSec/BaselinePerSec in %
	// (0 when no second fell below the baseline).
	LowestPerSec float64 `json:"lowest_per_sec"`
	DipPercent   float64 `json:"dip_percent"`
	// RecoverySec is from the event (the end of a timed slow, pause or
	// disconnect: start + duration, or when it was undone if later; a
	// broker kill or restart: the fault itself, see recoveryRef) to the start of the
	// first of 3 consecutive seconds at ≥ 90 % of the baseline after the
	// first second below 90 % from then on (0 when none fell below); nil:
	// not recovered before the window ended.
	RecoverySec *float64 `json:"recovery_s"`
	// FirstRecord lists, for a join, each new member's join request → its
	// first delivered record (nil: none in the run).
	FirstRecord []MemberFirstRecord `json:"first_record,omitempty"`
	// Rebalance pauses (consumer groups) that began in the effect span:
	// their number, partition-seconds paused (the sum of their lengths)
	// and the longest (one partition's wait); see PauseFigures for the
	// rest.
	RebalancePauses    int     `json:"rebalance_pauses"`
	RebalancePauseSec  float64 `json:"rebalance_pause_total_s"`
	RebalancePauseMaxS float64 `json:"rebalance_pause_max_s"`
	// RebalancePartitions, RebalancePeakPaused and GroupStopSec: see
	// PauseFigures.
	RebalancePartitions int     `json:"rebalance_partitions"`
	RebalancePeakPaused int     `json:"rebalance_peak_paused"`
	GroupStopSec        float64 `json:"group_stop_s"`
	// IdleGapMaxSec is the longest gap between two deliveries of one member
	// that began in the effect span (members' longest gaps only).
	IdleGapMaxSec float64 `json:"idle_gap_max_s"`
	// AfterPerSec is the mean completions/s over the last (up to) 5 whole
	// seconds of the effect span: the rate the event settled at.
	AfterPerSec float64 `json:"after_per_sec"`
	// FirstRedeliverySec is from the event to the start of the first
	// second with a redelivery (nil: none in the span); for a crash, when
	// the held records came back (share: the lock expired; consumer group:
	// the session timed out).
	FirstRedeliverySec *float64 `json:"first_redelivery_s"`
	// HeldByCrashed is what the crashed members held when they crashed.
	HeldByCrashed int64 `json:"held_by_crashed,omitempty"`
	// Redeliveries counts redelivered records (share: delivery count ≥ 2;
	// consumer group: delivered again) from the event's second to the end
	// of its recovery (or the window's end), and at least CrashGrace after
	// a crash or broker fault.
	Redeliveries int64 `json:"redeliveries"`
}

// MemberFirstRecord is a joined member's time to its first record.
type MemberFirstRecord struct {
	Member int      `json:"member"`
	Sec    *float64 `json:"s"`
}

// EventSummary aggregates a run's events for expectations and reports.
type EventSummary struct {
	Events int `json:"events"`
	// FirstRecordMaxSec is the slowest join → first record over every
	// joined member; nil when one never got a record.
	FirstRecordMaxSec *float64 `json:"first_record_max_s,omitempty"`
	JoinedWithout     int      `json:"joined_without_records"`
	// Run-wide rebalance pauses (every revoke/loss → assign from the load's
	// start on: PausesSince), as EventReport's.
	RebalancePauses     int     `json:"rebalance_pauses"`
	RebalancePauseSec   float64 `json:"rebalance_pause_total_s"`
	RebalancePauseMaxS  float64 `json:"rebalance_pause_max_s"`
	RebalancePartitions int     `json:"rebalance_partitions"`
	RebalancePeakPaused int     `json:"rebalance_peak_paused"`
	GroupStopSec        float64 `json:"group_stop_s"`
	Redeliveries        int64   `json:"redeliveries"`
	DipMaxPercent       float64 `json:"dip_max_percent"`
	// RecoveryMaxSec is the slowest recovery; nil when an event did not
	// recover before the window ended.
	RecoveryMaxSec *float64 `json:"recovery_max_s,omitempty"`
	IdleGapMaxSec  float64  `json:"idle_gap_max_s"`
	// AfterPerSec is the last event's AfterPerSec.
	AfterPerSec float64 `json:"after_per_sec"`
	// HeldByCrashed sums the events' HeldByCrashed; FirstRedeliveryMaxSec
	// is the latest first redelivery of a crash (nil: no crash redelivered).
	HeldByCrashed         int64    `json:"held_by_crashed"`
	FirstRedeliveryMaxSec *float64 `json:"first_redelivery_max_s,omitempty"`
	// Rolling restarts and upgrades: the steps done (RollingSteps, of
	// RollingBrokers planned), the longest completion gap of any step, and
	// each broker's release before the first rolling event and after the
	// last.
	RollingSteps       int             `json:"rolling_steps,omitempty"`
	RollingStepsFailed int             `json:"rolling_steps_failed,omitempty"`
	RollingGapMaxSec   float64         `json:"rolling_completion_gap_max_s,omitempty"`
	RollingDuplicates  int64           `json:"rolling_duplicate_completions,omitempty"`
	BrokerVersions     []BrokerVersion `json:"broker_versions,omitempty"`
}

// Event analysis constants (README "Measurement definitions").
const (
	baselineSeconds  = 5
	recoveryFraction = 0.9
	recoverySeconds  = 3
)

// AnalyzeEvents computes each event's report from the run's series and
// member data.
func AnalyzeEvents(in EventInput) []EventReport {
	a := eventAnalysis{in: in}
	out := make([]EventReport, len(in.Events))
	for k, e := range in.Events {
		spanEnd := a.sec(in.Window.End) // the second holding the window's end is partial
		if k+1 < len(in.Events) {
			spanEnd = min(spanEnd, a.sec(in.Events[k+1].StartNs))
		}
		out[k] = a.event(e, max(spanEnd, a.sec(e.StartNs)+1))
	}
	return out
}

// eventAnalysis reads one run's series in whole seconds.
type eventAnalysis struct{ in EventInput }

// sec is the series second holding ns; at is the start of second i.
func (a eventAnalysis) sec(ns int64) int {
	return int(math.Floor(float64(ns-a.in.SeriesStart) / 1e9))
}
func (a eventAnalysis) at(i int) int64 { return a.in.SeriesStart + int64(i)*int64(time.Second) }

// count is c[i], 0 outside the series.
func count(c []int64, i int) int64 {
	if i < 0 || i >= len(c) {
		return 0
	}
	return c[i]
}

// meanCount is the mean count over seconds [from, to); 0 for none.
func meanCount(c []int64, from, to int) float64 {
	var sum int64
	for i := from; i < to; i++ {
		sum += count(c, i)
	}
	if to <= from {
		return 0
	}
	return float64(sum) / float64(to-from)
}

// event reports one event whose effect span is seconds [b, spanEnd).
func (a eventAnalysis) event(e Event, spanEnd int) EventReport {
	in := a.in
	r := EventReport{Event: e, StartSec: float64(e.StartNs-in.Window.Start) / 1e9}
	if e.EndNs > 0 {
		r.EndSec = float64(max(e.EndNs, e.StartNs+int64(e.Duration))-in.Window.Start) / 1e9
	}
	b := a.sec(e.StartNs)
	r.BaselinePerSec = meanCount(in.Completed, max(b-baselineSeconds, a.sec(in.LoadStart)+1), b)
	lowest := int64(math.MaxInt64)
	for i := b; i < spanEnd; i++ {
		lowest = min(lowest, count(in.Completed, i))
	}
	r.LowestPerSec = float64(lowest)
	if r.BaselinePerSec > 0 {
		r.DipPercent = max(0, 1-r.LowestPerSec/r.BaselinePerSec) * 100
	}
	r.AfterPerSec = meanCount(in.Completed, max(spanEnd-baselineSeconds, b+1), spanEnd)
	ref := recoveryRef(e)
	redeliverTo := a.sec(in.Window.End)
	if rec, ok := a.recovery(r.BaselinePerSec, ref, spanEnd); ok {
		v := max(0, float64(a.at(rec)-ref)/1e9)
		r.RecoverySec = &v
		redeliverTo = rec + recoverySeconds
	}
	if e.Action == "crash" || strings.HasPrefix(e.Action, "broker_") {
		// Records held across a crash or a broker fault come back when
		// their locks expire (share) or the session times out (consumer
		// group), which can be after throughput recovered.
		redeliverTo = max(redeliverTo, a.sec(ref+int64(in.CrashGrace))+1)
	}
	if e.Action == "crash" {
		for _, m := range in.Members {
			if slices.Contains(e.Members, m.ID) {
				r.HeldByCrashed += m.HeldAtCrash
			}
		}
	}
	for i := b; i < redeliverTo; i++ {
		r.Redeliveries += count(in.Redelivered, i)
		if r.FirstRedeliverySec == nil && count(in.Redelivered, i) > 0 {
			v := max(0, float64(a.at(i)-e.StartNs)/1e9)
			r.FirstRedeliverySec = &v
		}
	}
	a.members(&r, e, a.at(spanEnd))
	r.Steps = a.steps(e.Steps)
	return r
}

// steps fills each rolling step's window-relative times and its figures
// from the 1 s series: the longest run of seconds without a completion and
// the fewest completions in a second, over the seconds the step's span
// [StartNs, SpanEndNs) touches that lie inside the window.
func (a eventAnalysis) steps(in []RollingStep) []RollingStep {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	last := a.sec(a.in.Window.End) // the window's partial last second is left out
	for k := range out {
		st := &out[k]
		st.StartSec = float64(st.StartNs-a.in.Window.Start) / 1e9
		if st.EndNs > 0 {
			st.EndSec = float64(st.EndNs-a.in.Window.Start) / 1e9
		}
		end := max(st.SpanEndNs, st.EndNs, st.StartNs)
		from, to := a.sec(st.StartNs), min(a.sec(end-1)+1, last)
		st.CompletionGapMaxSec, st.LowestPerSec = completionGap(a.in.Completed, max(from, a.sec(a.in.Window.Start)), to)
	}
	return out
}

// completionGap returns the longest run of seconds in [from, to) with no
// completion, and the fewest completions in one of them (0, 0 for none);
// seconds outside the series are not counted.
func completionGap(c []int64, from, to int) (gapSec, lowest float64) {
	from, to = max(from, 0), min(to, len(c))
	if to <= from {
		return 0, 0
	}
	run, best := 0, 0
	low := int64(math.MaxInt64)
	for i := from; i < to; i++ {
		n := count(c, i)
		low = min(low, n)
		if n == 0 {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return float64(best), float64(low)
}

// recoveryRef is when an event's recovery clock starts. A timed
// disturbance (slow, broker_pause, broker_disconnect) is measured from its
// end: start + duration, or when it was undone if later. A broker kill or
// restart is measured from the fault itself: its effect (leaders and
// coordinators moving after the broker's session timeout) does not wait
// for the broker to come back, and the restarted broker's own readiness
// (EndSec) can come long after the groups have recovered without it.
func recoveryRef(e Event) int64 {
	if e.Duration <= 0 || e.Action == "broker_kill" || e.Action == "broker_restart" {
		return e.StartNs
	}
	return max(e.StartNs+int64(e.Duration), e.EndNs)
}

// recovery returns the second that starts the first 3 consecutive seconds
// at ≥ 90 % of the baseline after the first second below it in the span
// (from ref on); none below: ref's second.
func (a eventAnalysis) recovery(baseline float64, ref int64, spanEnd int) (int, bool) {
	if baseline <= 0 {
		return 0, false
	}
	good := func(i int) bool { return float64(count(a.in.Completed, i)) >= recoveryFraction*baseline }
	from := a.sec(ref)
	for i := from; i < spanEnd; i++ {
		if !good(i) {
			from = i + 1
			break
		}
	}
	for i := from; i+recoverySeconds <= a.sec(a.in.Window.End); i++ {
		ok := true
		for j := i; j < i+recoverySeconds; j++ {
			ok = ok && good(j)
		}
		if ok {
			return i, true
		}
	}
	return 0, false
}

// members fills the figures from the members' own data: rebalance pauses
// and idle gaps that began in the span, and a join's first records.
func (a eventAnalysis) members(r *EventReport, e Event, spanEnd int64) {
	var inSpan []results.RebalancePause
	for _, p := range a.in.Pauses {
		if p.StartNs >= e.StartNs && p.StartNs < spanEnd {
			inSpan = append(inSpan, p)
		}
	}
	f := SummarizePauses(inSpan, a.in.Partitions)
	r.RebalancePauses, r.RebalancePauseSec, r.RebalancePauseMaxS = f.Pauses, f.PartitionSec, f.MaxSec
	r.RebalancePartitions, r.RebalancePeakPaused, r.GroupStopSec = f.Partitions, f.PeakPaused, f.GroupStopSec
	for _, m := range a.in.Members {
		if m.IdleStartNs >= e.StartNs && m.IdleStartNs < spanEnd {
			r.IdleGapMaxSec = max(r.IdleGapMaxSec, float64(m.LongestIdleNs)/1e9)
		}
	}
	if e.Action != "join" {
		return
	}
	for _, id := range e.Members {
		fr := MemberFirstRecord{Member: id}
		for _, m := range a.in.Members {
			if m.ID == id && m.FirstDeliveryNs > 0 {
				v := float64(m.FirstDeliveryNs-m.JoinNs) / 1e9
				fr.Sec = &v
			}
		}
		r.FirstRecord = append(r.FirstRecord, fr)
	}
}

// SummarizeEvents aggregates the reports and the run's pauses.
// partitions is the topic's partition count (see EventInput.Partitions).
func SummarizeEvents(reports []EventReport, pauses []results.RebalancePause, partitions int) EventSummary {
	s := EventSummary{Events: len(reports)}
	var firstMax, recMax float64
	firstAll, recAll := true, true
	joined := false
	var redeliveryMax float64
	crashRedelivered := false
	for _, r := range reports {
		s.AfterPerSec = r.AfterPerSec
		s.HeldByCrashed += r.HeldByCrashed
		if r.Action == "crash" && r.FirstRedeliverySec != nil {
			crashRedelivered = true
			redeliveryMax = max(redeliveryMax, *r.FirstRedeliverySec)
		}
		s.Redeliveries += r.Redeliveries
		s.DipMaxPercent = max(s.DipMaxPercent, r.DipPercent)
		s.IdleGapMaxSec = max(s.IdleGapMaxSec, r.IdleGapMaxSec)
		if r.RecoverySec == nil {
			recAll = false
		} else {
			recMax = max(recMax, *r.RecoverySec)
		}
		for _, f := range r.FirstRecord {
			joined = true
			if f.Sec == nil {
				firstAll = false
				s.JoinedWithout++
			} else {
				firstMax = max(firstMax, *f.Sec)
			}
		}
	}
	if crashRedelivered {
		s.FirstRedeliveryMaxSec = &redeliveryMax
	}
	if joined && firstAll {
		s.FirstRecordMaxSec = &firstMax
	}
	if len(reports) > 0 && recAll {
		s.RecoveryMaxSec = &recMax
	}
	f := SummarizePauses(pauses, partitions)
	s.RebalancePauses, s.RebalancePauseSec, s.RebalancePauseMaxS = f.Pauses, f.PartitionSec, f.MaxSec
	s.RebalancePartitions, s.RebalancePeakPaused, s.GroupStopSec = f.Partitions, f.PeakPaused, f.GroupStopSec
	summarizeRolling(&s, reports)
	return s
}

// summarizeRolling adds the rolling events' figures: steps done and
// failed, the longest completion gap, the duplicates, and each broker's
// release before the first rolling event and after the last.
func summarizeRolling(s *EventSummary, reports []EventReport) {
	var versions []BrokerVersion
	for _, r := range reports {
		for _, st := range r.Steps {
			if st.Error != "" {
				s.RollingStepsFailed++
			} else {
				s.RollingSteps++
			}
			s.RollingGapMaxSec = max(s.RollingGapMaxSec, st.CompletionGapMaxSec)
			s.RollingDuplicates += st.DuplicateCompletions
		}
		for _, v := range r.Versions {
			i := slices.IndexFunc(versions, func(b BrokerVersion) bool { return b.Node == v.Node })
			if i < 0 {
				versions = append(versions, v)
			} else {
				versions[i].After = v.After
			}
		}
	}
	slices.SortFunc(versions, func(a, b BrokerVersion) int { return cmp.Compare(a.Node, b.Node) })
	s.BrokerVersions = versions
}

// PausesSince keeps the pauses that began at or after from: the run-wide
// figures count from the load's start, so a group's own reassignments while
// it formed (consumption held, before the clock started) are not counted.
func PausesSince(pauses []results.RebalancePause, from int64) []results.RebalancePause {
	var out []results.RebalancePause
	for _, p := range pauses {
		if p.StartNs >= from {
			out = append(out, p)
		}
	}
	return out
}

// PauseFigures separate how much of a consumer group stopped from how long
// the partitions that stopped waited (docs/explanation/measurement.md, "Rebalance
// pauses").
type PauseFigures struct {
	// Pauses is the number of pauses (one partition revoked, lost or
	// crashed with its owner, until it is assigned again).
	Pauses int
	// PartitionSec is the partition-seconds paused: the sum of the pauses'
	// lengths.
	PartitionSec float64
	// MaxSec is the longest pause: the longest one partition waited.
	MaxSec float64
	// Partitions is the number of distinct partitions that paused.
	Partitions int
	// PeakPaused is the most partitions paused at one instant.
	PeakPaused int
	// GroupStopSec is the time during which every partition of the topic
	// (partitions) was paused at once: no partition consumed, the whole
	// group stopped. 0 when partitions is 0 (not known).
	GroupStopSec float64
}

// SummarizePauses computes the pause figures of pauses on a topic of
// partitions partitions. Overlapping pauses of one partition count it
// paused once.
func SummarizePauses(pauses []results.RebalancePause, partitions int) PauseFigures {
	var f PauseFigures
	type edge struct {
		ns    int64
		p     int32
		delta int
	}
	edges := make([]edge, 0, 2*len(pauses))
	seen := map[int32]bool{}
	for _, p := range pauses {
		d := float64(p.EndNs-p.StartNs) / 1e9
		f.Pauses++
		f.PartitionSec += d
		f.MaxSec = max(f.MaxSec, d)
		if !seen[p.Partition] {
			seen[p.Partition] = true
			f.Partitions++
		}
		if p.EndNs > p.StartNs {
			edges = append(edges, edge{p.StartNs, p.Partition, 1}, edge{p.EndNs, p.Partition, -1})
		}
	}
	// Ends before starts at one instant: a pause that ends when another
	// begins does not overlap it.
	slices.SortFunc(edges, func(a, b edge) int {
		if a.ns != b.ns {
			return cmp.Compare(a.ns, b.ns)
		}
		return cmp.Compare(a.delta, b.delta)
	})
	open := map[int32]int{}
	paused := 0
	for i, e := range edges {
		if open[e.p] += e.delta; e.delta > 0 && open[e.p] == 1 {
			paused++
		} else if e.delta < 0 && open[e.p] == 0 {
			paused--
		}
		f.PeakPaused = max(f.PeakPaused, paused)
		if partitions > 0 && paused >= partitions && i+1 < len(edges) {
			f.GroupStopSec += float64(edges[i+1].ns-e.ns) / 1e9
		}
	}
	return f
}
