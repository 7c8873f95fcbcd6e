package campaign

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sharebench/sharebench/collectors"
)

// --jit-warmup=false (Options.NoJITWarmup) still creates the internal
// topics and coordinators but skips the warm-up under load, and the
// priming record says so: jit_warmup false, nothing produced. On the kfake
// cluster (not Kafka).
func TestPrimeWithoutJITWarmupIsRecorded(t *testing.T) {
	ctx, cl := startKfake(t)
	p, err := primeCluster(ctx, cl.Bootstrap(), cl.Nodes(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.JITWarmup || p.RecordsProduced != 0 || p.ConsumedConsumerGroup != 0 || p.ConsumedShareGroup != 0 || p.DurationSec != 0 {
		t.Errorf("priming %+v: want jit_warmup false and no warm-up figures", p)
	}
}

// The warm-up's stop decision: never before a round was produced, never
// without a reading, and at or below the target rate only.
func TestJITSettled(t *testing.T) {
	for _, tc := range []struct {
		rounds int
		rate   float64
		ok     bool
		want   bool
	}{
		{0, 0, true, false},      // still in the first round
		{1, 0.5, true, false},    // still compiling
		{1, 0.02, true, true},    // at the target
		{3, 0.019, true, true},   // below it
		{2, 0, false, false},     // no full window of scrapes yet
		{8, 0.0201, true, false}, // just above
	} {
		if got := jitSettled(tc.rounds, tc.rate, tc.ok, 0.02); got != tc.want {
			t.Errorf("rounds %d, rate %v (readable %v): settled %v, want %v", tc.rounds, tc.rate, tc.ok, got, tc.want)
		}
	}
}

// With a compile-time reading the warm-up goes on past its first round
// while the brokers compile and stops once the rate over the last window
// meets the target, recording what it read. The brokers' metrics endpoint
// is a stand-in whose counter rises 1 s per s for its first 2 s and then
// stays (not Kafka's JVM); the records go through the kfake cluster (not
// Kafka). Without a reading (no endpoint) it stops after one round with
// both groups' records consumed and no JIT record.
func TestWarmUpRunsUntilJITSettles(t *testing.T) {
	ctx, cl := startKfake(t)
	began := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		compiled := 30 + min(time.Since(began).Seconds(), 2)
		fmt.Fprintf(w, "# TYPE jvm_compilation_time_seconds_total counter\njvm_compilation_time_seconds_total %g\n"+
			"java_lang_memory_heapmemoryusage_used 1.0E8\n", compiled)
	}))
	defer srv.Close()
	adm, err := newAdmin(cl.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.close()
	scraper := collectors.NewBrokerScraper([]string{srv.URL}, brokerScrapeInterval)
	scraper.Start(ctx)
	// Small rounds of at least 1 s, so kfake's speed does not end the
	// warm-up on its rounds bound before the rate settles (5–6 s in). The
	// first full 3 s window ends 3–4 s in (the watcher's phase against the
	// scrapes'), so it always holds part of the rise.
	cfg := warmupConfig{Records: 1000, Rounds: 30, MinRound: time.Second, Time: 30 * time.Second, Window: 3 * time.Second, SettledRate: 0.02}
	p, err := warmUp(ctx, adm, cl.Bootstrap(), cl.Nodes(), scraper, cfg)
	scraper.Stop()
	if err != nil {
		t.Fatal(err)
	}
	j := p.JIT
	if j == nil || !j.Settled || j.EndRate > j.TargetRate || j.TargetRate != 0.02 {
		t.Fatalf("jit %+v: want settled at or below 0.02", j)
	}
	if j.CompileSec < 1.9 || j.CompileSec > 2.0001 || len(j.Rates) == 0 || j.Rates[0] <= j.TargetRate {
		t.Errorf("compiled %v s, rates %v: want 2 s, the first window above the target", j.CompileSec, j.Rates)
	}
	if p.Rounds < 4 || p.Rounds >= cfg.Rounds || p.DurationSec < 4 || p.DurationSec > 15 {
		t.Errorf("rounds %d in %.1fs: want it to end on the settle, 5–6 s in", p.Rounds, p.DurationSec)
	}

	began = time.Now()
	p, err = warmUp(ctx, adm, cl.Bootstrap(), cl.Nodes(), collectors.NewBrokerScraper(nil, brokerScrapeInterval), defaultWarmup)
	if err != nil {
		t.Fatal(err)
	}
	n := defaultWarmup.Records
	if p.JIT != nil || p.Rounds != 1 || p.RecordsProduced != n || p.ConsumedConsumerGroup < n || p.ConsumedShareGroup < n ||
		time.Since(began) >= defaultWarmup.MinRound {
		t.Errorf("without a reading: %+v in %v, want one round of %d records consumed by both groups, no JIT record, no wait", p, time.Since(began), n)
	}
}
