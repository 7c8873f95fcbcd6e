package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestRateScheduleAndAutoscaleErrors(t *testing.T) {
	const base = "name: x\nduration: 60s\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"step needs a rate", "rate_schedule:\n  - {duration: 10s}",
			[]string{"scenario.yaml:4: rate_schedule[1]: give rate (a step), from and to (a ramp) or target"}},
		{"bad duration", "rate_schedule:\n  - {duration: 0s, rate: 5}",
			[]string{`scenario.yaml:4: rate_schedule[1].duration: expected a Go duration > 0`}},
		{"target first", "rate_schedule:\n  - {duration: 10s, target: 5}",
			[]string{"rate_schedule[1].target: a k6 stage ramps from the previous step's rate, and this is the first step"}},
		{"unknown key", "rate_schedule:\n  - {duration: 10s, rat: 5}", []string{`scenario.yaml:4: rate_schedule[1]: unknown key "rat"`}},
		{"spike ramp", "rate_schedule:\n  - {duration: 10s, from: 1, to: 5, spike: true}", []string{"rate_schedule[1].spike: marks a step"}},
		{"nested repeat", "rate_schedule:\n  - {repeat: 2, steps: [{repeat: 2, steps: [{duration: 1s, rate: 1}]}]}",
			[]string{"rate_schedule[1].steps[1]: a repeat inside a repeat"}},
		{"longer than the window", "rate_schedule:\n  - {repeat: 7, steps: [{duration: 10s, rate: 100}]}",
			[]string{"scenario.yaml:3: rate_schedule: lasts 1m10s, longer than duration (1m0s)"}},
		{"no records", "rate_schedule:\n  - {duration: 10s, rate: 0}",
			[]string{"rate_schedule: sends 0 records in the measurement window, fewer than the 1 producers"}},
		{"max not above min", "autoscale: {threshold: 100, min: 4, max: 4}",
			[]string{"scenario.yaml:3: autoscale.max: must be > min (4): with max ≤ min the scaler can never act, got 4"}},
		{"M not above N", "autoscale: {threshold: 100, max: 4, out_after: 10s, in_after: 10s}",
			[]string{"autoscale.in_after: must be > out_after (10s)", "(M > N), got 10s"}},
		{"window longer than the run", "autoscale: {threshold: 100, max: 4, window: 2m, in_after: 3m}",
			[]string{"autoscale.window: must be > 0 and shorter than duration (1m0s)"}},
		{"threshold required", "autoscale: {max: 4}", []string{"scenario.yaml:3: autoscale.threshold: required with signal lag"}},
		{"goal required", "autoscale: {signal: etd, max: 4}", []string{"autoscale.goal: required with signal etd"}},
		{"bad signal", "autoscale: {signal: cpu, threshold: 1, max: 4}", []string{`autoscale.signal: expected lag or etd, got "cpu"`}},
		{"members outside", "autoscale: {threshold: 100, min: 5, max: 8}",
			[]string{"autoscale.min: the run starts with members 4, which must lie in [min, max] = [5, 8]"}},
		{"consumer cap", "consumer_type: consumer\npartitions: 1\nmembers: 1\nautoscale: {threshold: 100, max: 4}",
			[]string{"autoscale.max: the cap of rule 3 is 1 replicas (consumer group: 1 partitions"}},
		{"crash with the java runner", "client: java\nautoscale: {threshold: 100, max: 8, remove: crash}",
			[]string{"autoscale.remove: crash needs client franz-go"}},
		{"no rate run", "load_mode: backlog\nbacklog_records: 10\nautoscale: {threshold: 100, max: 4}",
			[]string{"autoscale: given, but no run has load_mode rate"}},
		// Ranges are checked on the parsed block (checkAutoscale), with the
		// key's line, so a run.json's spec meets the same bounds.
		{"negative threshold", "autoscale: {threshold: -5, max: 4}",
			[]string{"scenario.yaml:3: autoscale.threshold: expected a finite number of records > 0, got -5"}},
		{"NaN threshold", "autoscale: {threshold: NaN, max: 4}", []string{"autoscale.threshold: expected a finite number of records > 0, got \"NaN\""}},
		{"NaN in_below", "autoscale: {threshold: 5, in_below: NaN, max: 4}", []string{"autoscale.in_below: expected a finite number of records ≥ 0, got \"NaN\""}},
		{"negative cooldown", "autoscale: {threshold: 5, max: 4, cooldown: -1s}",
			[]string{"autoscale.cooldown: expected a Go duration ≥ 0 and ≤ 168h (7 days, the harness's limit), got -1s"}},
		{"huge max_latency", "autoscale: {threshold: 5, max: 4, max_latency: 200h}", []string{"autoscale.max_latency: expected a Go duration ≥ 0 and ≤ 168h"}},
		{"step 0", "autoscale: {threshold: 5, max: 4, step: 0}", []string{"autoscale.step: expected an integer from 1 to 10000 (the harness's member limit), got 0"}},
		{"unparsable poll", "autoscale: {threshold: 5, max: 4, poll: soon}", []string{`autoscale.poll: expected a Go duration ≥ 0 and ≤ 168h like 10s, got "soon"`}},
		{"skew with hashed", "key_mode: hashed\nkeys: 10\npartition_skew: 1", []string{"partition_skew: key_mode hashed partitions records by their key"}},
		{"skew negative", "partition_skew: -1", []string{"scenario.yaml:3: partition_skew: must be a Zipf exponent from 0 (no skew) to 10, got -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, base+tt.yaml+"\n", nil, nil)
			wantErr(t, err, tt.want...)
		})
	}
}

