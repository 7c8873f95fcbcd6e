package collectors

import (
	"runtime"
	"sync"
	"time"
)

// CPUMeter adds up the harness CPU that a collector spends observing: each
// piece of its work (a scrape and its parse, a lag reading, a /proc
// reading) runs on a goroutine locked to its OS thread, and the thread's own
// CPU clock (getrusage RUSAGE_THREAD) is read before and after it. What the
// work hands to other goroutines is not counted: the franz-go client
// decodes a lag reading's responses on its connection goroutines, and Go's
// HTTP transport reads a scrape's response headers on its own; so the figure
// is a lower bound of the observer's cost, exact for the scrape parsing and
// the /proc readings. Where the thread clock cannot be read (not Linux)
// nothing is counted and Available reports false.
type CPUMeter struct {
	mu     sync.Mutex
	pieces []cpuPiece
	failed bool
}

type cpuPiece struct {
	at  time.Time
	cpu time.Duration
}

// maxPieces bounds what a meter keeps (at one piece a second per collector,
// 18 h); later pieces are not counted.
const maxPieces = 1 << 16

// Measure runs fn and counts the CPU time its goroutine spent in it. A nil
// meter runs fn unmeasured.
func (m *CPUMeter) Measure(fn func()) {
	if m == nil {
		fn()
		return
	}
	runtime.LockOSThread()
	at := time.Now()
	before, ok := threadCPU()
	fn()
	after, ok2 := threadCPU()
	runtime.UnlockOSThread()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok || !ok2 {
		m.failed = true
		return
	}
	if len(m.pieces) < maxPieces {
		m.pieces = append(m.pieces, cpuPiece{at: at, cpu: max(0, after-before)})
	}
}

// Between is the CPU counted in pieces that began in [from, to).
func (m *CPUMeter) Between(from, to time.Time) time.Duration {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var d time.Duration
	for _, p := range m.pieces {
		if !p.at.Before(from) && p.at.Before(to) {
			d += p.cpu
		}
	}
	return d
}

// Available reports whether every piece could be measured.
func (m *CPUMeter) Available() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.failed
}

// CollectorCPU is the CPU the meters counted in pieces that began in [from,
// to), and whether every meter could measure (nil meters are skipped: a
// collector that did not run cost nothing).
func CollectorCPU(from, to time.Time, meters ...*CPUMeter) (time.Duration, bool) {
	var d time.Duration
	ok := true
	for _, m := range meters {
		if m == nil {
			continue
		}
		d += m.Between(from, to)
		ok = ok && m.Available()
	}
	return d, ok
}
