package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/envvars"
)

// load is LoadBytes for a test scenario named scenario.yaml.
func load(t *testing.T, yaml string, env, sets []string) (*Scenario, error) {
	t.Helper()
	return LoadBytes("scenario.yaml", []byte(yaml), env, sets)
}

// mustLoad loads a scenario that must be valid.
func mustLoad(t *testing.T, yaml string, env, sets []string) *Scenario {
	t.Helper()
	s, err := load(t, yaml, env, sets)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

// wantErr checks that err mentions every fragment.
func wantErr(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error mentioning %q, got none", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error does not mention %q:\n%v", f, err)
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name, yaml string
		sets       []string
		want       []string
	}{
		{"top level", "name: x\nmax_poll_record: 5\n", nil,
			[]string{"scenario.yaml:2:", `unknown key "max_poll_record"`, `did you mean "max_poll_records"`}},
		{"far from any key", "name: x\nzzzzzzzzzzzz: 1\n", nil,
			[]string{`unknown key "zzzzzzzzzzzz"`, "valid keys:", "max_poll_records"}},
		{"in processing", "name: x\nprocessing: {model: constant, tme: 5ms}\n", nil,
			[]string{"scenario.yaml:2:", `unknown key "tme" in processing`, `did you mean "time"`}},
		{"in a processing list", "name: x\nprocessing:\n  - {model: constant, time: 1ms}\n  - {model: uniform, mn: 1ms, max: 2ms}\n", nil,
			[]string{"scenario.yaml:4:", `unknown key "mn" in processing`, `"min"`}},
		{"in sweep", "name: x\nsweep: {togther: [[members, workers]]}\n", nil,
			[]string{`unknown key "togther" in sweep`, `"together"`}},
		{"case matters", "name: x\nPartitions: 4\n", nil,
			[]string{`unknown key "Partitions"`, `"partitions"`}},
		{"--set", "name: x\n", []string{"max_poll_record=5"},
			[]string{"--set max_poll_record=5", `unknown key "max_poll_record"`, `"max_poll_records"`}},
		{"--set in processing", "name: x\n", []string{"processing.tme=5ms"},
			[]string{`unknown key "processing.tme"`, `"processing.time"`}},
		{"null value", "name: x\nrate:\n", nil,
			[]string{"scenario.yaml:2:", "rate: no value"}},
		{"nested list", "name: x\npartitions: [[1, 2]]\n", nil,
			[]string{"partitions: a list of single values"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, nil, tt.sets)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"negative rate", "rate: -5", []string{"scenario.yaml:2: rate: must be > 0 records/s, got -5"}},
		{"zero rate", "rate: 0", []string{"rate: must be > 0 records/s, got 0"}},
		{"members above max size",
			"consumer_type: [consumer, share]\nmembers: 300",
			[]string{"scenario.yaml:3: run 2 (consumer_type=share): members: 300 exceeds group.share.max.size (200)",
				"raise broker_config group.share.max.size (max 1000)"}},
		{"members above Kafka's limit", "consumer_type: share\nmembers: 1001",
			[]string{"members: 1001 exceeds group.share.max.size (200), and Kafka allows at most 1000 members"}},
		{"members dimension names the run",
			"consumer_type: share\nmembers: [10, 300]",
			[]string{"run 2 (members=300): members: 300 exceeds group.share.max.size (200)"}},
		{"locks below range",
			"broker_config: {group.share.partition.max.record.locks: 50}",
			[]string{"broker_config.group.share.partition.max.record.locks: 50 is outside Kafka's range 100–10000"}},
		{"locks above range in a list",
			"consumer_type: share\nbroker_config: {group.share.partition.max.record.locks: [500, 20000]}",
			[]string{"run 2 (broker_config.group.share.partition.max.record.locks=20000)", "20000 is outside Kafka's range 100–10000"}},
		{"delivery count limit", "broker_config: {group.share.delivery.count.limit: 11}",
			[]string{"group.share.delivery.count.limit: 11 is outside Kafka's range 2–10"}},
		{"max size range", "broker_config: {group.share.max.size: 2000}",
			[]string{"group.share.max.size: 2000 is outside Kafka's range 1–1000"}},
		{"lock duration below the default minimum", "broker_config: {group.share.record.lock.duration.ms: 5000}",
			[]string{"group.share.record.lock.duration.ms: 5000 is below group.share.min.record.lock.duration.ms (15000)"}},
		{"lock duration above the given maximum",
			"broker_config: {group.share.record.lock.duration.ms: 50000, group.share.max.record.lock.duration.ms: 40000}",
			[]string{"50000 is above group.share.max.record.lock.duration.ms (40000)"}},
		{"non-integer broker setting", "broker_config: {group.share.max.size: lots}",
			[]string{`broker_config.group.share.max.size: expected an integer, got "lots"`}},
		{"implicit ack with transient failures", "consumer_type: share\nack_mode: implicit\ntransient_rate: 0.1",
			[]string{"ack_mode: implicit acknowledgement cannot fail a single record", "transient_rate (0.1)", "use ack_mode explicit"}},
		{"implicit ack with poison", "consumer_type: share\nack_mode: implicit\npoison_rate: 0.01",
			[]string{"poison_rate (0.01) must be 0"}},
		{"rate out of [0,1)", "transient_rate: 1.5", []string{"transient_rate: must be in [0, 1) (a probability), got 1.5"}},
		{"rates sum", "transient_rate: 0.6\npoison_rate: 0.5", []string{"transient_rate + poison_rate must be < 1"}},
		{"stuck rate", "stuck_rate: 1", []string{"stuck_rate", "must be in [0, 1)"}},
		{"rates sum with stuck", "transient_rate: 0.4\npoison_rate: 0.3\nstuck_rate: 0.3", []string{"transient_rate + poison_rate + stuck_rate must be < 1"}},
		{"librdkafka stuck", "client: librdkafka\nstuck_rate: 0.1", []string{"stuck_rate: client librdkafka does not wedge workers (stuck_rate 0.1)"}},
		{"consumer type", "consumer_type: queue", []string{`consumer_type: expected one of consumer, share, got "queue"`}},
		{"message too small", "message_size: 10", []string{"message_size: must be ≥ 40 bytes", "got 10"}},
		{"message too big", "message_size: 2MiB", []string{"message_size: must be ≤ 1MiB", "got 2097152"}},
		{"key mode", "key_mode: sticky", []string{`key_mode: expected one of none, random, round-robin, hashed, got "sticky"`}},
		{"acks", "acks: 1", []string{`acks: expected one of all, leader, none, got "1"`}},
		{"max poll records", "max_poll_records: 20000", []string{"max_poll_records: must be ≤ 10000, got 20000"}},
		{"acquire mode", "acquire_mode: greedy", []string{`acquire_mode: expected one of batch_optimized, record_limit`}},
		{"nodes", "nodes: 2", []string{"nodes: must be 1 or 3", "got 2"}},
		{"old kafka", "kafka_version: 4.0.0", []string{`kafka_version: share groups need Kafka 4.1.0 or newer`, `"4.0.0"`}},
		{"kafka version format", "kafka_version: latest", []string{`kafka_version: expected a Kafka release like "4.2.2", got "latest"`}},
		{"broker heap", "broker_heap: 1GB", []string{`broker_heap: expected a JVM heap size like "512m" or "1g", got "1GB"`}},
		{"zero duration", "duration: 0s", []string{"duration: must be > 0"}},
		{"negative warmup", "warmup: -1s", []string{"warmup: must be ≥ 0, got -1s"}},
		{"bare number duration", "linger: 5", []string{"scenario.yaml:2: linger:", `expected a Go duration like "250ms"`, "got 5"}},
		{"not an integer", "partitions: four", []string{`partitions: expected an integer, got "four"`}},
		{"fractional integer", "members: 2.5", []string{"members: expected an integer, got 2.5"}},
		{"bad size", "batch_size: 16XB", []string{`expected a size in bytes like 256, "16KiB" or "1MiB", got "16XB"`}},
		{"unknown model", "processing: {model: gaussian}", []string{`processing.model: expected one of none, constant, uniform, exponential, lognormal, got "gaussian"`}},
		{"missing model", "processing: {time: 5ms}", []string{"processing.model: required"}},
		{"uniform min > max", "processing: {model: uniform, min: 20ms, max: 10ms}", []string{"processing.min: uniform needs 0 ≤ min ≤ max"}},
		{"uniform missing max", "processing: {model: uniform, min: 20ms}", []string{"processing.max: required by the uniform model"}},
		{"lognormal p99 < median", "processing: {model: lognormal, median: 10ms, p99: 5ms}", []string{"processing.p99: lognormal needs p99 ≥ median > 0"}},
		{"exponential zero mean", "processing: {model: exponential, mean: 0s}", []string{"processing.mean: must be > 0"}},
		{"stray parameter", "processing: {model: constant, time: 5ms, max: 9ms}", []string{"processing.max: not a parameter of the constant model (it takes time)"}},
		{"none takes nothing", "processing: {model: none, time: 5ms}", []string{"processing.time: not a parameter of the none model (it takes none)"}},
		{"negative constant", "processing: {model: constant, time: -1ms}", []string{"processing.time: must be ≥ 0"}},
		{"load mode", "load_mode: burst", []string{`load_mode: expected one of rate, backlog, max_rate, got "burst"`}},
		{"backlog without records", "load_mode: backlog",
			[]string{"backlog_records: required with load_mode backlog: the records to pre-fill, an integer ≥ 1, got 0"}},
		{"negative backlog", "load_mode: rate\nbacklog_records: -3", []string{"backlog_records: must be ≥ 0 (≥ 1 with load_mode backlog), got -3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, "name: x\n"+tt.yaml+"\n", nil, nil)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestMetaErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"missing name", "rate: 10\n", []string{"scenario.yaml: name: required"}},
		{"unsafe name", "name: my test\n", []string{`name: use letters, digits`, `"my test"`}},
		{"repeat zero", "name: x\nrepeat: 0\n", []string{"scenario.yaml:2: repeat: must be ≥ 1, got 0"}},
		{"not a mapping", "- a\n- b\n", []string{"scenario.yaml:1: a scenario is a YAML mapping"}},
		{"bad yaml", "name: [x\n", []string{"scenario.yaml:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, nil, nil)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestRaisingShareGroupMaxSizeAcceptsMembers(t *testing.T) {
	yaml := "name: x\nconsumer_type: share\nmembers: 300\nbroker_config:\n  group.share.max.size: 500\n"
	s := mustLoad(t, yaml, nil, nil)
	if got := s.Runs[0].ShareGroupMaxSize(); got != 500 {
		t.Errorf("ShareGroupMaxSize = %d, want 500", got)
	}
	if got := s.Runs[0].BrokerConfig["group.share.max.size"]; got != "500" {
		t.Errorf(`broker_config value = %q, want "500" (YAML ints become strings)`, got)
	}
	// The same fix through --set.
	mustLoad(t, "name: x\nconsumer_type: share\nmembers: 300\n", nil,
		[]string{"broker_config.group.share.max.size=500"})
	// Consumer groups have no such cap.
	mustLoad(t, "name: x\nconsumer_type: consumer\nmembers: 300\n", nil, nil)
}

func TestEnvOverride(t *testing.T) {
	env := []string{
		"PATH=/usr/bin",
		"SHAREBENCH_MAX_POLL_RECORDS=50",
		"SHAREBENCH_PROCESSING_TIME=5ms",
		"SHAREBENCH_BROKER_CONFIG_GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS=500",
		"SHAREBENCH_CACHE=/tmp/cache", // a harness setting, not a scenario key: left alone
		"SHAREBENCH_RATE=",            // empty: unset
		"SHAREBENCH_CONSUMER_TYPE=[share]",
	}
	s := mustLoad(t, "name: x\nmax_poll_records: 10\nrate: 300\n", env, nil)
	r := s.Runs[0]
	if len(s.Runs) != 1 || r.ConsumerType != "share" {
		t.Fatalf("runs = %d, consumer_type %q; want 1 share run", len(s.Runs), r.ConsumerType)
	}
	if r.MaxPollRecords != 50 || r.Processing.Time != 5*time.Millisecond || r.RecordLocks() != 500 || r.Rate != 300 {
		t.Errorf("env not applied: mpr %d, time %v, locks %d, rate %v", r.MaxPollRecords, r.Processing.Time, r.RecordLocks(), r.Rate)
	}
	// --set wins over the environment.
	s = mustLoad(t, "name: x\n", env, []string{"max_poll_records=70"})
	if got := s.Runs[0].MaxPollRecords; got != 70 {
		t.Errorf("max_poll_records = %d, want 70 (--set beats env)", got)
	}
	// Errors from the environment name the variable.
	_, err := load(t, "name: x\n", []string{"SHAREBENCH_PROCESSING_TIME=[1ms, [2ms]]"}, nil)
	wantErr(t, err, "SHAREBENCH_PROCESSING_TIME=", "processing")
}

func TestSetOverride(t *testing.T) {
	s := mustLoad(t, "name: x\nconsumer_type: [consumer, share]\nmax_poll_records: 10\n", nil, []string{
		"max_poll_records=[10,50]",
		"processing.time=5ms",
		"broker_config.group.share.partition.max.record.locks=[500, 1000]",
	})
	if len(s.Runs) != 8 {
		t.Fatalf("runs = %d, want 2×2×2 = 8", len(s.Runs))
	}
	wantDims := []string{"consumer_type", "max_poll_records", "broker_config.group.share.partition.max.record.locks"}
	if !slices.Equal(s.Dimensions, wantDims) {
		t.Errorf("Dimensions = %v, want %v", s.Dimensions, wantDims)
	}
	last := s.Runs[7]
	if last.ConsumerType != "share" || last.MaxPollRecords != 50 || last.RecordLocks() != 1000 || last.Processing.Time != 5*time.Millisecond {
		t.Errorf("last run = %+v", last)
	}
	_, err := load(t, "name: x\n", nil, []string{"consumer_type=consumer,share"})
	wantErr(t, err, "--set consumer_type=consumer,share", "write a list in brackets, like [consumer,share]")
	_, err = load(t, "name: x\n", nil, []string{"rate"})
	wantErr(t, err, "--set rate: expected key=value")
}

func TestSetProcessingModelDropsOldParameters(t *testing.T) {
	s := mustLoad(t, "name: x\n", nil, []string{"processing.model=exponential", "processing.mean=4ms"})
	p := s.Runs[0].Processing
	if p.Model != "exponential" || p.Mean != 4*time.Millisecond || p.Time != 0 {
		t.Errorf("processing = %+v", p)
	}
	_, err := load(t, "name: x\nprocessing: [{model: none}, {model: constant, time: 1ms}]\n", nil, []string{"processing.time=5ms"})
	wantErr(t, err, "processing is a list here; override it whole")
}

func TestCrossProductOrder(t *testing.T) {
	s := mustLoad(t, "name: x\nconsumer_type: [consumer, share]\nmax_poll_records: [10, 100, 1000]\n", nil, nil)
	type pair struct {
		ct  string
		mpr int
	}
	want := []pair{{"consumer", 10}, {"consumer", 100}, {"consumer", 1000}, {"share", 10}, {"share", 100}, {"share", 1000}}
	var got []pair
	for _, r := range s.Runs {
		got = append(got, pair{string(r.ConsumerType), r.MaxPollRecords})
	}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	if !slices.Equal(s.Dimensions, []string{"consumer_type", "max_poll_records"}) {
		t.Errorf("Dimensions = %v", s.Dimensions)
	}
	if n := s.RunName(3); n != "r04-share-mpr10" {
		t.Errorf("RunName(3) = %q, want r04-share-mpr10", n)
	}
	// File order decides: max_poll_records first now varies slowest, and the
	// defaulted consumer_type list comes after the file's keys.
	s = mustLoad(t, "name: x\nmax_poll_records: [10, 100]\n", nil, nil)
	if s.Runs[0].MaxPollRecords != 10 || s.Runs[1].MaxPollRecords != 10 || s.Runs[1].ConsumerType != "share" {
		t.Errorf("want mpr slowest, consumer_type fastest; got %v", []string{s.Runs[0].Summary(), s.Runs[1].Summary()})
	}
}

func TestRepeat(t *testing.T) {
	s := mustLoad(t, "name: x\nrepeat: 3\nconsumer_type: [consumer, share]\n", nil, nil)
	if len(s.Runs) != 6 || s.Repeat != 3 {
		t.Fatalf("runs = %d repeat = %d, want 6 and 3", len(s.Runs), s.Repeat)
	}
	var trials []int
	var names []string
	for i, r := range s.Runs {
		trials = append(trials, r.Trial)
		names = append(names, s.RunName(i))
	}
	if !slices.Equal(trials, []int{0, 0, 1, 1, 2, 2}) {
		t.Errorf("trials = %v, want the matrix repeated: 0 0 1 1 2 2", trials)
	}
	if names[5] != "r06-share-t2" {
		t.Errorf("names = %v", names)
	}
}

// TestRepeatOrder checks each repeat_order against the order written out by
// hand for a 3-run matrix (partitions 1, 2, 3) repeated 3 times.
func TestRepeatOrder(t *testing.T) {
	order := func(s *Scenario) []string {
		var out []string
		for _, r := range s.Runs {
			out = append(out, fmt.Sprintf("p%d.t%d", r.Partitions, r.Trial))
		}
		return out
	}
	base := "name: x\nrepeat: 3\nconsumer_type: share\npartitions: [1, 2, 3]\n"
	for _, tt := range []struct {
		order string
		want  []string
	}{
		{"", []string{"p1.t0", "p2.t0", "p3.t0", "p3.t1", "p2.t1", "p1.t1", "p1.t2", "p2.t2", "p3.t2"}}, // the default: alternate
		{"repeat_order: alternate\n", []string{"p1.t0", "p2.t0", "p3.t0", "p3.t1", "p2.t1", "p1.t1", "p1.t2", "p2.t2", "p3.t2"}},
		{"repeat_order: same\n", []string{"p1.t0", "p2.t0", "p3.t0", "p1.t1", "p2.t1", "p3.t1", "p1.t2", "p2.t2", "p3.t2"}},
	} {
		s := mustLoad(t, base+tt.order, nil, nil)
		if got := order(s); !slices.Equal(got, tt.want) {
			t.Errorf("%q: order %v, want %v", tt.order, got, tt.want)
		}
	}
	// shuffle: each trial a permutation of the matrix, trials in sequence,
	// the same seed the same order, the seed recorded
	a := mustLoad(t, base+"repeat_order: shuffle\nrepeat_seed: 42\n", nil, nil)
	b := mustLoad(t, base+"repeat_order: shuffle\nrepeat_seed: 42\n", nil, nil)
	if !slices.Equal(order(a), order(b)) || a.RepeatSeed != 42 || a.RepeatOrder != RepeatShuffle {
		t.Errorf("seed 42 twice: %v and %v (seed %d)", order(a), order(b), a.RepeatSeed)
	}
	for tr := range 3 {
		var ps []int
		for _, r := range a.Runs[3*tr : 3*tr+3] {
			if r.Trial != tr {
				t.Fatalf("trial %d holds a run of trial %d: %v", tr, r.Trial, order(a))
			}
			ps = append(ps, r.Partitions)
		}
		slices.Sort(ps)
		if !slices.Equal(ps, []int{1, 2, 3}) {
			t.Errorf("trial %d is not a permutation of the matrix: %v", tr, order(a))
		}
	}
	drawn := mustLoad(t, base+"repeat_order: shuffle\n", nil, nil)
	if drawn.RepeatSeed == 0 {
		t.Error("shuffle without a seed recorded no seed")
	}
	again := mustLoad(t, base+fmt.Sprintf("repeat_order: shuffle\nrepeat_seed: %d\n", drawn.RepeatSeed), nil, nil)
	if !slices.Equal(order(drawn), order(again)) {
		t.Errorf("the recorded seed %d does not replay the order: %v vs %v", drawn.RepeatSeed, order(drawn), order(again))
	}
}

func TestRepeatOrderErrors(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown order", "repeat_order: random\n", `scenario.yaml:2: repeat_order: expected same, alternate or shuffle, got "random"`},
		{"seed without shuffle", "repeat_order: same\nrepeat_seed: 3\n", "scenario.yaml:3: repeat_seed: only repeat_order: shuffle takes a seed"},
		{"seed zero", "repeat_order: shuffle\nrepeat_seed: 0\n", "scenario.yaml:3: repeat_seed: must be ≥ 1, got 0"},
		{"seed not a number", "repeat_order: shuffle\nrepeat_seed: abc\n", "scenario.yaml:3: repeat_seed:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, "name: x\n"+tt.yaml, nil, nil)
			wantErr(t, err, tt.want)
		})
	}
}

func TestSweepTogether(t *testing.T) {
	yaml := "name: x\nconsumer_type: [consumer, share]\nmembers: [4, 8, 12]\nworkers: [1, 2, 3]\nsweep:\n  together: [[members, workers]]\n"
	s := mustLoad(t, yaml, nil, nil)
	if len(s.Runs) != 6 {
		t.Fatalf("runs = %d, want 2 × 3 = 6", len(s.Runs))
	}
	for _, r := range s.Runs {
		if r.Members != 4*r.Workers {
			t.Errorf("members %d and workers %d did not advance together", r.Members, r.Workers)
		}
	}
	if s.Runs[2].Members != 12 || s.Runs[3].ConsumerType != "share" || s.Runs[3].Members != 4 {
		t.Errorf("order: %v %v", s.Runs[2].Summary(), s.Runs[3].Summary())
	}
	if !slices.Equal(s.Dimensions, []string{"consumer_type", "members", "workers"}) {
		t.Errorf("Dimensions = %v", s.Dimensions)
	}
	// The same group from --set and from the environment.
	base := "name: x\nconsumer_type: share\nmembers: [4, 8]\nworkers: [1, 2]\n"
	for _, src := range []struct{ env, sets []string }{
		{nil, []string{"sweep.together=[[members, workers]]"}},
		{[]string{"SHAREBENCH_SWEEP_TOGETHER=[[members, workers]]"}, nil},
	} {
		if s := mustLoad(t, base, src.env, src.sets); len(s.Runs) != 2 || len(s.Together) != 1 || !slices.Equal(s.Together[0], []string{"members", "workers"}) {
			t.Errorf("together from %v: %d runs, Together %v", src, len(s.Runs), s.Together)
		}
	}
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"unequal lengths", "members: [4, 8, 12]\nworkers: [1, 2]\nsweep: {together: [[members, workers]]}",
			[]string{"sweep.together: [members, workers]", "equal lengths", "members has 3", "workers has 2"}},
		{"single value", "members: [4, 8]\nworkers: 1\nsweep: {together: [[members, workers]]}",
			[]string{`sweep.together: "workers" has a single value`}},
		{"unknown key", "members: [4, 8]\nworkers: [1, 2]\nsweep: {together: [[members, worker]]}",
			[]string{`sweep.together: unknown key "worker"`, `"workers"`}},
		{"one key", "members: [4, 8]\nsweep: {together: [[members]]}",
			[]string{"each group names at least two keys"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, "name: x\n"+tt.yaml+"\n", nil, nil)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestMatrixCap(t *testing.T) {
	list := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = strconv.Itoa(i + 1)
		}
		return "[" + strings.Join(vals, ", ") + "]"
	}
	yaml := "name: x\nconsumer_type: share\npartitions: " + list(101) + "\nmax_poll_records: " + list(100) + "\n"
	_, err := load(t, yaml, nil, nil)
	wantErr(t, err, "expands to 10100 runs", "partitions 101 × max_poll_records 100 × repeat 1", "the limit is 10000")
	yaml = "name: x\nconsumer_type: share\npartitions: " + list(100) + "\nmax_poll_records: " + list(100) + "\n"
	if s := mustLoad(t, yaml, nil, nil); len(s.Runs) != MaxRuns {
		t.Errorf("runs = %d, want exactly %d", len(s.Runs), MaxRuns)
	}
}

func TestDurationsAndSizes(t *testing.T) {
	yaml := `name: x
linger: 250ms
warmup: 0
duration: 1m30s
drain_timeout: 2m
message_size: 1KiB
batch_size: 16KiB
broker_config:
  group.share.partition.max.record.locks: 500
  some.ratio: 0.5
  some.flag: true
`
	r := mustLoad(t, yaml, nil, nil).Runs[0]
	if r.Linger != 250*time.Millisecond || r.Warmup != 0 || r.Duration != 90*time.Second || r.DrainTimeout != 2*time.Minute {
		t.Errorf("durations: linger %v warmup %v duration %v drain %v", r.Linger, r.Warmup, r.Duration, r.DrainTimeout)
	}
	if r.MessageSize != 1024 || r.BatchSize != 16384 {
		t.Errorf("sizes: message %d batch %d", r.MessageSize, r.BatchSize)
	}
	want := map[string]string{"group.share.partition.max.record.locks": "500", "some.ratio": "0.5", "some.flag": "true"}
	for k, v := range want {
		if r.BrokerConfig[k] != v {
			t.Errorf("broker_config[%s] = %q, want %q", k, r.BrokerConfig[k], v)
		}
	}
	sizes := map[string]int{"256": 256, "1KiB": 1024, "16KiB": 16384, "1MiB": 1 << 20, "0.5MiB": 1 << 19, "4kB": 4000, "100B": 100}
	for in, want := range sizes {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "KiB", "1.5B", "1XB", "-1KiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q): want an error", bad)
		}
	}
}

