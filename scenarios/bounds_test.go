package scenarios

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// aliasBomb is a ~35 KB scenario whose rate_schedule aliases one anchored
// {repeat: 10000} item thousands of times: 70 million steps once written
// out, which were expanded (and ran out of memory) before the limit was
// checked.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("name: x\nduration: 60s\nrate_schedule:\n  - &a {repeat: 10000, steps: [{duration: 1ms, rate: 1}]}\n")
	for b.Len() < 35<<10 {
		b.WriteString("  - *a\n")
	}
	return b.String()
}

func TestRateScheduleAliasBombRefusedBeforeExpansion(t *testing.T) {
	bomb := aliasBomb()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := load(t, bomb, nil, nil)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	wantErr(t, err, "scenario.yaml:4: rate_schedule: ", "steps once repeats and aliases are written out; the harness's limit is 10000")
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("refusing a %d-byte file allocated %d MiB: the schedule was expanded before its count was checked", len(bomb), alloc>>20)
	}
	if took > 5*time.Second {
		t.Errorf("refusing took %v", took)
	}
}

func TestRateScheduleCountedAsWritten(t *testing.T) {
	const base = "name: x\nduration: 168h\n"
	tests := []struct{ name, yaml, want string }{
		{"aliased repeats", "rate_schedule:\n  - &a {repeat: 5000, steps: [{duration: 1s, rate: 1}]}\n  - *a\n  - *a\n",
			"rate_schedule: 15000 steps once repeats and aliases are written out"},
		{"aliased steps list", "rate_schedule:\n  - {repeat: 4000, steps: &s [{duration: 1s, rate: 1}, {duration: 1s, rate: 2}]}\n  - {repeat: 2000, steps: *s}\n",
			"rate_schedule: 12000 steps"},
		{"aliased steps inside a repeat", "rate_schedule:\n  - &p {duration: 1s, rate: 1}\n  - {repeat: 5000, steps: [*p, *p, *p]}\n",
			"rate_schedule: 15001 steps"},
		{"one repeat too many", "rate_schedule:\n  - {repeat: 10000, steps: [{duration: 1s, rate: 1}, {duration: 1s, rate: 2}]}\n",
			"rate_schedule: 20000 steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, base+tt.yaml, nil, nil)
			wantErr(t, err, "scenario.yaml:4: "+tt.want, "the harness's limit is 10000")
		})
	}
	// At the limit exactly, it loads.
	s := mustLoad(t, base+"rate_schedule:\n  - &a {repeat: 5000, steps: [{duration: 1s, rate: 1}]}\n  - *a\n", nil, nil)
	if n := len(s.Runs[0].RateSchedule); n != 10000 {
		t.Errorf("%d steps, want 10000", n)
	}
}

// TestListsBoundedAsWritten: the other lists an alias could lengthen are
// refused from their length before anything is built from them.
func TestListsBoundedAsWritten(t *testing.T) {
	aliases := func(n int) string { return strings.Repeat(", *a", n) }
	tests := []struct{ name, yaml, want string }{
		{"events", "events: [&a {at: 1s, action: join}" + aliases(1000) + "]",
			"scenario.yaml:3: events: 1001 items (aliases counted as the items they name); at most 1000"},
		{"expect", "expect: [&a {name: x, measure: {field: lost, max: 0}}" + aliases(1000) + "]",
			"scenario.yaml:3: expect: 1001 items (aliases counted as the items they name); at most 1000"},
		{"a matrix dimension", "max_poll_records: [&a 10" + aliases(10000) + "]",
			"scenario.yaml:3: max_poll_records: 10001 items (aliases counted as the items they name); at most 10000"},
		{"processing models", "processing: [&a {model: constant, time: 1ms}" + aliases(10000) + "]",
			"scenario.yaml:3: processing: 10001 items"},
		{"hot_keys maps", "key_mode: hashed\nhot_keys: [&a {share: 0.2, keys: 3}" + aliases(10000) + "]",
			"scenario.yaml:4: hot_keys: 10001 items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, "name: x\nduration: 60s\n"+tt.yaml+"\n", nil, nil)
			wantErr(t, err, tt.want)
		})
	}
}

