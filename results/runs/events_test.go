package runs

import (
	"math"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

const sec = int64(time.Second)

// series builds per-second counts: base in every second from 1 on, with
// overrides.
func series(n int, base int64, at map[int]int64) []int64 {
	s := make([]int64, n)
	for i := 1; i < n; i++ {
		s[i] = base
	}
	for i, v := range at {
		s[i] = v
	}
	return s
}

func fptr(v float64) *float64 { return &v }

func sameF(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) < 1e-9
}

func TestAnalyzeEvents(t *testing.T) {
	window := results.Window{Start: 5 * sec, End: 25 * sec}
	type want struct {
		baseline, lowest, dip float64
		recovery              *float64
		redeliveries          int64
		pauses                int
		pauseTotal, pauseMax  float64
		idle                  float64
	}
	tests := []struct {
		name      string
		in        EventInput
		want      []want
		firstRecs [][]*float64
		summary   EventSummary
		// after: mean of the span's last 5 s; firstRedelivery: event →
		// first second with a redelivery; held: crashed members' holdings.
		after           []float64
		firstRedelivery []*float64
		held            []int64
	}{
		{
			// baseline s5..9 = 100; lowest 30 (s12) → dip 70 %; slow ends at
			// 12.5 s, s14..16 ≥ 90 → recovered 1.5 s after; redeliveries in
			// s10..16 = 5 + 3 (s20 is after the recovery).
			name: "slow-down recovers",
			in: EventInput{
				Completed:   series(30, 100, map[int]int64{11: 40, 12: 30, 13: 50, 14: 95, 15: 92, 16: 91}),
				Redelivered: series(30, 0, map[int]int64{11: 5, 16: 3, 20: 7}),
				Window:      window,
				Events:      []Event{{Action: "slow", StartNs: 10*sec + sec/2, Duration: 2 * time.Second}},
			},
			want:    []want{{baseline: 100, lowest: 30, dip: 70, recovery: fptr(1.5), redeliveries: 8}},
			summary: EventSummary{Events: 1, Redeliveries: 8, DipMaxPercent: 70, RecoveryMaxSec: fptr(1.5), AfterPerSec: 100},
			after:   []float64{100}, firstRedelivery: []*float64{fptr(0.5)}, held: []int64{0},
		},
		{
			// broker killed at 10 s, restart issued at 13 s, serving again
			// only at 20 s: completions stop s10..13 and are back from s14,
			// so recovery counts from the kill: 14 − 10 = 4 s (counted from
			// the end of the restart it would read 0). Redeliveries at s21
			// (locks held across the fault expiring) count: the 12 s grace
			// reaches s22; s24 is past it.
			name: "broker kill recovers from the fault",
			in: EventInput{
				Completed:   series(30, 100, map[int]int64{10: 0, 11: 0, 12: 0, 13: 0}),
				Redelivered: series(30, 0, map[int]int64{21: 6, 24: 2}),
				Window:      window,
				Events:      []Event{{Action: "broker_kill", StartNs: 10 * sec, Duration: 3 * time.Second, EndNs: 20 * sec}},
				CrashGrace:  12 * time.Second,
			},
			want:    []want{{baseline: 100, lowest: 0, dip: 100, recovery: fptr(4), redeliveries: 6}},
			summary: EventSummary{Events: 1, DipMaxPercent: 100, RecoveryMaxSec: fptr(4), AfterPerSec: 100, Redeliveries: 6},
			after:   []float64{100}, firstRedelivery: []*float64{fptr(11)}, held: []int64{0},
		},
		{
			// throughput halves for good: never 3 s at ≥ 90; redeliveries to
			// the window's end (s24), so s20 counts.
			name: "not recovered",
			in: EventInput{
				Completed:   series(30, 100, map[int]int64{10: 50, 11: 50, 12: 50, 13: 50, 14: 50, 15: 50, 16: 50, 17: 50, 18: 50, 19: 50, 20: 50, 21: 50, 22: 50, 23: 50, 24: 50}),
				Redelivered: series(30, 0, map[int]int64{20: 7, 26: 1}),
				Window:      window,
				Events:      []Event{{Action: "crash", StartNs: 10 * sec, Members: []int{0}}},
			},
			want:    []want{{baseline: 100, lowest: 50, dip: 50, recovery: nil, redeliveries: 7}},
			summary: EventSummary{Events: 1, Redeliveries: 7, DipMaxPercent: 50, AfterPerSec: 50, FirstRedeliveryMaxSec: fptr(10)},
			after:   []float64{50}, firstRedelivery: []*float64{fptr(10)}, held: []int64{0},
		},
		{
			// join at 8.2 s: baseline s3..7 (load from s0, so s1 on) = 100, its
			// span s8..14 never dips, recovery 0; member 2 first record 0.3 s,
			// member 3 none; pause 1 (0.5 s) and member 2's 2 s idle gap
			// began in its span. crash at 15 s: baseline s10..14 = 100, lowest
			// 60 → 40 %, recovered at s17 (2 s); the 10 s crash grace carries
			// the redelivery count to s25 (10 + 2).
			name: "join then crash",
			in: EventInput{
				Completed:   series(30, 100, map[int]int64{15: 60, 16: 60}),
				Redelivered: series(30, 0, map[int]int64{16: 10, 25: 2, 26: 9}),
				Window:      window,
				Events: []Event{
					{Action: "join", StartNs: 8*sec + sec/5, Members: []int{2, 3}},
					{Action: "crash", StartNs: 15 * sec, Members: []int{0}},
				},
				Members: []results.MemberTimes{
					{ID: 0, JoinNs: 1 * sec, FirstDeliveryNs: 1*sec + sec/10, Crashed: true, HeldAtCrash: 7},
					{ID: 2, JoinNs: 8*sec + sec/5, FirstDeliveryNs: 8*sec + sec/2, IdleStartNs: 9 * sec, LongestIdleNs: 2 * sec},
					{ID: 3, JoinNs: 8*sec + sec/5},
				},
				Pauses: []results.RebalancePause{
					{Member: 0, Partition: 1, StartNs: 8*sec + sec/2, EndNs: 9 * sec},
					{Member: 1, Partition: 0, StartNs: 15*sec + sec/5, EndNs: 21*sec + sec/5},
				},
				CrashGrace: 10 * time.Second,
				// One partition: each pause stops the whole group.
				Partitions: 1,
			},
			want: []want{
				{baseline: 100, lowest: 100, dip: 0, recovery: fptr(0), redeliveries: 0, pauses: 1, pauseTotal: 0.5, pauseMax: 0.5, idle: 2},
				{baseline: 100, lowest: 60, dip: 40, recovery: fptr(2), redeliveries: 12, pauses: 1, pauseTotal: 6, pauseMax: 6},
			},
			firstRecs: [][]*float64{{fptr(0.3), nil}, nil},
			summary: EventSummary{Events: 2, JoinedWithout: 1, RebalancePauses: 2, RebalancePauseSec: 6.5, RebalancePauseMaxS: 6,
				RebalancePartitions: 2, RebalancePeakPaused: 1, GroupStopSec: 6.5,
				Redeliveries: 12, DipMaxPercent: 40, RecoveryMaxSec: fptr(2), IdleGapMaxSec: 2,
				AfterPerSec: 100, HeldByCrashed: 7, FirstRedeliveryMaxSec: fptr(1)},
			after: []float64{100, 100}, firstRedelivery: []*float64{nil, fptr(1)}, held: []int64{0, 7},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AnalyzeEvents(tc.in)
			for i, w := range tc.want {
				g := got[i]
				if g.BaselinePerSec != w.baseline || g.LowestPerSec != w.lowest || math.Abs(g.DipPercent-w.dip) > 1e-9 ||
					!sameF(g.RecoverySec, w.recovery) || g.Redeliveries != w.redeliveries || g.RebalancePauses != w.pauses ||
					math.Abs(g.RebalancePauseSec-w.pauseTotal) > 1e-9 || math.Abs(g.RebalancePauseMaxS-w.pauseMax) > 1e-9 ||
					g.IdleGapMaxSec != w.idle {
					t.Errorf("event %d: got baseline %v lowest %v dip %v recovery %v redeliveries %d pauses %d/%v/%v idle %v\nwant %+v",
						i, g.BaselinePerSec, g.LowestPerSec, g.DipPercent, g.RecoverySec, g.Redeliveries,
						g.RebalancePauses, g.RebalancePauseSec, g.RebalancePauseMaxS, g.IdleGapMaxSec, w)
				}
				if tc.firstRecs != nil {
					if len(g.FirstRecord) != len(tc.firstRecs[i]) {
						t.Fatalf("event %d: first records %+v", i, g.FirstRecord)
					}
					for j, f := range tc.firstRecs[i] {
						if !sameF(g.FirstRecord[j].Sec, f) {
							t.Errorf("event %d member %d: first record %v, want %v", i, g.FirstRecord[j].Member, g.FirstRecord[j].Sec, f)
						}
					}
				}
			}
			// Each event's pauses: one partition of one, so its group stop
			// is its pause.
			for i, stop := range []float64{0.5, 6} {
				if tc.name != "join then crash" {
					break
				}
				if got[i].RebalancePartitions != 1 || got[i].RebalancePeakPaused != 1 || math.Abs(got[i].GroupStopSec-stop) > 1e-9 {
					t.Errorf("event %d: partitions %d peak %d group stop %v, want 1 1 %v", i, got[i].RebalancePartitions,
						got[i].RebalancePeakPaused, got[i].GroupStopSec, stop)
				}
			}
			for i := range got {
				if got[i].AfterPerSec != tc.after[i] || !sameF(got[i].FirstRedeliverySec, tc.firstRedelivery[i]) || got[i].HeldByCrashed != tc.held[i] {
					t.Errorf("event %d: after %v first redelivery %v held %d, want %v %v %d", i, got[i].AfterPerSec,
						got[i].FirstRedeliverySec, got[i].HeldByCrashed, tc.after[i], tc.firstRedelivery[i], tc.held[i])
				}
			}
			s := SummarizeEvents(got, tc.in.Pauses, tc.in.Partitions)
			w := tc.summary
			if s.Events != w.Events || s.JoinedWithout != w.JoinedWithout || s.RebalancePauses != w.RebalancePauses ||
				math.Abs(s.RebalancePauseSec-w.RebalancePauseSec) > 1e-9 || s.RebalancePauseMaxS != w.RebalancePauseMaxS ||
				s.Redeliveries != w.Redeliveries || math.Abs(s.DipMaxPercent-w.DipMaxPercent) > 1e-9 ||
				!sameF(s.RecoveryMaxSec, w.RecoveryMaxSec) || !sameF(s.FirstRecordMaxSec, w.FirstRecordMaxSec) || s.IdleGapMaxSec != w.IdleGapMaxSec ||
				s.AfterPerSec != w.AfterPerSec || s.HeldByCrashed != w.HeldByCrashed || !sameF(s.FirstRedeliveryMaxSec, w.FirstRedeliveryMaxSec) ||
				s.RebalancePartitions != w.RebalancePartitions || s.RebalancePeakPaused != w.RebalancePeakPaused || math.Abs(s.GroupStopSec-w.GroupStopSec) > 1e-9 {
				t.Errorf("summary %+v\nwant    %+v", s, w)
			}
		})
	}
}

