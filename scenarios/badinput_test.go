package scenarios

import (
	"strings"
	"testing"
)

// Issue 10: bad input gets a clear error naming its source (file:line, or
// the --set / SHAREBENCH_* override), the key and what is expected.
func TestBadInputNamesTheCause(t *testing.T) {
	tests := []struct {
		name, yaml string
		env, sets  []string
		want       []string
	}{
		// 1. Range errors from overrides name the override, not the file.
		{"--set range error", "name: x\nmax_poll_records: 10\n", nil, []string{"max_poll_records=0"},
			[]string{"scenario.yaml (--set max_poll_records=0): max_poll_records: must be ≥ 1, got 0"}},
		{"env range error", "name: x\nmax_poll_records: 10\n", []string{"SHAREBENCH_MAX_POLL_RECORDS=0"}, nil,
			[]string{"scenario.yaml (SHAREBENCH_MAX_POLL_RECORDS=0): max_poll_records: must be ≥ 1, got 0"}},
		{"--set beats env in the blame", "name: x\n", []string{"SHAREBENCH_RATE=-1"}, []string{"rate=-2"},
			[]string{"scenario.yaml (--set rate=-2): rate: must be > 0 records/s, got -2"}},
		{"file range error names the line", "name: x\nconsumer_type: share\nmax_poll_records: 0\n", nil, nil,
			[]string{"scenario.yaml:3: max_poll_records: must be ≥ 1, got 0"}},
		{"swept run names the override", "name: x\nconsumer_type: share\n", nil, []string{"members=[10, 300]"},
			[]string{"scenario.yaml (--set members=[10, 300]): run 2 (members=300): members: 300 exceeds group.share.max.size (200)"}},
		{"nested override named", "name: x\nconsumer_type: share\nbroker_config: {group.share.max.size: 100}\n", nil,
			[]string{"broker_config.group.share.delivery.count.limit=50"},
			[]string{"scenario.yaml (--set broker_config.group.share.delivery.count.limit=50): broker_config.group.share.delivery.count.limit: 50 is outside Kafka's range 2–10"}},
		{"file entry beside a nested override keeps its line",
			"name: x\nconsumer_type: share\nbroker_config:\n  group.share.max.size: 5000\n", nil,
			[]string{"broker_config.group.share.delivery.count.limit=5"},
			[]string{"scenario.yaml:4: broker_config.group.share.max.size: 5000 is outside Kafka's range 1–1000"}},
		{"missing parameter blamed on the model override", "name: x\nprocessing: {model: constant, time: 1ms}\n", nil,
			[]string{"processing.model=exponential"},
			[]string{"scenario.yaml (--set processing.model=exponential): processing.mean: required by the exponential model"}},
		{"override type error names the override", "name: x\nprocessing: {model: constant, time: 1ms}\n", nil,
			[]string{"processing.time=5"},
			[]string{"scenario.yaml: --set processing.time=5: processing.time: expected a Go duration"}},

		// 2. Numbers with a leading zero or in another base.
		{"octal members", "name: x\nmembers: 010\n", nil, nil,
			[]string{"scenario.yaml:2: members: 010 has a leading zero (read as octal 8 by YAML); write 10"}},
		{"octal in a list", "name: x\nmembers: [4, 010]\n", nil, nil,
			[]string{"scenario.yaml:2: members: 010 has a leading zero (read as octal 8 by YAML); write 10"}},
		{"0o form", "name: x\npartitions: 0o10\n", nil, nil, []string{"scenario.yaml:2: partitions: 0o10 is octal (8); write 8"}},
		{"0x form", "name: x\nworkers: 0x10\n", nil, nil, []string{"scenario.yaml:2: workers: 0x10 is hexadecimal (16); write 16"}},
		{"0b form", "name: x\nworkers: 0b11\n", nil, nil, []string{"scenario.yaml:2: workers: 0b11 is binary (3); write 3"}},
		{"08 is not octal but still refused", "name: x\nmembers: 08\n", nil, nil,
			[]string{"scenario.yaml:2: members: 08 has a leading zero (YAML reads such integers as octal); write 8"}},
		{"negative octal", "name: x\nbacklog_records: -010\n", nil, nil,
			[]string{"backlog_records: -010 has a leading zero (read as octal -8 by YAML); write -10"}},
		{"octal broker setting", "name: x\nbroker_config:\n  group.share.max.size: 0100\n", nil, nil,
			[]string{"scenario.yaml:3: broker_config.group.share.max.size: 0100 has a leading zero (read as octal 64 by YAML); write 100"}},
		{"octal event members", "name: x\nconsumer_type: share\nmembers: 2\nevents:\n  - {at: 1s, action: join, members: 010}\n", nil, nil,
			[]string{"scenario.yaml:5: events[1].members: 010 has a leading zero"}},
		{"octal through --set", "name: x\n", nil, []string{"members=010"},
			[]string{"scenario.yaml: --set members=010: members: 010 has a leading zero (read as octal 8 by YAML); write 10"}},
		{"octal through the environment", "name: x\n", []string{"SHAREBENCH_MEMBERS=010"}, nil,
			[]string{"scenario.yaml: SHAREBENCH_MEMBERS=010: members: 010 has a leading zero (read as octal 8 by YAML); write 10"}},

		// 3. A second YAML document.
		{"second document", "name: x\nmembers: 4\n---\nmembers: 8\n", nil, nil,
			[]string{"scenario.yaml:3: a second YAML document starts here (---), and only one is read"}},
		{"second document after an end marker", "name: x\n...\n---\nrate: 5\n", nil, nil,
			[]string{"scenario.yaml:3: a second YAML document starts here"}},
		{"two documents in an override", "name: x\n", nil, []string{"rate=5\n---\n6"},
			[]string{"--set rate=5\n---\n6: value \"5\\n---\\n6\" holds more than one YAML document"}},

		// 4. File-only keys from the environment are refused like --set.
		{"SHAREBENCH_EXPECT", "name: x\n", []string{"SHAREBENCH_EXPECT=[x]"}, nil,
			[]string{"scenario.yaml: SHAREBENCH_EXPECT=[x]: expect: expectations are written in the scenario file, not overridden"}},
		{"SHAREBENCH_EVENTS", "name: x\n", []string{"SHAREBENCH_EVENTS=[]"}, nil,
			[]string{"scenario.yaml: SHAREBENCH_EVENTS=[]: events: events are written in the scenario file, not overridden"}},
		{"SHAREBENCH_MAX_RATE", "name: x\n", []string{"SHAREBENCH_MAX_RATE={start: 1}"}, nil,
			[]string{"scenario.yaml: SHAREBENCH_MAX_RATE={start: 1}: max_rate: written in the scenario file, not overridden"}},
		{"SHAREBENCH_RECOMMEND", "name: x\n", []string{"SHAREBENCH_RECOMMEND=x"}, nil,
			[]string{"scenario.yaml: SHAREBENCH_RECOMMEND=x: recommend: written in the scenario file, not overridden"}},
		{"--set expect for comparison", "name: x\n", nil, []string{"expect=[x]"},
			[]string{"scenario.yaml: --set expect=[x]: expect: expectations are written in the scenario file, not overridden"}},

		// 5. The slow factor is bounded.
		{"slow factor 1e308", "name: x\nevents:\n  - {at: 1s, action: slow, factor: 1e308, duration: 2s}\n", nil, nil,
			[]string{"scenario.yaml:3: events[1].factor: expected a number > 1 and ≤ 1000", `got "1e308"`}},
		{"slow factor .inf", "name: x\nevents:\n  - {at: 1s, action: slow, factor: .inf, duration: 2s}\n", nil, nil,
			[]string{"events[1].factor: expected a number > 1 and ≤ 1000", `got ".inf"`}},
		{"slow factor Inf", "name: x\nevents:\n  - {at: 1s, action: slow, factor: Inf, duration: 2s}\n", nil, nil,
			[]string{"events[1].factor: expected a number > 1 and ≤ 1000", `got "Inf"`}},
		{"slow factor NaN", "name: x\nevents:\n  - {at: 1s, action: slow, factor: NaN, duration: 2s}\n", nil, nil,
			[]string{"events[1].factor: expected a number > 1 and ≤ 1000", `got "NaN"`}},
		{"slow factor 1", "name: x\nevents:\n  - {at: 1s, action: slow, factor: 1, duration: 2s}\n", nil, nil,
			[]string{"events[1].factor: expected a number > 1 and ≤ 1000", `got "1"`}},
		{"event members beyond the limit", "name: x\nevents:\n  - {at: 1s, action: join, members: 50000}\n", nil, nil,
			[]string{"scenario.yaml:3: events[1].members: expected an integer from 1 to 10000 (the harness's member limit), got \"50000\""}},
		{"joins past the member limit", "name: x\nconsumer_type: consumer\nmembers: 6000\nevents:\n  - {at: 1s, action: join, members: 5000}\n", nil, nil,
			[]string{"scenario.yaml:4: events: members (6000) plus every join reach 11000 members; the harness's limit is 10000"}},
		{"share-group joins past group.share.max.size", "name: x\nconsumer_type: share\nmembers: 150\nevents:\n  - {at: 1s, action: join, members: 100}\n", nil, nil,
			[]string{"scenario.yaml:3: members: 150, with every join or the scaler's max, reach 250 members, over group.share.max.size (200)"}},
		{"event duration beyond 7 days", "name: x\nevents:\n  - {at: 1s, action: slow, factor: 2, duration: 200h}\n", nil, nil,
			[]string{"scenario.yaml:3: events[1].duration: must be ≤ 168h (7 days, the harness's limit), got 200h0m0s"}},

		// 6. The measurement window is at least a second; so is a warm-up.
		{"duration 1ns", "name: x\nduration: 1ns\n", nil, nil,
			[]string{"scenario.yaml:2: duration: must be ≥ 1s: it is the measurement window, and the time series has one-second resolution", "got 1ns"}},
		{"duration 999ms via --set", "name: x\n", nil, []string{"duration=999ms"},
			[]string{"scenario.yaml (--set duration=999ms): duration: must be ≥ 1s", "got 999ms"}},
		{"warmup 500ms", "name: x\nwarmup: 500ms\n", nil, nil,
			[]string{"scenario.yaml:2: warmup: must be 0 (none) or ≥ 1s: the time series has one-second resolution", "got 500ms"}},

		// 7. Rates and harness limits.
		{"rate 1e-300", "name: x\nrate: 1e-300\n", nil, nil,
			[]string{"scenario.yaml:2: rate: 1e-300 records/s for duration 20s is 2e-299 records in the measurement window, fewer than the 1 producers"}},
		{"rate too low for the producers", "name: x\nproducers: 4\nrate: 0.1\nduration: 10s\n", nil, nil,
			[]string{"scenario.yaml:3: rate: 0.1 records/s for duration 10s is 1 records in the measurement window, fewer than the 4 producers",
				"raise rate or duration, or lower producers"}},
		{"rate above the limit", "name: x\nrate: 1e8\n", nil, nil,
			[]string{"scenario.yaml:2: rate: must be ≤ 10000000 records/s (the harness's limit), got 100000000"}},
		{"rate .inf", "name: x\nrate: .inf\n", nil, nil, []string{"scenario.yaml:2: rate: must be a finite number of records/s, ≤ 10000000 (the harness's limit), got +Inf"}},
		{"rate .nan", "name: x\nrate: .nan\n", nil, nil, []string{"scenario.yaml:2: rate: must be > 0 records/s, got NaN"}},
		{"rate -1e300", "name: x\nrate: -1e300\n", nil, nil, []string{"scenario.yaml:2: rate: must be > 0 records/s, got -1e+300"}},
		{"backlog above the limit", "name: x\nload_mode: backlog\nbacklog_records: 20000000000\n", nil, nil,
			[]string{"scenario.yaml:3: backlog_records: must be ≤ 10000000000 (1e10, the harness's limit), got 20000000000"}},
		{"backlog 1e10 as a float is fine, 1e11 not", "name: x\nload_mode: backlog\nbacklog_records: 1e11\n", nil, nil,
			[]string{"backlog_records: must be ≤ 10000000000 (1e10, the harness's limit), got 100000000000"}},
		{"duration beyond 7 days", "name: x\nduration: 200h\n", nil, nil,
			[]string{"scenario.yaml:2: duration: must be ≤ 168h (7 days, the harness's limit), got 200h0m0s"}},
		{"warmup beyond 7 days", "name: x\nwarmup: 169h\n", nil, nil, []string{"scenario.yaml:2: warmup: must be ≤ 168h"}},
		{"drain_timeout beyond 7 days", "name: x\ndrain_timeout: 10000h\n", nil, nil, []string{"scenario.yaml:2: drain_timeout: must be ≤ 168h"}},
		{"consumer-group members", "name: x\nconsumer_type: consumer\nmembers: 10001\n", nil, nil,
			[]string{"scenario.yaml:3: members: must be ≤ 10000 (the harness's limit), got 10001"}},
		{"workers", "name: x\nworkers: 10001\n", nil, nil, []string{"scenario.yaml:2: workers: must be ≤ 10000 per member (the harness's limit), got 10001"}},
		{"producers", "name: x\nproducers: 1001\nrate: 5000\n", nil, nil, []string{"scenario.yaml:2: producers: must be ≤ 1000 (the harness's limit), got 1001"}},
		{"partitions", "name: x\npartitions: 10001\n", nil, nil, []string{"scenario.yaml:2: partitions: must be ≤ 10000 (the harness's limit), got 10001"}},
		{"batch size", "name: x\nbatch_size: 2147483647\n", nil, nil, []string{"scenario.yaml:2: batch_size: must be ≤ 1073741824 bytes (the harness's limit)"}},
		{"max in flight", "name: x\nmax_in_flight: 1e9\n", nil, nil, []string{"scenario.yaml:2: max_in_flight: must be ≤ 100000000"}},
		{"1e15 for an int key", "name: x\nconsumer_type: consumer\nmembers: 1e15\n", nil, nil,
			[]string{"scenario.yaml:3: members: must be ≤ 10000 (the harness's limit), got 1000000000000000"}},
		{"1e300 for an int key", "name: x\nmembers: 1e300\n", nil, nil,
			[]string{"scenario.yaml:2: members: 1e+300 is out of range for an integer key"}},
		{"-1e300 for an int key", "name: x\npartitions: -1e300\n", nil, nil,
			[]string{"scenario.yaml:2: partitions: -1e+300 is out of range for an integer key"}},
		{"huge integer literal", "name: x\nbacklog_records: 99999999999999999999\n", nil, nil,
			[]string{"scenario.yaml:2: backlog_records: 1e+20 is out of range for an integer key"}},
		{"1e300 for a size", "name: x\nmessage_size: 1e300\n", nil, nil,
			[]string{"scenario.yaml:2: message_size: expected a size in bytes like 256, \"16KiB\" or \"1MiB\", got 1e+300"}},
		{"NaN for an int key", "name: x\nworkers: .nan\n", nil, nil, []string{"scenario.yaml:2: workers: expected an integer, got NaN"}},
		{".inf for an int key", "name: x\nworkers: .inf\n", nil, nil, []string{"scenario.yaml:2: workers: expected an integer, got +Inf"}},
		{"-.inf for repeat", "name: x\nrepeat: -.inf\n", nil, nil, []string{"scenario.yaml:2: repeat: expected an integer, got -Inf"}},
		{"1e15 through --set", "name: x\n", nil, []string{"partitions=1e15"},
			[]string{"scenario.yaml (--set partitions=1e15): partitions: must be ≤ 10000 (the harness's limit), got 1000000000000000"}},
		{"max_rate above the limit", "name: x\nload_mode: max_rate\nmax_rate: {start: 100, step: 1.5e7, max: 2e7}\n", nil, nil,
			[]string{"scenario.yaml:3: max_rate.max: must be ≤ 10000000 records/s (the harness's limit), got 20000000",
				"max_rate.step: must be ≤ 10000000 records/s"}},
		{"max_rate tiny step", "name: x\nload_mode: max_rate\nmax_rate: {start: 1, step: 1e-300, max: 1000}\n", nil, nil,
			[]string{"scenario.yaml:3: max_rate: the schedule from 1 to 1000 has 9.99e+302 steps; the limit is 50"}},
		{"max_rate start too low for the producers", "name: x\nproducers: 10\nload_mode: max_rate\nmax_rate: {start: 0.1, step: 1, max: 10}\n", nil, nil,
			[]string{"scenario.yaml:4: max_rate.start: 0.1 records/s for duration 20s is 2 records in the measurement window, fewer than the 10 producers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, tt.env, tt.sets)
			wantErr(t, err, tt.want...)
			if err != nil && testing.Verbose() {
				t.Logf("%s", strings.ReplaceAll(err.Error(), "\n", "\n    "))
			}
		})
	}
}

