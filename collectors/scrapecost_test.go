package collectors

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

func TestScrapeCostCoresNeverBelowZero(t *testing.T) {
	if c := (ScrapeCost{IdleCores: 0.30, ScrapedCores: 0.25}).CostCores(); c != 0 {
		t.Errorf("scraped below idle: cost %v, want 0", c)
	}
	if c := (ScrapeCost{IdleCores: 0.05, ScrapedCores: 0.19}).CostCores(); c < 0.14-1e-12 || c > 0.14+1e-12 {
		t.Errorf("cost %v, want 0.19 − 0.05 = 0.14", c)
	}
}

// By thread, the cost is the exporter's increase plus the JVM's, each never
// below 0; the whole-process difference is kept beside it.
func TestScrapeCostByThread(t *testing.T) {
	c := ScrapeCost{Threads: true, IdleCores: 0.030, ScrapedCores: 0.052,
		Exporter: ThreadCores{Idle: 0.0001, Scraped: 0.0141}, JVM: ThreadCores{Idle: 0.004, Scraped: 0.006},
		Phase: 5 * time.Second, Rounds: 2, Scrapes: 40}
	if got, want := c.CostCores(), 0.014+0.002; math.Abs(got-want) > 1e-12 {
		t.Errorf("cost %v, want exporter 0.014 + JVM 0.002 = %v", got, want)
	}
	if got, want := c.ProcessCostCores(), 0.022; math.Abs(got-want) > 1e-12 {
		t.Errorf("process cost %v, want 0.052 − 0.030 = %v", got, want)
	}
	// 0.016 cores × 10 s ÷ 40 scrapes = 4 ms
	if got := c.PerScrape(); math.Abs(got-0.004) > 1e-12 {
		t.Errorf("per scrape %v s, want 0.004", got)
	}
	c.JVM = ThreadCores{Idle: 0.006, Scraped: 0.004} // the JVM did less: nothing added
	if got := c.CostCores(); math.Abs(got-0.014) > 1e-12 {
		t.Errorf("cost %v, want the exporter's 0.014 alone", got)
	}
	c.Threads = false
	if got := c.CostCores(); math.Abs(got-0.022) > 1e-12 {
		t.Errorf("without threads: cost %v, want the process difference 0.022", got)
	}
}

func TestThreadNames(t *testing.T) {
	for comm, want := range map[string][2]bool{
		"prometheus-http": {true, false}, "HTTP-Dispatcher": {true, false},
		"GC Thread#0": {false, true}, "G1 Conc#0": {false, true}, "G1 Refine#0": {false, true},
		"VM Thread": {false, true}, "C2 CompilerThre": {false, false}, "C1 CompilerThre": {false, false},
		"data-plane-kafk": {false, false}, "kafka-1-raft-io": {false, false}, "java": {false, false},
	} {
		if got := [2]bool{exporterThread(comm), jvmThread(comm)}; got != want {
			t.Errorf("%q: exporter, jvm = %v, want %v", comm, got, want)
		}
	}
}

// readThreadClasses finds no exporter thread in this Go process: not ok, so
// a calibration on it falls back to the process difference.
func TestReadThreadClassesNeedsAnExporter(t *testing.T) {
	if tc := readThreadClasses([]int{os.Getpid()}); tc.ok {
		t.Errorf("%+v: ok without an exporter thread", tc)
	}
	if tc := readThreadClasses([]int{1 << 30}); tc.ok {
		t.Errorf("%+v: ok for a process that does not exist", tc)
	}
}

// MeasureScrapeCost on this test process standing in for a broker: its
// endpoint is scraped only in the scraped phases (the server counts the
// requests), and the CPU read is this process's.
func TestMeasureScrapeCostScrapesOnlyInScrapedPhases(t *testing.T) {
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write(body)
	}))
	defer srv.Close()
	pid := os.Getpid()
	const interval, phase, rounds = 50 * time.Millisecond, 300 * time.Millisecond, 2
	c, err := MeasureScrapeCost(context.Background(), func() []int { return []int{pid} }, []string{srv.URL}, interval, phase, rounds)
	if err != nil {
		t.Fatal(err)
	}
	// one scrape at each scraped phase's start, then every 50 ms for 300 ms:
	// about 7 per phase (a loaded host may lose ticks, never add them). A
	// scrape under way when a phase ends is abandoned and not counted, so
	// the server may have seen up to one request per phase more.
	if c.Scrapes < rounds || c.Scrapes > rounds*(int(phase/interval)+2) {
		t.Errorf("scrapes %d, want between %d and %d", c.Scrapes, rounds, rounds*(int(phase/interval)+2))
	}
	// the exporter warm-up's scrapes come first and are not counted
	if n, warm := hits.Load(), int64(scrapeWarmCount); n < warm+int64(c.Scrapes) || n > warm+int64(c.Scrapes+rounds) {
		t.Errorf("server saw %d requests for %d warm-up and %d scrapes counted, want %d to %d", n, warm, c.Scrapes, warm+int64(c.Scrapes), warm+int64(c.Scrapes+rounds))
	}
	if c.IdleCores < 0 || c.ScrapedCores < 0 || c.Interval != interval || c.Phase != phase || c.Rounds != rounds {
		t.Errorf("calibration %+v", c)
	}
	if _, err := MeasureScrapeCost(context.Background(), func() []int { return nil }, []string{srv.URL}, interval, phase, rounds); err == nil {
		t.Error("no broker pids: no error")
	}
	if _, err := MeasureScrapeCost(context.Background(), func() []int { return []int{pid} }, nil, interval, phase, rounds); err == nil {
		t.Error("no endpoint: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureScrapeCost(ctx, func() []int { return []int{pid} }, []string{srv.URL}, interval, phase, rounds); err == nil {
		t.Error("cancelled: no error")
	}
}

// PerScrape divides the scraped phases' extra CPU by the scrapes taken in
// them: 0.04 cores over 2 phases of 5 s is 0.4 CPU-s, over 40 scrapes 10 ms.
func TestPerScrape(t *testing.T) {
	c := ScrapeCost{Phase: 5 * time.Second, Rounds: 2, Scrapes: 40, IdleCores: 0.02, ScrapedCores: 0.06}
	if got := c.PerScrape(); got < 0.01-1e-12 || got > 0.01+1e-12 {
		t.Errorf("per scrape %v s, want 0.4 CPU-s ÷ 40 = 0.010", got)
	}
	if got := (ScrapeCost{Phase: 5 * time.Second, Rounds: 2, IdleCores: 0.02, ScrapedCores: 0.06}).PerScrape(); got != 0 {
		t.Errorf("no scrape: per scrape %v, want 0", got)
	}
	if got := (ScrapeCost{Phase: 5 * time.Second, Rounds: 2, Scrapes: 40, IdleCores: 0.06, ScrapedCores: 0.02}).PerScrape(); got != 0 {
		t.Errorf("scraped below idle: per scrape %v, want 0", got)
	}
}
