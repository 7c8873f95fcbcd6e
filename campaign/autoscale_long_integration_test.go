//go:build integration && long

package campaign

import (
	"bytes"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/report"
)

// The autoscale built-ins on a real Kafka 4.2 broker: autoscale-spike's
// share group scales past the 2 partitions and drains within its goal
// while rule 3 caps the consumer group at 2; autoscale-flap flaps and
// autoscale-flap-cooldown does not. Every action carries the lag that
// triggered it.
func TestAutoscaleBuiltinsOnKafka(t *testing.T) {
	needOwnCluster(t)
	for _, name := range []string{"autoscale-spike", "autoscale-flap", "autoscale-flap-cooldown"} {
		t.Run(name, func(t *testing.T) {
			res, _ := runOnOwnCluster(t, builtin(t, name), 8*time.Minute)
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