func TestProcessingMean(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		p    Processing
		want time.Duration
	}{
		{"none", Processing{Model: "none"}, 0},
		{"constant", Processing{Model: "constant", Time: 10 * ms}, 10 * ms},
		{"uniform", Processing{Model: "uniform", Min: 5 * ms, Max: 15 * ms}, 10 * ms},
		{"exponential", Processing{Model: "exponential", Mean: 7 * ms}, 7 * ms},
		// lognormal median 10ms p99 50ms: σ = ln(50/10)/2.326348 = 1.609438/2.326348
		// = 0.691830; σ² = 0.478629, σ²/2 = 0.239315; exp(0.239315) = 1.270378;
		// mean = 10ms × 1.270378 = 12.70378ms.
		{"lognormal", Processing{Model: "lognormal", Median: 10 * ms, P99: 50 * ms}, 12703780 * time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RunSpec{Processing: tt.p}.ProcessingMean()
			if diff := got - tt.want; diff < -time.Microsecond || diff > time.Microsecond {
				t.Errorf("ProcessingMean = %v, want %v ± 1µs", got, tt.want)
			}
		})
	}
}

func TestProcessingList(t *testing.T) {
	yaml := "name: x\nconsumer_type: share\nprocessing:\n  - {model: constant, time: 10ms}\n  - {model: lognormal, median: 10ms, p99: 50ms}\n"
	s := mustLoad(t, yaml, nil, nil)
	if len(s.Runs) != 2 || !slices.Equal(s.Dimensions, []string{"processing"}) {
		t.Fatalf("runs %d, dimensions %v", len(s.Runs), s.Dimensions)
	}
	if s.Runs[1].Processing.Model != "lognormal" || s.Runs[1].Processing.P99 != 50*time.Millisecond {
		t.Errorf("run 2 processing = %+v", s.Runs[1].Processing)
	}
	if got := s.RunName(1); got != "r02-share-lognormal_median_10ms_p99_50ms" {
		t.Errorf("RunName(1) = %q", got)
	}
	// A list inside the processing map is a dimension of its own.
	s = mustLoad(t, "name: x\nconsumer_type: share\nprocessing: {model: constant, time: [5ms, 10ms]}\n", nil, nil)
	if !slices.Equal(s.Dimensions, []string{"processing.time"}) || s.Runs[1].Processing.Time != 10*time.Millisecond {
		t.Errorf("dimensions %v, run 2 %+v", s.Dimensions, s.Runs[1].Processing)
	}
	if got := s.RunName(0); got != "r01-share-t5ms" {
		t.Errorf("RunName(0) = %q", got)
	}
}