// Expectations read pointer fields, and a nil one (not recovered) is missing.
func TestFieldValueEventSummary(t *testing.T) {
	r := Record{EventSummary: &EventSummary{RecoveryMaxSec: fptr(2.5)}}
	if v, ok := FieldValue(r, "event_summary.recovery_max_s"); !ok || v != 2.5 {
		t.Errorf("recovery_max_s %v %v", v, ok)
	}
	if _, ok := FieldValue(r, "event_summary.first_record_max_s"); ok {
		t.Error("nil first_record_max_s read as a number")
	}
	if _, ok := FieldValue(Record{}, "event_summary.rebalance_pauses"); ok {
		t.Error("a run without events has no event_summary")
	}
}

func TestMemberLives(t *testing.T) {
	w := results.Window{Start: 10 * sec}
	got := MemberLives([]results.MemberTimes{{ID: 3, JoinNs: 12 * sec, FirstDeliveryNs: 12*sec + sec/2, LeftNs: 15 * sec, Crashed: true, HeldAtCrash: 4}}, w)
	if g := got[0]; g.ID != 3 || g.JoinS != 2 || !sameF(g.FirstRecordS, fptr(2.5)) || !sameF(g.LeftS, fptr(5)) || !g.Crashed || g.HeldAtCrash != 4 {
		t.Errorf("%+v", g)
	}
	if got := MemberLives([]results.MemberTimes{{JoinNs: 9 * sec}}, w)[0]; got.JoinS != -1 || got.FirstRecordS != nil || got.LeftS != nil {
		t.Errorf("before the window, no record, not left: %+v", got)
	}
}

