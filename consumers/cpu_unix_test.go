//go:build unix

package consumers

import "syscall"

// processCPU is the process's CPU time so far (user + system), in ns: a
// benchmark's CPU per operation, which other processes on a busy host
// inflate far less than its wall time.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
