package runs

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results"
)

// Every validity flag, on and off: each case is a clean run with one input
// just past its threshold (on) and just inside it (off). Disabling any
// flag's condition, or moving its threshold, fails its case.
func TestEachValidityFlagOnAndOff(t *testing.T) {
	clean := func() ValidityInput {
		return ValidityInput{IsKafka: true, Audit: results.Audit{Produced: 10, CompletedOnce: 10, Balanced: true},
			Ceiling: Ceiling{RecordsPerSec: 1000}, UsefulPerSec: 1000}
	}
	for _, tc := range []struct {
		code    string
		on, off func(*ValidityInput)
	}{
		{"not_kafka", func(v *ValidityInput) { v.IsKafka = false }, func(v *ValidityInput) {}},
		{"audit_unbalanced", func(v *ValidityInput) { v.Audit.Balanced = false }, func(v *ValidityInput) {}},
		{"lost_records", func(v *ValidityInput) { v.Audit.Lost = 1 }, func(v *ValidityInput) { v.Audit.Lost = 0 }},
		{"lost_records", func(v *ValidityInput) { v.Audit.Lost = 1 }, func(v *ValidityInput) { v.Audit.Undelivered = 1 }}, // still in Kafka: not lost
		{"drain_timeout", func(v *ValidityInput) { v.DrainTimedOut = true }, func(v *ValidityInput) { v.DrainTimedOut = false }},
		{"schedule_lag", func(v *ValidityInput) { v.ScheduleLagP99Ms = 100.5 }, func(v *ValidityInput) { v.ScheduleLagP99Ms = 100 }},
		{"schedule_lag", func(v *ValidityInput) { v.ScheduleLagP99Ms, v.ScheduleLagLimitMs = 20.5, 20 }, func(v *ValidityInput) { v.ScheduleLagP99Ms, v.ScheduleLagLimitMs = 20, 20 }},
		{"harness_cpu", func(v *ValidityInput) { v.HarnessCPUPercent = 90.5 }, func(v *ValidityInput) { v.HarnessCPUPercent = 90 }},
		{"host_cpu", func(v *ValidityInput) { v.HostCPUPercent = 95.5 }, func(v *ValidityInput) { v.HostCPUPercent = 95 }},
		{"above_ceiling", func(v *ValidityInput) { v.UsefulPerSec = 1050.5 }, func(v *ValidityInput) { v.UsefulPerSec = 1050 }},
		{"above_ceiling", func(v *ValidityInput) {}, func(v *ValidityInput) { v.Ceiling.RecordsPerSec, v.UsefulPerSec = 0, 5 }},
		{"warmup_short", func(v *ValidityInput) { v.CompletedThirds = [3]int64{84, 100, 100} }, func(v *ValidityInput) { v.CompletedThirds = [3]int64{85, 100, 100} }},
		{"warmup_short", func(v *ValidityInput) { v.CompletedThirds = [3]int64{0, 100, 100} }, func(v *ValidityInput) { v.CompletedThirds = [3]int64{0, 99, 99} }},
		{"client_errors", func(v *ValidityInput) { v.AckErrors = 1 }, func(v *ValidityInput) { v.AckErrors = 0 }},
		{"client_errors", func(v *ValidityInput) { v.PollErrors = 1 }, func(v *ValidityInput) { v.PollErrors = 0 }},
		{"produce_failed", func(v *ValidityInput) { v.ProduceFailed = 1 }, func(v *ValidityInput) { v.ProduceFailed = 0 }},
		{"collector_failed", func(v *ValidityInput) {
			v.Collectors = []CollectorHealth{{Name: "lag", Attempts: 8, Failures: 3, Missing: []string{"lag.at_window_end"}}}
		},
			func(v *ValidityInput) { v.Collectors = []CollectorHealth{{Name: "lag", Attempts: 8, Failures: 2}} }},
		{"stalled", func(v *ValidityInput) { v.Stall = &Stall{BoundSec: 20, QuietSec: 25, Outstanding: 3, Lag: 3} }, func(v *ValidityInput) { v.Stall = nil }},
		{"error", func(v *ValidityInput) { v.Errors = []string{"boom"} }, func(v *ValidityInput) { v.Errors = nil }},
		{"client_close_timeout", func(v *ValidityInput) { v.ClientExit = &ClientExit{Message: "members did not close"} },
			func(v *ValidityInput) { v.ClientExit = nil }},
		{"client_killed", func(v *ValidityInput) { v.ClientExit = &ClientExit{Killed: true, Message: "killed by signal killed"} },
			func(v *ValidityInput) { v.ClientExit = nil }},
	} {
		on, off := clean(), clean()
		if tc.code == "above_ceiling" && tc.on != nil {
			on.UsefulPerSec = 1050.5
		}
		tc.on(&on)
		tc.off(&off)
		if got := Check(on); !slices.Equal(got.Codes(), []Code{Code(tc.code)}) || got.Valid {
			t.Errorf("%s on: flags %v valid %v, want exactly [%s]", tc.code, got.Codes(), got.Valid, tc.code)
		}
		if got := Check(off); len(got.Flags) != 0 || !got.Valid {
			t.Errorf("%s off: flags %v, want none", tc.code, got.Codes())
		}
	}
}

