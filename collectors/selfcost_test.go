//go:build linux

package collectors

import (
	"crypto/sha256"
	"syscall"
	"testing"
	"time"
)

func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCPUMeterCountsWorkNotWaiting: a piece of work that computes is counted
// at the CPU the whole process spent meanwhile (an independent clock: the
// test's goroutine is the only one computing), and a piece that waits
// costs nothing.
func TestCPUMeterCountsWorkNotWaiting(t *testing.T) {
	// The process clock counts every thread: the runtime's and other
	// tests' work lands in it too, so on a loaded host one try may read
	// below 70 %. The meter can never read above the process (its thread
	// is one of them); below, the best of three tries must reach 70 %.
	var m CPUMeter
	best := 0.0
	for try := 1; try <= 3 && best < 0.7; try++ {
		m = CPUMeter{}
		p0 := processCPU(t)
		m.Measure(func() {
			b := make([]byte, 64)
			for range 400_000 { // about 0.2 s of CPU here
				s := sha256.Sum256(b)
				b = s[:]
			}
		})
		proc := processCPU(t) - p0
		got := m.Between(time.Now().Add(-time.Hour), time.Now())
		if proc < 20*time.Millisecond {
			t.Fatalf("the work took %v of process CPU: too little to compare", proc)
		}
		if got > proc*105/100 {
			t.Fatalf("meter counted %v; the process spent only %v meanwhile", got, proc)
		}
		ratio := float64(got) / float64(proc)
		t.Logf("try %d: meter %v of the process's %v (%.0f %%)", try, got, proc, 100*ratio)
		best = max(best, ratio)
	}
	if best < 0.7 {
		t.Errorf("the meter counted at best %.0f %% of the process's CPU over 3 tries; want ≥ 70 %%", 100*best)
	}

	var idle CPUMeter
	idle.Measure(func() { time.Sleep(100 * time.Millisecond) })
	if got := idle.Between(time.Now().Add(-time.Hour), time.Now()); got > 10*time.Millisecond {
		t.Errorf("100 ms asleep counted %v of CPU; want about none", got)
	}
	if !m.Available() || !idle.Available() {
		t.Error("thread CPU unavailable on Linux")
	}
}

// TestCollectorCPUWindow: only pieces that began inside [from, to) count,
// over every meter given; a nil meter (a collector that did not run) adds
// nothing and does not make the figure unavailable.
func TestCollectorCPUWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := &CPUMeter{pieces: []cpuPiece{{t0.Add(-time.Second), 5 * time.Millisecond}, {t0, 7 * time.Millisecond}, {t0.Add(9 * time.Second), 11 * time.Millisecond}}}
	b := &CPUMeter{pieces: []cpuPiece{{t0.Add(10 * time.Second), 13 * time.Millisecond}, {t0.Add(3 * time.Second), 17 * time.Millisecond}}}
	got, ok := CollectorCPU(t0, t0.Add(10*time.Second), a, nil, b)
	if want := (7 + 11 + 17) * time.Millisecond; got != want || !ok {
		t.Errorf("CollectorCPU = %v, %v; want %v, true", got, ok, want)
	}
	b.failed = true
	if _, ok := CollectorCPU(t0, t0.Add(time.Second), a, b); ok {
		t.Error("a meter that could not measure must make the figure unavailable")
	}
}

// TestSamplersMeterTheirWork: the /proc sampler's readings are metered.
func TestSamplersMeterTheirWork(t *testing.T) {
	ticks := make(chan time.Time)
	p := NewProcSampler(func() []int { return nil }, time.Second)
	p.Tick = func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} }
	p.Start(t.Context())
	for range 3 {
		ticks <- time.Now()
	}
	p.Stop()
	p.cost.mu.Lock()
	n := len(p.cost.pieces)
	p.cost.mu.Unlock()
	if n < 3 {
		t.Errorf("%d readings metered, want at least 3", n)
	}
}

func TestMaxHarnessRSS(t *testing.T) {
	if got := MaxHarnessRSS(nil); got != 0 {
		t.Errorf("no samples: %d, want 0", got)
	}
	s := []ProcSample{{HarnessRSSBytes: 5 << 20}, {HarnessRSSBytes: 0}, {HarnessRSSBytes: 9 << 20}, {HarnessRSSBytes: 7 << 20}}
	if got := MaxHarnessRSS(s); got != 9<<20 {
		t.Errorf("MaxHarnessRSS = %d, want the 9 MiB sample", got)
	}
}
