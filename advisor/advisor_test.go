package advisor

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

const msec = time.Millisecond

func constant(d time.Duration) scenarios.Processing {
	return scenarios.Processing{Model: "constant", Time: d}
}

// input is Defaults() (1 worker, 2000 locks, 30s lock, 20% headroom, 5ms
// poll overhead) with the given rate, processing and partitions.
func input(rate float64, p scenarios.Processing, partitions int) Input {
	in := Defaults()
	in.Rate, in.Processing, in.Partitions = rate, p, partitions
	return in
}

// want is the part of an Advice a case checks; floats to 1e-3.
type want struct {
	members, workers, maxSize, cpp int
	mpr                            int
	bound                          string
	wMs                            float64
	locksNeeded, locks, partitions int
	lockMs                         int64
	ceiling                        float64
	ceilingBound                   string
	cgCeiling                      float64
	shareWorthIt, meetsTarget      bool
	reason, note                   string // substrings of a reason / a note ("" = not checked)
}

func TestAdvise(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want want
	}{
		{
			// The partition-cap workload.
			// R' = 1000·1.2 = 1200; P = 10 ms; members = ceil(1200·10/1000) = 12 (≤ 200).
			// Consumer group: min(12, 4)·1·1000/10 = 400 < 1000 → share worth it.
			// cpp = ceil(12/4) = 3; lock bound = floor(0.8·2000/3) = floor(533.3) = 533;
			// duration bound = floor(0.5·30000·1/10) = 1500 → mpr = 533 (record locks).
			// batch = 533·10/1 = 5330 ms; W = 5330 + 5 = 5335 ms.
			// locks needed = ceil((1200/4)·5335/1000) = ceil(1600.5) = 1601 → max(2000, 1601) = 2000.
			// lock duration = clamp(max(30000, 2·5330 = 10660), 15000, 60000) = 30000.
			// ceiling = min(12·1·1000/10 = 1200, 4·2000·1000/5335 = 1499.53) = 1200 (workers).
			name: "partition cap: share group worth it",
			in:   input(1000, constant(10*msec), 4),
			want: want{members: 12, workers: 1, maxSize: 200, cpp: 3, mpr: 533, bound: BoundRecordLocks, wMs: 5335,
				locksNeeded: 1601, locks: 2000, partitions: 4, lockMs: 30000, ceiling: 1200, ceilingBound: "workers",
				cgCeiling: 400, shareWorthIt: true, meetsTarget: true,
				reason: "ceiling 400 records/s < target 1000 records/s; it would need ≥ 12 partitions, the topic has 4"},
		},
		{
			// Same workload on 16 partitions.
			// members = ceil(1200·10/1000) = 12 ≤ 16 partitions → a consumer group suffices:
			// min(12, 16)·1·1000/10 = 1200 ≥ 1200.
			// cpp = ceil(12/16) = 1; lock bound = floor(0.8·2000/1) = 1600; duration bound = 1500
			// → mpr = 1500 (lock duration). batch = 1500·10 = 15000 ms; W = 15005 ms.
			// locks needed = ceil((1200/16)·15005/1000) = ceil(75·15.005) = ceil(1125.375) = 1126 → 2000.
			// lock duration = clamp(max(30000, 2·15000 = 30000), 15000, 60000) = 30000.
			// ceiling = min(1200, 16·2000·1000/15005 = 2132.6) = 1200.
			name: "a consumer group suffices",
			in:   input(1000, constant(10*msec), 16),
			want: want{members: 12, workers: 1, maxSize: 200, cpp: 1, mpr: 1500, bound: BoundLockDuration, wMs: 15005,
				locksNeeded: 1126, locks: 2000, partitions: 16, lockMs: 30000, ceiling: 1200, ceilingBound: "workers",
				cgCeiling: 1200, shareWorthIt: false, meetsTarget: true,
				reason: "a consumer group suffices: 12 members on 16 partitions reach 1200 records/s ≥ 1200 records/s"},
		},
		{
			// 11 partitions: the consumer group reaches the target but not the headroom.
			// members = 12 > 11; consumer group = min(12, 11)·100 = 1100: ≥ 1000, < 1200 → share worth it.
			// cpp = ceil(12/11) = 2; lock bound = floor(0.8·2000/2) = 800; duration bound 1500 → mpr 800.
			// batch = 8000 ms, W = 8005 ms; locks needed = ceil((1200/11)·8.005) = ceil(873.27) = 874 → 2000.
			// ceiling = min(1200, 11·2000/8.005 = 2748.3) = 1200.
			name: "consumer group misses only the headroom",
			in:   input(1000, constant(10*msec), 11),
			want: want{members: 12, workers: 1, maxSize: 200, cpp: 2, mpr: 800, bound: BoundRecordLocks, wMs: 8005,
				locksNeeded: 874, locks: 2000, partitions: 11, lockMs: 30000, ceiling: 1200, ceilingBound: "workers",
				cgCeiling: 1100, shareWorthIt: true, meetsTarget: true,
				reason: "the target 1000 but not the 20% headroom (1200 records/s); it would need ≥ 12 partitions"},
		},
		{
			// More than group.share.max.size's default 200 members.
			// R' = 3600; members = ceil(3600·100/1000) = 360 > 200 → raise group.share.max.size to 360,
			// or --workers ceil(360/200) = 2 for 180 members.
			// consumer group = min(360, 10)·1·1000/100 = 100 < 3000 → share worth it.
			// cpp = 36; lock bound = floor(0.8·2000/36) = floor(44.4) = 44; duration bound =
			// floor(0.5·30000/100) = 150 → mpr 44. batch = 4400 ms; W = 4405 ms.
			// locks needed = ceil(360·4.405) = ceil(1585.8) = 1586 → 2000.
			// lock duration = clamp(max(30000, 8800), ...) = 30000.
			// ceiling = min(360·1000/100 = 3600, 10·2000/4.405 = 4540.3) = 3600.
			name: "more than 200 members",
			in:   input(3000, constant(100*msec), 10),
			want: want{members: 360, workers: 1, maxSize: 360, cpp: 36, mpr: 44, bound: BoundRecordLocks, wMs: 4405,
				locksNeeded: 1586, locks: 2000, partitions: 10, lockMs: 30000, ceiling: 3600, ceilingBound: "workers",
				cgCeiling: 100, shareWorthIt: true, meetsTarget: true,
				note: "raise it to ≥ 360 on the broker (Kafka allows up to 1000), or use --workers 2 (ceil(3600·100 / (1000·200))) for ceil(3600·100 / (1000·2)) = 180 members"},
		},
		{
			// More than Kafka's hard limit of 1000 members: workers are raised.
			// R' = 120; with 1 worker, members = ceil(120·40000/1000) = 4800 > 1000
			// → workers = ceil(120·40000/(1000·1000)) = ceil(4.8) = 5, members = ceil(4800/5) = 960.
			// consumer group = min(960, 8)·5·1000/40000 = 1 < 100 → share worth it.
			// cpp = 120; lock bound = floor(0.8·2000/120) = 13; duration bound = floor(0.5·30000·5/40000)
			// = floor(1.875) = 1 → mpr 1 (lock duration). batch = 1·40000/5 = 8000 ms; W = 8005 ms.
			// locks needed = ceil((120/8)·8.005) = ceil(120.075) = 121 → 2000.
			// lock duration = clamp(max(30000, 16000), ...) = 30000.
			// ceiling = min(960·5·1000/40000 = 120, 8·2000/8.005 = 1998.8) = 120.
			name: "more than 1000 members raises the workers",
			in:   input(100, constant(40*time.Second), 8),
			want: want{members: 960, workers: 5, maxSize: 960, cpp: 120, mpr: 1, bound: BoundLockDuration, wMs: 8005,
				locksNeeded: 121, locks: 2000, partitions: 8, lockMs: 30000, ceiling: 120, ceilingBound: "workers",
				cgCeiling: 1, shareWorthIt: true, meetsTarget: true,
				note: "4800 members with 1 worker(s) each exceed Kafka's limit of 1000"},
		},
		{
			// 10000 locks per share-partition are not enough (a slow 100 ms poll/ack round trip).
			// R' = 240000; members = ceil(240000·1/(1000·10)) = 24.
			// consumer group = min(24, 2)·10·1000/1 = 20000 < 200000 → share worth it.
			// cpp = 12; lock bound = floor(0.8·2000/12) = floor(133.3) = 133; duration bound =
			// floor(0.5·30000·10/1) = 150000 → mpr 133. batch = 133·1/10 = 13.3 ms; W = 113.3 ms.
			// locks needed = ceil((240000/2)·113.3/1000) = ceil(13596) = 13596 > 10000 → 10000;
			// partitions needed = ceil(240000·113.3/(1000·10000)) = ceil(2.7192) = 3.
			// ceiling = min(24·10·1000/1 = 240000, 2·10000·1000/113.3 = 176522.507) = 176522.507
			// (locks) < 200000: the target is not met.
			name: "10000 locks are not enough",
			in: func() Input {
				in := input(200000, constant(1*msec), 2)
				in.Workers, in.PollOverhead = 10, 100*msec
				return in
			}(),
			want: want{members: 24, workers: 10, maxSize: 200, cpp: 12, mpr: 133, bound: BoundRecordLocks, wMs: 113.3,
				locksNeeded: 13596, locks: 10000, partitions: 3, lockMs: 30000, ceiling: 176522.507, ceilingBound: "lock_window",
				cgCeiling: 20000, shareWorthIt: true, meetsTarget: false,
				note: "13596 locks per share-partition are needed but Kafka allows at most 10000 (group.share.partition.max.record.locks): use ≥ 3 partitions"},
		},
		{
			// Lognormal median 10ms p99 50ms: σ = ln(50/10)/2.326348 = 1.609438/2.326348 = 0.691830;
			// mean = 10·exp(σ²/2) = 10·exp(0.239315) = 12.703781 ms.
			// members = ceil(1200·12.703781/1000) = ceil(15.2445) = 16.
			// consumer group = min(16, 4)·1000/12.703781 = 314.867 < 1000 → share worth it.
			// cpp = 4; lock bound = floor(0.8·2000/4) = 400; duration bound = floor(15000/12.703781)
			// = floor(1180.75) = 1180 → mpr 400. batch = 400·12.703781 = 5081.512 ms; W = 5086.512 ms.
			// locks needed = ceil(300·5.086512) = ceil(1525.95) = 1526 → 2000.
			// ceiling = min(16·1000/12.703781 = 1259.468, 4·2000/5.086512 = 1572.787) = 1259.468.
			name: "lognormal processing uses its mean",
			in:   input(1000, scenarios.Processing{Model: "lognormal", Median: 10 * msec, P99: 50 * msec}, 4),
			want: want{members: 16, workers: 1, maxSize: 200, cpp: 4, mpr: 400, bound: BoundRecordLocks, wMs: 5086.512,
				locksNeeded: 1526, locks: 2000, partitions: 4, lockMs: 30000, ceiling: 1259.468, ceilingBound: "workers",
				cgCeiling: 314.867, shareWorthIt: true, meetsTarget: true},
		},
		{
			// One record takes more than half the lock: max.poll.records 1 and a longer lock.
			// R' = 0.12; members = ceil(0.12·20000/1000) = ceil(2.4) = 3; consumer group = min(3, 1)·1000/20000 = 0.05 < 0.1.
			// cpp = 3; lock bound = floor(0.8·2000/3) = 533; duration bound = floor(0.5·30000/20000) = 0
			// → mpr = max(1, 0) = 1 (minimum). batch = 20000 ms; W = 20005 ms.
			// locks needed = ceil(0.12·20.005) = ceil(2.4006) = 3 → 2000.
			// lock duration = clamp(max(30000, 2·20000 = 40000), 15000, 60000) = 40000.
			// ceiling = min(3·1000/20000 = 0.15, 1·2000/20.005 = 99.975) = 0.15.
			name: "one record exceeds half the lock",
			in:   input(0.1, constant(20*time.Second), 1),
			want: want{members: 3, workers: 1, maxSize: 200, cpp: 3, mpr: 1, bound: BoundMinimum, wMs: 20005,
				locksNeeded: 3, locks: 2000, partitions: 1, lockMs: 40000, ceiling: 0.15, ceilingBound: "workers",
				cgCeiling: 0.05, shareWorthIt: true, meetsTarget: true,
				note: "share.record.lock.duration.ms (per group) to 40000 ms"},
		},
		{
			// A batch longer than the broker's default maximum lock duration.
			// R' = 0.012; members = ceil(0.012·40000/1000) = ceil(0.48) = 1 ≤ 1 partition → consumer group
			// suffices: min(1, 1)·1000/40000 = 0.025 ≥ 0.012.
			// cpp = 1; lock bound = 1600; duration bound = floor(0.5·30000/40000) = 0 → mpr 1 (minimum).
			// batch = 40000 ms; W = 40005 ms; locks needed = ceil(0.012·40.005) = ceil(0.48) = 1 → 2000.
			// lock duration = clamp(max(30000, 80000), 15000, 60000) = 60000 < 80000 → lock expiry warning.
			// ceiling = min(0.025, 1·2000/40.005 = 49.994) = 0.025.
			name: "batch longer than the maximum lock duration",
			in:   input(0.01, constant(40*time.Second), 1),
			want: want{members: 1, workers: 1, maxSize: 200, cpp: 1, mpr: 1, bound: BoundMinimum, wMs: 40005,
				locksNeeded: 1, locks: 2000, partitions: 1, lockMs: 60000, ceiling: 0.025, ceilingBound: "workers",
				cgCeiling: 0.025, shareWorthIt: false, meetsTarget: true,
				note: "the lock should last ≥ 80000 ms but is capped at 60000 ms"},
		},
		{
			// More locks than configured: 200 locks, 3 workers per member, no headroom.
			// R' = 3000; members = ceil(3000·5/(1000·3)) = 5; consumer group = min(5, 2)·3·1000/5 = 1200 < 3000.
			// cpp = ceil(5/2) = 3; lock bound = floor(0.8·200/3) = floor(53.3) = 53; duration bound =
			// floor(0.5·30000·3/5) = 9000 → mpr 53. batch = 53·5/3 = 88.333 ms; W = 93.333 ms.
			// locks needed = ceil((3000/2)·93.333/1000) = ceil(140) = 140 → max(200, 140) = 200.
			// ceiling = min(5·3·1000/5 = 3000, 2·200·1000/93.333 = 4285.714) = 3000.
			name: "few locks, several workers, no headroom",
			in: func() Input {
				in := input(3000, constant(5*msec), 2)
				in.Workers, in.RecordLocks, in.Headroom = 3, 200, 0
				return in
			}(),
			want: want{members: 5, workers: 3, maxSize: 200, cpp: 3, mpr: 53, bound: BoundRecordLocks, wMs: 93.333,
				locksNeeded: 140, locks: 200, partitions: 2, lockMs: 30000, ceiling: 3000, ceilingBound: "workers",
				cgCeiling: 1200, shareWorthIt: true, meetsTarget: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Advise(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			ints := []struct {
				name      string
				got, want int
			}{
				{"members", a.Members, w.members}, {"workers", a.Workers, w.workers},
				{"share_group_max_size", a.ShareGroupMaxSize, w.maxSize},
				{"consumers_per_partition", a.ConsumersPerPartition, w.cpp},
				{"max_poll_records", a.MaxPollRecords, w.mpr},
				{"record_locks_needed", a.RecordLocksNeeded, w.locksNeeded},
				{"record_locks", a.RecordLocks, w.locks}, {"partitions_needed", a.PartitionsNeeded, w.partitions},
				{"lock_duration_ms", int(a.LockDurationMs), int(w.lockMs)},
				{"consumer_group_partitions_needed", a.ConsumerGroupPartitionsNeeded, w.members},
			}
			for _, c := range ints {
				if c.got != c.want {
					t.Errorf("%s = %d, want %d (%s)", c.name, c.got, c.want, a.Formulas[c.name])
				}
			}
			floats := []struct {
				name      string
				got, want float64
			}{
				{"w_ms", a.WMs, w.wMs}, {"ceiling_records_per_sec", a.Ceiling, w.ceiling},
				{"consumer_group_ceiling_records_per_sec", a.ConsumerGroupCeiling, w.cgCeiling},
			}
			for _, c := range floats {
				if math.Abs(c.got-c.want) > 1e-3 {
					t.Errorf("%s = %v, want %v (%s)", c.name, c.got, c.want, a.Formulas[c.name])
				}
			}
			if a.MaxPollRecordsBound != w.bound || string(a.CeilingBound) != w.ceilingBound {
				t.Errorf("bounds: max.poll.records %q ceiling %q, want %q %q", a.MaxPollRecordsBound, a.CeilingBound, w.bound, w.ceilingBound)
			}
			if a.ShareWorthIt != w.shareWorthIt || a.MeetsTarget != w.meetsTarget {
				t.Errorf("share_worth_it %t meets_target %t, want %t %t; reasons %q", a.ShareWorthIt, a.MeetsTarget, w.shareWorthIt, w.meetsTarget, a.Reasons)
			}
			if w.reason != "" && !containsAny(a.Reasons, w.reason) {
				t.Errorf("no reason contains %q:\n%s", w.reason, strings.Join(a.Reasons, "\n"))
			}
			if w.note != "" && !containsAny(a.Notes, w.note) {
				t.Errorf("no note contains %q:\n%s", w.note, strings.Join(a.Notes, "\n"))
			}
			if len(a.Reasons) == 0 {
				t.Error("no reasons")
			}
		})
	}
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// The formulas substitute the numbers: the brief's worked example, line by line.
func TestFormulasShowTheArithmetic(t *testing.T) {
	a, err := Advise(input(1000, constant(10*msec), 4))
	if err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{
		"members":                                "ceil(1200·10 / (1000·1)) = 12",
		"consumer_group_ceiling_records_per_sec": "min(12, 4)·1·1000/10 = 400",
		"max_poll_records_lock_bound":            "floor(0.8·2000/3) = 533",
		"max_poll_records_duration_bound":        "floor(0.5·30000·1/10) = 1500",
		"w_ms":                                   "5330 + 5 = 5335",
		"record_locks_needed":                    "ceil(300·5335/1000) = 1601",
		"lock_duration_ms":                       "clamp(max(current 30000, 2·batch 5330 = 10660), 15000, 60000) = 30000",
		"ceiling_records_per_sec":                "min(workers 1200, locks 1499.531) = 1200 (workers-bound)",
	} {
		if !strings.Contains(a.Formulas[field], want) {
			t.Errorf("formula %s = %q, want it to contain %q", field, a.Formulas[field], want)
		}
	}
	// Every row of the text report has its formula.
	for _, r := range a.rows() {
		if a.Formulas[r.field] == "" {
			t.Errorf("row %q (%s) has no formula", r.label, r.field)
		}
	}
	var buf bytes.Buffer
	if err := a.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"members", "12", "ceil(1200·10 / (1000·1)) = 12", "why:", "notes:"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestValidateNamesTheFlag(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Input)
		want string
	}{
		{"negative rate", func(in *Input) { in.Rate = -5 }, "--rate: must be > 0 records/s, got -5"},
		{"zero rate", func(in *Input) { in.Rate = 0 }, "--rate: must be > 0 records/s, got 0"},
		{"NaN rate", func(in *Input) { in.Rate = math.NaN() }, "--rate: must be > 0 records/s, got NaN"},
		{"huge rate", func(in *Input) { in.Rate = 2e9 }, "--rate: must be ≤ 1000000000 records/s"},
		{"zero processing", func(in *Input) { in.Processing = constant(0) }, "--processing: the processing time must be > 0, got 0s"},
		{"no model", func(in *Input) { in.Processing = scenarios.Processing{} }, `--processing: expected a mean duration`},
		{"uniform rounds to 0", func(in *Input) { in.Processing = scenarios.Processing{Model: "uniform", Max: 1} },
			"--processing: the mean processing time must be > 0, got 0s"},
		{"partitions", func(in *Input) { in.Partitions = 0 }, "--partitions: must be ≥ 1, got 0"},
		{"workers", func(in *Input) { in.Workers = 0 }, "--workers: must be ≥ 1 per member, got 0"},
		{"locks low", func(in *Input) { in.RecordLocks = 50 }, "--record-locks: must be within Kafka's range 100–10000 for group.share.partition.max.record.locks, got 50"},
		{"locks high", func(in *Input) { in.RecordLocks = 20000 }, "--record-locks: must be within Kafka's range 100–10000"},
		{"lock duration", func(in *Input) { in.LockDuration = 500 * msec }, "--lock-duration: must be within Kafka's range 1s–1h0m0s for group.share.record.lock.duration.ms, got 500ms"},
		{"headroom", func(in *Input) { in.Headroom = -0.1 }, "--headroom: must be in [0, 10] (0.2 plans for 20% above --rate), got -0.1"},
		{"poll overhead", func(in *Input) { in.PollOverhead = -msec }, "--poll-overhead: must be ≥ 0, got -1ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := input(1000, constant(10*msec), 4)
			tc.edit(&in)
			_, err := Advise(in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Every problem is reported, one per line.
	_, err := Advise(Input{})
	if err == nil {
		t.Fatal("zero Input accepted")
	}
	for _, flag := range []string{"--rate", "--processing", "--partitions", "--workers", "--record-locks", "--lock-duration"} {
		if !strings.Contains(err.Error(), flag+":") {
			t.Errorf("zero Input: %q not reported in\n%v", flag, err)
		}
	}
}

// The advisor plans with scenarios' ranges (scenarios.RangeOf); they are
// Kafka 4.2's (ShareGroupConfig, GroupCoordinatorConfig), written out here
// from Kafka's documentation as the independent expectation.
func TestKafkaRangesAreKafkas(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"group.share.max.size default", int64(DefaultShareGroupMaxSize), 200},
		{"group.share.max.size max", int64(MaxShareGroupMaxSize), 1000},
		{"record locks min", int64(MinRecordLocks), 100},
		{"record locks max", int64(MaxRecordLocks), 10000},
		{"record locks default", int64(DefaultRecordLocks), 2000},
		{"lock duration min ms", MinLockDuration.Milliseconds(), 1000},
		{"lock duration max ms", MaxLockDuration.Milliseconds(), 3600000},
		{"lock duration default ms", DefaultLockDuration.Milliseconds(), 30000},
		{"min lock duration default ms", DefaultMinLockDuration.Milliseconds(), 15000},
		{"max lock duration default ms", DefaultMaxLockDuration.Milliseconds(), 60000},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, Kafka 4.2 has %d", c.name, c.got, c.want)
		}
	}
	// And scenarios refuses what the advisor refuses: one step outside.
	load := func(cfg string) error {
		_, err := scenarios.LoadBytes("ranges.yaml", []byte("name: ranges\nbroker_config:\n"+cfg), nil, nil)
		return err
	}
	for _, c := range []struct {
		key      string
		min, max int64
	}{
		{scenarios.KeyRecordLocks, int64(MinRecordLocks), int64(MaxRecordLocks)},
		{scenarios.KeyRecordLockDuration, MinLockDuration.Milliseconds(), MaxLockDuration.Milliseconds()},
	} {
		for _, bad := range []int64{c.min - 1, c.max + 1} {
			if err := load(fmtKV(c.key, bad)); err == nil || !strings.Contains(err.Error(), fmtRange(c.min, c.max)) {
				t.Errorf("%s=%d: scenarios says %v, want the range %s", c.key, bad, err, fmtRange(c.min, c.max))
			}
		}
	}
}