// Each ceiling term binds in turn and is named: producer, workers, locks;
// a consumer group has no lock ceiling; poison records cost attempts.
func TestCeilingBoundNames(t *testing.T) {
	base := CeilingInput{Share: true, Members: 2, Workers: 2, Partitions: 2, ProcessingMs: 10, ProducerRate: 300, RecordLocks: 10, HoldMs: 50}
	// workers 2×2×100 = 400; locks 2×10×1000/50 = 400.
	for _, tc := range []struct {
		name  string
		mod   func(*CeilingInput)
		rate  float64
		bound string
	}{
		{"producer", func(c *CeilingInput) {}, 300, "producer"},
		{"workers", func(c *CeilingInput) { c.ProducerRate, c.HoldMs = 1000, 25 }, 400, "workers"},
		{"lock window (Little's law)", func(c *CeilingInput) { c.ProducerRate, c.HoldMs = 1000, 100 }, 200, "lock_window"},
		{"consumer group: no lock ceiling", func(c *CeilingInput) { c.Share, c.ProducerRate, c.HoldMs = false, 1000, 100 }, 400, "workers"},
		{"poison", func(c *CeilingInput) { c.ProducerRate, c.PoisonRate, c.HoldMs = 1000, 0.5, 1 }, 200, "workers"},
		{"equal terms keep the producer", func(c *CeilingInput) { c.ProducerRate = 400 }, 400, "producer"},
	} {
		in := base
		tc.mod(&in)
		c := ComputeCeiling(in)
		if c.RecordsPerSec != tc.rate || string(c.Bound) != tc.bound {
			t.Errorf("%s: %v bound %s, want %v %s (%+v)", tc.name, c.RecordsPerSec, c.Bound, tc.rate, tc.bound, c)
		}
	}
	if c := ComputeCeiling(CeilingInput{Members: 1, Workers: 1, Partitions: 1, ProcessingMs: 10, ProducerRate: 50}); c.Locks != 0 {
		t.Errorf("consumer group lock ceiling %v, want 0", c.Locks)
	}
	if got := AttemptsPerCompletion(1, 0); got <= 1e300 {
		t.Errorf("attempts at transient 1: %v, want +Inf", got)
	}
	if got := AttemptsPerCompletion(0, 1); got <= 1e300 {
		t.Errorf("attempts at poison 1: %v, want +Inf", got)
	}
	if got := AttemptsPerCompletion(0, 0); got != 1 {
		t.Errorf("attempts without failures: %v, want 1", got)
	}
	if c := (Ceiling{}).WithMeasured(5); c.Efficiency != 0 {
		t.Errorf("efficiency without a ceiling %v, want 0", c.Efficiency)
	}
}

// The drain estimate at its edges: a backlog of 1 record drains; a negative
// backlog is no backlog.
func TestDrainEstimateEdges(t *testing.T) {
	if got := DrainEstimate(1, 0, 2); got == nil || *got != 0.5 {
		t.Errorf("1 record at net 2/s: %v, want 0.5 s", got)
	}
	if got := DrainEstimate(-5, 10, 0); got == nil || *got != 0 {
		t.Errorf("negative backlog: %v, want 0", got)
	}
}

