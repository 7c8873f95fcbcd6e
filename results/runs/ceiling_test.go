package runs

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestComputeCeiling(t *testing.T) {
	tests := []struct {
		name      string
		in        CeilingInput
		want      float64
		bound     string
		active    int
		workers   float64
		lockLimit float64
	}{
		// 4 partitions cap a 12-member consumer group: 4 × 1 × 1000/10 = 400.
		{"consumer group capped by partitions", CeilingInput{Members: 12, Workers: 1, Partitions: 4, ProcessingMs: 10, ProducerRate: 1000},
			400, "workers", 4, 400, 0},
		// The share group uses all 12: 12 × 100 = 1200 > 1000 offered.
		{"share group bound by producer", CeilingInput{Share: true, Members: 12, Workers: 1, Partitions: 4, ProcessingMs: 10, ProducerRate: 1000},
			1000, "producer", 12, 1200, 0},
		// Workers multiply: 2 members × 4 workers × 1000/20 = 400.
		{"workers per member", CeilingInput{Members: 2, Workers: 4, Partitions: 8, ProcessingMs: 20, ProducerRate: 5000},
			400, "workers", 2, 400, 0},
		// Worked example: 64 partitions × 2000 locks / 2 s = 64,000/s.
		{"lock ceiling", CeilingInput{Share: true, Members: 1000, Workers: 100, Partitions: 64, ProcessingMs: 1, ProducerRate: 1e6, RecordLocks: 2000, HoldMs: 2000},
			64000, "lock_window", 1000, 1e8, 64000},
		// Transient failures: 1/(1-0.2) = 1.25 attempts per completion: 400/1.25 = 320.
		{"retries cost attempts", CeilingInput{Members: 4, Workers: 1, Partitions: 4, ProcessingMs: 10, ProducerRate: 1000, TransientRate: 0.2},
			320, "workers", 4, 320, 0},
		{"no processing", CeilingInput{Members: 1, Workers: 1, Partitions: 1, ProducerRate: 700},
			700, "producer", 1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ComputeCeiling(tc.in)
			if math.Abs(c.RecordsPerSec-tc.want) > 1e-6 || string(c.Bound) != tc.bound || c.ActiveMembers != tc.active {
				t.Fatalf("got %+v, want %.0f bound %s active %d", c, tc.want, tc.bound, tc.active)
			}
			if math.Abs(c.Workers-tc.workers) > 1e-6 || math.Abs(c.Locks-tc.lockLimit) > 1e-6 {
				t.Fatalf("workers %.1f locks %.1f, want %.1f %.1f", c.Workers, c.Locks, tc.workers, tc.lockLimit)
			}
		})
	}
}

// TestLockHoldingCeiling checks the lock-holding bound by hand: per
// partition min(consumers, floor(locks ÷ records per acquisition)) members
// hold records, each worker completing 1000 / P records/s.
func TestLockHoldingCeiling(t *testing.T) {
	// mpr-cliff at max_poll_records 200: 6 members on 2 partitions (3 each),
	// 100 locks, acquisitions of 100 (the locks cap them): floor(100/100) = 1
	// holder per partition → 2 × 1 × 1000/5 = 400 < 800 offered and < the
	// 6 × 200 = 1200 worker ceiling: "locks" binds.
	base := CeilingInput{Share: true, Members: 6, Workers: 1, Partitions: 2, ProcessingMs: 5,
		ProducerRate: 800, RecordLocks: 100, HoldMs: 100}
	in := base
	in.RecordsPerAcquisition = 100
	c := ComputeCeiling(in)
	if c.Bound != "locks" || math.Abs(c.RecordsPerSec-400) > 1e-9 || c.LockHolders != 400 {
		t.Fatalf("mpr 200: %+v, want 400 bound locks", c)
	}
	if len(c.HoldersPerPartition) != 2 || c.HoldersPerPartition[0] != 1 || c.HoldersPerPartition[1] != 1 {
		t.Fatalf("holders %v, want [1 1]", c.HoldersPerPartition)
	}
	// At 50 per acquisition 2 of 3 fit: 2 × 2 × 200 = 800 = the producer
	// rate, which is listed first and so stays the bound.
	in.RecordsPerAcquisition = 50
	if c := ComputeCeiling(in); c.Bound != "producer" || c.LockHolders != 800 {
		t.Fatalf("mpr 50: %+v, want lock holders 800, bound producer", c)
	}
	// At 10 all 3 fit: the bound is the worker ceiling's 6 × 200 = 1200
	// (not binding below 800 offered).
	in.RecordsPerAcquisition = 10
	if c := ComputeCeiling(in); c.LockHolders != 1200 || c.Bound != "producer" {
		t.Fatalf("mpr 10: %+v", c)
	}
	// A measured uneven assignment: partition 0 has 4 consumers, partition
	// 1 has 1; 60 per acquisition of 100 locks fits 1 → 1 + 1 = 2 holders,
	// × 2 workers × 1000/10 = 400.
	in = base
	in.Workers, in.ProcessingMs, in.RecordsPerAcquisition = 2, 10, 60
	in.ConsumersPerPartition = []int{4, 1}
	if c := ComputeCeiling(in); c.LockHolders != 400 || c.Bound != "locks" {
		t.Fatalf("uneven: %+v, want 400 bound locks", c)
	}
	// Consumer groups have no lock bound.
	in.Share = false
	if c := ComputeCeiling(in); c.LockHolders != 0 || c.Bound == "locks" {
		t.Fatalf("consumer group: %+v", c)
	}
}