// TestAliasedMistakeReportedOnce: an anchored bad item aliased many times
// is one problem in the error, not one per alias.
func TestAliasedMistakeReportedOnce(t *testing.T) {
	_, err := load(t, "name: x\nduration: 60s\nevents:\n  - &a {at: 1s, action: explode}\n"+strings.Repeat("  - *a\n", 500), nil, nil)
	wantErr(t, err, `scenario.yaml:4: events[1].action: expected one of`)
	if n := strings.Count(err.Error(), "expected one of"); n != 1 {
		t.Errorf("the aliased mistake is reported %d times, want once:\n%.500s", n, err)
	}
}

// TestNonFiniteRefused: NaN and ±Inf are refused for every float key, each
// at its own line and key, in the file and in an override. (The run knobs,
// rate to partition_skew, were refused by their range checks already; the
// blocks' keys passed NaN.)
func TestNonFiniteRefused(t *testing.T) {
	const base = "name: x\nduration: 60s\n"
	tests := []struct{ name, yaml, want string }{
		{"autoscale.threshold NaN", "autoscale: {max: 8,\n  threshold: NaN}", `scenario.yaml:4: autoscale.threshold: expected a finite number of records > 0, got "NaN"`},
		{"autoscale.threshold inf", "autoscale: {max: 8,\n  threshold: inf}", `scenario.yaml:4: autoscale.threshold: expected a finite number of records > 0, got "inf"`},
		{"autoscale.in_below NaN", "autoscale: {max: 8, threshold: 10,\n  in_below: NaN}", `scenario.yaml:4: autoscale.in_below: expected a finite number of records ≥ 0, got "NaN"`},
		{"autoscale.in_below Infinity", "autoscale: {max: 8, threshold: 10,\n  in_below: Infinity}", `scenario.yaml:4: autoscale.in_below: expected a finite number of records ≥ 0, got "Infinity"`},
		{"schedule rate NaN", "rate_schedule:\n  - {duration: 10s, rate: 5}\n  - {duration: 10s, rate: NaN}",
			`scenario.yaml:5: rate_schedule[2].rate: expected records/s from 0 to 10000000 (the harness's limit), got "NaN"`},
		{"schedule from nan", "rate_schedule:\n  - {duration: 10s, from: nan, to: 5}", `scenario.yaml:4: rate_schedule[1].from: expected records/s`},
		{"schedule target NaN in a repeat", "rate_schedule:\n  - {duration: 10s, rate: 5}\n  - {repeat: 2, steps: [{duration: 1s, target: NaN}]}",
			`scenario.yaml:5: rate_schedule[2].steps[1].target: expected records/s`},
		{"event factor NaN", "events: [{at: 1s, action: slow, duration: 2s, factor: NaN}]", `scenario.yaml:3: events[1].factor: expected a number > 1`},
		{"expect max NaN", "expect: [{name: a, measure: {field: lost,\n  max: NaN}}]", `scenario.yaml:4: expect[1] (a): measure.max: expected a finite number, got the value "NaN"`},
		{"expect min -inf", "expect: [{name: a, measure: {field: lost, min: -inf}}]", `expect[1] (a): measure.min: expected a finite number, got the value "-inf"`},
		{"max_rate.step NaN", "load_mode: max_rate\nmax_rate: {start: 100, max: 200,\n  step: NaN}", `scenario.yaml:5: max_rate.step: expected a finite number, got "NaN"`},
		{"max_rate.completed_ratio NaN", "load_mode: max_rate\nmax_rate: {start: 100, max: 200, step: 10, completed_ratio: NaN}", `max_rate.completed_ratio: expected a finite number, got "NaN"`},
		{"recommend clause NaN", "members: [1, 2]\nrecommend: {knob: members, maximize: completed_per_sec, where: [\"lost <= NaN\"]}",
			`recommend.where[1]: clause "lost <= NaN": value NaN is not a finite number`},
		{"transient_rate .nan", "transient_rate: .nan", "scenario.yaml:3: transient_rate: must be in [0, 1) (a probability), got NaN"},
		{"partition_skew .inf", "partition_skew: .inf", "scenario.yaml:3: partition_skew: must be a Zipf exponent from 0 (no skew) to 10, got +Inf"},
		{"stuck_rate in a list", "stuck_rate: [0, .nan]", "stuck_rate=NaN, consumer_type=share): stuck_rate: must be in [0, 1) (a probability), got NaN"},
		{"hot_keys.share .nan", "key_mode: hashed\nhot_keys: {share: .nan, keys: 3}", "scenario.yaml:4: hot_keys.share: must be in [0, 1] (the share of records sent to the hot keys), got NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, base+tt.yaml+"\n", nil, nil)
			wantErr(t, err, tt.want)
		})
	}
	_, err := load(t, base, nil, []string{"poison_rate=.nan"})
	wantErr(t, err, "scenario.yaml (--set poison_rate=.nan): poison_rate: must be in [0, 1) (a probability), got NaN")
	_, err = load(t, base, []string{"SHAREBENCH_RATE=-.inf"}, nil)
	wantErr(t, err, "scenario.yaml (SHAREBENCH_RATE=-.inf): rate: must be > 0 records/s, got -Inf")
}

