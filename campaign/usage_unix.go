//go:build unix

package campaign

import (
	"runtime"
	"syscall"
	"time"
)

// selfUsage is this process's CPU time and peak resident memory.
func selfUsage() (cpuSec float64, maxRSS int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	rss := int64(ru.Maxrss) * 1024 // Linux: kilobytes
	if runtime.GOOS == "darwin" {
		rss = int64(ru.Maxrss) // bytes
	}
	return cpu.Seconds(), rss
}
