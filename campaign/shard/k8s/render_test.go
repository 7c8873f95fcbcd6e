package k8s

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/sharebench/sharebench/campaign/shard"
)

var update = flag.Bool("update", false, "rewrite testdata/example.yaml from Render")

const exampleScenario = "name: partition-cap\nmembers: [4]\n"

func exampleParams() Params {
	return Params{
		Name:      "sharebench-partition-cap",
		Namespace: "bench",
		Image:     "registry.example/sharebench-agent:v1",
		Shards:    3,
		AgentArgs: shard.AgentArgs{
			Bootstrap:    []string{"kafka-0.kafka.bench.svc:9092", "kafka-1.kafka.bench.svc:9092"},
			ControlTopic: "sharebench-partition-cap-control",
			ResultsTopic: "sharebench-partition-cap-results",
			Campaign:     "partition-cap",
		},
		ScenarioYAML:   []byte(exampleScenario),
		ConnectionYAML: []byte("sasl:\n  mechanism: PLAIN\n  username: bench\n  password: s3cret-inline\n"),
		Resources:      Resources{CPURequest: "1", MemoryRequest: "512Mi", CPULimit: "2", MemoryLimit: "1Gi"},
		Labels:         map[string]string{"team": "streaming"},
	}
}

// decodeAll splits a multi-document stream and decodes each document with
// client-go's scheme, as kubectl and the API server would read it.
func decodeAll(t *testing.T, stream []byte) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, doc := range bytes.Split(stream, []byte("\n---\n")) {
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("decode %q: %v", doc, err)
		}
		if gvk.Kind == "" {
			t.Fatalf("document without kind: %s", doc)
		}
		out = append(out, obj)
	}
	return out
}

func TestRenderRoundTripsThroughTheScheme(t *testing.T) {
	objs, err := Render(exampleParams())
	if err != nil {
		t.Fatal(err)
	}
	y, err := objs.YAML()
	if err != nil {
		t.Fatal(err)
	}
	got := decodeAll(t, y)
	want := objs.List()
	if len(got) != 4 || len(want) != 4 {
		t.Fatalf("decoded %d objects, rendered %d; want 4 (ServiceAccount, ConfigMap, Secret, Job)", len(got), len(want))
	}
	kinds := []string{"ServiceAccount", "ConfigMap", "Secret", "Job"}
	for i := range got {
		if k := got[i].GetObjectKind().GroupVersionKind().Kind; k != kinds[i] {
			t.Errorf("document %d: kind %q, want %q", i, k, kinds[i])
		}
		// The deserializer drops TypeMeta on typed objects; compare the rest.
		g, w := got[i].DeepCopyObject(), want[i].DeepCopyObject()
		g.GetObjectKind().SetGroupVersionKind(w.GetObjectKind().GroupVersionKind())
		if !equality.Semantic.DeepEqual(g, w) {
			t.Errorf("document %d (%s) changed in the round trip:\n got %#v\nwant %#v", i, kinds[i], g, w)
		}
	}
}