func fmtKV(key string, v int64) string { return "  " + key + ": " + itoa(v) + "\n" }
func fmtRange(lo, hi int64) string     { return itoa(lo) + "–" + itoa(hi) }
func itoa(v int64) string              { return strings.TrimSpace(num(float64(v))) }

// The advisor never plans a batch that outlives its lock: either the batch
// (max.poll.records·P/workers) fits the lock duration, or the plan renews
// locks (renew auto). Swept over slow processing, few workers and short
// locks, where even one record per poll can outlast the lock.
func TestAdviseNeverPlansLockExpiry(t *testing.T) {
	for _, p := range []time.Duration{msec, 100 * msec, 5 * time.Second, 20 * time.Second, 45 * time.Second, 90 * time.Second} {
		for _, lock := range []time.Duration{time.Second, 15 * time.Second, 30 * time.Second, 60 * time.Second} {
			for _, budget := range []time.Duration{0, 2 * time.Second} {
				in := input(50, constant(p), 4)
				in.LockDuration, in.P99Budget = lock, budget
				a, err := Advise(in)
				if err != nil {
					t.Fatal(err)
				}
				batch := float64(a.MaxPollRecords) * a.ProcessingMs / float64(a.Workers)
				if batch > float64(a.LockDurationMs) && a.Renew != "auto" {
					t.Errorf("P %v lock %v budget %v: batch %.0f ms outlives the %d ms lock without renew: %+v",
						p, lock, budget, batch, a.LockDurationMs, a)
				}
			}
		}
	}
}

