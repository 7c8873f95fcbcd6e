package scenarios

import (
	"slices"
	"testing"
	"time"
)

const maxRateBase = "name: mr\nconsumer_type: share\nload_mode: max_rate\n"

func TestMaxRateParses(t *testing.T) {
	s := mustLoad(t, maxRateBase+"max_rate: {start: 100, step: 50, max: 300, p99_bound: 400ms}\n", nil, nil)
	m := s.Runs[0].MaxRate
	if m == nil || m.Start != 100 || m.Step != 50 || m.Max != 300 || m.P99Bound != 400*time.Millisecond ||
		m.CompletedRatio != 0.995 || m.Confirm {
		t.Fatalf("max_rate = %+v, want start 100 step 50 max 300 p99 400ms and the defaults", m)
	}
	if got := m.Schedule(); !slices.Equal(got, []float64{100, 150, 200, 250, 300}) {
		t.Errorf("schedule %v", got)
	}
	// rate-mode runs of the same file carry no block
	s = mustLoad(t, "name: mr\nconsumer_type: share\nload_mode: [rate, max_rate]\nmax_rate: {start: 100, factor: 2, max: 1000, confirm: true}\n", nil, nil)
	if s.Runs[0].MaxRate != nil || s.Runs[1].MaxRate == nil || !s.Runs[1].MaxRate.Confirm {
		t.Errorf("runs %+v / %+v", s.Runs[0].MaxRate, s.Runs[1].MaxRate)
	}
	if got := s.Runs[1].MaxRate.Precision; got != DefaultMaxRatePrecision {
		t.Errorf("precision %v, want the default %v when the file leaves it out", got, DefaultMaxRatePrecision)
	}
	s = mustLoad(t, "name: mr\nconsumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, factor: 2, max: 1000, precision: 0}\n", nil, nil)
	if got := s.Runs[0].MaxRate.Precision; got != 0 {
		t.Errorf("precision %v, want 0 as written (the schedule only)", got)
	}
	s = mustLoad(t, "name: mr\nconsumer_type: share\nload_mode: [rate, max_rate]\nmax_rate: {start: 100, factor: 2, max: 1000, confirm: true}\n", nil, nil)
	if got := s.Runs[1].MaxRate.Schedule(); !slices.Equal(got, []float64{100, 200, 400, 800}) {
		t.Errorf("factor schedule %v, want 100 200 400 800", got)
	}
}

func TestMaxRateErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"required block", maxRateBase, []string{"scenario.yaml: max_rate: required with load_mode max_rate"}},
		{"not a map", maxRateBase + "max_rate: 5\n", []string{`scenario.yaml:4: max_rate: expected a map like {start: 100, step: 50, max: 500, p99_bound: 500ms}, got the value "5"`}},
		{"unknown key", maxRateBase + "max_rate: {start: 1, step: 1, max: 2, p99bound: 1s}\n", []string{`unknown key "p99bound" in max_rate (did you mean "p99_bound"?)`}},
		{"start", maxRateBase + "max_rate: {start: 0, step: 1, max: 2}\n", []string{"scenario.yaml:4: max_rate.start: required: the first step's records/s, a number > 0, got 0"}},
		{"step and factor", maxRateBase + "max_rate: {start: 1, step: 1, factor: 2, max: 2}\n", []string{"max_rate.step: give step (records/s added) or factor (rate multiplied), not both"}},
		{"neither", maxRateBase + "max_rate: {start: 1, max: 2}\n", []string{"max_rate.step: required: step (records/s added per step, > 0) or factor (> 1)"}},
		{"factor ≤ 1", maxRateBase + "max_rate: {start: 1, factor: 1, max: 2}\n", []string{"max_rate.factor: must be > 1, got 1"}},
		{"max below start", maxRateBase + "max_rate: {start: 100, step: 1, max: 50}\n", []string{"max_rate.max: required: the highest rate to try, a number ≥ start (100), got 50"}},
		{"bound", maxRateBase + "max_rate: {start: 1, step: 1, max: 2, p99_bound: fast}\n", []string{`max_rate.p99_bound: expected a Go duration like "500ms", got "fast"`}},
		{"ratio", maxRateBase + "max_rate: {start: 1, step: 1, max: 2, completed_ratio: 1.5}\n", []string{"max_rate.completed_ratio: must be in (0, 1], got 1.5"}},
		{"precision above 0.5", maxRateBase + "max_rate: {start: 1, step: 1, max: 2, precision: 0.6}\n", []string{"max_rate.precision: must be in [0, 0.5] (the bisection's end: gap ÷ found rate; 0 for no bisection), got 0.6"}},
		{"negative precision", maxRateBase + "max_rate: {start: 1, step: 1, max: 2, precision: -0.01}\n", []string{"max_rate.precision: must be in [0, 0.5]"}},
		{"precision not a number", maxRateBase + "max_rate: {start: 1, step: 1, max: 2, precision: fine}\n", []string{`max_rate.precision: expected a finite number, got "fine"`}},
		{"number", maxRateBase + "max_rate: {start: lots, step: 1, max: 2}\n", []string{`max_rate.start: expected a finite number, got "lots"`}},
		{"list", maxRateBase + "max_rate: {start: [1, 2], step: 1, max: 2}\n", []string{"max_rate.start: expected a single value, got a list (max_rate is not swept)"}},
		{"too many steps", maxRateBase + "max_rate: {start: 1, step: 1, max: 100}\n", []string{"max_rate: the schedule from 1 to 100 has 100 steps; the limit is 50"}},
		{"unused", "name: mr\nmax_rate: {start: 1, step: 1, max: 2}\n", []string{"max_rate: given, but no run has load_mode max_rate"}},
		{"not overridable", maxRateBase + "max_rate: {start: 1, step: 1, max: 2}\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sets []string
			if tc.want == nil {
				sets, tc.want = []string{"max_rate={start: 5}"}, []string{"--set max_rate={start: 5}: max_rate: written in the scenario file, not overridden"}
			}
			_, err := load(t, tc.yaml, nil, sets)
			wantErr(t, err, tc.want...)
		})
	}
}