func TestBacklogMode(t *testing.T) {
	sc := mustLoad(t, "name: x\nconsumer_type: share\nload_mode: backlog\nbacklog_records: [1000, 5000]\n", nil, nil)
	if len(sc.Runs) != 2 || !sc.Runs[0].Backlog() || sc.Runs[0].BacklogRecords != 1000 || sc.Runs[1].BacklogRecords != 5000 {
		t.Fatalf("runs %+v", sc.Runs)
	}
	if got := sc.RunName(1); !strings.Contains(got, "backlog5000") {
		t.Errorf("run name %q does not name the backlog", got)
	}
	def := mustLoad(t, "name: x\nconsumer_type: share\n", nil, nil)
	if def.Runs[0].LoadMode != "rate" || def.Runs[0].Backlog() {
		t.Errorf("default load_mode %q", def.Runs[0].LoadMode)
	}
	set := mustLoad(t, "name: x\nconsumer_type: share\n", nil, []string{"load_mode=backlog", "backlog_records=200"})
	if !set.Runs[0].Backlog() || set.Runs[0].BacklogRecords != 200 {
		t.Errorf("--set backlog: %+v", set.Runs[0])
	}
}

func TestHelpers(t *testing.T) {
	r := RunSpec{ConsumerType: "share", Fleet: Fleet{Members: 12, Workers: 1, MaxPollRecords: 20}}
	if r.Summary() != "share m12 w1 mpr20" {
		t.Errorf("Summary = %q", r.Summary())
	}
	if r.RecordLocks() != 2000 || r.DeliveryCountLimit() != 5 || r.ShareGroupMaxSize() != 200 || r.RecordLockDuration() != 30*time.Second {
		t.Errorf("defaults: locks %d dcl %d max size %d lock %v", r.RecordLocks(), r.DeliveryCountLimit(), r.ShareGroupMaxSize(), r.RecordLockDuration())
	}
	r.BrokerConfig = map[string]string{KeyRecordLocks: "500", KeyDeliveryCountLimit: "3"}
	if r.RecordLocks() != 500 || r.DeliveryCountLimit() != 3 {
		t.Errorf("set: locks %d dcl %d", r.RecordLocks(), r.DeliveryCountLimit())
	}
	if r.Value("broker_config."+KeyRecordLocks) != "500" || r.Value("members") != "12" || r.Value("nope") != "" {
		t.Errorf("Value: %q %q %q", r.Value("broker_config."+KeyRecordLocks), r.Value("members"), r.Value("nope"))
	}
	if err := r.Validate(); err == nil {
		t.Error("Validate of a half-filled RunSpec: want errors")
	}
}

