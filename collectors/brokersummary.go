package collectors

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sharebench/sharebench/results"
)

// SummarizeBroker derives a run's broker figures from the scrapes of every
// broker (Samples, one slice per broker in time order): window figures over
// [start, end] from each broker's scrapes nearest those edges, run figures
// from its first to its last scrape. completed is the records completed in
// the window; cores the host's cores.
func SummarizeBroker(samples [][]BrokerSample, start, end time.Time, completed int64, cores int) results.BrokerMetrics {
	out := results.BrokerMetrics{Endpoints: len(samples), AcksRun: map[string]float64{}, RequestsPerSec: map[string]float64{}}
	windowSec := end.Sub(start).Seconds()
	var cpuCores, gcShare, jitRate float64 // summed over brokers
	jitMissing := false                    // a broker in the window without the JIT series
	var hostBusy float64                   // busy host CPUs, summed over node exporters
	hostCPUs := 0
	var figs figure
	var namings []string
	brokersInWindow := 0
	idleMin := math.Inf(1)
	for _, ss := range samples {
		out.Samples += len(ss)
		if len(ss) == 0 {
			continue
		}
		for _, s := range ss {
			figs |= s.figures
			if s.Naming != "" && !slices.Contains(namings, string(s.Naming)) {
				namings = append(namings, string(s.Naming))
			}
		}
		first, last := ss[0], ss[len(ss)-1]
		out.ShareCoordinatorWritesRun += last.ShareCoordWrites - first.ShareCoordWrites
		out.AcquisitionLockTimeoutsTotal += last.AcquisitionLockTimeouts - first.AcquisitionLockTimeouts
		for k, v := range last.Acks {
			out.AcksRun[k] += v - first.Acks[k]
		}

		a, b := nearest(ss, start), nearest(ss, end)
		span := ss[b].At.Sub(ss[a].At).Seconds()
		if b <= a || span <= 0 {
			continue
		}
		brokersInWindow++
		out.WindowSec = max(out.WindowSec, span)
		sa, sb := ss[a], ss[b]
		cpuCores += (sb.ProcessCPUSeconds - sa.ProcessCPUSeconds) / span
		if sb.HostCPUs > 0 {
			hostBusy += (sb.HostCPUSeconds - sa.HostCPUSeconds) / span
			hostCPUs += sb.HostCPUs
		}
		gcShare += (sb.GCSeconds - sa.GCSeconds) / span
		if sa.HasJIT() && sb.HasJIT() {
			jitRate += (sb.JITCompileSeconds - sa.JITCompileSeconds) / span
		} else {
			jitMissing = true
		}
		out.GCCount += sb.GCCount - sa.GCCount
		out.ShareCoordinatorWriteRateAvg += (sb.ShareCoordWrites - sa.ShareCoordWrites) / span
		for k, v := range sb.Requests {
			out.RequestsPerSec[k] += (v - sa.Requests[k]) / span
		}
		out.BytesInPerSec += (sb.BytesIn - sa.BytesIn) / span
		out.BytesOutPerSec += (sb.BytesOut - sa.BytesOut) / span
		for _, s := range ss[a : b+1] {
			out.HeapUsedMaxBytes = max(out.HeapUsedMaxBytes, s.HeapUsedBytes)
			out.HeapCommittedMaxBytes = max(out.HeapCommittedMaxBytes, s.HeapCommitted)
			out.HeapAfterGCMaxBytes = max(out.HeapAfterGCMaxBytes, s.HeapAfterGCBytes)
			out.InFlightMessagesMax = max(out.InFlightMessagesMax, s.InFlightMessages)
			if !math.IsNaN(s.ShareCoordWriteLatencyMax) {
				out.ShareCoordinatorWriteLatencyMaxMs = max(out.ShareCoordinatorWriteLatencyMaxMs, s.ShareCoordWriteLatencyMax)
			}
			idleMin = min(idleMin, s.RequestHandlerIdle)
		}
	}
	if brokersInWindow > 0 {
		out.CPUSeconds = cpuCores * windowSec
		if cores > 0 {
			out.CPUPercentAvg = 100 * cpuCores / float64(cores)
		}
		if completed > 0 {
			out.CPUSecondsPerMillionRecords = out.CPUSeconds / float64(completed) * 1e6
		}
		out.GCTimePercent = 100 * gcShare / float64(brokersInWindow)
		out.JITCompileSeconds = jitRate * windowSec
		out.RequestHandlerIdleMin = idleMin
	}
	out.SharePartitions = summarizeSharePartition(samples, start, end)
	if figs&figCPU == 0 && figs&figHostCPU != 0 && brokersInWindow > 0 { // the hosts' CPU stands in
		out.CPUSource = CPUSourceHost
		out.CPUSeconds = hostBusy * windowSec
		out.CPUPercentAvg = 0
		if hostCPUs > 0 {
			out.CPUPercentAvg = 100 * hostBusy / float64(hostCPUs)
		}
		out.CPUSecondsPerMillionRecords = 0
		if completed > 0 {
			out.CPUSecondsPerMillionRecords = out.CPUSeconds / float64(completed) * 1e6
		}
	}
	if jitMissing { // a sum over some brokers only would read low: none
		figs &^= figJIT
	}
	if len(namings) > 0 {
		slices.Sort(namings)
		out.Naming = strings.Join(namings, "+")
		out.Unavailable = figs.unavailable()
		clearUnavailable(&out, figs)
	}
	if len(out.AcksRun) == 0 {
		out.AcksRun = nil
	}
	if len(out.RequestsPerSec) == 0 {
		out.RequestsPerSec = nil
	}
	return out
}

