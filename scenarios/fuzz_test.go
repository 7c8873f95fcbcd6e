package scenarios

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are the built-in and example scenarios, and issue 10's bad inputs.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, n := range BuiltinNames() {
		data, err := BuiltinSource(n)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	examples, _ := filepath.Glob(filepath.Join("examples", "*.yaml"))
	for _, p := range examples {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	for _, s := range []string{
		"name: x\nmembers: 010\n",
		"name: x\nmembers: 0x10\npartitions: 0o7\n",
		"name: x\n---\nmembers: 8\n",
		"name: x\nevents:\n  - {at: 1s, action: slow, factor: 1e308, duration: 2s}\n",
		"name: x\nduration: 1ns\n",
		"name: x\nrate: 1e-300\n",
		"name: x\nrate: .inf\nmembers: 1e300\nworkers: -1e300\npartitions: .nan\n",
		"name: x\nload_mode: backlog\nbacklog_records: 1e15\n",
		"name: x\nload_mode: max_rate\nmax_rate: {start: 1, step: 1e-300, max: 1e300}\n",
		"name: x\nbroker_config: {group.share.max.size: 0100}\n",
		"name: x\nmembers: &m [1, 2]\nworkers: *m\nsweep: {together: [[members, workers]]}\n",
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// checkAccepted asserts what every accepted scenario guarantees: each run
// passes RunSpec.Validate and stays inside the harness's limits.
func checkAccepted(t *testing.T, s *Scenario) {
	t.Helper()
	if len(s.Runs) == 0 || len(s.Runs) > MaxRuns {
		t.Fatalf("accepted with %d runs", len(s.Runs))
	}
	for i, r := range s.Runs {
		if err := r.Validate(); err != nil {
			t.Fatalf("run %d accepted but Validate fails: %v", i+1, err)
		}
		in := func(key string, v, lo, hi int) {
			if v < lo || v > hi {
				t.Fatalf("run %d: %s = %d outside %d–%d", i+1, key, v, lo, hi)
			}
		}
		in("partitions", r.Partitions, 1, 10000)
		in("producers", r.Producers, 1, 1000)
		in("members", r.Members, 1, 10000)
		in("members with joins", r.MaxMembers(), 1, 10000)
		in("workers", r.Workers, 1, 10000)
		in("max_poll_records", r.MaxPollRecords, 1, 10000)
		in("max_in_flight", r.MaxInFlight, 0, 100_000_000)
		in("message_size", r.MessageSize, 40, 1<<20)
		in("batch_size", r.BatchSize, 1, 1<<30)
		in("backlog_records", r.BacklogRecords, 0, 10_000_000_000)
		if !(r.Rate > 0 && r.Rate <= 1e7) {
			t.Fatalf("run %d: rate %v", i+1, r.Rate)
		}
		if r.LoadMode == "rate" && r.Rate*r.Duration.Seconds() < float64(r.Producers) {
			t.Fatalf("run %d: rate %v × duration %v < producers %d", i+1, r.Rate, r.Duration, r.Producers)
		}
		for _, d := range []struct {
			key string
			v   float64
		}{{"warmup", r.Warmup.Hours()}, {"duration", r.Duration.Hours()}, {"drain_timeout", r.DrainTimeout.Hours()}} {
			if d.v < 0 || d.v > 168 {
				t.Fatalf("run %d: %s = %vh", i+1, d.key, d.v)
			}
		}
		if !r.Backlog() && r.Duration.Seconds() < 1 {
			t.Fatalf("run %d: duration %v < 1s", i+1, r.Duration)
		}
		for _, f := range []float64{r.TransientRate, r.PoisonRate} {
			if !(f >= 0 && f < 1) {
				t.Fatalf("run %d: outcome rate %v", i+1, f)
			}
		}
		if m := r.MaxRate; m != nil {
			for _, v := range []float64{m.Start, m.Step, m.Max, m.Factor} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e7 {
					t.Fatalf("run %d: max_rate %+v", i+1, *m)
				}
			}
			if n := len(m.Schedule()); n < 1 || n > MaxRateSteps {
				t.Fatalf("run %d: max_rate schedule of %d steps", i+1, n)
			}
		}
		for _, e := range r.Events {
			if e.Action == ActionSlow && !(e.Factor > 1 && e.Factor <= 1000) {
				t.Fatalf("run %d: slow factor %v", i+1, e.Factor)
			}
			if e.At < 0 || e.At >= r.Duration || e.Duration < 0 || e.Duration.Hours() > 168 {
				t.Fatalf("run %d: event %+v", i+1, e)
			}
		}
		_ = s.RunName(i)
	}
}

// FuzzLoadBytes: any file bytes give a scenario or an error, never a panic,
// and an accepted scenario's runs are valid and inside the limits.
func FuzzLoadBytes(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := LoadBytes("fuzz.yaml", data, nil, nil)
		if err != nil {
			if s != nil {
				t.Fatalf("both a scenario and an error: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the source: %v", err)
			}
			return
		}
		checkAccepted(t, s)
	})
}

// FuzzOverrides: --set strings and SHAREBENCH_* values on top of a built-in
// give a scenario or an error naming the source, never a panic.
func FuzzOverrides(f *testing.F) {
	names := BuiltinNames()
	seeds := []struct {
		set1, set2, envKey, envVal string
	}{
		{"max_poll_records=0", "", "MAX_POLL_RECORDS", "0"},
		{"members=010", "rate=1e-300", "DURATION", "1ns"},
		{"processing.model=exponential", "processing.mean=5ms", "BROKER_CONFIG_GROUP_SHARE_MAX_SIZE", "0100"},
		{"rate=[1, 1e300]", "partitions=1e15", "EXPECT", "[x]"},
		{"broker_config.group.share.max.size=500", "members=300", "SWEEP_TOGETHER", "[[members, workers]]"},
		{"consumer_type=share", "load_mode=backlog", "BACKLOG_RECORDS", "1e10"},
		{"load_mode=max_rate", "duration=1s", "MAX_RATE", "{start: 1}"},
		{"processing=[{model: none}]", "warmup=0", "PROCESSING_TIME", "5ms"},
		{"sweep={together: [[members, workers]]}", "members=[1,2]", "WORKERS", "[1, 2]"},
		{"rate=5\n---\n6", "name=y", "REPEAT", "3"},
	}
	for i, s := range seeds {
		f.Add(uint8(i), s.set1, s.set2, s.envKey, s.envVal)
	}
	f.Fuzz(func(t *testing.T, builtin uint8, set1, set2, envKey, envVal string) {
		name := names[int(builtin)%len(names)]
		var sets []string
		for _, s := range []string{set1, set2} {
			if s != "" {
				sets = append(sets, s)
			}
		}
		env := []string{EnvPrefix + envKey + "=" + envVal}
		s, err := BuiltinWith(name, env, sets)
		if err != nil {
			if s != nil {
				t.Fatalf("both a scenario and an error: %v", err)
			}
			if !strings.HasPrefix(err.Error(), BuiltinPrefix+name) {
				t.Fatalf("error does not name the source: %v", err)
			}
			return
		}
		checkAccepted(t, s)
	})
}
