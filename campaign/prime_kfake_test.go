package campaign

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/collectors"
	"github.com/sharebench/sharebench/producer"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// --jit-warmup=false (Options.NoJITWarmup) still creates the internal
// topics and coordinators but skips the warm-up under load, and the
// priming record says so: jit_warmup false, nothing produced. On the kfake
// cluster (not Kafka).
func TestPrimeWithoutJITWarmupIsRecorded(t *testing.T) {
	ctx, cl := startKfake(t)
	p, err := primeCluster(ctx, cl.Bootstrap(), cl.Nodes(), nil, warmupConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if p.JITWarmup || p.RecordsProduced != 0 || p.ConsumedConsumerGroup != 0 || p.ConsumedShareGroup != 0 || p.DurationSec != 0 {
		t.Errorf("priming %+v: want jit_warmup false and no warm-up figures", p)
	}
}

// The warm-up's stop decision: never before its minimum time, never
// without a reading, and at or below the target rate only.
func TestJITSettled(t *testing.T) {
	const minTime = 10 * time.Second
	for _, tc := range []struct {
		spent time.Duration
		rate  float64
		ok    bool
		want  bool
	}{
		{9 * time.Second, 0, true, false},       // before the minimum time
		{10 * time.Second, 0.5, true, false},    // still compiling
		{10 * time.Second, 0.02, true, true},    // at the target
		{30 * time.Second, 0.019, true, true},   // below it
		{20 * time.Second, 0, false, false},     // no full window of scrapes yet
		{60 * time.Second, 0.0201, true, false}, // just above
	} {
		if got := jitSettled(tc.spent, minTime, tc.rate, tc.ok, 0.02); got != tc.want {
			t.Errorf("spent %v, rate %v (readable %v): settled %v, want %v", tc.spent, tc.rate, tc.ok, got, tc.want)
		}
	}
}

// With a compile-time reading the warm-up goes on past its minimum time
// while the brokers compile and stops once the rate over the last window
// meets the target, recording what it read. The brokers' metrics endpoint
// is a stand-in whose counter rises 1 s per s for its first 4 s and then
// stays (not Kafka's JVM); the records go through the kfake cluster (not
// Kafka). Without a reading (no endpoint) it stops at its minimum time.
// Either way both groups end having consumed what was produced.
func TestWarmUpRunsUntilJITSettles(t *testing.T) {
	ctx, cl := startKfake(t)
	// The counter's rise starts at the first scrape, so the scrapes see all
	// of its 4 s however late a loaded host makes the first one.
	var firstScrape sync.Once
	var rising time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		firstScrape.Do(func() { rising = time.Now() })
		compiled := 30 + min(time.Since(rising).Seconds(), 4)
		fmt.Fprintf(w, "# TYPE jvm_compilation_time_seconds_total counter\njvm_compilation_time_seconds_total %g\n"+
			"java_lang_memory_heapmemoryusage_used 1.0E8\n", compiled)
	}))
	defer srv.Close()
	adm, err := newAdmin(cl.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.close()
	scraper := collectors.NewBrokerScraper([]string{srv.URL}, primingScrapeInterval)
	scraper.Start(ctx)
	// The minimum time (2 s) ends while the counter still rises; the first
	// 3 s window without a rise ends 7–8 s in (the watcher's phase against
	// the scrapes').
	cfg := warmupConfig{Producer: producer.Config{Producers: 2, Rate: 400, MessageSize: 100, KeyMode: "round-robin", Acks: "all"},
		Members: 2, PollRecords: 20, MinTime: 2 * time.Second, Time: 30 * time.Second, Window: 3 * time.Second, SettledRate: 0.02}
	p, err := warmUp(ctx, adm, cl.Bootstrap(), cl.Nodes(), scraper, cfg)
	scraper.Stop()
	if err != nil {
		t.Fatal(err)
	}
	j := p.JIT
	if j == nil || !j.Settled || j.EndRate > j.TargetRate || j.TargetRate != 0.02 {
		t.Fatalf("jit %+v: want settled at or below 0.02", j)
	}
	if j.CompileSec < 3.9 || j.CompileSec > 4.0001 || len(j.Rates) == 0 || j.Rates[0] <= j.TargetRate {
		t.Errorf("compiled %v s, rates %v: want 4 s, the first window above the target", j.CompileSec, j.Rates)
	}
	if p.DurationSec < 6 || p.DurationSec > 15 {
		t.Errorf("warm-up of %.1fs: want it to end on the settle, 7–9 s in", p.DurationSec)
	}
	consumedAll(t, p)
	if p.RatePerSec != 400 || p.Producers != 2 || p.RecordBytes != 100 || p.MembersPerGroup != cfg.Members || p.PollRecords != cfg.PollRecords ||
		p.MinTimeSec != 2 || p.TimeLimitSec != 30 {
		t.Errorf("priming record %+v: want the warm-up's load and bounds", p)
	}

	began := time.Now()
	p, err = warmUp(ctx, adm, cl.Bootstrap(), cl.Nodes(), collectors.NewBrokerScraper(nil, primingScrapeInterval), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.JIT != nil || time.Since(began) < cfg.MinTime || time.Since(began) > cfg.MinTime+5*time.Second {
		t.Errorf("without a reading: %+v in %v, want no JIT record and an end at the minimum time (%v)", p, time.Since(began), cfg.MinTime)
	}
	consumedAll(t, p)
}

// consumedAll checks that a warm-up produced records and that both groups
// consumed all of them.
func consumedAll(t *testing.T, p *runs.Priming) {
	t.Helper()
	if p.RecordsProduced <= 0 || p.ConsumedConsumerGroup < p.RecordsProduced || p.ConsumedShareGroup < p.RecordsProduced {
		t.Errorf("produced %d, consumed %d (consumer group) and %d (share group): want all of them through both",
			p.RecordsProduced, p.ConsumedConsumerGroup, p.ConsumedShareGroup)
	}
}

// The warm-up takes the runs' request pattern, within its bounds: the
// producers of the rate-mode run with the highest rate, at that rate; the
// most members of any run; the first run's poll size.
func TestWarmupForRuns(t *testing.T) {
	rate := func(r float64, producers, members, poll, size int) scenarios.RunSpec {
		return spec(scenarios.LoadRate, r, producers, members, poll, size)
	}
	type want struct {
		rate                           float64
		producers, size, members, poll int
	}
	for _, tc := range []struct {
		name  string
		specs []scenarios.RunSpec
		want  want
	}{
		{"none", nil, want{2000, 2, 256, 4, 20}},
		{"partition-cap", []scenarios.RunSpec{rate(1000, 2, 12, 20, 256), rate(1000, 2, 12, 20, 256)}, want{1000, 2, 256, 8, 20}},
		{"the highest rate's producers", []scenarios.RunSpec{rate(300, 1, 2, 100, 1024), rate(2500, 3, 4, 5, 64)}, want{2500, 3, 64, 4, 100}},
		{"clamped", []scenarios.RunSpec{rate(100, 9, 1, 5000, 1<<20)}, want{500, 4, 16 << 10, 1, 500}},
		{"no rate-mode run", []scenarios.RunSpec{spec(scenarios.LoadBacklog, 0, 1, 3, 50, 100)}, want{2000, 1, 100, 3, 50}},
	} {
		w := warmupFor(tc.specs, 42*time.Second)
		p := w.Producer
		got := want{p.Rate, p.Producers, p.MessageSize, w.Members, w.PollRecords}
		if got != tc.want || w.Time != 42*time.Second || p.Profile != nil {
			t.Errorf("%s: %+v (bound %v), want %+v with the 42s bound", tc.name, got, w.Time, tc.want)
		}
	}
	// the run's own producer settings come along
	s := rate(1000, 2, 4, 10, 512)
	s.Acks, s.Linger, s.KeyMode = "leader", 7*time.Millisecond, "random"
	if p := warmupFor([]scenarios.RunSpec{s}, time.Minute).Producer; p.Acks != "leader" || p.Linger != 7*time.Millisecond || p.KeyMode != "random" {
		t.Errorf("producer settings %+v: want the run's acks, linger and key mode", p)
	}
}

func spec(mode scenarios.LoadMode, rate float64, producers, members, poll, size int) scenarios.RunSpec {
	var s scenarios.RunSpec
	s.LoadMode, s.Rate, s.Producers, s.Members, s.MaxPollRecords, s.MessageSize = mode, rate, producers, members, poll, size
	return s
}