func TestRunNamesAreFileSystemSafe(t *testing.T) {
	yaml := `name: x
consumer_type: [consumer, share]
rate: [100.5, 200]
linger: [0, 1.5ms]
processing: {model: uniform, min: 500us, max: [1ms, 2ms]}
broker_config: {group.share.record.lock.duration.ms: [15000, 30000], log.flush.interval.messages: [1, 2]}
`
	s := mustLoad(t, yaml, nil, nil)
	safe := regexp.MustCompile(`^r\d{2,}-[A-Za-z0-9._-]+$`)
	seen := map[string]bool{}
	for i := range s.Runs {
		n := s.RunName(i)
		if !safe.MatchString(n) || seen[n] {
			t.Errorf("RunName(%d) = %q: not file-system safe or not unique", i, n)
		}
		seen[n] = true
	}
	if n := s.RunName(len(s.Runs) - 1); n != "r64-share-rate200-linger1.5ms-max2ms-lockms30000-log_flush_interval_messages-2" {
		t.Errorf("last name = %q", n)
	}
}

func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	for _, want := range []string{"partition-cap", "smoke"} {
		if !slices.Contains(names, want) {
			t.Errorf("BuiltinNames() = %v, missing %s", names, want)
		}
	}
	for _, n := range names {
		s, err := Builtin(n)
		if err != nil {
			t.Errorf("builtin %s: %v", n, err)
			continue
		}
		if s.Name != n || s.Source != "builtin:"+n || len(s.Runs) == 0 {
			t.Errorf("builtin %s: name %q source %q runs %d", n, s.Name, s.Source, len(s.Runs))
		}
		for _, r := range s.Runs {
			if err := r.Validate(); err != nil {
				t.Errorf("builtin %s: %v", n, err)
			}
		}
	}
	s, err := Builtin("partition-cap")
	if err != nil {
		t.Fatal(err)
	}
	share := s.Runs[1]
	if len(s.Runs) != 2 || share.ConsumerType != "share" || share.Partitions != 4 || share.Members != 12 ||
		share.Producers != 2 || share.MaxPollRecords != 20 || share.ProcessingMean() != 10*time.Millisecond ||
		share.DrainTimeout != 90*time.Second {
		t.Errorf("partition-cap: %+v", share)
	}
	if _, err := Builtin("partition-capp"); err == nil || !strings.Contains(err.Error(), "partition-cap") {
		t.Errorf("unknown builtin: %v", err)
	}
	s, err = BuiltinWith("smoke", nil, []string{"consumer_type=share"})
	if err != nil || len(s.Runs) != 1 {
		t.Errorf("BuiltinWith with --set: %v", err)
	}
}

func TestLoadAndOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(path, []byte("name: from-file\nconsumer_type: share\nrate: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, nil, nil)
	wantErr(t, err, path+":3: rate: must be > 0")
	s, err := Open(path, nil, []string{"rate=10"})
	if err != nil || s.Name != "from-file" || s.Source != path {
		t.Errorf("Open(file) = %v, %v", s, err)
	}
	for _, ref := range []string{"smoke", "builtin:smoke"} {
		if s, err := Open(ref, nil, nil); err != nil || s.Name != "smoke" {
			t.Errorf("Open(%q): %v", ref, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), nil, nil); err == nil {
		t.Error("Load of a missing file: want an error")
	}
}

// A SHAREBENCH_* variable that is neither a scenario key nor one of the
// harness's own settings (envvars.Harness) is refused, naming it (never
// its value, which may be a secret) and the nearest valid name.
func TestUnknownEnvRefused(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"SHAREBENCH_PARTITONS=8", `environment variable SHAREBENCH_PARTITONS: names no scenario key and no sharebench setting (did you mean "SHAREBENCH_PARTITIONS"`},
		{"SHAREBENCH_PROVIDER=kfake", "environment variable SHAREBENCH_PROVIDER: names no scenario key"},
		{"SHAREBENCH_CAHCE=/x", `(did you mean "SHAREBENCH_CACHE"`},
		{"SHAREBENCH_ZZZZZZZZZZZZZZZZZZZZZZZZ=token-Secret77", "one of SHAREBENCH_CACHE, SHAREBENCH_KAFKA_IMAGE"},
	} {
		_, err := load(t, "name: x\n", []string{c.env}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.env, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "Secret77") {
			t.Errorf("%s: the value is quoted: %v", c.env, err)
		}
	}
	// Every harness variable, and an empty unknown one (unset), pass.
	var env []string
	for _, n := range envvars.Harness {
		env = append(env, n+"=1")
	}
	env = append(env, "SHAREBENCH_PARTITONS=", "NOT_OURS=1")
	mustLoad(t, "name: x\n", env, nil)
}

