package autoscale

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/blocks"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden.yaml")

// The spike policy of the autoscale-spike built-in, rendered for both
// group types, against golden files read by a person once.
func TestKEDAGolden(t *testing.T) {
	p := Policy{Signal: blocks.SignalLag, Threshold: 200, Window: 3 * time.Second, OutAfter: 2 * time.Second, InAfter: 10 * time.Second,
		InBelow: 20, Cooldown: 4 * time.Second, Step: 2, Min: 1, Max: 8, Poll: time.Second}
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
	ok := Policy{Signal: blocks.SignalLag, Threshold: 1, Min: 1, Max: 2, Step: 1}
	tgt := KEDATarget{Deployment: "d", Group: "g", Topic: "t"}
	for name, p := range map[string]Policy{"etd": {Signal: blocks.SignalETD, Min: 1, Max: 2, Step: 1}, "max ≤ min": {Signal: blocks.SignalLag, Min: 2, Max: 2, Step: 1}} {
		if _, _, err := KEDA(p, tgt); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, _, err := KEDA(ok, KEDATarget{Deployment: "d"}); err == nil {
		t.Error("no group and topic accepted")
	}
}

// hostileStrings are values that written into YAML unquoted would add keys,
// start a comment, an alias, a flow sequence, or turn into a bool, null or
// an octal number.
var hostileStrings = []string{"a\nlabels: {evil: x}", "a: b", "a #b", "*a", "[a", "yes", "null", "0123", "~", "true",
	"1e3", "- x", "'q'", `"dq"`, "é€ünï", "a\tb", "%TAG", "@x", "!!binary x", "a\r\nnamespace: other", strings.Repeat("x", 300)}

// The manifest is data: every string of the target comes back from the
// YAML as the same string at its own place, with no key the ScaledObject
// does not have (KnownFields), whatever it holds; the source's comment
// cannot leave its line.
func TestKEDARoundTrip(t *testing.T) {
	p := Policy{Signal: blocks.SignalLag, Threshold: 1e-3, Window: 3 * time.Second, OutAfter: time.Second, InAfter: 10 * time.Second,
		InBelow: 0.5, Cooldown: 4 * time.Second, Step: 1, Min: 1, Max: 4, Poll: time.Second}
	for _, s := range hostileStrings {
		for _, share := range []bool{true, false} {
			tgt := KEDATarget{Name: s, Namespace: s, Deployment: s, Share: share, Group: s, Topic: s,
				BootstrapServers: s, PrometheusURL: s, Query: s, Source: s}
			y, _, err := KEDA(p, tgt)
			if err != nil {
				t.Fatal(err)
			}
			var doc scaledObject
			dec := yaml.NewDecoder(strings.NewReader(y))
			dec.KnownFields(true)
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("%q: the manifest does not parse back as a ScaledObject: %v\n%s", s, err, y)
			}
			md := triggerMetadata{BootstrapServers: s, ConsumerGroup: s, Topic: s, LagThreshold: "0.001", AllowIdleConsumers: "false"}
			if share {
				md = triggerMetadata{ServerAddress: s, Query: s, Threshold: "0.001"}
			}
			if doc.Metadata != (objectMeta{Name: s, Namespace: s}) || doc.Spec.ScaleTargetRef.Name != s || doc.Kind != "ScaledObject" ||
				len(doc.Spec.Triggers) != 1 || doc.Spec.Triggers[0].Metadata != md || doc.Spec.MaxReplicaCount != 4 {
				t.Errorf("%q (share %v): parsed back as %+v\n%s", s, share, doc, y)
			}
			for _, line := range strings.Split(strings.SplitN(y, "apiVersion:", 2)[0], "\n") {
				if line != "" && !strings.HasPrefix(line, "#") {
					t.Errorf("%q: the header holds a line that is not a comment: %q", s, line)
				}
			}
		}
	}
}
