//go:build integration && long

package campaign

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/report"
	"github.com/sharebench/sharebench/scenarios"
)

// The autoscale built-ins on a real Kafka 4.2 broker: autoscale-spike's
// share group scales past the 2 partitions and drains within its goal
// while rule 3 caps the consumer group at 2; autoscale-flap flaps and
// autoscale-flap-cooldown does not. Every action carries the lag that
// triggered it.
func TestAutoscaleBuiltinsOnKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		testkit.Unavailable(t, reason)
	}
	for _, name := range []string{"autoscale-spike", "autoscale-flap", "autoscale-flap-cooldown"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log})
			if err != nil {
				t.Log(log.String())
				t.Fatal(err)
			}
			var b bytes.Buffer
			_ = report.Events(res.Runs)(&b)
			t.Log(b.String())
			for _, o := range res.Expectations {
				if !o.Met {
					t.Errorf("NOT MET: %s", o.Line())
				}
			}
			for _, r := range res.Runs {
				if r.Autoscale == nil {
					t.Fatalf("%s: no autoscale block", r.RunID)
				}
				for _, a := range r.Autoscale.Actions {
					if a.Trigger == "" {
						t.Errorf("%s: action at %.1fs without its trigger", r.RunID, a.AtSec)
					}
				}
			}
		})
	}
}