func TestRenderJob(t *testing.T) {
	p := exampleParams()
	objs, err := Render(p)
	if err != nil {
		t.Fatal(err)
	}
	j := objs.Job
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || *s.Completions != 3 || s.Parallelism == nil || *s.Parallelism != 3 {
		t.Errorf("completions %v parallelism %v, want 3 and 3", s.Completions, s.Parallelism)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v, want 0: a failed shard must fail the run", s.BackoffLimit)
	}
	if s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != int64(DefaultActiveDeadline/time.Second) {
		t.Errorf("activeDeadlineSeconds %v, want %d", s.ActiveDeadlineSeconds, int64(DefaultActiveDeadline/time.Second))
	}
	if s.TTLSecondsAfterFinished == nil || *s.TTLSecondsAfterFinished != 3600 {
		t.Errorf("ttlSecondsAfterFinished %v, want 3600", s.TTLSecondsAfterFinished)
	}
	if s.PodFailurePolicy == nil || len(s.PodFailurePolicy.Rules) != 1 || s.PodFailurePolicy.Rules[0].Action != batchv1.PodFailurePolicyActionFailJob {
		t.Errorf("podFailurePolicy %+v, want one FailJob rule", s.PodFailurePolicy)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never (podFailurePolicy needs it)", pod.RestartPolicy)
	}
	if pod.ServiceAccountName != objs.ServiceAccount.Name {
		t.Errorf("serviceAccountName %q, want %q", pod.ServiceAccountName, objs.ServiceAccount.Name)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken || objs.ServiceAccount.AutomountServiceAccountToken == nil || *objs.ServiceAccount.AutomountServiceAccountToken {
		t.Error("the service account token is mounted; agents never call the API")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != p.Image {
		t.Errorf("image %q, want %q", c.Image, p.Image)
	}
	if slices.Contains(c.Args, "--shard") {
		t.Errorf("args %q carry --shard; the agent must take its index from JOB_COMPLETION_INDEX", c.Args)
	}
	if c.Args[0] != "agent" || !hasPair(c.Args, "--shards", "3") || !hasPair(c.Args, "--bootstrap", strings.Join(p.AgentArgs.Bootstrap, ",")) {
		t.Errorf("args %q: want agent --bootstrap … --shards 3", c.Args)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container securityContext %+v: want runAsNonRoot, readOnlyRootFilesystem, no privilege escalation, drop ALL", sc)
	}
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsUser == nil || *pod.SecurityContext.RunAsUser != AgentUID {
		t.Errorf("pod securityContext %+v: want runAsUser %d", pod.SecurityContext, AgentUID)
	}
	if c.Resources.Limits.Memory().String() != "1Gi" || c.Resources.Requests.Cpu().String() != "1" {
		t.Errorf("resources %+v: want requests cpu 1, limits memory 1Gi", c.Resources)
	}
	sel := Selector(p.Name)
	for _, o := range objs.List() {
		m := o.(interface{ GetLabels() map[string]string })
		if m.GetLabels()[LabelInstance] != p.Name || m.GetLabels()["team"] != "streaming" {
			t.Errorf("%T labels %v: want %s and team=streaming", o, m.GetLabels(), sel)
		}
	}
	if s.Template.Labels[LabelInstance] != p.Name || s.Template.Labels[LabelManagedBy] != "sharebench" {
		t.Errorf("pod labels %v do not match the selector %s", s.Template.Labels, sel)
	}
}

func hasPair(args []string, flag, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag && args[i+1] == value {
			return true
		}
	}
	return false
}

// mountedFile returns the volume key a container path resolves to: the
// ConfigMap or Secret name and key behind path.
func mountedFile(t *testing.T, spec corev1.PodSpec, path string) (source, key string) {
	t.Helper()
	c := spec.Containers[0]
	for _, m := range c.VolumeMounts {
		rel, ok := strings.CutPrefix(path, m.MountPath+"/")
		if !ok {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name != m.Name {
				continue
			}
			var items []corev1.KeyToPath
			switch {
			case v.ConfigMap != nil:
				source, items = "configmap/"+v.ConfigMap.Name, v.ConfigMap.Items
			case v.Secret != nil:
				source, items = "secret/"+v.Secret.SecretName, v.Secret.Items
			default:
				t.Fatalf("%s is mounted from volume %s, neither ConfigMap nor Secret", path, v.Name)
			}
			for _, it := range items {
				if it.Path == rel {
					return source, it.Key
				}
			}
		}
	}
	t.Fatalf("no mount serves %s", path)
	return "", ""
}

func TestRenderMountsScenarioAndConnectionWhereTheArgsPoint(t *testing.T) {
	p := exampleParams()
	objs, err := Render(p)
	if err != nil {
		t.Fatal(err)
	}
	args := objs.Job.Spec.Template.Spec.Containers[0].Args
	argValue := func(flag string) string {
		for i := 0; i+1 < len(args); i++ {
			if args[i] == flag {
				return args[i+1]
			}
		}
		t.Fatalf("args %q lack %s", args, flag)
		return ""
	}
	src, key := mountedFile(t, objs.Job.Spec.Template.Spec, argValue("--scenario"))
	if src != "configmap/"+objs.ConfigMap.Name || objs.ConfigMap.Data[key] != exampleScenario {
		t.Errorf("--scenario resolves to %s key %q holding %q; want the scenario ConfigMap with the scenario text", src, key, objs.ConfigMap.Data[key])
	}
	src, key = mountedFile(t, objs.Job.Spec.Template.Spec, argValue("--connection"))
	if objs.Secret == nil || src != "secret/"+objs.Secret.Name || !bytes.Equal(objs.Secret.Data[key], p.ConnectionYAML) {
		t.Errorf("--connection resolves to %s key %q; want the connection Secret", src, key)
	}
	for k, v := range objs.ConfigMap.Data {
		if strings.Contains(v, "s3cret-inline") {
			t.Errorf("ConfigMap key %s holds the connection secret", k)
		}
	}

	p.ConnectionYAML = nil
	objs, err = Render(p)
	if err != nil {
		t.Fatal(err)
	}
	if objs.Secret != nil || len(objs.List()) != 3 || slices.Contains(objs.Job.Spec.Template.Spec.Containers[0].Args, "--connection") {
		t.Errorf("without a connection file: secret %v, %d objects, args %q; want no Secret and no --connection", objs.Secret, len(objs.List()), objs.Job.Spec.Template.Spec.Containers[0].Args)
	}
}

func TestRenderRefusesBadParams(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"no image", func(p *Params) { p.Image = "" }, "--image: empty"},
		{"zero shards", func(p *Params) { p.Shards = 0 }, "--shards 0: expected at least 1"},
		{"upper-case name", func(p *Params) { p.Name = "Bench_1" }, `--name "Bench_1"`},
		{"long name", func(p *Params) { p.Name = strings.Repeat("a", 53) }, "expected at most 52"},
		{"bad namespace", func(p *Params) { p.Namespace = "a.b" }, `--namespace "a.b"`},
		{"no scenario", func(p *Params) { p.ScenarioYAML = nil }, "--scenario"},
		{"no bootstrap", func(p *Params) { p.AgentArgs.Bootstrap = nil }, "--bootstrap: empty"},
		{"loopback bootstrap", func(p *Params) { p.AgentArgs.Bootstrap = []string{"127.0.0.1:9092"} }, `--bootstrap "127.0.0.1:9092": a loopback address`},
		{"localhost bootstrap", func(p *Params) { p.AgentArgs.Bootstrap = []string{"localhost:9092"} }, "loopback"},
		{"bootstrap without port", func(p *Params) { p.AgentArgs.Bootstrap = []string{"kafka"} }, `--bootstrap "kafka": expected host:port`},
		{"bad quantity", func(p *Params) { p.Resources.MemoryLimit = "lots" }, `--memory-limit "lots"`},
		{"bad label", func(p *Params) { p.Labels = map[string]string{"a b": "c"} }, "--label a b: key"},
		{"no topics", func(p *Params) { p.AgentArgs.ControlTopic = "" }, "--control-topic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := exampleParams()
			c.mod(&p)
			_, err := Render(p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Render: %v; want an error containing %q", err, c.want)
			}
		})
	}
}