// With --p99-budget the advisor takes the smallest max.poll.records that
// meets the rate, and says why. 1000 records/s + 20 % at 10 ms: 12 members
// exactly fill 1200/s with no poll overhead, so batches must amortize the
// 5 ms round trip: 12·n·1000/(10n + 5) ≥ 1200 has no solution (12000n ≥
// 12000n + 6000), so a 13th member is added: 13·n·1000/(10n+5) ≥ 1200 ⇔
// 13000n ≥ 12000n + 6000 ⇔ n ≥ 6. Predicted p99 = 6·10 + 5 = 65 ms.
func TestAdviseP99BudgetPrefersSmallestMaxPollRecords(t *testing.T) {
	in := input(1000, constant(10*msec), 4)
	in.P99Budget = 500 * msec
	a, err := Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxPollRecords != 6 || a.Members != 13 || a.MaxPollRecordsBound != BoundRateBudget {
		t.Fatalf("mpr %d members %d bound %s, want 6, 13, %s", a.MaxPollRecords, a.Members, a.MaxPollRecordsBound, BoundRateBudget)
	}
	if math.Abs(a.PredictedP99Ms-65) > 1e-9 {
		t.Errorf("predicted p99 %.1f ms, want 65", a.PredictedP99Ms)
	}
	if !slicesContain(a.Notes, "is the smallest that meets 1200 records/s with 13 members") ||
		!slicesContain(a.Notes, "members raised from 12 to 13") {
		t.Errorf("notes do not explain the choice: %q", a.Notes)
	}
	// Without a budget the plan is the largest batch the locks allow (533).
	in.P99Budget = 0
	if a, _ := Advise(in); a.MaxPollRecords != 533 {
		t.Errorf("without a budget: mpr %d, want 533", a.MaxPollRecords)
	}
	// A hold limit of 40 ms allows n ≤ (40 − 5)/10 = 3 < 6: members are added
	// until 3 records per poll meet 1200/s: m·3000/35 ≥ 1200 ⇔ m ≥ 14.
	in.MaxHold = 40 * msec
	a, err = Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxPollRecords != 3 || a.Members != 14 || a.WMs > 40 {
		t.Errorf("max hold 40ms: mpr %d members %d W %.0f ms, want 3, 14, ≤ 40", a.MaxPollRecords, a.Members, a.WMs)
	}
	// A budget no batch can meet is said so.
	in.MaxHold, in.P99Budget = 0, 8*msec
	if a, _ := Advise(in); !slicesContain(a.Notes, "no max.poll.records meets") {
		t.Errorf("impossible budget not reported: %q", a.Notes)
	}
}

