package runs

import (
	"github.com/sharebench/sharebench/results"
)

// MemberLife is a member's times in run.json (runs with events), seconds
// from the measurement window's start (negative: before it).
type MemberLife struct {
	ID           int      `json:"id"`
	JoinS        float64  `json:"join_s"`
	FirstRecordS *float64 `json:"first_record_s"` // nil: never got a record
	LeftS        *float64 `json:"left_s,omitempty"`
	Crashed      bool     `json:"crashed,omitempty"`
	HeldAtCrash  int64    `json:"held_at_crash,omitempty"`
	Completed    int64    `json:"completed"`
}

// MemberLives converts the members' times for run.json.
func MemberLives(ms []results.MemberTimes, w results.Window) []MemberLife {
	rel := func(ns int64) *float64 {
		if ns == 0 {
			return nil
		}
		v := float64(ns-w.Start) / 1e9
		return &v
	}
	out := make([]MemberLife, len(ms))
	for i, m := range ms {
		out[i] = MemberLife{ID: m.ID, JoinS: float64(m.JoinNs-w.Start) / 1e9, FirstRecordS: rel(m.FirstDeliveryNs),
			LeftS: rel(m.LeftNs), Crashed: m.Crashed, HeldAtCrash: m.HeldAtCrash, Completed: m.Completed}
	}
	return out
}
