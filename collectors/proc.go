package collectors

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/sharebench/sharebench/results"
)

// ProcSample is one reading of the harness's own process and the broker
// processes from /proc.
type ProcSample struct {
	At time.Time
	// HarnessCPUSeconds is /proc/self/stat utime+stime (-1 when unreadable).
	HarnessCPUSeconds float64
	// HarnessRSSBytes is /proc/self/status VmRSS (0 when unreadable).
	HarnessRSSBytes int64
	// BrokerRSSBytes sums VmRSS of the broker PIDs that could be read;
	// BrokerRSSKnown is false when there are no PIDs or none was readable.
	BrokerRSSBytes int64
	BrokerRSSKnown bool
	// BrokerCPUSeconds sums /proc/PID/stat utime+stime of the broker PIDs
	// that could be read; BrokerCPUPIDs lists them, so that a reading of
	// other processes (a broker started again after a fault) is not
	// subtracted from this one.
	BrokerCPUSeconds float64
	BrokerCPUPIDs    []int
	// Goroutines is runtime.NumGoroutine() at the reading.
	Goroutines int
	// OpenFiles is the harness's open file descriptors (/proc/self/fd
	// entries; -1 when unreadable).
	OpenFiles int
	// Recorder is what the run's recorder held (results.Recorder.Held);
	// zero without a recorder to ask (ProcSampler.Recorder nil).
	Recorder results.RecorderHeld
}

// ReadProc takes one ProcSample; pids are the broker processes.
func ReadProc(pids []int) ProcSample {
	s := ProcSample{At: time.Now(), HarnessCPUSeconds: -1, Goroutines: runtime.NumGoroutine(), OpenFiles: -1}
	if n, err := openFiles(); err == nil {
		s.OpenFiles = n
	}
	if sec, err := procSeconds(0); err == nil {
		s.HarnessCPUSeconds = sec
	}
	if rss, err := vmRSS(0); err == nil {
		s.HarnessRSSBytes = rss
	}
	for _, pid := range pids {
		if rss, err := vmRSS(pid); err == nil {
			s.BrokerRSSBytes += rss
			s.BrokerRSSKnown = true
		}
		if sec, err := procSeconds(pid); err == nil {
			s.BrokerCPUSeconds += sec
			s.BrokerCPUPIDs = append(s.BrokerCPUPIDs, pid)
		}
	}
	return s
}

// ProcSampler reads ReadProc every interval in the background.
type ProcSampler struct {
	pids     func() []int
	interval time.Duration
	// Tick replaces the wall-clock ticker (tests); nil: RealTicker.
	Tick Ticker
	// Recorder, when set before Start, is asked at every reading what the
	// run's recorder holds (ProcSample.Recorder).
	Recorder func() results.RecorderHeld

	mu      sync.Mutex
	samples []ProcSample

	loop *periodic
	cost CPUMeter // the readings' own CPU on the harness (selfcost.go)
}

// CPU is the harness CPU the /proc readings took (CPUMeter).
func (p *ProcSampler) CPU() *CPUMeter {
	if p == nil {
		return nil
	}
	return &p.cost
}

// NewProcSampler returns a sampler of the harness and the broker processes
// every interval (default 1 s). pids is asked at every reading (typically
// infra.Cluster.PIDs), so a broker started again after a fault is followed
// on its new pid.
func NewProcSampler(pids func() []int, interval time.Duration) *ProcSampler {
	if interval <= 0 {
		interval = time.Second
	}
	return &ProcSampler{pids: pids, interval: interval}
}

// Start samples at once, then every interval, until Stop or ctx ends.
func (p *ProcSampler) Start(ctx context.Context) {
	p.loop = startPeriodic(ctx, p.interval, p.Tick, func(context.Context) {
		var s ProcSample
		p.cost.Measure(func() {
			s = ReadProc(p.pids())
			if p.Recorder != nil {
				s.Recorder = p.Recorder()
			}
		})
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.samples) < maxSamples {
			p.samples = append(p.samples, s)
		}
	})
}

// Stop ends the sampling loop.
func (p *ProcSampler) Stop() {
	p.loop.stop()
	p.loop = nil
}

// MaxHarnessRSS is the largest harness VmRSS among samples, in bytes (0:
// none was read).
func MaxHarnessRSS(samples []ProcSample) int64 {
	var mx int64
	for _, s := range samples {
		mx = max(mx, s.HarnessRSSBytes)
	}
	return mx
}

// Samples returns a copy of the readings.
func (p *ProcSampler) Samples() []ProcSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProcSample(nil), p.samples...)
}

// now reads the injected clock, or the wall clock.
func now(f func() time.Time) time.Time {
	if f != nil {
		return f()
	}
	return time.Now()
}
