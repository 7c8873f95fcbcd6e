package collectors

import (
	"errors"
	"fmt"
	"math"

	"github.com/prometheus/procfs"
)

// Every /proc reading of the package goes through github.com/prometheus/procfs.

// clockTicks is USER_HZ, the unit of /proc CPU times; 100 on every Linux
// architecture Go supports (procfs assumes the same).
const clockTicks = 100

// hostTicks reads the aggregate "cpu" line of /proc/stat, in ticks: busy is
// every field but idle and iowait, total is every field.
func hostTicks() (busy, total uint64, err error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, 0, err
	}
	st, err := fs.Stat()
	if err != nil {
		return 0, 0, err
	}
	// procfs gives seconds (ticks / USER_HZ); back to whole ticks.
	ticks := func(sec float64) uint64 { return uint64(math.Round(sec * clockTicks)) }
	c := st.CPUTotal
	for _, v := range []float64{c.User, c.Nice, c.System, c.IRQ, c.SoftIRQ, c.Steal, c.Guest, c.GuestNice} {
		busy += ticks(v)
	}
	total = busy + ticks(c.Idle) + ticks(c.Iowait)
	if total == 0 {
		return 0, 0, errors.New("/proc/stat: no aggregate cpu line")
	}
	return busy, total, nil
}

// proc returns pid's /proc entry; pid 0 is this process (/proc/self).
func proc(pid int) (procfs.Proc, error) {
	if pid == 0 {
		return procfs.Self()
	}
	return procfs.NewProc(pid)
}

// procSeconds reads utime+stime of a process (0: this one) from
// /proc/<pid>/stat, in seconds.
func procSeconds(pid int) (float64, error) {
	p, err := proc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, err
	}
	return st.CPUTime(), nil
}

// vmRSS reads the resident memory (VmRSS) of a process (0: this one) from
// /proc/<pid>/status, in bytes.
func vmRSS(pid int) (int64, error) {
	p, err := proc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.NewStatus()
	if err != nil {
		return 0, err
	}
	if st.VmRSS == 0 {
		// procfs leaves it 0 when the line is missing.
		return 0, fmt.Errorf("/proc/%d/status: no VmRSS (a kernel thread, or not Linux)", p.PID)
	}
	return int64(st.VmRSS), nil
}

// openFiles counts this process's open file descriptors: the entries of
// /proc/self/fd, less the one the listing itself holds open while it reads.
func openFiles() (int, error) {
	p, err := procfs.Self()
	if err != nil {
		return 0, err
	}
	n, err := p.FileDescriptorsLen()
	if err != nil {
		return 0, err
	}
	return max(n-1, 0), nil
}