// TestScheduleBlamedOnItself: a schedule whose steps send nothing is
// blamed on rate_schedule, not on the rate line it replaces.
func TestScheduleBlamedOnItself(t *testing.T) {
	_, err := load(t, "name: x\nduration: 60s\nrate_schedule:\n  - {duration: 10s, rate: 0}\n  - {duration: 10s, from: 0, to: 0}\n", nil, nil)
	wantErr(t, err, "scenario.yaml:3: rate_schedule: sends 0 records in the measurement window")
	if strings.Contains(err.Error(), "rate: must be") {
		t.Errorf("an all-zero schedule is blamed on rate:\n%v", err)
	}
	_, err = load(t, "name: x\nduration: 60s\nrate_schedule:\n  - {duration: 10s, rate: 0.01}\n", nil, nil)
	wantErr(t, err, "scenario.yaml:3: rate_schedule: sends 0.6 records in the measurement window")
	if strings.Contains(err.Error(), "rate: ") {
		t.Errorf("a schedule too thin for its producers is blamed on rate:\n%v", err)
	}
}

// TestOverridesObeyTheFileRules: what a file is refused for, the same file
// with an override is refused for too, naming the key and the override.
func TestOverridesObeyTheFileRules(t *testing.T) {
	const schedule = "name: x\nduration: 60s\nrate_schedule:\n  - {duration: 10s, rate: 100}\n"
	const scaler = "name: x\nduration: 60s\nautoscale: {threshold: 100, max: 8}\n"
	tests := []struct {
		name, yaml string
		env, sets  []string
		want       string
	}{
		{"--set load_mode drops a schedule", schedule, nil, []string{"load_mode=backlog", "backlog_records=100"},
			"scenario.yaml (--set load_mode=backlog): rate_schedule: given, but no run has load_mode rate"},
		{"the environment drops a schedule", schedule, []string{"SHAREBENCH_LOAD_MODE=backlog", "SHAREBENCH_BACKLOG_RECORDS=100"}, nil,
			"scenario.yaml (SHAREBENCH_LOAD_MODE=backlog): rate_schedule: given, but no run has load_mode rate"},
		{"--set load_mode drops a scaler", scaler, nil, []string{"load_mode=backlog", "backlog_records=100"},
			"scenario.yaml (--set load_mode=backlog): autoscale: given, but no run has load_mode rate"},
		{"--set load_mode drops a max_rate block", "name: x\nconsumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, step: 50, max: 300}\n",
			nil, []string{"load_mode=rate"}, "scenario.yaml (--set load_mode=rate): max_rate: given, but no run has load_mode max_rate"},
		{"--set consumer_type drops a dead_letter block", "name: x\nconsumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x}\n",
			nil, []string{"consumer_type=consumer"}, "scenario.yaml (--set consumer_type=consumer): dead_letter: given, but no run has consumer_type share"},
		{"--set rate beside a schedule", schedule, nil, []string{"rate=500"},
			"scenario.yaml (--set rate=500): rate: ignored beside rate_schedule (scenario.yaml:3), which replaces it"},
		{"SHAREBENCH_RATE beside a schedule", schedule, []string{"SHAREBENCH_RATE=500"}, nil,
			"scenario.yaml (SHAREBENCH_RATE=500): rate: ignored beside rate_schedule (scenario.yaml:3)"},
		{"rate beside a schedule in the file", "name: x\nduration: 60s\nrate: 50\nrate_schedule:\n  - {duration: 10s, rate: 100}\n", nil, nil,
			"scenario.yaml:3: rate: ignored beside rate_schedule (scenario.yaml:4)"},
		{"the file's own load_mode", "name: x\nduration: 60s\nload_mode: backlog\nbacklog_records: 10\nrate_schedule:\n  - {duration: 10s, rate: 100}\n", nil, nil,
			"scenario.yaml:5: rate_schedule: given, but no run has load_mode rate"},
		{"--set duration shorter than the schedule", schedule, nil, []string{"duration=5s"},
			"scenario.yaml:3: rate_schedule: lasts 10s, longer than duration (5s): the steps after the window would never be sent; shorten them or raise duration; duration is from --set duration=5s"},
		{"--set members outside the scaler's range", scaler, nil, []string{"members=20"},
			"scenario.yaml:3: autoscale.min: the run starts with members 20, which must lie in [min, max] = [1, 8]; members is from --set members=20"},
		{"the environment's client beside remove: crash", "name: x\nduration: 60s\nautoscale: {threshold: 100, max: 8, remove: crash}\n",
			[]string{"SHAREBENCH_CLIENT=java"}, nil, "use remove: leave; client is from SHAREBENCH_CLIENT=java"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, tt.env, tt.sets)
			wantErr(t, err, tt.want)
		})
	}
	// An override that keeps a rate run beside the others is accepted, as
	// the same list in the file is.
	mustLoad(t, schedule, nil, []string{"load_mode=[rate, backlog]", "backlog_records=100"})
}

