package collectors

import (
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/sharebench/sharebench/results"
)

// CPUSnapshot is a reading of cumulative CPU counters at one instant.
type CPUSnapshot struct {
	At          time.Time
	HostBusy    uint64            // host ticks not idle/iowait
	HostTotal   uint64            // all host ticks
	SelfSeconds float64           // harness process user+system CPU seconds
	Procs       map[int]float64   // other processes' user+system CPU seconds by PID
	Errors      map[string]string // what could not be read, by source
}

// ReadCPU takes a snapshot; pids are broker processes to include.
func ReadCPU(pids []int) CPUSnapshot {
	s := CPUSnapshot{At: time.Now(), Procs: map[int]float64{}, Errors: map[string]string{}}
	if busy, total, err := hostTicks(); err == nil {
		s.HostBusy, s.HostTotal = busy, total
	} else {
		s.Errors["host"] = err.Error()
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		s.SelfSeconds = tv(ru.Utime) + tv(ru.Stime)
	} else {
		s.Errors["self"] = err.Error()
	}
	for _, pid := range pids {
		if sec, err := procSeconds(pid); err == nil {
			s.Procs[pid] = sec
		} else {
			s.Errors[fmt.Sprintf("pid %d", pid)] = err.Error()
		}
	}
	return s
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// Usage computes what happened between a and b. A broker process read in b
// but not in a was started in between (a broker started again after a
// fault: snapshots read the cluster's current pids): all its CPU time falls
// between a and b and counts. A broker process read in a but gone by b (a
// killed broker) took its counters with it: its CPU between a and its death
// is not counted, so broker CPU is an undercount when a broker was killed
// in the span.
func Usage(a, b CPUSnapshot) results.CPUUsage {
	u := results.CPUUsage{Seconds: b.At.Sub(a.At).Seconds(), Cores: runtime.NumCPU()}
	if b.HostTotal > a.HostTotal {
		u.HostPercent = 100 * float64(b.HostBusy-a.HostBusy) / float64(b.HostTotal-a.HostTotal)
	}
	u.HarnessCPUSeconds = b.SelfSeconds - a.SelfSeconds
	for pid, sec := range b.Procs {
		u.BrokerCPUSeconds += sec - a.Procs[pid] // 0 before a new process
	}
	if u.Seconds > 0 {
		u.HarnessPercent = 100 * u.HarnessCPUSeconds / u.Seconds / float64(u.Cores)
		u.BrokerPercent = 100 * u.BrokerCPUSeconds / u.Seconds / float64(u.Cores)
	}
	return u
}