func TestRecommendParses(t *testing.T) {
	s := mustLoad(t, `name: r
max_poll_records: [10, 100]
recommend:
  knob: max_poll_records
  maximize: completed_per_sec
  where: ["latency.completion_ms.p99 <= 200ms", "lock_expired_completions==0", "phases.drain_s < 2s", "audit.lost<=0"]
`, nil, nil)
	r := s.Recommend
	want := []Clause{
		{Field: "latency.completion_ms.p99", Op: "<=", Value: 200, Text: "latency.completion_ms.p99 <= 200ms"},
		{Field: "outcomes.lock_expired_completions", Op: "==", Value: 0, Text: "lock_expired_completions==0"},
		{Field: "phases.drain_s", Op: "<", Value: 2, Text: "phases.drain_s < 2s"},
		{Field: "audit.lost", Op: "<=", Value: 0, Text: "audit.lost<=0"},
	}
	if r == nil || r.Knob != "max_poll_records" || r.Maximize != "throughput.completed_per_sec" || !slices.Equal(r.Where, want) {
		t.Fatalf("recommend = %+v", r)
	}
}

func TestRecommendErrors(t *testing.T) {
	base := "name: r\nmax_poll_records: [10, 100]\nrecommend: "
	tests := []struct{ yaml, want string }{
		{base + "{maximize: completed_per_sec}\n", "scenario.yaml:3: recommend.knob: required; a swept scenario key like max_poll_records"},
		{base + "{knob: max_pol_records}\n", `recommend.knob: unknown key "max_pol_records" (did you mean "max_poll_records"`},
		{base + "{knob: members}\n", `recommend.knob: "members" has one value in this scenario (swept: max_poll_records, consumer_type); make it a list`},
		{base + "{knob: max_poll_records, maximize: speed}\n", `recommend.maximize: unknown field "speed"`},
		{base + "{knob: max_poll_records, where: [\"p99 <= 200ms\"]}\n", `recommend.where[1]: clause "p99 <= 200ms": field "p99" is ambiguous`},
		{base + "{knob: max_poll_records, where: [\"latency.completion_ms.p99 =< 200ms\"]}\n", `clause "latency.completion_ms.p99 =< 200ms": expected FIELD OP VALUE`},
		{base + "{knob: max_poll_records, where: [\"latency.completion_ms.p99 <= fast\"]}\n", `value "fast": expected a number or a duration like 200ms`},
		{base + "{knob: max_poll_records, where: [\"audit.lost <= 1s\"]}\n", `value "1s": audit.lost is not a time, give a number`},
		{base + "{knob: max_poll_records, where: [{a: b}]}\n", `recommend.where: a list of clauses like "latency.completion_ms.p99 <= 200ms", got a map`},
		{base + "{knob: max_poll_records, best: yes}\n", `unknown key "best" in recommend`},
	}
	for _, tc := range tests {
		_, err := load(t, tc.yaml, nil, nil)
		wantErr(t, err, tc.want)
	}
}
