package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
)

// The hostile cases of issue 36 on loading: rate schedules (alias bombs,
// non-finite numbers, the k6 ramp across repeats) and overrides (--set and
// SHAREBENCH_* under the file's rules).
func init() {
	hostileGroups = append(hostileGroups, func(t *testing.T, k hostileKit) []hostileCase {
		var cs []hostileCase
		dry := func(p string, extra ...string) []string {
			return append([]string{"run", "--provider", "kfake", "--dry-run", "--scenario", p}, extra...)
		}
		aliases := func(item string, n int) string { return strings.Repeat("  - "+item+"\n", n) }
		const head = "name: t\nduration: 60s\n"

		// Rate schedules.
		const rs = "rate schedules"
		sched := func(name, body string, want int, says string, extra ...string) {
			p := k.file("rs/"+strings.NewReplacer(" ", "_", "/", "_", ".", "_").Replace(name)+".yaml", body)
			cs = append(cs, hostileCase{group: rs, name: name, args: dry(p, extra...), want: want, says: says})
		}
		var bomb strings.Builder
		bomb.WriteString(head + "rate_schedule:\n  - &a {repeat: 10000, steps: [{duration: 1ms, rate: 1}]}\n")
		for bomb.Len() < 35<<10 {
			bomb.WriteString("  - *a\n")
		}
		bombFile := k.file("rs/bomb35k.yaml", bomb.String())
		cs = append(cs,
			hostileCase{group: rs, name: "35 KB alias bomb of {repeat: 10000}, dry run", args: dry(bombFile), want: ExitUsage,
				says: "steps once repeats and aliases are written out; the harness's limit is 10000"},
			hostileCase{group: rs, name: "35 KB alias bomb, scenarios show", args: []string{"scenarios", "show", bombFile}, want: ExitUsage,
				says: "rate_schedule: "},
			hostileCase{group: rs, name: "35 KB alias bomb, autoscale render --scenario",
				args: []string{"autoscale", "render", "--scenario", bombFile, "--deployment", "d", "--group", "g", "--topic", "t"}, want: ExitUsage,
				says: "the harness's limit is 10000"},
		)
		sched("aliased steps list", head+"rate_schedule:\n  - {repeat: 5000, steps: &s [{duration: 1ms, rate: 1}, {duration: 1ms, rate: 2}]}\n"+aliases("{repeat: 5000, steps: *s}", 50),
			ExitUsage, "rate_schedule: 510000 steps")
		sched("aliased steps inside a repeat", head+"rate_schedule:\n  - &p {duration: 1ms, rate: 1}\n  - {repeat: 10000, steps: [*p, *p, *p, *p]}\n",
			ExitUsage, "rate_schedule: 40001 steps")
		sched("one repeat of 10000 × 2", head+"rate_schedule:\n  - {repeat: 10000, steps: [{duration: 1ms, rate: 1}, {duration: 1ms, rate: 2}]}\n",
			ExitUsage, "rate_schedule: 20000 steps")
		sched("anchored repeat aliased inside a repeat", head+"rate_schedule:\n  - &r {repeat: 2, steps: [{duration: 1s, rate: 1}]}\n  - {repeat: 2, steps: [*r, *r]}\n",
			ExitUsage, "a repeat inside a repeat")
		sched("exactly 10000 steps through aliases", "name: t\nduration: 30s\nrate_schedule:\n  - &a {repeat: 5000, steps: [{duration: 1ms, rate: 1000}]}\n  - *a\n",
			ExitOK, "dry run: nothing started")
		sched("rate_schedule aliased to a map", head+"autoscale: &m {threshold: 100, max: 8}\nrate_schedule: *m\n",
			ExitUsage, "rate_schedule: expected a non-empty list of steps")
		sched("events alias bomb", head+"events:\n  - &a {at: 1s, action: join}\n"+aliases("*a", 5000), ExitUsage,
			"events: 5001 items (aliases counted as the items they name); at most 1000")
		sched("expect alias bomb", head+"expect:\n  - &a {name: x, measure: {field: lost, max: 0}}\n"+aliases("*a", 5000), ExitUsage,
			"expect: 5001 items")
		sched("matrix dimension alias bomb", head+"max_poll_records:\n  - &a 10\n"+aliases("*a", 20000), ExitUsage,
			"max_poll_records: 20001 items (aliases counted as the items they name); at most 10000")
		sched("processing list alias bomb", head+"processing:\n  - &a {model: constant, time: 1ms}\n"+aliases("*a", 20000), ExitUsage,
			"processing: 20001 items")
		sched("recommend.where alias bomb", head+"members: [1, 2]\nrecommend:\n  knob: members\n  maximize: completed_per_sec\n  where:\n    - &w \"lost <= 0\"\n"+
			strings.Repeat("    - *w\n", 3000), ExitUsage, "recommend.where: 3001 items")
		sched("NaN step rate", head+"rate_schedule:\n  - {duration: 10s, rate: 5}\n  - {duration: 10s, rate: NaN}\n", ExitUsage,
			"rs/NaN_step_rate.yaml:5: rate_schedule[2].rate: expected records/s from 0 to 10000000")
		sched("nan ramp from", head+"rate_schedule:\n  - {duration: 10s, from: nan, to: 5}\n", ExitUsage, ":4: rate_schedule[1].from: expected records/s")
		sched("Infinity target in a repeat", head+"rate_schedule:\n  - {duration: 10s, rate: 5}\n  - {repeat: 2, steps: [{duration: 1s, target: Infinity}]}\n",
			ExitUsage, ":5: rate_schedule[2].steps[1].target: expected records/s")
		sched("all-zero schedule", head+"rate_schedule:\n  - {duration: 10s, rate: 0}\n  - {duration: 10s, from: 0, to: 0}\n", ExitUsage,
			":3: rate_schedule: sends 0 records in the measurement window")
		sched("negative step", head+"rate_schedule:\n  - {duration: 10s, rate: -5}\n", ExitUsage, "rate_schedule[1].rate: expected records/s from 0")
		sched("schedule longer than the window", head+"rate_schedule:\n  - {repeat: 7, steps: [{duration: 10s, rate: 100}]}\n", ExitUsage,
			"rate_schedule: lasts 1m10s, longer than duration (1m0s)")
		sched("spike target ramping in iteration 2", head+"rate_schedule:\n  - {duration: 10s, rate: 100}\n  - {repeat: 2, steps: [{duration: 5s, target: 100, spike: true}, {duration: 5s, rate: 50}]}\n",
			ExitUsage, "iteration 2 of the repeat ramps it from 50 to 100")
		sched("rate beside rate_schedule in the file", head+"rate: 50\nrate_schedule:\n  - {duration: 10s, rate: 100}\n", ExitUsage,
			":3: rate: ignored beside rate_schedule")
		sched("rate_schedule with the file's load_mode backlog", head+"load_mode: backlog\nbacklog_records: 10\nrate_schedule:\n  - {duration: 10s, rate: 100}\n",
			ExitUsage, ":5: rate_schedule: given, but no run has load_mode rate")
		for _, c := range []struct{ name, body, says string }{
			{"autoscale.threshold NaN", "autoscale: {max: 8, threshold: NaN}", `autoscale.threshold: expected a finite number of records > 0, got "NaN"`},
			{"autoscale.threshold Infinity", "autoscale: {max: 8, threshold: Infinity}", `autoscale.threshold: expected a finite number of records > 0, got "Infinity"`},
			{"autoscale.in_below NaN", "autoscale: {max: 8, threshold: 10, in_below: NaN}", `autoscale.in_below: expected a finite number of records ≥ 0, got "NaN"`},
			{"autoscale.in_below -inf", "autoscale: {max: 8, threshold: 10, in_below: -inf}", `autoscale.in_below: expected a finite number of records ≥ 0, got "-inf"`},
			{"events factor NaN", "events: [{at: 1s, action: slow, duration: 2s, factor: NaN}]", "events[1].factor: expected a number > 1"},
			{"expect max NaN", "expect: [{name: a, measure: {field: lost, max: NaN}}]", `measure.max: expected a finite number, got the value "NaN"`},
			{"max_rate.step NaN", "consumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, max: 200, step: NaN}", `max_rate.step: expected a finite number, got "NaN"`},
			{"max_rate.start inf", "consumer_type: share\nload_mode: max_rate\nmax_rate: {start: inf, max: 200, step: 10}", `max_rate.start: expected a finite number, got "inf"`},
			{"max_rate.completed_ratio NaN", "consumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, max: 200, step: 10, completed_ratio: NaN}",
				`max_rate.completed_ratio: expected a finite number, got "NaN"`},
			{"max_rate.precision NaN", "consumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, max: 200, step: 10, precision: NaN}",
				`max_rate.precision: expected a finite number, got "NaN"`},
			{"max_rate.precision above 0.5", "consumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, max: 200, step: 10, precision: 0.9}",
				"max_rate.precision: must be in [0, 0.5]"},
			{"max_rate.precision negative", "consumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, max: 200, step: 10, precision: -0.05}",
				"max_rate.precision: must be in [0, 0.5]"},
			{"broker_metrics_interval 0s", "broker_metrics_interval: 0s", "broker_metrics_interval: expected a duration from 1s to 1m0s, got 0s"},
			{"broker_metrics_interval 100ms", "broker_metrics_interval: 100ms", "broker_metrics_interval: expected a duration from 1s to 1m0s, got 100ms"},
			{"broker_metrics_interval 1h", "broker_metrics_interval: 1h", "broker_metrics_interval: expected a duration from 1s to 1m0s, got 1h0m0s"},
			{"broker_metrics_interval not a duration", "broker_metrics_interval: often", `:3: broker_metrics_interval: expected a Go duration like "250ms", "30s" or "2m", got "often"`},
			{"recommend clause NaN", "members: [1, 2]\nrecommend: {knob: members, maximize: completed_per_sec, where: [\"lost <= NaN\"]}",
				`clause "lost <= NaN": value NaN is not a finite number`},
		} {
			sched(c.name, head+c.body+"\n", ExitUsage, c.says)
		}

		// A k6 target inside a repeat, run on kfake: each iteration after the
		// first ramps from where the previous one ended (run.json's
		// spec.rate_schedule), not from the rate before the repeat.
		ramp := k.file("rs/ramp.yaml", "name: ramp\nconsumer_type: consumer\npartitions: 1\nmembers: 1\nproducers: 1\nwarmup: 0s\nduration: 4s\ndrain_timeout: 10s\n"+
			"rate_schedule:\n  - {duration: 1s, rate: 20}\n  - {repeat: 3, steps: [{duration: 500ms, target: 40}, {duration: 500ms, target: 10}]}\n")
		rampOut := filepath.Join(k.dir, "rs-ramp-results")
		cs = append(cs, hostileCase{group: rs, name: "k6 target in a repeat ramps from the previous iteration (kfake run)",
			args: []string{"run", "--provider", "kfake", "--scenario", ramp, "--results", rampOut}, want: ExitOK,
			check: func() string { return rampFroms(rampOut, []float64{20, 20, 40, 10, 40, 10, 40}) }})

		// Overrides.
		const ov = "overrides"
		schedule := k.file("ov/schedule.yaml", head+"rate_schedule:\n  - {duration: 10s, rate: 100}\n")
		scaler := k.file("ov/scaler.yaml", head+"autoscale: {threshold: 100, max: 8}\n")
		crash := k.file("ov/crash.yaml", head+"autoscale: {threshold: 100, max: 8, remove: crash}\n")
		consumerScaler := k.file("ov/consumer-scaler.yaml", head+"consumer_type: consumer\npartitions: 4\nmembers: 1\nautoscale: {threshold: 100, max: 4}\n")
		deadLetter := k.file("ov/dead-letter.yaml", "name: t\nconsumer_type: share\nkafka_version: 4.4.0\ndead_letter: {topic: dlq.x}\n")
		maxRate := k.file("ov/max-rate.yaml", "name: t\nconsumer_type: share\nload_mode: max_rate\nmax_rate: {start: 100, step: 50, max: 300}\n")
		plain := k.file("ov/plain.yaml", head)
		over := func(name string, env []string, want int, says, p string, sets ...string) {
			args := dry(p)
			for _, s := range sets {
				args = append(args, "--set", s)
			}
			cs = append(cs, hostileCase{group: ov, name: name, args: args, env: env, want: want, says: says})
		}
		over("--set load_mode=backlog drops rate_schedule", nil, ExitUsage, "(--set load_mode=backlog): rate_schedule: given, but no run has load_mode rate",
			schedule, "load_mode=backlog", "backlog_records=100")
		over("SHAREBENCH_LOAD_MODE=backlog drops rate_schedule", []string{"SHAREBENCH_LOAD_MODE=backlog", "SHAREBENCH_BACKLOG_RECORDS=100"}, ExitUsage,
			"(SHAREBENCH_LOAD_MODE=backlog): rate_schedule: given, but no run has load_mode rate", schedule)
		over("--set load_mode=backlog drops autoscale", nil, ExitUsage, "(--set load_mode=backlog): autoscale: given, but no run has load_mode rate",
			scaler, "load_mode=backlog", "backlog_records=100")
		over("SHAREBENCH_LOAD_MODE=backlog drops autoscale", []string{"SHAREBENCH_LOAD_MODE=backlog", "SHAREBENCH_BACKLOG_RECORDS=100"}, ExitUsage,
			"(SHAREBENCH_LOAD_MODE=backlog): autoscale: given", scaler)
		over("--set load_mode=[rate, backlog] keeps a rate run", nil, ExitOK, "dry run: nothing started", schedule, "load_mode=[rate, backlog]", "backlog_records=100")
		over("--set load_mode=backlog on built-in autoscale-spike", nil, ExitUsage, "(--set load_mode=backlog): rate_schedule: given",
			"autoscale-spike", "load_mode=backlog", "backlog_records=100")
		over("--set rate beside rate_schedule", nil, ExitUsage, "(--set rate=500): rate: ignored beside rate_schedule", schedule, "rate=500")
		over("SHAREBENCH_RATE beside rate_schedule", []string{"SHAREBENCH_RATE=500"}, ExitUsage, "(SHAREBENCH_RATE=500): rate: ignored beside rate_schedule", schedule)
		over("--set rate list beside rate_schedule", nil, ExitUsage, "rate: ignored beside rate_schedule", schedule, "rate=[100, 200]")
		over("--set rate on built-in autoscale-spike", nil, ExitUsage, "(--set rate=100): rate: ignored beside rate_schedule", "autoscale-spike", "rate=100")
		over("--set duration shorter than the schedule", nil, ExitUsage, "duration is from --set duration=5s", schedule, "duration=5s")
		over("--set duration=10s on built-in autoscale-spike", nil, ExitUsage, "duration is from --set duration=10s", "autoscale-spike", "duration=10s")
		over("--set members outside autoscale's range", nil, ExitUsage, "members 20, which must lie in [min, max] = [1, 8]; members is from --set members=20", scaler, "members=20")
		over("--set shards=2 with autoscale (the coordinator scales)", nil, ExitOK, "dry run: nothing started", scaler, "shards=2")
		destShards := k.file("ov/dest-shards.yaml", "name: t\nload_mode: backlog\nbacklog_records: 100\ndestination: {kind: postgres, connections: 2}\n")
		over("--set shards=3 beside destination.connections 2", nil, ExitUsage,
			"destination.connections: 2 connections cannot be shared by 3 agents", destShards, "shards=3")
		over("--set shards=2 beside destination.connections 2 (one each)", nil, ExitOK, "dry run: nothing started", destShards, "shards=2")
		over("--set shards=2 on built-in member-crash (events across agents)", nil, ExitOK, "dry run: nothing started", "member-crash", "shards=2")
		over("--set shards=2 on built-in max-rate", nil, ExitOK, "dry run: nothing started", "max-rate", "shards=2")
		over("SHAREBENCH_CLIENT=java with remove: crash", []string{"SHAREBENCH_CLIENT=java"}, ExitUsage, "client is from SHAREBENCH_CLIENT=java", crash)
		over("--set partitions=1 under rule 3's cap", nil, ExitUsage, "partitions is from --set partitions=1", consumerScaler, "partitions=1")
		over("--set members=2 on built-in autoscale-spike (valid)", nil, ExitOK, "dry run: nothing started", "autoscale-spike", "members=2")
		over("--set rate_schedule", nil, ExitUsage, "rate_schedule: written in the scenario file, not overridden", schedule, "rate_schedule=[{duration: 1s, rate: 1}]")
		over("--set autoscale.threshold=NaN", nil, ExitUsage, "autoscale: written in the scenario file, not overridden", scaler, "autoscale.threshold=NaN")
		over("SHAREBENCH_RATE_SCHEDULE", []string{"SHAREBENCH_RATE_SCHEDULE=[]"}, ExitUsage, "rate_schedule: written in the scenario file, not overridden", schedule)
		over("--set consumer_type=consumer drops dead_letter", nil, ExitUsage, "(--set consumer_type=consumer): dead_letter: given, but no run has consumer_type share",
			deadLetter, "consumer_type=consumer")
		over("--set load_mode=rate drops max_rate", nil, ExitUsage, "(--set load_mode=rate): max_rate: given, but no run has load_mode max_rate", maxRate, "load_mode=rate")
		over("--set poison_rate=.nan", nil, ExitUsage, "(--set poison_rate=.nan): poison_rate: must be in [0, 1)", plain, "poison_rate=.nan")
		over("SHAREBENCH_RATE=-.inf", []string{"SHAREBENCH_RATE=-.inf"}, ExitUsage, "(SHAREBENCH_RATE=-.inf): rate: must be > 0 records/s", plain)
		over("--set partition_skew=.inf", nil, ExitUsage, "(--set partition_skew=.inf): partition_skew: must be a Zipf exponent", plain, "partition_skew=.inf")
		over("--set transient_rate=.nan", nil, ExitUsage, "(--set transient_rate=.nan): transient_rate: must be in [0, 1)", plain, "transient_rate=.nan")
		return cs
	})
}

// rampFroms checks the From of each step of the first run.json's
// spec.rate_schedule under a campaign folder in dir.
func rampFroms(dir string, want []float64) string {
	found, _ := filepath.Glob(filepath.Join(dir, "*", "runs", "*", "run.json"))
	if len(found) == 0 {
		return "no run.json under " + dir
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		return err.Error()
	}
	var rec struct {
		Spec struct {
			RateSchedule []scenarios.RateStep `json:"rate_schedule"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return err.Error()
	}
	var got []float64
	for _, s := range rec.Spec.RateSchedule {
		got = append(got, s.From)
	}
	if !slices.Equal(got, want) {
		return fmt.Sprintf("spec.rate_schedule's steps ramp from %v, want %v", got, want)
	}
	return ""
}
