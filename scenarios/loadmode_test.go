package scenarios

import (
	"strings"
	"testing"
	"time"
)

// Every load_mode value has its Mode, and the Mode says its own name; an
// unset load_mode (a RunSpec built in code) is rate, an unknown one none.
func TestModeLookup(t *testing.T) {
	for _, name := range LoadModes {
		m, ok := RunSpec{Phases: Phases{LoadMode: name}}.Mode()
		if !ok || m.Name() != name {
			t.Fatalf("load_mode %s: Mode() = %v, %v", name, m, ok)
		}
	}
	if m, ok := (RunSpec{}).Mode(); !ok || m.Name() != LoadRate {
		t.Fatalf("unset load_mode: Mode() = %v, %v, want rate", m, ok)
	}
	if _, ok := (RunSpec{Phases: Phases{LoadMode: "fast"}}).Mode(); ok {
		t.Fatal(`load_mode "fast" has a Mode`)
	}
	if err := (RunSpec{Phases: Phases{LoadMode: "fast"}}).ValidateMode(); err == nil || !strings.Contains(err.Error(), `load_mode: expected one of rate, backlog, max_rate, got "fast"`) {
		t.Fatalf("ValidateMode of an unknown mode: %v", err)
	}
}

// The plan and the sizing of each mode, against the arithmetic written out:
// a schedule plans warm-up + window and spans warm-up + window + drain; a
// backlog plans and spans fill + drain, each up to drain_timeout; max_rate
// plans every step and is sized at its highest one.
func TestModePlanAndSizing(t *testing.T) {
	base := mustLoad(t, "name: x\nrate: 300\nwarmup: 2s\nduration: 10s\ndrain_timeout: 45s\n", nil, nil).Runs[0]
	backlog := base
	backlog.LoadMode, backlog.BacklogRecords = LoadBacklog, 5000
	maxRate := base
	maxRate.LoadMode, maxRate.MaxRate = LoadMaxRate, &MaxRate{Start: 100, Step: 150, Max: 600} // 100, 250, 400, 550
	for _, tt := range []struct {
		name   string
		r      RunSpec
		plan   Plan
		sizing Sizing
	}{
		{"rate", base, Plan{12 * time.Second, "2s warm-up + 10s window = 12s, drain up to 45s"},
			Sizing{Rate: 300, Span: 57 * time.Second}},
		{"backlog", backlog, Plan{90 * time.Second, "backlog of 5000 records: fill and drain each up to 45s"},
			Sizing{Rate: 300, Backlog: 5000, Span: 90 * time.Second}},
		{"max_rate", maxRate, Plan{48 * time.Second, "max_rate: up to 4 step(s) of 2s warm-up + 10s window = up to 48s, each drain up to 45s"},
			Sizing{Rate: 550, Span: 57 * time.Second}},
	} {
		m, _ := tt.r.Mode()
		if got := m.Plan(tt.r); got != tt.plan {
			t.Errorf("%s: Plan = %+v, want %+v", tt.name, got, tt.plan)
		}
		if got, err := m.Sizing(tt.r); err != nil || got != tt.sizing {
			t.Errorf("%s: Sizing = %+v, %v, want %+v", tt.name, got, err, tt.sizing)
		}
	}
	maxRate.MaxRate = nil
	if _, err := (maxRateMode{}).Sizing(maxRate); err == nil {
		t.Error("max_rate without a block: Sizing gave no error")
	}
	step := maxRate.AtRate(400)
	if step.LoadMode != LoadRate || step.Rate != 400 || step.MaxRate != nil || step.Warmup != base.Warmup {
		t.Errorf("AtRate(400) = mode %s rate %v max_rate %v", step.LoadMode, step.Rate, step.MaxRate)
	}
}

// ValidateMode checks only what the mode needs: a backlog run without
// backlog_records, a max_rate run without its block, a rate run whose
// window leaves a producer without a record; other problems are Validate's.
func TestValidateMode(t *testing.T) {
	base := mustLoad(t, "name: x\n", nil, nil).Runs[0]
	if err := base.ValidateMode(); err != nil {
		t.Fatalf("a loaded run: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(*RunSpec)
		want string
	}{
		{"backlog", func(r *RunSpec) { r.LoadMode = LoadBacklog },
			"backlog_records: required with load_mode backlog: the records to pre-fill, an integer ≥ 1, got 0"},
		{"max_rate", func(r *RunSpec) { r.LoadMode = LoadMaxRate }, "max_rate: required with load_mode max_rate"},
		{"rate window", func(r *RunSpec) { r.Rate, r.Producers, r.Duration = 1, 4, 2*time.Second },
			"rate: 1 records/s for duration 2s is 2 records in the measurement window, fewer than the 4 producers"},
		{"short window", func(r *RunSpec) { r.Duration = 500 * time.Millisecond }, "duration: must be ≥ 1s"},
	} {
		r := base
		tt.edit(&r)
		err := r.ValidateMode()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ValidateMode = %v, want %q", tt.name, err, tt.want)
		}
	}
	r := base
	r.Members = 0 // not the mode's concern
	if err := r.ValidateMode(); err != nil {
		t.Errorf("members 0: ValidateMode = %v, want nil (Validate reports it)", err)
	}
	// A backlog run ignores the window: a 200ms duration is no problem of it.
	r = base
	r.LoadMode, r.BacklogRecords, r.Warmup, r.Duration = LoadBacklog, 10, 300*time.Millisecond, 200*time.Millisecond
	if err := r.Validate(); err != nil {
		t.Errorf("backlog with a short window: %v", err)
	}
}
