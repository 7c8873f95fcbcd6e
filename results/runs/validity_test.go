package runs

import (
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results"
)

func TestValidityFlags(t *testing.T) {
	ok := Check(ValidityInput{IsKafka: true, Audit: results.Audit{Produced: 1, CompletedOnce: 1, Balanced: true}})
	if !ok.Valid {
		t.Fatalf("clean run flagged: %+v", ok)
	}
	bad := Check(ValidityInput{IsKafka: false, Audit: results.Audit{Produced: 2, Lost: 1}, ScheduleLagP99Ms: 500,
		Ceiling: Ceiling{RecordsPerSec: 100}, UsefulPerSec: 120, CompletedThirds: [3]int64{80, 100, 100}, AckErrors: 1})
	codes := map[string]bool{}
	for _, f := range bad.Flags {
		codes[string(f.Code)] = true
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

// tls_insecure: raised exactly when the clients skipped certificate
// verification, and accepted by --deny-flags.
func TestTLSInsecureFlag(t *testing.T) {
	clean := results.Audit{Produced: 1, CompletedOnce: 1, Balanced: true}
	v := Check(ValidityInput{IsKafka: true, Audit: clean, TLSInsecure: true})
	if v.Valid || len(v.Flags) != 1 || v.Flags[0].Code != "tls_insecure" || !strings.Contains(v.Flags[0].Message, "insecure_skip_verify") {
		t.Fatalf("insecure TLS: %+v", v)
	}
	if v := Check(ValidityInput{IsKafka: true, Audit: clean}); !v.Valid {
		t.Fatalf("verified TLS (or none) flagged: %+v", v)
	}
	if err := CheckDenyFlags([]Code{"tls_insecure"}); err != nil {
		t.Error(err)
	}
}

// throttled: raised when a broker throttled the run's clients at least
// once, with the count and times; no throttle, no flag.
func TestThrottledFlag(t *testing.T) {
	clean := results.Audit{Produced: 1, CompletedOnce: 1, Balanced: true}
	th := ThrottleSummary{Count: 3, Total: 1234567 * time.Microsecond, Longest: 700 * time.Millisecond}
	v := Check(ValidityInput{IsKafka: true, Audit: clean, Throttle: th})
	if v.Valid || len(v.Flags) != 1 || v.Flags[0].Code != "throttled" {
		t.Fatalf("throttled run: %+v", v)
	}
	if m := v.Flags[0].Message; !strings.Contains(m, "3 time(s)") || !strings.Contains(m, "1.235s in all") || !strings.Contains(m, "longest 700ms") {
		t.Errorf("message %q", m)
	}
	if v := Check(ValidityInput{IsKafka: true, Audit: clean, Throttle: ThrottleSummary{}}); !v.Valid {
		t.Fatalf("no throttle flagged: %+v", v)
	}
	if err := CheckDenyFlags([]Code{"throttled", "tls_insecure", "lock_expiry_risk"}); err != nil {
		t.Error(err)
	}
	// A denied throttled run fails the gate with its message.
	r := Record{RunID: "r01-share", Audit: clean, Validity: Check(ValidityInput{IsKafka: true, Audit: clean})}
	if got := Problems(r, []Code{"throttled"}); len(got) != 0 {
		t.Errorf("unthrottled run failed the gate: %v", got)
	}
	r.Validity = Check(ValidityInput{IsKafka: true, Audit: clean, Throttle: th})
	if got := Problems(r, []Code{"throttled"}); len(got) != 1 || !strings.Contains(got[0], "validity flag throttled") {
		t.Errorf("throttled run passed the gate: %v", got)
	}
}
