package runs

import (
	"testing"

	"github.com/sharebench/sharebench/results"
)

func TestValidityFlags(t *testing.T) {
	ok := Check(ValidityInput{IsKafka: true, Audit: results.Audit{Produced: 1, CompletedOnce: 1, Balanced: true}})
	if !ok.Valid {
		t.Fatalf("clean run flagged: %+v", ok)
	}
	bad := Check(ValidityInput{IsKafka: false, Audit: results.Audit{Produced: 2, Lost: 1}, ScheduleLagP99Ms: 500,
		Ceiling: Ceiling{RecordsPerSec: 100}, CompletedPerSec: 120, CompletedThirds: [3]int64{80, 100, 100}, AckErrors: 1})
	codes := map[string]bool{}
	for _, f := range bad.Flags {
		codes[f.Code] = true
	}
	for _, c := range []string{"not_kafka", "audit_unbalanced", "lost_records", "schedule_lag", "above_ceiling", "warmup_short", "client_errors"} {
		if !codes[c] {
			t.Errorf("missing flag %s in %+v", c, bad.Flags)
		}
	}
}

// A 5 % ramp between the thirds of the window is not a short warm-up.
func TestValidityRampTolerance(t *testing.T) {
	if ok := Check(ValidityInput{IsKafka: true, Audit: results.Audit{Balanced: true}, CompletedThirds: [3]int64{95, 100, 100}}); !ok.Valid {
		t.Fatalf("5%% ramp flagged: %+v", ok.Flags)
	}
}

// lock_expiry_risk: 200 records × 200 ms ÷ 1 worker = 40 s > a 30 s lock;
// 100 records fit (20 s) unless a measured hold exceeds the lock.
func TestLockExpiryRiskFlag(t *testing.T) {
	clean := results.Audit{Produced: 1, CompletedOnce: 1, Balanced: true}
	in := LockExpiryInput{LockDurationMs: 30000, RecordsPerAcquisition: 200, ProcessingMs: 200, Workers: 1,
		Hold: results.Percentiles{P50: 100, P99: 20000, Max: 20100}}
	v := Check(ValidityInput{IsKafka: true, Audit: clean, LockExpiry: in})
	if v.Valid || v.Flags[0].Code != "lock_expiry_risk" {
		t.Fatalf("200 × 200 ms vs a 30 s lock not flagged: %+v", v)
	}
	in.RecordsPerAcquisition = 100
	if v := Check(ValidityInput{IsKafka: true, Audit: clean, LockExpiry: in}); !v.Valid {
		t.Fatalf("100 × 200 ms = 20 s < 30 s flagged: %+v", v)
	}
	in.Hold.Max = 31000
	if v := Check(ValidityInput{IsKafka: true, Audit: clean, LockExpiry: in}); v.Valid {
		t.Fatal("a measured hold of 31 s against a 30 s lock not flagged")
	}
	if v := Check(ValidityInput{IsKafka: true, Audit: clean}); !v.Valid {
		t.Fatal("no lock duration (consumer group, renew auto): flagged")
	}
}
