package main

import (
	"strings"
	"testing"
)

func TestAutoscaleRender(t *testing.T) {
	out, err := execute(t, "autoscale", "render", "--scenario", "autoscale-spike", "--consumer-type", "share",
		"--deployment", "orders", "--group", "orders", "--topic", "orders", "--namespace", "shop")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: ScaledObject", "namespace: shop", "maxReplicaCount: 8", "- type: prometheus",
		`threshold: "200"`, "stabilizationWindowSeconds: 10", "# Not expressible in a ScaledObject"} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"autoscale", "render", "--deployment", "d", "--group", "g", "--topic", "t"}, "give --run (a run.json) or --scenario"},
		{[]string{"autoscale", "render", "--scenario", "smoke", "--deployment", "d", "--group", "g", "--topic", "t"}, "no run with autoscale:"},
		{[]string{"autoscale", "render", "--scenario", "autoscale-spike"}, "give --deployment, --group and --topic"},
	} {
		if _, err := execute(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