func slicesContain(notes []string, sub string) bool {
	for _, n := range notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

// A plan beyond the harness's own limits is refused, saying which limit
// and the formula that asked for it; a rate below MinRate is refused
// instead of planned as "0 records/s".
func TestAdviseRefusesPlansBeyondTheHarness(t *testing.T) {
	in := Defaults()
	in.Partitions = 4
	in.Processing = scenarios.Processing{Model: "constant", Time: 1000 * time.Hour}
	// workers = ceil(rate·1.2·P / (1000·1000 members)), P = 3.6e9 ms: at
	// 3/s ceil(1.296e7 / 1000) = 12960 > 10000; at 2/s 8640, within.
	in.Rate = 3
	_, err := Advise(in)
	if err == nil || !strings.Contains(err.Error(), "the plan needs 12960 workers per member") ||
		!strings.Contains(err.Error(), "beyond the harness's limit of 10000 workers per member") {
		t.Errorf("1000 h at 3/s: %v, want 12960 workers refused at the limit", err)
	}
	in.Rate = 2
	if a, err := Advise(in); err != nil || a.Workers != 8640 {
		t.Errorf("1000 h at 2/s: %d workers per member, %v; want ceil(2.4·3.6e9/1e6) = 8640", a.Workers, err)
	}
	in.Rate = 1e-300
	if _, err := Advise(in); err == nil || !strings.Contains(err.Error(), "--rate: must be ≥ 0.001 records/s") {
		t.Errorf("rate 1e-300: %v, want the minimum named", err)
	}
}

// A destination: its write is part of P, and its capacity sizes the members
// (past it more members only move the queue into the destination) and caps
// both group types' ceilings. Worked by hand: P = 10 + 2 = 12 ms; the design
// rate 1000·1.2 = 1200 needs ceil(1200·12/1000) = 15 members, a destination
// of 500 records/s only ceil(500·12/1000) = 6, whose workers reach
// 6·1000/12 = 500; a consumer group on 4 partitions reaches 4·1000/12.
func TestAdviseDestination(t *testing.T) {
	in := input(1000, constant(10*msec), 4)
	in.DestinationWrite = 2 * msec

	a, err := Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	if a.ProcessingMs != 12 || a.Members != 15 || a.CeilingBound == "destination" {
		t.Errorf("no capacity: P %v, members %d, bound %s; want P 12, 15 members, not destination-bound", a.ProcessingMs, a.Members, a.CeilingBound)
	}

	in.DestinationCapacity = 500
	a, err = Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	if a.Members != 6 || a.Ceiling != 500 || a.CeilingBound != "destination" || a.MeetsTarget {
		t.Errorf("capacity 500: members %d, ceiling %v (%s), meets %v; want 6, 500 (destination), false", a.Members, a.Ceiling, a.CeilingBound, a.MeetsTarget)
	}
	if math.Abs(a.ConsumerGroupCeiling-4000.0/12) > 1e-9 {
		t.Errorf("consumer group ceiling %v, want 4·1000/12", a.ConsumerGroupCeiling)
	}
	if !strings.Contains(strings.Join(a.Reasons, "\n"), "only move the queue from Kafka into it") {
		t.Errorf("reasons %q do not say why members stop", a.Reasons)
	}

	// A consumer group already at the destination's capacity: both group
	// types are capped alike, and 3 members on 4 partitions need no share group.
	in.DestinationCapacity = 250
	if a, err = Advise(in); err != nil {
		t.Fatal(err)
	}
	if a.Members != 3 || a.ConsumerGroupCeiling != 250 || a.Ceiling != 250 || a.ShareWorthIt {
		t.Errorf("capacity 250: members %d, consumer ceiling %v, share ceiling %v, worth it %v; want 3, 250, 250, false",
			a.Members, a.ConsumerGroupCeiling, a.Ceiling, a.ShareWorthIt)
	}

	// A destination below the target: the members fit the partitions, but
	// the plan falls short, and says so with both numbers (no "≥"), in the
	// singular for one member.
	in.DestinationCapacity = 0.5
	if a, err = Advise(in); err != nil {
		t.Fatal(err)
	}
	why := strings.Join(a.Reasons, "\n")
	if a.Members != 1 || !strings.Contains(why, "a consumer group falls short: 1 member on 4 partitions reaches only 0.5 records/s, below the 1200 records/s planned") ||
		strings.Contains(why, "≥") {
		t.Errorf("capacity 0.5: members %d, reasons %q; want 1 member falling short of 1200", a.Members, a.Reasons)
	}

	// A capacity above the design rate changes nothing but the formula.
	in.DestinationCapacity = 5000
	if a, err = Advise(in); err != nil {
		t.Fatal(err)
	}
	if a.Members != 15 || a.CeilingBound == "destination" {
		t.Errorf("capacity 5000: members %d, bound %s; want 15, not destination-bound", a.Members, a.CeilingBound)
	}

	for _, bad := range []Input{{DestinationCapacity: -1}, {DestinationCapacity: math.Inf(1)}, {DestinationCapacity: math.NaN()}, {DestinationWrite: -msec}} {
		b := input(1000, constant(10*msec), 4)
		b.DestinationCapacity, b.DestinationWrite = bad.DestinationCapacity, bad.DestinationWrite
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "--destination-") {
			t.Errorf("%+v: error %v, want one naming the --destination- flag", bad, err)
		}
	}
}

