package collectors

import (
	"strings"

	"github.com/prometheus/procfs"
)

// threadClasses is the CPU seconds of a JVM broker's threads, by class,
// summed over processes, read from /proc/PID/task/TID/schedstat (ns, not the
// 10 ms ticks of stat); ok is false when a process's threads could not be
// read or no exporter thread was found.
type threadClasses struct {
	exporter, jvm float64
	ok            bool
}

// exporterThread tells the JMX exporter agent's threads by name (comm, at
// most 15 characters): its HTTP server's worker threads (prometheus-http-N-M)
// and the JDK HTTP server's dispatcher. Nothing else in a Kafka broker uses
// either name.
func exporterThread(comm string) bool {
	return strings.HasPrefix(comm, "prometheus-http") || strings.HasPrefix(comm, "HTTP-Dispatcher")
}

// jvmThread tells the JVM's threads that do a scrape's indirect work: the
// garbage collector's (G1: the scrape's allocations) and the VM thread that
// runs safepoints. The JIT compilers' threads are left out: the exporter's
// code is compiled in the warm-up before the calibration, and the broker's
// own compilation, which goes on long after a workload (up to 1 compile-s a
// second after make bench's JIT warm-up, 2026-12-07), would swamp a scrape's
// few ms in either phase.
func jvmThread(comm string) bool {
	for _, p := range []string{"GC Thread", "G1 ", "VM Thread"} {
		if strings.HasPrefix(comm, p) {
			return true
		}
	}
	return false
}

// readThreadClasses reads threadClasses for pids. A thread that ends
// between the listing and the reading is skipped: its CPU is lost to the
// class, as a process's is when it exits.
func readThreadClasses(pids []int) threadClasses {
	var out threadClasses
	exporters := 0
	for _, pid := range pids {
		threads, err := procfs.AllThreads(pid)
		if err != nil {
			return threadClasses{}
		}
		for _, t := range threads {
			comm, err := t.Comm()
			if err != nil {
				continue
			}
			exp, jvm := exporterThread(comm), jvmThread(comm)
			if !exp && !jvm {
				continue
			}
			st, err := t.Schedstat()
			if err != nil {
				continue
			}
			sec := float64(st.RunningNanoseconds) / 1e9
			if exp {
				out.exporter += sec
				exporters++
			} else {
				out.jvm += sec
			}
		}
	}
	out.ok = exporters > 0
	return out
}
