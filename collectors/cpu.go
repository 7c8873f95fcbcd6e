package collectors

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sharebench/sharebench/results"
)

// clockTicks is USER_HZ, the unit of /proc CPU times; 100 on every Linux
// architecture Go supports.
const clockTicks = 100

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

// hostTicks reads the aggregate "cpu" line of /proc/stat.
func hostTicks() (busy, total uint64, err error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[0] != "cpu" {
			continue
		}
		for i, v := range fields[1:] {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("/proc/stat: %w", err)
			}
			total += n
			if i != 3 && i != 4 { // idle, iowait
				busy += n
			}
		}
		return busy, total, nil
	}
	return 0, 0, fmt.Errorf("/proc/stat: no aggregate cpu line")
}

// procSeconds reads utime+stime of a process from /proc/<pid>/stat.
func procSeconds(pid int) (float64, error) {
	return procSecondsAt(fmt.Sprintf("/proc/%d/stat", pid))
}

// procSecondsAt reads utime+stime from a /proc stat file.
func procSecondsAt(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	// The command name may contain spaces; fields resume after its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: malformed", path)
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("%s: short", path)
	}
	ut, err1 := strconv.ParseUint(fields[11], 10, 64)
	st, err2 := strconv.ParseUint(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%s: bad utime/stime", path)
	}
	return float64(ut+st) / clockTicks, nil
}