// TestRepeatTargetRampsFromThePreviousIteration: a k6 stage inside a repeat
// ramps, in each iteration after the first, from where the previous
// iteration ended, as k6's stages do; it used to ramp from the rate before
// the repeat every time (100 → 300, 300 → 50, then 100 → 300 again: a jump
// from 50 to 100).
func TestRepeatTargetRampsFromThePreviousIteration(t *testing.T) {
	s := mustLoad(t, `name: x
duration: 60s
rate_schedule:
  - {duration: 10s, rate: 100}
  - {repeat: 3, steps: [{duration: 5s, target: 300}, {duration: 5s, target: 50}]}
  - {duration: 5s, target: 200}
`, nil, nil)
	sec := 5 * time.Second
	want := []RateStep{{2 * sec, 100, 100, false},
		{sec, 100, 300, false}, {sec, 300, 50, false},
		{sec, 50, 300, false}, {sec, 300, 50, false},
		{sec, 50, 300, false}, {sec, 300, 50, false},
		{sec, 50, 200, false}}
	got := s.Runs[0].RateSchedule
	if len(got) != len(want) {
		t.Fatalf("schedule %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
	// A spike target that is a step in the first iteration only is refused.
	_, err := load(t, "name: x\nduration: 60s\nrate_schedule:\n  - {duration: 10s, rate: 100}\n"+
		"  - {repeat: 2, steps: [{duration: 5s, target: 100, spike: true}, {duration: 5s, rate: 50}]}\n", nil, nil)
	wantErr(t, err, "scenario.yaml:5: rate_schedule[2].steps[1].spike: marks a step (rate: R), not a ramp: iteration 2 of the repeat ramps it from 50 to 100")
}