// A default derived from another value is never blamed for it: in_below's
// (threshold ÷ 10) for a bad threshold, flap_window's (cooldown +
// in_after) for a long cooldown.
func TestAutoscaleDefaultsNotBlamed(t *testing.T) {
	_, err := load(t, "name: x\nduration: 60s\nautoscale: {threshold: -5, max: 4}\n", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "autoscale.threshold") || strings.Contains(err.Error(), "in_below") {
		t.Errorf("threshold -5: %v; want threshold blamed, in_below not", err)
	}
	s := mustLoad(t, "name: x\nduration: 60s\nautoscale: {threshold: 5, max: 4, cooldown: 168h}\n", nil, nil)
	if a := s.Runs[0].Autoscale; a.FlapWindow != 168*time.Hour {
		t.Errorf("flap_window %v, want the 168h bound", a.FlapWindow)
	}
}

func TestRateScheduleExpands(t *testing.T) {
	s := mustLoad(t, `name: x
duration: 60s
rate_schedule:
  - {duration: 10s, rate: 100}
  - {duration: 5s, rate: 900, spike: true}
  - {repeat: 2, steps: [{duration: 5s, from: 100, to: 300}, {duration: 5s, target: 100}]}
`, nil, nil)
	r := s.Runs[0]
	want := []RateStep{{10 * time.Second, 100, 100, false}, {5 * time.Second, 900, 900, true},
		{5 * time.Second, 100, 300, false}, {5 * time.Second, 300, 100, false},
		{5 * time.Second, 100, 300, false}, {5 * time.Second, 300, 100, false}}
	if len(r.RateSchedule) != len(want) {
		t.Fatalf("schedule %+v, want %+v", r.RateSchedule, want)
	}
	for i := range want {
		if r.RateSchedule[i] != want[i] {
			t.Errorf("step %d: %+v, want %+v", i, r.RateSchedule[i], want[i])
		}
	}
	if r.Rate != 900 {
		t.Errorf("rate %v, want the peak 900", r.Rate)
	}
	// 1000 + 4500 + 4 ramps of 1000 + 25 s at the last rate 100 = 12000.
	if n := ScheduledRecords(r.RateSchedule, r.Duration); n != 12000 {
		t.Errorf("records in the window %v, want 12000", n)
	}
	if got := ScheduledRateAt(r.RateSchedule, 17500*time.Millisecond); got != 200 {
		t.Errorf("rate at 17.5 s = %v, want 200 (half the ramp)", got)
	}
}

func TestAutoscaleDefaultsAndCaps(t *testing.T) {
	s := mustLoad(t, `name: x
duration: 60s
consumer_type: [consumer, share]
partitions: 2
members: 1
workers: 2
autoscale: {threshold: 400, max: 20}
`, nil, nil)
	a := s.Runs[0].Autoscale
	if a.InBelow != 40 || a.FlapWindow != 45*time.Second || a.Poll != time.Second || a.Step != 1 || a.Min != 1 {
		t.Errorf("defaults: %+v", a)
	}
	for _, r := range s.Runs {
		c := r.AutoscaleCap()
		switch r.ConsumerType {
		case "consumer":
			if c.Replicas != 2 || r.AutoscaleMax() != 2 {
				t.Errorf("consumer cap %+v, max %d; want 2 (the partitions)", c, r.AutoscaleMax())
			}
		default: // min(200, ceil(2 × 2000 ÷ 2)) = 200
			if c.Replicas != 200 || r.AutoscaleMax() != 20 {
				t.Errorf("share cap %+v, max %d; want 200 (group.share.max.size) and 20", c, r.AutoscaleMax())
			}
		}
	}
}
