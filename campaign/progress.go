package campaign

import (
	"time"

	"github.com/sharebench/sharebench/results"
)

// Phase is a run's phase as a campaign reports it through Progress.
type Phase string

// The phases of a run, in the order a run passes them (a rate run has no
// fill, a backlog run no warm-up or measure).
const (
	PhaseSetup   Phase = "setup"   // topic, group, members joining
	PhaseFill    Phase = "fill"    // load_mode backlog: producing the backlog
	PhaseWarmup  Phase = "warm-up" // producing, before the measurement window
	PhaseMeasure Phase = "measure" // the measurement window
	PhaseDrain   Phase = "drain"   // producers done, consumers finishing
)

// PhaseInfo is the current run entering a phase.
type PhaseInfo struct {
	Run, Runs int    // 1-based run number and the campaign's run count
	RunID     string // the run's name
	Name      Phase
	// Planned is the phase's length: exact for warm-up and measure, an upper
	// bound (the timeout) for setup and drain, 0 when unknown (fill).
	Planned time.Duration
	// Counts reads the run's live counters (nil before the run's recorder
	// exists).
	Counts func() results.Counts
}

// Progress receives a campaign's progress. Calls come from the campaign's
// goroutine and, for PhaseMeasure, a timer goroutine; an implementation
// must be safe for that. The plain log lines (Options.Log) are
// written regardless.
type Progress interface {
	// Phase says the current run entered a phase.
	Phase(PhaseInfo)
	// RunDone says the current run finished (err nil) or failed.
	RunDone(run, recs int, id string, err error)
}

// NoProgress is the default Progress: it does nothing.
type NoProgress struct{}

func (NoProgress) Phase(PhaseInfo)                 {}
func (NoProgress) RunDone(int, int, string, error) {}

// runProgress is a run's view of the campaign's Progress: the run's number
// and name are fixed, the counters come from the run's recorder.
type runProgress struct {
	p         Progress
	run, recs int
	id        string
}

func (p runProgress) phase(name Phase, planned time.Duration, counts func() results.Counts) {
	p.p.Phase(PhaseInfo{Run: p.run, Runs: p.recs, RunID: p.id, Name: name, Planned: planned, Counts: counts})
}
