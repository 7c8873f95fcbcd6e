package scenarios

import (
	"cmp"
	"time"
)

// LoadMode is how a run's producers load the topic (load_mode).
type LoadMode string

const (
	// LoadRate is an open-loop schedule of rate records/s for warmup +
	// duration, the consumers running throughout.
	LoadRate LoadMode = "rate"
	// LoadBacklog produces backlog_records before the consumers start and
	// measures the drain.
	LoadBacklog LoadMode = "backlog"
	// LoadMaxRate steps the rate up (max_rate:) to find the highest rate
	// the consumers sustain.
	LoadMaxRate LoadMode = "max_rate"
)

// LoadModes are the valid load modes.
var LoadModes = []LoadMode{LoadRate, LoadBacklog, LoadMaxRate}

// Mode is one load mode, in the manner of k6's executors: one file each
// (mode_rate.go, mode_backlog.go, mode_maxrate.go) with the checks of what
// the mode needs of a run's spec beside the rest of it: the load it plans
// and what the run's recorder is sized for. How a mode runs is campaign's
// (campaign/mode_*.go, looked up by Name); scenarios only describes it.
type Mode interface {
	// Name is the mode's load_mode value.
	Name() LoadMode
	// Plan is the load the mode schedules for r.
	Plan(r RunSpec) Plan
	// Sizing is what the recorder of one run of r is sized for; a
	// max_rate run is sized at its highest step.
	Sizing(r RunSpec) (Sizing, error)
	// problems adds what r lacks for the mode, one "key: what is wrong,
	// what is expected" line each.
	problems(r RunSpec, p *problems)
}

// Plan is a run's scheduled load, as a dry run prints it.
type Plan struct {
	// Load is the time of load: warm-up + window (of every step, for
	// max_rate), or the fill and drain bounds of a backlog. Cluster
	// start-up, group joins and the drains of a schedule are not in it.
	Load time.Duration
	// Text says how Load is made up: "5s warm-up + 20s window = 25s, drain
	// up to 2m0s".
	Text string
}

// Sizing is what one run's recorder must hold: the producers' load and how
// long the run may last once its group has formed.
type Sizing struct {
	// Rate is the records/s of the producers' schedule: the run's rate,
	// or the highest step of a max_rate schedule.
	Rate float64
	// Backlog is the records a backlog run pre-fills (0: a schedule).
	Backlog uint64
	// Span bounds the load: warm-up + window + drain timeout, or for a
	// backlog the fill (allowed as long as the drain) and the drain.
	Span time.Duration
}

// modes are the load modes by their load_mode value.
var modes = map[LoadMode]Mode{
	LoadRate:    rateMode{},
	LoadBacklog: backlogMode{},
	LoadMaxRate: maxRateMode{},
}

// Mode is the run's load mode; an unset load_mode (a RunSpec built in
// code) is rate. ok is false when load_mode names none of LoadModes.
func (r RunSpec) Mode() (m Mode, ok bool) {
	m, ok = modes[cmp.Or(r.LoadMode, LoadRate)]
	return m, ok
}

// ValidateMode checks r against its load mode only (Validate checks
// everything): what campaign checks of a RunSpec before it runs it.
func (r RunSpec) ValidateMode() error {
	m, ok := r.Mode()
	if !ok {
		var p problems
		isOne(&p, "load_mode", r.LoadMode, LoadModes)
		return p.err()
	}
	var p problems
	m.problems(r, &p)
	return p.err()
}

// checkWindow checks warm-up and window of a mode that schedules them (rate
// and max_rate): the time series has one-second resolution, so a shorter
// window, or a warm-up ending inside its first second, has no whole second
// to measure. Validate checks their signs and limits for every mode.
func (r RunSpec) checkWindow(p *problems) {
	if r.Warmup > 0 && r.Warmup < minWindow {
		p.addf("warmup", "must be 0 (none) or ≥ 1s: the time series has one-second resolution, so a shorter warm-up "+
			"ends inside its first second and settles nothing, got %v", r.Warmup)
	}
	if r.Duration > 0 && r.Duration < minWindow {
		p.addf("duration", "must be ≥ 1s: it is the measurement window, and the time series has one-second resolution "+
			"(a shorter window holds no whole second, so rates and efficiency would read 0), got %v", r.Duration)
	}
}

// checkUnusedBacklog checks backlog_records in a mode that ignores it.
func (r RunSpec) checkUnusedBacklog(p *problems) {
	if r.BacklogRecords < 0 {
		p.addf("backlog_records", "must be ≥ 0 (≥ 1 with load_mode backlog), got %d", r.BacklogRecords)
	}
}

// scheduleSpan is the longest a scheduled run lasts once its group has
// formed: warm-up + window + drain timeout.
func (r RunSpec) scheduleSpan() time.Duration { return r.Warmup + r.Duration + r.DrainTimeout }