func TestSharePartitionConsumers(t *testing.T) {
	for _, tc := range []struct {
		m, p int
		want []int
	}{{6, 2, []int{3, 3}}, {7, 3, []int{3, 2, 2}}, {2, 4, []int{1, 1, 1, 1}}, {4, 4, []int{1, 1, 1, 1}}} {
		got := SharePartitionConsumers(tc.m, tc.p)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%d members on %d partitions: %v, want %v", tc.m, tc.p, got, tc.want)
		}
	}
	if got := LockHolders([]int{3, 3}, 2000, 2500, false); fmt.Sprint(got) != "[1 1]" {
		t.Errorf("acquisition above the locks: %v, want at least one holder", got)
	}
}

func TestAttemptsPerCompletion(t *testing.T) {
	// 10% poison among records, 50% transient: good records need 2 attempts
	// each; per completion add the poison share 0.1/0.9.
	got := AttemptsPerCompletion(0.5, 0.1)
	if want := 2 + 0.1/0.9; math.Abs(got-want) > 1e-12 {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestEfficiency(t *testing.T) {
	c := Ceiling{RecordsPerSec: 400}.WithMeasured(380)
	if c.Efficiency != 0.95 {
		t.Fatalf("efficiency %v", c.Efficiency)
	}
	// Under lock_expiry the ceiling is the useful rate (records finished
	// inside their lock) and so is the measured rate it is held against:
	// 16.1 useful records/s against 19.2 is 0.84, whatever the redone
	// completions add to completed_per_sec.
	c = Ceiling{RecordsPerSec: 19.2, Bound: BoundLockExpiry, UsefulShare: 0.6}.WithMeasured(16.1)
	if math.Abs(c.Efficiency-16.1/19.2) > 1e-9 {
		t.Fatalf("lock_expiry efficiency %v, want %v", c.Efficiency, 16.1/19.2)
	}
}

// The backlog drain bound by lock expiry that used to be flagged
// unexplained (16 members × 500 ms, max_poll_records 100, 6 partitions on
// Kafka 4.2.2): the ceiling printed 17.5 useful records/s, the check held
// 23 completions/s (redone ones included) against the raw 32/s and found
// 72 %. On one basis the drain's 18.1 useful records/s is 103 % of 17.5:
// the bound held. Half of it is still short and unexplained.
func TestJudgeLockExpiryOnTheUsefulBasis(t *testing.T) {
	c := Ceiling{RecordsPerSec: 17.5, Workers: 32, Bound: BoundLockExpiry, UsefulShare: 17.5 / 32, LockExpiry: 17.5}
	if j := c.Judge(18.1, Saturation{HandlerIdleMin: 0.9}); j.Held != BoundLockExpiry {
		t.Errorf("18.1 useful records/s against 17.5: held %q (%s), want lock_expiry", j.Held, j.Evidence)
	}
	j := c.Judge(8.75, Saturation{HandlerIdleMin: 0.9})
	if j.Held != BoundUnexplained || !strings.Contains(j.Evidence, "measured 9 records/s is 50% of the 18 records/s lock_expiry bound") {
		t.Errorf("8.75 against 17.5: held %q (%s), want unexplained at 50%% of the printed ceiling", j.Held, j.Evidence)
	}
}
