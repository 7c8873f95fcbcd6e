package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
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

// autoscaleRunJSON writes a run.json like a campaign's for the first run of
// consumer type ctype of the autoscale-spike built-in, with edit applied to
// its JSON (spec.autoscale.cooldown and so on), and returns its path.
func autoscaleRunJSON(t *testing.T, dir, name string, ctype vocab.GroupType, edit func(spec map[string]any)) string {
	t.Helper()
	_, sc, err := openShown("autoscale-spike")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sc.Runs, func(r scenarios.RunSpec) bool { return r.ConsumerType == ctype })
	spec := sc.Runs[i]
	b, err := json.Marshal(runs.Record{SchemaVersion: runs.SchemaVersion, RunID: "r02-" + string(ctype), ConsumerType: ctype, Spec: &spec})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m["spec"].(map[string]any))
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// setAutoscale returns an edit that sets spec.autoscale.key to v (or
// deletes the block when key is "").
func setAutoscale(key string, v any) func(map[string]any) {
	return func(spec map[string]any) {
		if key == "" {
			delete(spec, "autoscale")
			return
		}
		spec["autoscale"].(map[string]any)[key] = v
	}
}

// A run.json's policy is rendered from its spec; a hand-edited value is
// refused as the scenario would refuse it, naming the file and the key.
func TestAutoscaleRenderRunJSON(t *testing.T) {
	dir := t.TempDir()
	target := []string{"--deployment", "orders", "--group", "orders", "--topic", "orders"}
	good := autoscaleRunJSON(t, dir, "good/run.json", vocab.ConsumerGroup, nil)
	out, err := execute(t, append([]string{"autoscale", "render", "--run", good}, target...)...)
	if err != nil || !strings.Contains(out, "from run r02-consumer.") || !strings.Contains(out, "- type: kafka") {
		t.Fatalf("a good run.json: %v\n%s", err, out)
	}
	for name, tc := range map[string]struct {
		edit func(map[string]any)
		want string
	}{
		"negative cooldown":   {setAutoscale("cooldown", -1e9), "spec.autoscale.cooldown: expected a Go duration ≥ 0 and ≤ 168h (7 days, the harness's limit), got -1s"},
		"huge max_latency":    {setAutoscale("max_latency", 9.2e18), "spec.autoscale.max_latency: expected a Go duration ≥ 0 and ≤ 168h"},
		"negative threshold":  {setAutoscale("threshold", -200), "spec.autoscale.threshold: expected a finite number of records > 0, got -200"},
		"step 0":              {setAutoscale("step", 0), "spec.autoscale.step: expected an integer from 1 to 10000"},
		"max past the limit":  {setAutoscale("max", 1e6), "spec.autoscale.max: expected an integer from 1 to 10000"},
		"window past the run": {setAutoscale("window", 3.6e12), "spec.autoscale.window: must be > 0 and shorter than duration"},
		"no autoscale block":  {setAutoscale("", nil), "spec.autoscale: absent: the run had no autoscale: policy"},
		"negative partitions": {func(s map[string]any) { s["partitions"] = -4 }, "spec.partitions:"},
	} {
		p := autoscaleRunJSON(t, dir, name+"/run.json", vocab.ConsumerGroup, tc.edit)
		_, err := execute(t, append([]string{"autoscale", "render", "--run", p}, target...)...)
		if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--run "+p+": "+tc.want) {
			t.Errorf("%s: exit %d, %v; want exit 2 with %q", name, exitCode(err), err, tc.want)
		}
	}
	if _, err := execute(t, append([]string{"autoscale", "render", "--run", good, "--consumer-type", "share"}, target...)...); exitCode(err) != ExitUsage ||
		!strings.Contains(err.Error(), "--consumer-type: only with --scenario") {
		t.Errorf("--consumer-type with --run: %v", err)
	}
}

// --run never opens what could block or is not a run.json: a FIFO returns
// at once with exit 2, as do /dev/zero, a directory and a link loop.
func TestAutoscaleRenderRunFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "not a regular file", "/dev/zero": "not a regular file", dir: "a directory", loop: "a symbolic link"} {
		done := make(chan error, 1)
		go func() {
			_, err := execute(t, "autoscale", "render", "--run", path, "--deployment", "d", "--group", "g", "--topic", "t")
			done <- err
		}()
		select {
		case err := <-done:
			if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), want) {
				t.Errorf("--run %s: exit %d, %v; want exit 2 with %q", path, exitCode(err), err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("--run %s: still running after 5 s", path)
		}
	}
}

