//go:build integration && long

// The per-record CPU of the client runners is a measurement, not a check
// of behaviour: it runs with the long tests (make test-long, on demand).

package campaign

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/results/runs"
)

// TestClientRunnerCPU measures each client runner's CPU per record (the
// librdkafka runner's, and the Java runner's beside it where a JDK is) at
// a rate it sustains (1000 records/s for 5 s warm-up + 10 s, 4 partitions, 8 members × 2 workers,
// 1 ms per record: worker ceiling 16000/s, partition ceiling for the
// consumer group 8000/s, so the formula's throughput is the offered rate),
// for both group types. The CPU is the runner process's whole life (start,
// group formation, warm-up, window, drain, close) over the records it
// completed, so it is an upper bound of the per-record cost.
func TestClientRunnerCPU(t *testing.T) {
	for _, cl := range []struct {
		client, marker string
		check          func() error
	}{
		{"librdkafka", "rdkafkarunner", consumers.CheckLibrdkafkaClient},
		{"java", "sharebench.runner.Main", consumers.CheckJavaClient},
	} {
		for _, ctype := range []string{"consumer", "share"} {
			t.Run(cl.client+"-"+ctype, func(t *testing.T) {
				if err := cl.check(); err != nil {
					t.Skip(err)
				}
				s := javaSpec(ctype, cl.client)
				s.Partitions, s.Members, s.Workers, s.Rate = 4, 8, 2, 1000
				s.Processing.Time = time.Millisecond
				s.Warmup, s.Duration = 5*time.Second, 10*time.Second
				stop := childCPU(cl.marker)
				r := runSpec(t, s, "cpu-"+cl.client+"-"+ctype)
				cpu := stop()
				done := r.Audit.CompletedOnce
				if cpu <= 0 || done == 0 {
					t.Fatalf("runner CPU %v for %d records: nothing measured", cpu, done)
				}
				want := math.Min(s.Rate, r.Ceiling.RecordsPerSec)
				t.Logf("%s %s: runner CPU %.2fs for %d records: %.0f µs/record (whole runner life); completed %.1f/s, formula %.1f/s (%s); host CPU %.0f%%, flags %v",
					cl.client, ctype, cpu.Seconds(), done, cpu.Seconds()*1e6/float64(done), r.Throughput.CompletedPerSec, want, r.Ceiling.Bound,
					r.Resources.HostPercent, r.Validity.Flags)
				// The formula's input is the offered rate: when the producer fell
				// behind it (schedule_lag, a host too busy to keep the schedule)
				// the rate was not offered, and the throughput is not held
				// against it (TestLibrdkafkaClientOnKafka holds it at a lower rate).
				if slices.ContainsFunc(r.Validity.Flags, func(f runs.Flag) bool { return f.Code == runs.CodeScheduleLag }) {
					t.Logf("the producer fell behind the offered rate: throughput not held against the formula")
				} else if got := r.Throughput.CompletedPerSec; got < 0.9*want || got > 1.1*want {
					t.Errorf("completed %.1f/s, want within 10%% of the formula's %.1f/s", got, want)
				}
			})
		}
	}
}

// childCPU samples the CPU time (user + system, from /proc/PID/stat) of
// this test process's children whose command line holds marker, and keeps
// the last reading of each until stop is called: a runner's CPU is read
// while it runs, since it is gone once the run ends.
func childCPU(marker string) (stop func() time.Duration) {
	done := make(chan struct{})
	last := map[int]time.Duration{}
	var mu sync.Mutex
	tick := clockTicks()
	go func() {
		for {
			for _, pid := range childPIDs(marker) {
				stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
				if err != nil {
					continue
				}
				f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
				if len(f) < 13 {
					continue
				}
				ut, _ := strconv.ParseInt(f[11], 10, 64)
				st, _ := strconv.ParseInt(f[12], 10, 64)
				mu.Lock()
				last[pid] = time.Duration(ut+st) * tick
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() time.Duration {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		var sum time.Duration
		for _, v := range last {
			sum += v
		}
		return sum
	}
}

// clockTicks is the duration of one /proc clock tick (USER_HZ, 100 on Linux).
func clockTicks() time.Duration { return 10 * time.Millisecond }