// A secret setting (a name redact.IsSecretKey marks: password, jaas,
// token...) cannot be swept: its values would become run ids, folder
// names and metric labels. The error names the file and line (or the
// --set key), the key and why, and never a value; one value is accepted,
// and a list for an ordinary setting still sweeps.
func TestSecretSettingIsNotSwept(t *testing.T) {
	const v1, v2 = "SweptPwA1b2", "SweptPwC3d4"
	_, err := load(t, "name: x\nbroker_config:\n  group.share.max.size: 200\n  ssl.keystore.password: ["+v1+", "+v2+"]\n", nil, nil)
	wantErr(t, err, "scenario.yaml:4: broker_config.ssl.keystore.password: a list of 2 values for a secret setting",
		"goes into the run ids", "give one value")
	for _, sets := range [][]string{
		{"broker_config.sasl.jaas.config=[" + v1 + "," + v2 + "]"},
		{"broker_config.listener.name.x.oauthbearer.token=[" + v1 + "," + v2 + "]"},
	} {
		_, err := load(t, "name: x\n", nil, sets)
		key, _, _ := strings.Cut(sets[0], "=")
		wantErr(t, err, "(--set "+key+")", key+": a list of 2 values for a secret setting")
		if err != nil && (strings.Contains(err.Error(), v1) || strings.Contains(err.Error(), v2)) {
			t.Errorf("the error holds a secret value: %v", err)
		}
	}
	if err != nil && (strings.Contains(err.Error(), v1) || strings.Contains(err.Error(), v2)) {
		t.Errorf("the error holds a secret value: %v", err)
	}
	// An ordinary setting whose swept value holds a secret (URL userinfo).
	_, err = load(t, "name: x\nbroker_config:\n  some.endpoint.url: [http://h/, 'http://bob:"+v1+"@h/']\n", nil, nil)
	wantErr(t, err, "scenario.yaml:3: broker_config.some.endpoint.url: value 2 of the list holds what the redaction masks as a secret")
	if err != nil && strings.Contains(err.Error(), v1) {
		t.Errorf("the error holds a secret value: %v", err)
	}
	s := mustLoad(t, "name: x\nbroker_config:\n  ssl.keystore.password: "+v1+"\n  group.share.max.size: [200, 300]\n", nil, nil)
	for i := range s.Runs {
		if strings.Contains(s.RunName(i), v1) || !strings.Contains(s.RunName(i), "maxsize") {
			t.Errorf("run %d named %q", i, s.RunName(i))
		}
	}
}

