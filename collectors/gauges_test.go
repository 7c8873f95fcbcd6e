package collectors

import (
	"context"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

// Two brokers scraped every second, 0.2 s apart: each burns 0.5 CPU-seconds
// per second on 4 cores (12.5 %), so the sum is 25 % a second; heaps add up.
// Broker 2 misses the scrape of second 3: its previous reading carries over.
func TestFillBrokerGauges(t *testing.T) {
	t0 := time.Unix(1000, 0)
	series := results.NewSeries(t0.UnixNano(), 10)
	brokers := make([][]BrokerSample, 2)
	for b := range brokers {
		for sec := 0; sec < 6; sec++ {
			if b == 1 && sec == 3 {
				continue
			}
			at := t0.Add(time.Duration(sec)*time.Second + time.Duration(100+200*b)*time.Millisecond)
			brokers[b] = append(brokers[b], BrokerSample{At: at, ProcessCPUSeconds: 10 + 0.5*float64(sec), HeapUsedBytes: float64(100 * (b + 1))})
		}
	}
	FillBrokerGauges(series, brokers, 4)
	for sec, want := range map[int]float64{1: 25, 2: 25, 3: 25, 4: 25, 5: 25} {
		if got, ok := series.GaugeAt(results.BrokerCPUPercent, sec); !ok || got < 24.99 || got > 25.01 {
			t.Errorf("second %d: broker cpu %v %v, want %v", sec, got, ok, want)
		}
	}
	if _, ok := series.GaugeAt(results.BrokerCPUPercent, 0); ok {
		t.Error("second 0: no CPU delta yet, want unknown")
	}
	if _, ok := series.GaugeAt(results.BrokerCPUPercent, 6); ok {
		t.Error("second 6: after the last scrape, want unknown")
	}
	for sec := 0; sec < 6; sec++ {
		if got, _ := series.GaugeAt(results.BrokerHeapUsedBytes, sec); got != 300 {
			t.Errorf("second %d: heap %v, want 300", sec, got)
		}
	}
}

func TestFillLagAndProcGauges(t *testing.T) {
	t0 := time.Unix(1000, 0)
	series := results.NewSeries(t0.UnixNano(), 10)
	// Second 2's reading failed (a gap); second 3 was read. Second 4's
	// failed too, but a second reading in it succeeded: no gap.
	FillLagGauge(series, []LagSample{{t0.Add(500 * time.Millisecond), 7}, {t0.Add(900 * time.Millisecond), 9}, {t0.Add(1500 * time.Millisecond), 3},
		{t0.Add(3500 * time.Millisecond), 4}, {t0.Add(4600 * time.Millisecond), 6}},
		[]time.Time{t0.Add(2500 * time.Millisecond), t0.Add(4100 * time.Millisecond)})
	if v, ok := series.GaugeAt(results.Lag, 2); ok {
		t.Errorf("lag second 2 = %v: a failed reading is a gap, not the previous reading carried over", v)
	}
	for sec, want := range map[int]bool{0: false, 2: true, 3: false, 4: false} {
		if _, ok := series.GaugeAt(results.LagUnread, sec); ok != want {
			t.Errorf("lag_unread second %d: %v, want %v", sec, ok, want)
		}
	}
	if v, _ := series.GaugeAt(results.Lag, 4); v != 6 {
		t.Errorf("lag second 4 = %v, want its reading 6", v)
	}
	if v, _ := series.GaugeAt(results.Lag, 0); v != 9 {
		t.Errorf("lag second 0 = %v, want the last reading 9", v)
	}
	if v, _ := series.GaugeAt(results.Lag, 1); v != 3 {
		t.Errorf("lag second 1 = %v, want 3", v)
	}
	FillProcGauges(series, []ProcSample{
		{At: t0.Add(100 * time.Millisecond), HarnessCPUSeconds: 1, HarnessRSSBytes: 50 << 20},
		{At: t0.Add(1100 * time.Millisecond), HarnessCPUSeconds: 1.5, HarnessRSSBytes: 60 << 20, BrokerRSSBytes: 1 << 30, BrokerRSSKnown: true},
	}, 2)
	if v, _ := series.GaugeAt(results.HarnessCPUPercent, 1); v < 24.99 || v > 25.01 {
		t.Errorf("harness cpu %v, want 0.5 s/s of 2 cores = 25%%", v)
	}
	if v, _ := series.GaugeAt(results.HarnessRSSBytes, 0); v != 50<<20 {
		t.Errorf("harness rss %v", v)
	}
	if _, ok := series.GaugeAt(results.BrokerRSSBytes, 0); ok {
		t.Error("broker rss second 0: not known")
	}
	if v, _ := series.GaugeAt(results.BrokerRSSBytes, 1); v != 1<<30 {
		t.Errorf("broker rss %v", v)
	}
}

// ReadProc reads this process: its RSS is its own, and a child's VmRSS is
// read like a broker's.
func TestReadProcSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux")
	}
	s := ReadProc([]int{os.Getpid()})
	if s.HarnessCPUSeconds < 0 || s.HarnessRSSBytes < 1<<20 || !s.BrokerRSSKnown || s.BrokerRSSBytes < 1<<20 {
		t.Fatalf("ReadProc %+v", s)
	}
	if none := ReadProc([]int{1 << 30}); none.BrokerRSSKnown {
		t.Errorf("a missing pid reads as known: %+v", none)
	}
}

// The sampler asks for the broker pids at every reading, so a broker that
// comes back on a new pid (a restart) is measured from the next reading on.
func TestProcSamplerFollowsNewPIDs(t *testing.T) {
	var mu sync.Mutex
	pids := []int{1 << 30} // a "killed" broker: nothing to read
	s := NewProcSampler(func() []int {
		mu.Lock()
		defer mu.Unlock()
		return pids
	}, 20*time.Millisecond)
	mt := newManualTicker()
	s.Tick = mt.Ticker
	s.Start(context.Background())
	mt.tick(t, 2) // readings 1 and 2 done
	mu.Lock()
	pids = []int{os.Getpid()} // "started again"
	mu.Unlock()
	mt.tick(t, 3) // reading 3 may have begun before the switch; 4 and 5 follow it
	s.Stop()
	samples := s.Samples()
	if len(samples) < 4 {
		t.Fatalf("%d samples", len(samples))
	}
	if first := samples[0]; first.BrokerRSSKnown {
		t.Errorf("first sample read the RSS of a pid that does not exist: %+v", first)
	}
	if last := samples[len(samples)-1]; !last.BrokerRSSKnown || last.BrokerRSSBytes <= 0 {
		t.Errorf("last sample did not follow the new pid: %+v", last)
	}
}