// Edges the mutation run found untested.
func TestValidityAndCeilingEdges(t *testing.T) {
	flags := func(in ValidityInput) []string {
		in.IsKafka = true
		if in.Audit == (results.Audit{}) {
			in.Audit.Balanced = true
		}
		return CodeStrings(Check(in).Codes())
	}
	// A collector that never ran is not failed; one whose only reading
	// failed is.
	if got := flags(ValidityInput{Collectors: []CollectorHealth{{Name: "lag"}}}); len(got) != 0 {
		t.Errorf("collector with no readings: %v", got)
	}
	if got := flags(ValidityInput{Collectors: []CollectorHealth{{Name: "lag", Attempts: 1, Failures: 1}}}); !slices.Equal(got, []string{"collector_failed"}) {
		t.Errorf("collector whose one reading failed: %v", got)
	}
	if got := flags(ValidityInput{Collectors: []CollectorHealth{{Name: "broker", Attempts: 5, NoWindow: true}}}); !slices.Equal(got, []string{"collector_failed"}) {
		t.Errorf("collector with no window figures: %v", got)
	}
	// A schedule-lag limit of 1 ms is used as given (only ≤ 0 means 100).
	if got := flags(ValidityInput{ScheduleLagP99Ms: 1.5, ScheduleLagLimitMs: 1}); !slices.Equal(got, []string{"schedule_lag"}) {
		t.Errorf("limit 1 ms, p99 1.5 ms: %v", got)
	}
	// A ceiling below 1 record/s still bounds.
	if got := flags(ValidityInput{Ceiling: Ceiling{RecordsPerSec: 0.5}, UsefulPerSec: 1}); !slices.Equal(got, []string{"above_ceiling"}) {
		t.Errorf("ceiling 0.5/s, measured 1/s: %v", got)
	}
	// The unbalanced audit's message adds up the categories.
	v := Check(ValidityInput{IsKafka: true, Audit: results.Audit{Produced: 10, CompletedOnce: 3, Duplicates: 1, Archived: 1, InFlight: 1, Lost: 1}})
	if len(v.Flags) == 0 || v.Flags[0].Code != "audit_unbalanced" || !strings.Contains(v.Flags[0].Message, "10 produced, 7 classified") {
		t.Errorf("audit message %+v", v.Flags)
	}

	// Invalid rates (≥ 1) cost infinitely many attempts.
	for _, tp := range [][2]float64{{1.5, 0}, {0, 1.5}, {1, 0}, {0, 1}} {
		if got := AttemptsPerCompletion(tp[0], tp[1]); !math.IsInf(got, 1) {
			t.Errorf("attempts at transient %v poison %v: %v, want +Inf", tp[0], tp[1], got)
		}
	}
	// No members and no processing: no worker bound (0), not NaN.
	if c := ComputeCeiling(CeilingInput{ProducerRate: 5}); c.Workers != 0 || c.Bound != "producer" || c.RecordsPerSec != 5 {
		t.Errorf("empty ceiling %+v", c)
	}
	// The lock ceiling needs locks and a hold time: 1 lock × 1 partition /
	// 1 ms = 1000/s; without either it is absent (0), never +Inf or 0/s
	// binding.
	if c := ComputeCeiling(CeilingInput{Share: true, Members: 1, Workers: 1, Partitions: 1, ProducerRate: 5000, RecordLocks: 1, HoldMs: 1}); c.Locks != 1000 || c.Bound != "lock_window" {
		t.Errorf("1 lock, 1 ms: %+v", c)
	}
	for _, in := range []CeilingInput{
		{Share: true, Members: 1, Workers: 1, Partitions: 1, ProducerRate: 5000, RecordLocks: 0, HoldMs: 50},
		{Share: true, Members: 1, Workers: 1, Partitions: 1, ProducerRate: 5000, RecordLocks: 10, HoldMs: 0},
	} {
		if c := ComputeCeiling(in); c.Locks != 0 || c.Bound != "producer" {
			t.Errorf("locks %d hold %v: %+v, want no lock ceiling", in.RecordLocks, in.HoldMs, c)
		}
	}
	if c := (Ceiling{RecordsPerSec: 0.5}).WithMeasured(1); c.Efficiency != 2 {
		t.Errorf("efficiency %v, want 2", c.Efficiency)
	}
	// Consumers faster by less than 1 record/s still drain.
	if got := DrainEstimate(1, 0, 0.5); got == nil || *got != 2 {
		t.Errorf("net 0.5/s: %v, want 2 s", got)
	}
}