// jit_warmup: 20s when absent, 0 for none, a duration within its bounds;
// anything else is refused with the file, line, key and what it takes.
func TestJITWarmup(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		want time.Duration
	}{
		{"", 20 * time.Second},
		{"jit_warmup: 0\n", 0},
		{"jit_warmup: 0s\n", 0},
		{"jit_warmup: 90s\n", 90 * time.Second},
		{"jit_warmup: 10s\n", 10 * time.Second},
		{"jit_warmup: 10m\n", 10 * time.Minute},
	} {
		if s := mustLoad(t, "name: x\n"+tt.yaml, nil, nil); s.JITWarmup != tt.want {
			t.Errorf("%q: jit_warmup %v, want %v", tt.yaml, s.JITWarmup, tt.want)
		}
	}
	for _, tt := range []struct{ yaml, want string }{
		{"jit_warmup: 5s\n", "scenario.yaml:2: jit_warmup: expected 0 (no warm-up) or a duration from 10s to 10m0s, got 5s"},
		{"jit_warmup: 11m\n", "scenario.yaml:2: jit_warmup: expected 0 (no warm-up) or a duration from 10s to 10m0s, got 11m0s"},
		{"jit_warmup: soon\n", `scenario.yaml:2: jit_warmup: expected a Go duration like "250ms", "30s" or "2m", got "soon"`},
		{"jit_warmup: [10s, 20s]\n", "scenario.yaml:2: jit_warmup: expected a single value"},
	} {
		_, err := load(t, "name: x\n"+tt.yaml, nil, nil)
		wantErr(t, err, tt.want)
	}
}