// clearUnavailable zeroes the figures no endpoint can give (whatever
// stray series fed them), so that run.json reads 0 beside their names in
// unavailable, never a partial figure.
func clearUnavailable(b *results.BrokerMetrics, figs figure) {
	if figs&(figCPU|figHostCPU) == 0 {
		b.CPUPercentAvg, b.CPUSeconds, b.CPUSecondsPerMillionRecords = 0, 0, 0
	}
	if figs&figHeap == 0 {
		b.HeapUsedMaxBytes, b.HeapCommittedMaxBytes = 0, 0
	}
	if figs&figHeapAfterGC == 0 {
		b.HeapAfterGCMaxBytes = 0
	}
	if figs&figGC == 0 {
		b.GCTimePercent, b.GCCount = 0, 0
	}
	if figs&figJIT == 0 {
		b.JITCompileSeconds = 0
	}
	if figs&figShareCoord == 0 {
		b.ShareCoordinatorWriteRateAvg, b.ShareCoordinatorWriteLatencyMaxMs, b.ShareCoordinatorWritesRun = 0, 0, 0
	}
	if figs&figLockTimeouts == 0 {
		b.AcquisitionLockTimeoutsTotal = 0
	}
	if figs&figAcks == 0 {
		b.AcksRun = nil
	}
	if figs&figInFlight == 0 {
		b.InFlightMessagesMax = 0
	}
	if figs&figRequests == 0 {
		b.RequestsPerSec = nil
	}
	if figs&figHandlerIdle == 0 {
		b.RequestHandlerIdleMin = 0
	}
	if figs&figBytes == 0 {
		b.BytesInPerSec, b.BytesOutPerSec = 0, 0
	}
}

// ScrapesIn counts the scrapes of every endpoint taken in [start, end): the
// scrapes whose cost falls in a window whose CPU was read at its edges
// before the edges' own scrapes.
func ScrapesIn(samples [][]BrokerSample, start, end time.Time) int {
	n := 0
	for _, ss := range samples {
		for _, s := range ss {
			if !s.At.Before(start) && s.At.Before(end) {
				n++
			}
		}
	}
	return n
}

// CPUSourceProc is results.BrokerMetrics.CPUSource when broker CPU comes
// from the broker processes' /proc counters read at the window's edges.
const CPUSourceProc = "proc"

// UseProcCPU puts the brokers' CPU read from /proc over the window
// (cpuSeconds over windowSec; the process and container providers know
// the broker PIDs) in place of the exporters' process CPU: exact at the
// window's edges whatever the scrape interval, and not a JMX reading.
// completed is the records completed in the window; cores the host's.
func UseProcCPU(b *results.BrokerMetrics, cpuSeconds, windowSec float64, completed int64, cores int) {
	if cpuSeconds <= 0 || windowSec <= 0 {
		return
	}
	b.CPUSource = CPUSourceProc
	b.CPUSeconds = cpuSeconds
	b.CPUPercentAvg = 0
	if cores > 0 {
		b.CPUPercentAvg = 100 * cpuSeconds / windowSec / float64(cores)
	}
	b.CPUSecondsPerMillionRecords = 0
	if completed > 0 {
		b.CPUSecondsPerMillionRecords = cpuSeconds / float64(completed) * 1e6
	}
	b.Unavailable = slices.DeleteFunc(b.Unavailable, func(k string) bool { return slices.Contains(figureGroups[0].keys, k) })
	if len(b.Unavailable) == 0 {
		b.Unavailable = nil
	}
}

// nearest returns the index of the sample closest in time to t.
func nearest(ss []BrokerSample, t time.Time) int {
	best := 0
	for i, s := range ss {
		if absDur(s.At.Sub(t)) < absDur(ss[best].At.Sub(t)) {
			best = i
		}
	}
	return best
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