// When the p99 budget raises the members, every figure and formula of the
// plan is the larger group's (the group size, consumers per partition, the
// lock bound, the consumer group's partitions), not the rate's first count.
func TestBudgetRaiseReplansEveryFigure(t *testing.T) {
	in := Defaults()
	in.Rate, in.Partitions, in.P99Budget = 1000, 4, 500*time.Millisecond
	in.Processing = scenarios.Processing{Model: "constant", Time: 10 * time.Millisecond}
	a, err := Advise(in)
	if err != nil {
		t.Fatal(err)
	}
	if a.Members != 13 {
		t.Fatalf("members %d, want 13 (12 for the rate, raised by the budget)", a.Members)
	}
	// ceil(13/4) = 4 consumers per partition; floor(0.8·2000/4) = 400
	if a.ConsumersPerPartition != 4 || a.MaxPollRecordsLockBound != 400 || a.ConsumerGroupPartitionsNeeded != 13 {
		t.Errorf("consumers per partition %d, lock bound %d, consumer group partitions %d; want 4, 400, 13",
			a.ConsumersPerPartition, a.MaxPollRecordsLockBound, a.ConsumerGroupPartitionsNeeded)
	}
	for field, f := range a.Formulas {
		if field != "members" && regexp.MustCompile(`\b12\b`).MatchString(f) {
			t.Errorf("formula %s still uses the first member count: %s", field, f)
		}
	}
	for _, n := range a.Notes {
		if strings.Contains(n, "533") {
			t.Errorf("a note keeps the 12-member lock bound: %s", n)
		}
	}
}
