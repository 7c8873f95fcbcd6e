package collectors

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

// ScrapesIn counts every endpoint's scrapes in [start, end): the start
// edge's scrape is in, the end edge's (taken after the window's CPU
// reading) is out.
func TestScrapesIn(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(sec ...float64) []BrokerSample {
		var ss []BrokerSample
		for _, s := range sec {
			ss = append(ss, BrokerSample{At: t0.Add(time.Duration(s * float64(time.Second)))})
		}
		return ss
	}
	samples := [][]BrokerSample{at(-3, 0, 5, 10, 10.02), at(0.01, 4.9, 9.99, 12)}
	if got := ScrapesIn(samples, t0, t0.Add(10*time.Second)); got != 5 {
		t.Errorf("scrapes in [0, 10): %d, want 3 + 3 … 0, 5 and 0.01, 4.9, 9.99 = 5 (the end edge's at 10 out)", got)
	}
	if got := ScrapesIn(nil, t0, t0.Add(time.Second)); got != 0 {
		t.Errorf("no endpoint: %d", got)
	}
}

// UseProcCPU replaces the exporters' CPU figures by the /proc reading:
// 3 CPU-s over 10 s on 2 cores is 15 %, over 30,000 records 100 s/M.
func TestUseProcCPU(t *testing.T) {
	b := results.BrokerMetrics{CPUSeconds: 9, CPUPercentAvg: 45, CPUSecondsPerMillionRecords: 300, Unavailable: []string{"cpu_seconds", "gc_count"}}
	UseProcCPU(&b, 3, 10, 30_000, 2)
	if b.CPUSource != CPUSourceProc || b.CPUSeconds != 3 || math.Abs(b.CPUPercentAvg-15) > 1e-9 || math.Abs(b.CPUSecondsPerMillionRecords-100) > 1e-9 {
		t.Errorf("after /proc: %+v", b)
	}
	if len(b.Unavailable) != 1 || b.Unavailable[0] != "gc_count" {
		t.Errorf("unavailable %v: the CPU figures are available now, gc_count is not", b.Unavailable)
	}
	before := b
	UseProcCPU(&b, 0, 10, 30_000, 2) // nothing read: unchanged
	if b.CPUSeconds != before.CPUSeconds || b.CPUSource != before.CPUSource {
		t.Errorf("a zero reading changed %+v", b)
	}
}

// A scrape taken at a window's edge while the interval's loop is under way
// lands in time order, so nearest and the counters' deltas read it right.
func TestScrapeAllKeepsTimeOrder(t *testing.T) {
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(body) }))
	defer srv.Close()
	s := NewBrokerScraper([]string{srv.URL}, time.Hour)
	t0 := time.Unix(1000, 0)
	for _, sec := range []int{2, 0, 1, 3} {
		s.Now = func() time.Time { return t0.Add(time.Duration(sec) * time.Second) }
		s.ScrapeAll(context.Background())
	}
	ss := s.Samples()[0]
	if len(ss) != 4 {
		t.Fatalf("%d samples", len(ss))
	}
	for i := range ss {
		if !ss[i].At.Equal(t0.Add(time.Duration(i) * time.Second)) {
			t.Errorf("sample %d at %v, want second %d", i, ss[i].At, i)
		}
	}
}

// Broker CPU per second comes from the /proc readings of the broker PIDs;
// a second whose PIDs changed (a broker started again) has no reading.
func TestFillProcGaugesBrokerCPU(t *testing.T) {
	t0 := time.Unix(1000, 0)
	series := results.NewSeries(t0.UnixNano(), 10)
	FillBrokerGauges(series, [][]BrokerSample{{{At: t0, ProcessCPUSeconds: 1}, {At: t0.Add(5 * time.Second), ProcessCPUSeconds: 11}}}, 2)
	FillProcGauges(series, []ProcSample{
		{At: t0.Add(100 * time.Millisecond), HarnessCPUSeconds: -1, BrokerCPUSeconds: 10, BrokerCPUPIDs: []int{7}},
		{At: t0.Add(1100 * time.Millisecond), HarnessCPUSeconds: -1, BrokerCPUSeconds: 10.4, BrokerCPUPIDs: []int{7}},
		{At: t0.Add(2100 * time.Millisecond), HarnessCPUSeconds: -1, BrokerCPUSeconds: 10.6, BrokerCPUPIDs: []int{7}},
		{At: t0.Add(3100 * time.Millisecond), HarnessCPUSeconds: -1, BrokerCPUSeconds: 0.2, BrokerCPUPIDs: []int{8}},
	}, 2)
	for sec, want := range map[int]float64{1: 20, 2: 10} {
		if v, ok := series.GaugeAt(results.BrokerCPUPercent, sec); !ok || math.Abs(v-want) > 1e-6 {
			t.Errorf("broker cpu second %d = %v (%v), want %v %% from /proc", sec, v, ok, want)
		}
	}
	if v, ok := series.GaugeAt(results.BrokerCPUPercent, 3); ok && math.Abs(v-100*(0.2-10.6)/2) < 1e-6 {
		t.Errorf("second 3 = %v: a new PID's counter was subtracted from the old one's", v)
	}
}
