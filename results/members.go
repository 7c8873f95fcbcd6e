package results

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// MemberTimes is one consumer member's life in a run, Clock ns (0: never).
type MemberTimes struct {
	ID int `json:"id"`
	// JoinNs is when the member's client was created and asked to join.
	JoinNs int64 `json:"join_ns"`
	// FirstDeliveryNs is when its first record was handed to a worker.
	FirstDeliveryNs int64 `json:"first_delivery_ns,omitempty"`
	// LeftNs is when it left gracefully or crashed (0: ran to the end).
	LeftNs  int64 `json:"left_ns,omitempty"`
	Crashed bool  `json:"crashed,omitempty"`
	// HeldAtCrash is what the member held when it crashed: records polled
	// − completed − released − rejected (records a client prefetched but
	// did not return from a poll are not seen; record_limit turns prefetch
	// off).
	HeldAtCrash int64 `json:"held_at_crash,omitempty"`
	// LongestIdleNs is its longest gap between consecutive deliveries, and
	// IdleStartNs the delivery that began it (the idle-gap measure of share
	// members, which have no rebalance).
	LongestIdleNs int64 `json:"longest_idle_ns,omitempty"`
	IdleStartNs   int64 `json:"idle_start_ns,omitempty"`
	Completed     int64 `json:"completed"`
}

// RebalancePause is one partition not consumed by anyone during a
// rebalance: revoked from (or lost by, or crashed with) Member at StartNs,
// assigned again (to any member) at EndNs.
type RebalancePause struct {
	Member    int   `json:"member"`
	Partition int32 `json:"partition"`
	StartNs   int64 `json:"start_ns"`
	EndNs     int64 `json:"end_ns"`
}

// memberLife is the part of a MemberRecorder the fleet sets.
type memberLife struct {
	ID                int
	joined, left      atomic.Int64
	crashed           atomic.Bool
	held              atomic.Int64
	lastDelivery      atomic.Int64
	idleMu            sync.Mutex // orders writers of a new longest gap (noteDelivery)
	idleNs, idleStart atomic.Int64
}

// LastTimes are the member's latest delivery and latest finish
// (completion or archive), Clock ns (0: none yet).
func (s *MemberRecorder) LastTimes() (delivery, finish int64) {
	return s.life.lastDelivery.Load(), s.lastFinish.Load()
}

// Joined records the member's join request at ns.
func (s *MemberRecorder) Joined(id int, ns int64) { s.life.ID = id; s.life.joined.Store(ns) }

// Left records the member leaving gracefully at ns.
func (s *MemberRecorder) Left(ns int64) { s.life.left.Store(ns) }

// Crashed records the member crashing at ns, with the records it held.
func (s *MemberRecorder) Crashed(ns int64) {
	s.life.crashed.Store(true)
	s.life.held.Store(s.Polled.Load() - s.Completed.Load() - s.Released.Load() - s.Rejected.Load())
	s.life.left.Store(ns)
}

// noteDelivery keeps the longest gap between the member's deliveries. The
// member's workers call it at the same time: the swap gives each its own
// gap, and a gap longer than the longest so far (rare: after an idle spell)
// is checked again and stored under idleMu, so a shorter gap stored by
// another worker cannot overwrite it, nor pair its start with another gap.
func (l *memberLife) noteDelivery(ns int64) {
	prev := l.lastDelivery.Swap(ns)
	if prev == 0 || ns-prev <= l.idleNs.Load() {
		return
	}
	l.idleMu.Lock()
	if ns-prev > l.idleNs.Load() {
		l.idleNs.Store(ns - prev)
		l.idleStart.Store(prev)
	}
	l.idleMu.Unlock()
}

// RecordPause records a rebalance pause of one partition.
func (r *Recorder) RecordPause(p RebalancePause) {
	r.mu.Lock()
	r.pauses = append(r.pauses, p)
	r.mu.Unlock()
}

// PartitionAssigned is one partition handed to a member at AtNs.
type PartitionAssigned struct {
	Partition int32
	AtNs      int64
}

// OpenPause starts a rebalance pause of p.Partition (revoked, lost, or held
// by a member that crashed) at p.StartNs; the partition's next assignment
// (PartitionAssigned) ends it. A sharded run's agents export the pauses
// still open and their assignments, and the coordinator ends a pause that
// began on one agent at the partition's next assignment on any other
// (sortedPauses): a crashed member's partition often moves to another
// agent's member.
func (r *Recorder) OpenPause(p RebalancePause) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.openPauses == nil {
		r.openPauses = map[int32]RebalancePause{}
	}
	r.openPauses[p.Partition] = p
}

// PartitionAssigned notes partition assigned to a member at ns, ending its
// open pause here if it has one.
func (r *Recorder) PartitionAssigned(partition int32, ns int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.assignments = append(r.assignments, PartitionAssigned{Partition: partition, AtNs: ns})
	if p, ok := r.openPauses[partition]; ok {
		p.EndNs = ns
		r.pauses = append(r.pauses, p)
		delete(r.openPauses, partition)
	}
}

// stillOpen lists the pauses no assignment here has ended, by partition;
// callers hold r.mu.
func (r *Recorder) stillOpen() []RebalancePause {
	out := slices.Collect(maps.Values(r.openPauses))
	out = append(out, r.absorbed.openPauses...)
	slices.SortFunc(out, func(a, b RebalancePause) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.StartNs, b.StartNs))
	})
	return out
}

// memberTimes lists the members' times; callers hold r.mu.
func (r *Recorder) memberTimes() []MemberTimes {
	var out []MemberTimes
	for _, s := range r.members {
		out = append(out, MemberTimes{ID: s.life.ID, JoinNs: s.life.joined.Load(), FirstDeliveryNs: s.firstDelivery.Load(),
			LeftNs: s.life.left.Load(), Crashed: s.life.crashed.Load(), HeldAtCrash: s.life.held.Load(), LongestIdleNs: s.life.idleNs.Load(),
			IdleStartNs: s.life.idleStart.Load(), Completed: s.Completed.Load()})
	}
	return out
}

// sortedPauses copies the pauses by start time; callers hold r.mu. A pause
// still open (on this recorder, or on an absorbed shard) ends at its
// partition's first assignment after its start anywhere (this recorder's
// or an absorbed shard's); one whose partition was never assigned again is
// not a pause that ended, and is left out.
func (r *Recorder) sortedPauses() []RebalancePause {
	out := slices.Clone(r.pauses)
	for _, p := range r.stillOpen() {
		end := int64(0)
		for _, a := range r.assignments {
			if a.Partition == p.Partition && a.AtNs >= p.StartNs && (end == 0 || a.AtNs < end) {
				end = a.AtNs
			}
		}
		if end != 0 {
			p.EndNs = end
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b RebalancePause) int { return int(a.StartNs - b.StartNs) })
	return out
}