func TestNameFor(t *testing.T) {
	for _, c := range []struct{ campaign, suffix, want string }{
		{"partition-cap", "", "sharebench-partition-cap"},
		{"Partition_Cap 2", "x7k2q", "sharebench-partition-cap-2-x7k2q"},
		{"", "abcde", "sharebench-abcde"},
		{"sharebench-x", "", "sharebench-x"},
		{strings.Repeat("long", 30), "abcde", "sharebench-" + strings.Repeat("long", 9)[:35] + "-abcde"},
	} {
		got := NameFor(c.campaign, c.suffix)
		if got != c.want {
			t.Errorf("NameFor(%q, %q) = %q, want %q", c.campaign, c.suffix, got, c.want)
		}
		if p := exampleParams(); true {
			p.Name = got
			if err := p.Validate(); err != nil {
				t.Errorf("NameFor(%q) = %q is not a valid name: %v", c.campaign, got, err)
			}
		}
	}
}

// TestRenderGolden pins the rendered example that docs/how-to/run-on-kubernetes.md
// shows; go test ./campaign/shard/k8s -run Golden -update rewrites it.
func TestRenderGolden(t *testing.T) {
	objs, err := Render(exampleParams())
	if err != nil {
		t.Fatal(err)
	}
	got, err := objs.YAML()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "example.yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rendered manifests differ from %s (run go test ./campaign/shard/k8s -run Golden -update and review the diff):\n%s", path, got)
	}
}
