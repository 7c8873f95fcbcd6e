//go:build integration && long

package campaign

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/scenarios"
)

// The three client-parity built-ins on a real Kafka 4.2 broker, each a
// campaign of its own: every expectation is MET or, for a client that has
// no run of it, SKIPPED; the only skips are librdkafka's renew auto claims
// in client-parity-expiry, each naming RENEW. About 12 minutes on 2 cores.
func TestClientParityBuiltinsOnKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	for _, check := range []func() error{consumers.CheckJavaClient, consumers.CheckLibrdkafkaClient} {
		if err := check(); err != nil {
			testkit.Unavailable(t, err.Error())
		}
	}
	for _, name := range []string{"client-parity", "client-parity-expiry", "client-parity-crash"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log})
			if err != nil {
				t.Log(log.String())
				t.Fatal(err)
			}
			if len(res.Runs) != len(sc.Runs) {
				t.Fatalf("%d runs, want %d", len(res.Runs), len(sc.Runs))
			}
			skips := 0
			for _, o := range res.Expectations {
				t.Logf("%s %s", o.Status(), o.Line())
				switch {
				case o.Skipped:
					skips++
					if name != "client-parity-expiry" || !strings.Contains(o.Name, "(client librdkafka)") || !strings.Contains(o.Detail, "RENEW") {
						t.Errorf("skipped, and not librdkafka's renew auto: %s", o.Line())
					}
				case !o.Met:
					t.Errorf("NOT MET: %s", o.Line())
				}
			}
			if want := map[string]int{"client-parity-expiry": 3}[name]; skips != want {
				t.Errorf("%d skipped, want %d", skips, want)
			}
		})
	}
}