// Values at the limits, and the forms the checks must not refuse.
func TestLimitsAccepted(t *testing.T) {
	ok := []struct {
		name, yaml string
	}{
		{"zero is not a leading zero", "warmup: 0\nmax_in_flight: 0\n"},
		{"quoted octal is a string", "broker_config: {some.setting: \"0755\"}\n"},
		{"decimal fraction", "rate: 0.5\n"},
		{"underscores", "rate: 1_000\n"},
		{"limits", "consumer_type: consumer\nmembers: 1000\nworkers: 10000\nproducers: 1000\npartitions: 10000\nrate: 1e7\n"},
		{"backlog at the limit", "load_mode: backlog\nbacklog_records: 1e10\n"},
		{"phases at the limit", "warmup: 168h\nduration: 168h\ndrain_timeout: 168h\n"},
		{"one-second window, no warm-up", "warmup: 0s\nduration: 1s\n"},
		{"one record per producer", "producers: 4\nrate: 0.2\nduration: 20s\n"},
		{"slow factor at the limit", "events:\n  - {at: 1s, action: slow, factor: 1000, duration: 2s}\n"},
		{"sub-second duration is ignored by backlog runs", "load_mode: backlog\nbacklog_records: 100\nduration: 1ms\nwarmup: 1ms\n"},
		{"trailing document marker", "rate: 10\n---\n"},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			mustLoad(t, "name: x\n"+tt.yaml, nil, nil)
		})
	}
	mustLoad(t, "---\nname: x\nrate: 10\n", nil, nil) // a leading document marker
	// The environment's SHAREBENCH_SWEEP_TOGETHER and --set sweep.together
	// stay accepted; so does SHAREBENCH_SWEEP, like --set sweep.
	base := "name: x\nmembers: [4, 8]\nworkers: [1, 2]\n"
	for _, env := range []string{"SHAREBENCH_SWEEP={together: [[members, workers]]}", "SHAREBENCH_SWEEP_TOGETHER=[[members, workers]]"} {
		if s := mustLoad(t, base, []string{env}, nil); len(s.Together) != 1 {
			t.Errorf("%s: Together %v", env, s.Together)
		}
	}
}
