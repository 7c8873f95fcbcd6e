package collectors

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const fixture = "testdata/broker-4.2.2-share.prom"

func parseFixture(t *testing.T) BrokerSample {
	t.Helper()
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ParseBrokerMetrics(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The fixture is a real Kafka 4.2.2 scrape taken during a share run.
func TestParseBrokerMetricsRealScrape(t *testing.T) {
	s := parseFixture(t)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"process CPU s", s.ProcessCPUSeconds, 27.87},
		{"heap used", s.HeapUsedBytes, 2.10506392e8},
		{"heap after GC", s.HeapAfterGCBytes, 1.80277248e8 + 5063320},
		{"GC count", s.GCCount, 17},
		{"GC s", s.GCSeconds, 0.316},
		{"share coordinator writes", s.ShareCoordWrites, 1897},
		{"share coordinator write rate", s.ShareCoordWriteRate, 38.29228905934598},
		{"Accept", s.Acks["Accept"], 2351},
		{"Release", s.Acks["Release"], 253},
		{"Reject", s.Acks["Reject"], 49},
		{"Renew", s.Acks["Renew"], 0},
		{"ShareFetch requests", s.Requests["ShareFetch"], 1952},
		{"ShareAcknowledge requests", s.Requests["ShareAcknowledge"], 4},
		{"bytes in", s.BytesIn, 590417},
		{"bytes out", s.BytesOut, 392162},
		{"request handler idle", s.RequestHandlerIdle, 0.9564956987189392},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if s.HeapCommitted <= 0 || s.ShareCoordThreadIdle <= 0 {
		t.Errorf("heap committed %v, share coordinator idle %v: want > 0", s.HeapCommitted, s.ShareCoordThreadIdle)
	}
}

func TestParseBrokerMetricsFallsBackToOSProcessCPUTime(t *testing.T) {
	s, err := ParseBrokerMetrics(strings.NewReader("java_lang_operatingsystem_processcputime 2.5E9\n"))
	if err != nil || s.ProcessCPUSeconds != 2.5 {
		t.Errorf("got %v, %v; want 2.5 s from ProcessCpuTime (ns)", s.ProcessCPUSeconds, err)
	}
	if _, err := ParseBrokerMetrics(strings.NewReader("not a metric line {\n")); err == nil || !strings.Contains(err.Error(), "broker metrics") {
		t.Errorf("garbage parsed: %v", err)
	}
}

// Two scrapes of one broker 10 s apart around a 10 s window with 1,000
// completions: 5 CPU s → 50 % of 1 core = 25 % of 2 cores, 5,000 CPU s per
// million records.
func TestSummarizeBroker(t *testing.T) {
	base := parseFixture(t)
	t0 := time.Unix(1000, 0)
	a := base
	a.At = t0
	b := base
	b.At = t0.Add(10 * time.Second)
	b.ProcessCPUSeconds += 5
	b.GCSeconds += 0.2
	b.ShareCoordWrites += 2000
	b.Acks = map[string]float64{"Accept": base.Acks["Accept"] + 1000, "Release": base.Acks["Release"], "Reject": base.Acks["Reject"], "Renew": 0}
	b.HeapAfterGCBytes = 3e8
	b.AcquisitionLockTimeouts += 7
	after := b
	after.At = t0.Add(12 * time.Second)
	after.Acks = map[string]float64{"Accept": b.Acks["Accept"] + 10}
	m := SummarizeBroker([][]BrokerSample{{a, b, after}}, t0, t0.Add(10*time.Second), 1000, 2)
	check := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("window s", m.WindowSec, 10)
	check("cpu seconds", m.CPUSeconds, 5)
	check("cpu % of cores", m.CPUPercentAvg, 25)
	check("cpu s per million", m.CPUSecondsPerMillionRecords, 5000)
	check("gc %", m.GCTimePercent, 2)
	check("write rate", m.ShareCoordinatorWriteRateAvg, 200)
	check("heap after gc max", m.HeapAfterGCMaxBytes, 3e8)
	check("accept over run", m.AcksRun["Accept"], 1010)
	check("lock timeouts", m.AcquisitionLockTimeoutsTotal, 7)
	if m.Samples != 3 || m.Endpoints != 1 {
		t.Errorf("samples %d endpoints %d", m.Samples, m.Endpoints)
	}
	// One scrape only: run figures, no window.
	if m := SummarizeBroker([][]BrokerSample{{a}}, t0, t0.Add(10*time.Second), 1000, 2); m.WindowSec != 0 || m.CPUSeconds != 0 {
		t.Errorf("window figures from one scrape: %+v", m)
	}
}

// The scraper keeps good scrapes and counts failures without stopping.
func TestBrokerScraperCountsFailures(t *testing.T) {
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(body) }))
	defer good.Close()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", 500) }))
	defer bad.Close()
	s := NewBrokerScraper([]string{good.URL, bad.URL}, 50*time.Millisecond)
	mt := newManualTicker()
	s.Tick = mt.Ticker
	s.Start(context.Background())
	mt.tick(t, 3) // 3 scrapes finished (the first, and after ticks 1 and 2)
	s.Stop()      // + the one under way and the final one
	s.Stop()      // idempotent
	ss := s.Samples()
	n, last := s.Errors()
	if len(ss[0]) < 4 || len(ss[0]) > 5 || len(ss[1]) != 0 || n != len(ss[0]) || !strings.Contains(last, "HTTP 500") {
		t.Errorf("good %d samples, bad %d samples, %d errors (%q)", len(ss[0]), len(ss[1]), n, last)
	}
	if ss[0][0].Acks["Accept"] != 2351 {
		t.Errorf("scraped sample %+v", ss[0][0])
	}
	m := SummarizeBroker(ss, ss[0][0].At, ss[0][len(ss[0])-1].At, 1, 2)
	if m.Endpoints != 2 || m.Samples != len(ss[0]) {
		t.Errorf("summary %+v", m)
	}
}

func TestLagSampler(t *testing.T) {
	var i atomic.Int64
	l := NewLagSampler(func(context.Context) (int64, error) {
		n := i.Add(1)
		if n == 2 {
			return 0, context.DeadlineExceeded
		}
		return n * 10, nil
	}, 20*time.Millisecond)
	mt := newManualTicker()
	t0 := time.Unix(1000, 0)
	l.Tick, l.Now = mt.Ticker, func() time.Time { return t0.Add(time.Duration(i.Load()) * time.Second) }
	l.Start(context.Background())
	mt.tick(t, 4) // readings 1-4 done: 10, error, 30, 40
	l.Stop()
	s := l.Summary(t0.Add(2 * time.Second)) // nearest the reading of 30 (taken at t0+2s)
	if s.Errors != 1 || s.Samples < 3 || s.Max != int64(s.Samples+1)*10 || s.AtWindowEnd != 30 || s.LastError == "" {
		t.Errorf("summary %+v", s)
	}
	t0 = time.Unix(0, 0)
	got := SummarizeLag([]LagSample{{t0, 5}, {t0.Add(time.Second), 50}, {t0.Add(2 * time.Second), 7}}, 0, t0.Add(900*time.Millisecond))
	if got.Max != 50 || got.AtWindowEnd != 50 {
		t.Errorf("SummarizeLag %+v", got)
	}
}
