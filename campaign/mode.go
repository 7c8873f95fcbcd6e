package campaign

import (
	"context"
	"fmt"

	"github.com/sharebench/sharebench/scenarios"
)

// phaseRunner runs the phases of one load mode: mode_rate.go,
// mode_backlog.go, mode_maxrate.go. What a mode needs of a run's spec, the
// load it plans and what its recorder is sized for are the mode's own, in
// scenarios (scenarios.Mode); campaign only runs it.
type phaseRunner interface {
	run(ctx context.Context, rn runner, s scenarios.RunSpec, runID string) (*Measured, error)
}

// phaseRunners are the phase runners by load mode, one per
// scenarios.LoadModes (TestPhaseRunnerPerLoadMode).
var phaseRunners = map[scenarios.LoadMode]phaseRunner{
	scenarios.LoadRate:    rateMode{},
	scenarios.LoadBacklog: backlogMode{},
	scenarios.LoadMaxRate: maxRateMode{},
}

// modeOf returns the phase runner of s's load mode, once s has what the mode
// needs (checked before any cluster starts).
func modeOf(s scenarios.RunSpec) (phaseRunner, error) {
	m, ok := s.Mode()
	if !ok {
		return nil, s.ValidateMode() // names the modes there are
	}
	if err := s.ValidateMode(); err != nil {
		return nil, fmt.Errorf("load_mode %s: %w", m.Name(), err)
	}
	return phaseRunners[m.Name()], nil
}
