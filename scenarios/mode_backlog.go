package scenarios

import (
	"fmt"
)

// backlogMode is load_mode backlog: backlog_records are produced as fast as
// the producers can, all acknowledged, before the consumers start; the run
// measures how long the consumers take to drain them. rate, warmup and
// duration are ignored; drain_timeout bounds the fill and the drain.
type backlogMode struct{}

func (backlogMode) Name() LoadMode { return LoadBacklog }

// problems: a backlog to fill, one process, no events (a drain has no window
// fixed in advance).
func (backlogMode) problems(r RunSpec, p *problems) {
	if r.BacklogRecords < 1 {
		p.addf("backlog_records", "required with load_mode backlog: the records to pre-fill, an integer ≥ 1, got %d", r.BacklogRecords)
	}
	if len(r.Events) > 0 {
		p.addf("events", "not supported with load_mode backlog (the drain has no fixed window to place offsets in); use load_mode rate")
	}
}

func (backlogMode) Plan(r RunSpec) Plan {
	return Plan{Load: 2 * r.DrainTimeout,
		Text: fmt.Sprintf("backlog of %d records: fill and drain each up to %s", r.BacklogRecords, r.DrainTimeout)}
}

// Sizing: the fill has no schedule; it is allowed as long as the drain.
func (backlogMode) Sizing(r RunSpec) (Sizing, error) {
	return Sizing{Rate: r.Rate, Backlog: uint64(max(r.BacklogRecords, 0)), Span: 2 * r.DrainTimeout}, nil
}
