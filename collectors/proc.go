package collectors

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
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
}

// ReadProc takes one ProcSample; pids are the broker processes.
func ReadProc(pids []int) ProcSample {
	s := ProcSample{At: time.Now(), HarnessCPUSeconds: -1}
	if sec, err := procSecondsAt("/proc/self/stat"); err == nil {
		s.HarnessCPUSeconds = sec
	}
	if rss, err := vmRSS("/proc/self/status"); err == nil {
		s.HarnessRSSBytes = rss
	}
	for _, pid := range pids {
		if rss, err := vmRSS(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			s.BrokerRSSBytes += rss
			s.BrokerRSSKnown = true
		}
	}
	return s
}

// vmRSS reads the VmRSS line ("VmRSS:  123456 kB") of a /proc status file.
func vmRSS(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("VmRSS:")) {
			continue
		}
		f := bytes.Fields(line[len("VmRSS:"):])
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("%s: unexpected VmRSS line %q", path, line)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: VmRSS: %w", path, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("%s: no VmRSS line (a kernel thread, or not Linux)", path)
}

// ProcSampler reads ReadProc every interval in the background.
type ProcSampler struct {
	pids     func() []int
	interval time.Duration

	mu      sync.Mutex
	samples []ProcSample

	cancel context.CancelFunc
	done   chan struct{}
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
	ctx, p.cancel = context.WithCancel(ctx)
	p.done = make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(p.interval)
		defer t.Stop()
		for {
			s := ReadProc(p.pids())
			p.mu.Lock()
			if len(p.samples) < maxSamples {
				p.samples = append(p.samples, s)
			}
			p.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends the sampling loop.
func (p *ProcSampler) Stop() {
	if p.cancel == nil {
		return
	}
	p.cancel()
	<-p.done
	p.cancel = nil
}

// Samples returns a copy of the readings.
func (p *ProcSampler) Samples() []ProcSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProcSample(nil), p.samples...)
}
