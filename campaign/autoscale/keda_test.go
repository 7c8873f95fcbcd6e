package autoscale

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden.yaml")

// The spike policy of the autoscale-spike built-in, rendered for both
// group types, against golden files read by a person once.
func TestKEDAGolden(t *testing.T) {
	p := Policy{Signal: Lag, Threshold: 200, Window: 3 * time.Second, OutAfter: 2 * time.Second, InAfter: 10 * time.Second,
		InBelow: 20, Cooldown: 4 * time.Second, Step: 2, Min: 1, Max: 8, PollEvery: time.Second}
	for _, tc := range []struct {
		name  string
		share bool
		max   int
	}{{"share", true, 8}, {"consumer", false, 2}} {
		p.Max = tc.max
		got, un, err := KEDA(p, KEDATarget{Name: "orders-consumer", Namespace: "shop", Deployment: "orders-consumer", Share: tc.share,
			Group: "orders", Topic: "orders", BootstrapServers: "kafka:9092", PrometheusURL: "http://prometheus:9090",
			Source: "autoscale-spike r02-" + tc.name})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "keda-"+tc.name+".golden.yaml")
		if *updateGolden {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: rendered\n%s\nwant\n%s", tc.name, got, want)
		}
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(got), &doc); err != nil || doc["kind"] != "ScaledObject" {
			t.Errorf("%s: not a ScaledObject document: %v", tc.name, err)
		}
		if !strings.Contains(got, "cooldown 4s between any two actions") || len(un) < 2 {
			t.Errorf("%s: unmapped %v", tc.name, un)
		}
	}
}

func TestKEDARefuses(t *testing.T) {
	ok := Policy{Signal: Lag, Threshold: 1, Min: 1, Max: 2, Step: 1}
	tgt := KEDATarget{Deployment: "d", Group: "g", Topic: "t"}
	for name, p := range map[string]Policy{"etd": {Signal: ETD, Min: 1, Max: 2, Step: 1}, "max ≤ min": {Signal: Lag, Min: 2, Max: 2, Step: 1}} {
		if _, _, err := KEDA(p, tgt); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, _, err := KEDA(ok, KEDATarget{Deployment: "d"}); err == nil {
		t.Error("no group and topic accepted")
	}
}
