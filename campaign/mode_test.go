package campaign

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
)

// campaign runs every load mode scenarios describes, and nothing else.
func TestPhaseRunnerPerLoadMode(t *testing.T) {
	if len(phaseRunners) != len(scenarios.LoadModes) {
		t.Fatalf("%d phase runners for %d load modes", len(phaseRunners), len(scenarios.LoadModes))
	}
	for _, name := range scenarios.LoadModes {
		if phaseRunners[name] == nil {
			t.Errorf("load_mode %s has no phase runner", name)
		}
	}
}

// modeOf refuses a run its mode cannot run before anything starts, with
// the mode's own words (scenarios.RunSpec.ValidateMode).
func TestModeOfRefuses(t *testing.T) {
	s := baseSpec()
	if _, err := modeOf(s); err != nil {
		t.Fatalf("a loaded run: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(*scenarios.RunSpec)
		want string
	}{
		{"unknown", func(r *scenarios.RunSpec) { r.LoadMode = "fast" }, `load_mode: expected one of rate, backlog, max_rate, got "fast"`},
		{"backlog", func(r *scenarios.RunSpec) { r.LoadMode = scenarios.LoadBacklog }, "load_mode backlog: backlog_records: required"},
		{"max_rate", func(r *scenarios.RunSpec) { r.LoadMode = scenarios.LoadMaxRate }, "load_mode max_rate: max_rate: required"},
	} {
		r := s
		tt.edit(&r)
		if _, err := modeOf(r); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: modeOf = %v, want %q", tt.name, err, tt.want)
		}
	}
}
