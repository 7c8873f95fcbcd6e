//go:build !linux

package collectors

import "time"

// threadCPU: no per-thread CPU clock read here (Linux only).
func threadCPU() (time.Duration, bool) { return 0, false }
