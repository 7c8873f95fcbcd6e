package collectors

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// burn spins until this process has used d more CPU time (or 20 s of wall
// time pass): CPU time, not wall time, so that a loaded host that gives the
// loop less than a core still produces the amount the tests expect.
func burn(d time.Duration) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, deadline := cpu(), time.Now().Add(20*time.Second)
	x := 0
	for cpu()-start < d && time.Now().Before(deadline) {
		for range 10000 {
			x++
		}
	}
	_ = x
}

// One goroutine spinning for 600 ms is 0.6 CPU-seconds: the harness's own
// counter (getrusage) and its /proc/<pid>/stat reading (the path used for
// brokers) must both see it, and host busy time must grow by at least that.
func TestUsageSeesAKnownBusyLoop(t *testing.T) {
	self := os.Getpid()
	a := ReadCPU([]int{self})
	burn(600 * time.Millisecond)
	b := ReadCPU([]int{self})
	if len(a.Errors)+len(b.Errors) > 0 {
		t.Fatalf("read errors: %v %v", a.Errors, b.Errors)
	}
	u := Usage(a, b)
	if u.HarnessCPUSeconds < 0.5 || u.HarnessCPUSeconds > 1.0 {
		t.Errorf("harness CPU %.2fs, want ≈ 0.6s", u.HarnessCPUSeconds)
	}
	// /proc ticks are 10 ms: allow two ticks of difference either way.
	if d := u.BrokerCPUSeconds - u.HarnessCPUSeconds; d < -0.1 || d > 0.1 {
		t.Errorf("/proc/%d/stat says %.2fs, getrusage %.2fs", self, u.BrokerCPUSeconds, u.HarnessCPUSeconds)
	}
	// Percent of all cores: seconds / wall / cores.
	want := 100 * u.HarnessCPUSeconds / u.Seconds / float64(u.Cores)
	if d := u.HarnessPercent - want; d < -1e-9 || d > 1e-9 {
		t.Errorf("harness %% %.2f, want %.2f", u.HarnessPercent, want)
	}
	if minHost := 100 * 0.5 / u.Seconds / float64(u.Cores); u.HostPercent < minHost {
		t.Errorf("host busy %.1f%%, want ≥ %.1f%% (our own loop)", u.HostPercent, minHost)
	}
}

func TestReadCPUReportsMissingProcess(t *testing.T) {
	s := ReadCPU([]int{1 << 30})
	if len(s.Errors) != 1 {
		t.Fatalf("errors %v", s.Errors)
	}
	if u := Usage(s, ReadCPU(nil)); u.BrokerCPUSeconds != 0 {
		t.Fatalf("vanished process counted: %+v", u)
	}
}

// Snapshots read the cluster's current pids, so a broker started again
// between two readings appears only in the second: all of its CPU time is
// in the span. A killed broker's time is lost with it (documented
// undercount), never subtracted.
func TestUsageFollowsARestartedBroker(t *testing.T) {
	at := time.Now()
	a := CPUSnapshot{At: at, Procs: map[int]float64{100: 10, 200: 50}}
	b := CPUSnapshot{At: at.Add(10 * time.Second), Procs: map[int]float64{100: 12.5, 300: 3}}
	u := Usage(a, b)
	if want := 2.5 + 3.0; u.BrokerCPUSeconds != want {
		t.Errorf("broker CPU %.2fs, want %.2fs (100 grew 2.5 s, 300 started and used 3 s, 200 was killed)", u.BrokerCPUSeconds, want)
	}
}

// rawHostTicks parses the aggregate cpu line of /proc/stat by hand, the
// reference for hostTicks.
func rawHostTicks(t *testing.T) (busy, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Skip(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if fields[0] != "cpu" {
		t.Fatalf("first line %q", line)
	}
	for i, v := range fields[1:] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// hostTicks (through procfs) gives the kernel's tick counts: between two
// hand-parsed readings of the same monotonic counters.
func TestHostTicksMatchProcStat(t *testing.T) {
	b1, t1 := rawHostTicks(t)
	busy, total, err := hostTicks()
	if err != nil {
		t.Fatal(err)
	}
	b2, t2 := rawHostTicks(t)
	if busy < b1 || busy > b2 || total < t1 || total > t2 {
		t.Errorf("hostTicks busy %d total %d, want within [%d, %d] and [%d, %d]", busy, total, b1, b2, t1, t2)
	}
}
