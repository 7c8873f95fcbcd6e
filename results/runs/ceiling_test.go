package runs

import (
	"math"
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
			64000, "locks", 1000, 1e8, 64000},
		// Transient failures: 1/(1-0.2) = 1.25 attempts per completion: 400/1.25 = 320.
		{"retries cost attempts", CeilingInput{Members: 4, Workers: 1, Partitions: 4, ProcessingMs: 10, ProducerRate: 1000, TransientRate: 0.2},
			320, "workers", 4, 320, 0},
		{"no processing", CeilingInput{Members: 1, Workers: 1, Partitions: 1, ProducerRate: 700},
			700, "producer", 1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ComputeCeiling(tc.in)
			if math.Abs(c.RecordsPerSec-tc.want) > 1e-6 || c.Bound != tc.bound || c.ActiveMembers != tc.active {
				t.Fatalf("got %+v, want %.0f bound %s active %d", c, tc.want, tc.bound, tc.active)
			}
			if math.Abs(c.Workers-tc.workers) > 1e-6 || math.Abs(c.Locks-tc.lockLimit) > 1e-6 {
				t.Fatalf("workers %.1f locks %.1f, want %.1f %.1f", c.Workers, c.Locks, tc.workers, tc.lockLimit)
			}
		})
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
}
