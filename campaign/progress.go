package campaign

import (
	"context"
	"time"

	"github.com/sharebench/sharebench/results"
)

// Phase names a campaign reports through Progress.
const (
	PhaseSetup   = "setup"   // topic, group, members joining
	PhaseFill    = "fill"    // load_mode backlog: producing the backlog
	PhaseWarmup  = "warm-up" // producing, before the measurement window
	PhaseMeasure = "measure" // the measurement window
	PhaseDrain   = "drain"   // producers done, consumers finishing
)

// PhaseInfo is the current run entering a phase.
type PhaseInfo struct {
	Run, Runs int    // 1-based run number and the campaign's run count
	RunID     string // the run's name
	Name      string // PhaseSetup, PhaseFill, PhaseWarmup, PhaseMeasure or PhaseDrain
	// Planned is the phase's length: exact for warm-up and measure, an upper
	// bound (the timeout) for setup and drain, 0 when unknown (fill).
	Planned time.Duration
	// Counts reads the run's live counters (nil before the run's recorder
	// exists).
	Counts func() results.LiveCounts
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

// runProgress is RunOne's view of the campaign's Progress: the run's number
// and name are fixed, the counters come from the run's recorder.
type runProgress struct {
	p         Progress
	run, recs int
	id        string
}

type progressKey struct{}

func withProgress(ctx context.Context, p runProgress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// progressOf returns the run's progress reporter; RunOne called outside a
// campaign reports to NoProgress.
func progressOf(ctx context.Context, id string) runProgress {
	if p, ok := ctx.Value(progressKey{}).(runProgress); ok {
		return p
	}
	return runProgress{p: NoProgress{}, run: 1, recs: 1, id: id}
}

func (p runProgress) phase(name string, planned time.Duration, rec *results.Recorder) {
	info := PhaseInfo{Run: p.run, Runs: p.recs, RunID: p.id, Name: name, Planned: planned}
	if rec != nil {
		info.Counts = rec.Counts
	}
	p.p.Phase(info)
}