// Every value that fills a manifest field meets that field's rule, or the
// command stops with exit 2 naming the flag; what is allowed comes back
// from the written YAML exactly.
func TestAutoscaleRenderFlagValues(t *testing.T) {
	base := []string{"autoscale", "render", "--scenario", "autoscale-spike", "--consumer-type"}
	target := map[string]string{"--deployment": "orders", "--group": "orders", "--topic": "orders"}
	args := func(ctype string, set ...string) []string {
		a := append(append([]string(nil), base...), ctype)
		m := maps.Clone(target)
		for i := 0; i+1 < len(set); i += 2 {
			m[set[i]] = set[i+1]
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			a = append(a, k, m[k])
		}
		return a
	}
	for _, tc := range []struct {
		ctype, flag, value, want string
	}{
		{"consumer", "--namespace", "shop\nlabels: {evil: x}", "--namespace \"shop\\nlabels: {evil: x}\": expected a namespace (DNS-1123 label"},
		{"consumer", "--namespace", "Shop", "expected a namespace (DNS-1123 label"},
		{"consumer", "--namespace", "yes: no", "expected a namespace"},
		{"consumer", "--namespace", strings.Repeat("n", 64), "must be no more than 63 characters"},
		{"consumer", "--deployment", "orders\nnamespace: kube-system", "--deployment \"orders\\nnamespace: kube-system\": expected a Deployment name (DNS-1123 subdomain"},
		{"consumer", "--deployment", "*orders", "expected a Deployment name"},
		{"consumer", "--deployment", strings.Repeat("d", 254), "must be no more than 253 characters"},
		{"consumer", "--name", "[x", "--name \"[x\": expected a ScaledObject name"},
		{"consumer", "--bootstrap", "kafka:9092\n  topic: other", "--bootstrap \"kafka:9092\\n  topic: other\": expected host:port"},
		{"consumer", "--bootstrap", "kafka:9092,#x:9092", "--bootstrap \"#x:9092\": host \"#x\": expected an IP address or a DNS name"},
		{"consumer", "--bootstrap", "kafka:0123x", "port \"0123x\": expected a number from 1 to 65535"},
		{"consumer", "--topic", "orders: x", "--topic \"orders: x\": expected a Kafka topic name"},
		{"consumer", "--topic", strings.Repeat("t", 250), "expected a Kafka topic name"},
		{"consumer", "--group", "g\nx: y", "--group \"g\\nx: y\": holds the control character U+000A"},
		{"consumer", "--prometheus", "http://p:9090", "--prometheus/--query: the run is a consumer group"},
		{"share", "--bootstrap", "kafka:9092", "--bootstrap: the run is a share group"},
		{"share", "--prometheus", "http://p:9090/\n- x", "expected an http or https URL without white space"},
		{"share", "--prometheus", "ftp://p", "expected an http or https URL with a host"},
		{"share", "--prometheus", "http://u:pw@p:9090", "--prometheus: holds credentials"},
		{"share", "--query", "up\x00", "--query \"up\\x00\": holds the control character U+0000"},
	} {
		_, err := execute(t, args(tc.ctype, tc.flag, tc.value)...)
		if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: exit %d, %v; want exit 2 with %q", tc.flag, tc.value, exitCode(err), err, tc.want)
		}
	}
	// Allowed odd values are data in the YAML: read back exactly, no other key.
	dir := t.TempDir()
	for _, tc := range []struct{ ctype, flag, value, key string }{
		{"consumer", "--group", "yes", "consumerGroup"}, {"consumer", "--group", "a: b #c *d [e", "consumerGroup"},
		{"consumer", "--group", "0123", "consumerGroup"}, {"consumer", "--group", "null", "consumerGroup"},
		{"consumer", "--group", "grüße-€", "consumerGroup"}, {"consumer", "--topic", "0123", "topic"},
		{"consumer", "--bootstrap", "Kafka-0.Example.COM:9092,10.0.0.1:9093", "bootstrapServers"},
		{"share", "--query", "sum(x{a=\"b: c\"})\n# not a comment", "query"},
		{"share", "--prometheus", "https://prom.example:9090/a?b=c#d", "serverAddress"},
	} {
		out := filepath.Join(dir, "so.yaml")
		if _, err := execute(t, append(args(tc.ctype, tc.flag, tc.value), "--out", out)...); err != nil {
			t.Fatalf("%s %q: %v", tc.flag, tc.value, err)
		}
		if why := checkScaledObject(out, "spec.triggers.0.metadata."+tc.key, tc.value); why != "" {
			t.Errorf("%s %q: %s", tc.flag, tc.value, why)
		}
	}
}

// checkScaledObject reads a rendered manifest back: "" when it is one
// ScaledObject with no key beyond those autoscale render writes and the
// string want at the dotted path at (metadata.namespace,
// spec.triggers.0.metadata.topic), else what is wrong.
func checkScaledObject(path, at, want string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return "the manifest does not parse: " + err.Error()
	}
	within := func(where string, v any, keys ...string) string {
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %T, not a map", where, v)
		}
		for k := range m {
			if !slices.Contains(keys, k) {
				return fmt.Sprintf("%s holds the key %q", where, k)
			}
		}
		return ""
	}
	spec, _ := doc["spec"].(map[string]any)
	trigs, _ := spec["triggers"].([]any)
	if len(trigs) != 1 {
		return fmt.Sprintf("%d triggers", len(trigs))
	}
	trig, _ := trigs[0].(map[string]any)
	for _, why := range []string{
		within("the document", doc, "apiVersion", "kind", "metadata", "spec"),
		within("metadata", doc["metadata"], "name", "namespace"),
		within("spec", spec, "scaleTargetRef", "pollingInterval", "minReplicaCount", "maxReplicaCount", "advanced", "triggers"),
		within("spec.scaleTargetRef", spec["scaleTargetRef"], "name"),
		within("the trigger", trig, "type", "metricType", "metadata"),
		within("the trigger's metadata", trig["metadata"], "serverAddress", "query", "threshold", "bootstrapServers", "consumerGroup", "topic", "lagThreshold", "allowIdleConsumers"),
	} {
		if why != "" {
			return why
		}
	}
	var v any = doc
	for _, k := range strings.Split(at, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, _ := strconv.Atoi(k)
			v = x[i]
		}
	}
	if got, ok := v.(string); !ok || got != want {
		return fmt.Sprintf("%s read back as %#v, want the string %q", at, v, want)
	}
	return ""
}
