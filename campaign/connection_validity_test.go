package campaign

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
)

// The connection hands runs.Check its part of the validity input: an
// unverified TLS connection raises tls_insecure, the throttle hook's
// figures raise throttled; neither without the condition.
func TestConnectionValidityFlags(t *testing.T) {
	clean := runs.ValidityInput{IsKafka: true, Audit: results.Audit{Produced: 1, CompletedOnce: 1, Balanced: true}}
	codes := func(c clientConn) []runs.Code { return runs.Check(c.validity(clean)).Codes() }

	plain := clientConn{throttle: &throttleHook{}}
	if got := codes(plain); len(got) != 0 {
		t.Errorf("plaintext, unthrottled: flags %v", got)
	}
	verified := clientConn{conn: connection.Settings{TLS: &connection.TLS{CAFile: "ca.pem"}}, throttle: &throttleHook{}}
	if got := codes(verified); len(got) != 0 {
		t.Errorf("verified TLS: flags %v", got)
	}
	insecure := clientConn{conn: connection.Settings{TLS: &connection.TLS{InsecureSkipVerify: true}}, throttle: &throttleHook{}}
	if got := codes(insecure); len(got) != 1 || got[0] != "tls_insecure" {
		t.Errorf("insecure TLS: flags %v, want [tls_insecure]", got)
	}

	throttled := clientConn{throttle: &throttleHook{}}
	throttled.throttle.OnBrokerThrottle(kgo.BrokerMetadata{}, 0, false) // no throttle time: not counted
	if got := codes(throttled); len(got) != 0 {
		t.Errorf("a zero throttle time: flags %v", got)
	}
	throttled.throttle.OnBrokerThrottle(kgo.BrokerMetadata{}, 300*time.Millisecond, false)
	throttled.throttle.OnBrokerThrottle(kgo.BrokerMetadata{}, 100*time.Millisecond, true)
	if s := throttled.throttle.summary(); s != (runs.ThrottleSummary{Count: 2, Total: 400 * time.Millisecond, Longest: 300 * time.Millisecond}) {
		t.Errorf("throttle summary %+v", s)
	}
	if got := codes(throttled); len(got) != 1 || got[0] != "throttled" {
		t.Errorf("throttled: flags %v, want [throttled]", got)
	}
	if got := codes(clientConn{}); len(got) != 0 { // no hook (outside a run)
		t.Errorf("no hook: flags %v", got)
	}
}
