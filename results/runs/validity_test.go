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