// The pause figures on constructed joins: eager (every partition revoked,
// then all assigned in one round), cooperative (only the moved partitions,
// assigned in a second round), a partition paused twice at once, and pauses
// that only touch.
func TestSummarizePauses(t *testing.T) {
	ms := int64(time.Millisecond)
	pause := func(member int, p int32, from, to int64) results.RebalancePause {
		return results.RebalancePause{Member: member, Partition: p, StartNs: from * ms, EndNs: to * ms}
	}
	tests := []struct {
		name       string
		pauses     []results.RebalancePause
		partitions int
		want       PauseFigures
	}{
		{
			// Member 0 revokes p0, p1 at 1000 ms, member 1 p2, p3 at 1020
			// ms; all four are assigned at 1100 ms: every partition stopped
			// from 1020 to 1100 ms.
			name: "eager",
			pauses: []results.RebalancePause{pause(0, 0, 1000, 1100), pause(0, 1, 1000, 1100),
				pause(1, 2, 1020, 1100), pause(1, 3, 1020, 1100)},
			partitions: 4,
			want:       PauseFigures{Pauses: 4, PartitionSec: 0.36, MaxSec: 0.1, Partitions: 4, PeakPaused: 4, GroupStopSec: 0.08},
		},
		{
			// p1 and p3 move: revoked at 1000 and 1200 ms, assigned in the
			// second round at 1500 and 1600 ms; p0 and p2 never stop.
			name:       "cooperative",
			pauses:     []results.RebalancePause{pause(0, 1, 1000, 1500), pause(1, 3, 1200, 1600)},
			partitions: 4,
			want:       PauseFigures{Pauses: 2, PartitionSec: 0.9, MaxSec: 0.5, Partitions: 2, PeakPaused: 2},
		},
		{
			// p0 paused twice over 1000–2500 ms: once paused, not twice; p1
			// from 1200 to 2000 ms: both stopped 1200–2000 ms.
			name:       "one partition twice",
			pauses:     []results.RebalancePause{pause(0, 0, 1000, 2000), pause(1, 0, 1500, 2500), pause(1, 1, 1200, 2000)},
			partitions: 2,
			want:       PauseFigures{Pauses: 3, PartitionSec: 2.8, MaxSec: 1, Partitions: 2, PeakPaused: 2, GroupStopSec: 0.8},
		},
		{
			// One ends when the other begins: never both paused.
			name:       "touching",
			pauses:     []results.RebalancePause{pause(0, 0, 1000, 2000), pause(1, 1, 2000, 3000)},
			partitions: 2,
			want:       PauseFigures{Pauses: 2, PartitionSec: 2, MaxSec: 1, Partitions: 2, PeakPaused: 1},
		},
		{
			name:   "partition count unknown",
			pauses: []results.RebalancePause{pause(0, 0, 1000, 2000)},
			want:   PauseFigures{Pauses: 1, PartitionSec: 1, MaxSec: 1, Partitions: 1, PeakPaused: 1},
		},
		{name: "none", partitions: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, w := SummarizePauses(tc.pauses, tc.partitions), tc.want
			if g.Pauses != w.Pauses || math.Abs(g.PartitionSec-w.PartitionSec) > 1e-9 || math.Abs(g.MaxSec-w.MaxSec) > 1e-9 ||
				g.Partitions != w.Partitions || g.PeakPaused != w.PeakPaused || math.Abs(g.GroupStopSec-w.GroupStopSec) > 1e-9 {
				t.Errorf("got  %+v\nwant %+v", g, w)
			}
		})
	}
}

// Run-wide pauses count from the load's start: one that began while the
// group formed is left out, one that began at the start is kept.
func TestPausesSince(t *testing.T) {
	ps := []results.RebalancePause{{Partition: 0, StartNs: 1 * sec, EndNs: 3 * sec}, {Partition: 1, StartNs: 4 * sec, EndNs: 5 * sec},
		{Partition: 2, StartNs: 6 * sec, EndNs: 7 * sec}}
	got := PausesSince(ps, 4*sec)
	if len(got) != 2 || got[0].Partition != 1 || got[1].Partition != 2 {
		t.Errorf("PausesSince(4 s) = %+v, want partitions 1 and 2", got)
	}
}
