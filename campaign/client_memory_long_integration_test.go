//go:build integration && long

// The memory of 200 share members on each client is a measurement, not a
// check of behaviour: it runs with the long tests (make test-long, on
// demand).

package campaign

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/consumers"
)

// TestClientMemory200ShareMembers measures the resident memory of share
// members on each client, at 2 and at 200 members (group.share.max.size's
// default): 4 partitions, 1 worker each, 100 records/s of 1 ms, 2 s warm-up
// + 5 s. java and librdkafka: the peak resident set (VmHWM) of the runner
// process, which holds only the members. franz-go has no runner: its
// members live in the harness (this test process), so the figure is the
// peak VmRSS sampled during the run minus VmRSS just before it. Per member
// is the difference between the two runs over 198 members, which takes out
// the runner's (or the harness's) fixed part.
func TestClientMemory200ShareMembers(t *testing.T) {
	for _, cl := range []struct {
		client, marker string
		check          func() error
	}{
		{"franz-go", "", func() error { return nil }},
		{"librdkafka", "rdkafkarunner", consumers.CheckLibrdkafkaClient},
		{"java", "sharebench.runner.Main", consumers.CheckJavaClient},
	} {
		t.Run(cl.client, func(t *testing.T) {
			if err := cl.check(); err != nil {
				t.Skip(err)
			}
			peak := map[int]int64{}
			for _, members := range []int{2, 200} {
				s := javaSpec("share", cl.client)
				s.Partitions, s.Members, s.Workers, s.Rate = 4, members, 1, 100
				s.Processing.Time = time.Millisecond
				s.Warmup, s.Duration = 2*time.Second, 5*time.Second
				s.DrainTimeout = time.Minute
				stop := sampleMemory(cl.marker)
				r := runSpec(t, s, "mem-"+cl.client+"-"+strconv.Itoa(members))
				peak[members] = stop()
				if peak[members] <= 0 {
					t.Fatalf("%d members: no memory read", members)
				}
				if got := len(r.PerMember); got != members {
					t.Errorf("%d members: run.json has %d members", members, got)
				}
				t.Logf("%s, %d share members: peak %.1f MiB (%s); completed %.1f/s of 100 offered; host CPU %.0f%%, flags %v",
					cl.client, members, mib(peak[members]), memoryWhat(cl.marker), r.Throughput.CompletedPerSec,
					r.Resources.HostPercent, r.Validity.Flags)
			}
			per := float64(peak[200]-peak[2]) / 198
			t.Logf("%s: 200 share members %.1f MiB; per member (200 − 2) ÷ 198 = %.0f KiB", cl.client, mib(peak[200]), per/1024)
			if peak[200] <= peak[2] {
				t.Errorf("200 members %.1f MiB, not above 2 members' %.1f MiB", mib(peak[200]), mib(peak[2]))
			}
		})
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func memoryWhat(marker string) string {
	if marker == "" {
		return "harness VmRSS growth during the run"
	}
	return "runner VmHWM"
}

// sampleMemory samples every 100 ms, until stop: with a marker, the VmHWM
// of this process's children whose command line holds it (the last reading
// of each, summed: a runner is gone once the run ends); without, this
// process's VmRSS, and stop returns its peak minus the reading at the start.
func sampleMemory(marker string) (stop func() int64) {
	done := make(chan struct{})
	var mu sync.Mutex
	last := map[int]int64{}
	base := statusBytes("/proc/self/status", "VmRSS")
	var self int64
	go func() {
		for {
			mu.Lock()
			if marker != "" {
				for _, pid := range childPIDs(marker) {
					if v := statusBytes(filepath.Join("/proc", strconv.Itoa(pid), "status"), "VmHWM"); v > 0 {
						last[pid] = v
					}
				}
			}
			if marker == "" {
				self = max(self, statusBytes("/proc/self/status", "VmRSS")-base)
			}
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		if marker == "" {
			return self
		}
		var sum int64
		for _, v := range last {
			sum += v
		}
		return sum
	}
}

// statusBytes reads a "Key:   123 kB" line of a /proc status file, in
// bytes; 0 when the file or the line is missing.
func statusBytes(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != key {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		kb, _ := strconv.ParseInt(fields[0], 10, 64)
		return kb << 10
	}
	return 0
}
