//go:build k8s

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/campaign/shard/k8s"
)

func TestK8sRender(t *testing.T) {
	out, err := execute(t, "k8s", "render", "--scenario", "partition-cap", "--shards", "3", "--image", "reg.example/agent:v1",
		"--bootstrap", "kafka-0.kafka:9092,kafka-1.kafka:9092", "--namespace", "bench", "--label", "team=streaming")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var job *batchv1.Job
	var cm *corev1.ConfigMap
	for _, doc := range strings.Split(out, "\n---\n") {
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("decode %q: %v", doc, err)
		}
		kinds = append(kinds, gvk.Kind)
		switch o := obj.(type) {
		case *batchv1.Job:
			job = o
		case *corev1.ConfigMap:
			cm = o
		}
	}
	if !slices.Equal(kinds, []string{"ServiceAccount", "ConfigMap", "Job"}) {
		t.Fatalf("kinds %v; want ServiceAccount, ConfigMap, Job (no Secret without --connection)", kinds)
	}
	if *job.Spec.Completions != 3 || job.Namespace != "bench" || job.Name != "sharebench-partition-cap" || job.Labels["team"] != "streaming" {
		t.Errorf("job %s/%s completions %d labels %v", job.Namespace, job.Name, *job.Spec.Completions, job.Labels)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	if slices.Contains(args, "--shard") || !slices.Contains(args, "sharebench-partition-cap-control") || !slices.Contains(args, "kafka-0.kafka:9092,kafka-1.kafka:9092") {
		t.Errorf("args %q: want the bootstrap list, the default control topic, no --shard", args)
	}
	if !strings.Contains(cm.Data["scenario.yaml"], "partition-cap") {
		t.Errorf("ConfigMap does not hold the partition-cap scenario: %q", cm.Data)
	}

	dir := t.TempDir()
	if _, err := execute(t, "k8s", "render", "--scenario", "partition-cap", "--shards", "2", "--image", "i", "--bootstrap", "k:9092", "--out", dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sharebench-partition-cap.yaml")); err != nil || !bytes.Contains(b, []byte("completions: 2")) {
		t.Errorf("--out DIR: %v, %.80q", err, b)
	}
}

func TestK8sRenderBadInput(t *testing.T) {
	dir := t.TempDir()
	conn := filepath.Join(dir, "conn.yaml")
	if err := os.WriteFile(conn, []byte("tls:\n  ca_file: /etc/kafka/ca.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"k8s", "render", "--scenario", "partition-cap", "--shards", "2", "--image", "i", "--bootstrap", "k:9092"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no scenario", []string{"k8s", "render", "--shards", "1"}, "--scenario"},
		{"unknown scenario", []string{"k8s", "render", "--scenario", "nope", "--shards", "1"}, "--scenario nope"},
		{"no image", append(slices.Clone(base), "--image", ""), "--image: empty"},
		{"no shards", append(slices.Clone(base), "--shards", "0"), "--shards 0"},
		{"bad name", append(slices.Clone(base), "--name", "My_Bench"), `--name "My_Bench"`},
		{"bad label", append(slices.Clone(base), "--label", "team"), `--label "team": expected KEY=VALUE`},
		{"local file in connection", append(slices.Clone(base), "--connection", conn), "tls.ca_file /etc/kafka/ca.pem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := execute(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want it to contain %q", err, c.want)
			}
			if code := exitCode(err); code != 2 {
				t.Errorf("exit code %d; want 2 (bad input)", code)
			}
		})
	}
}

func TestK8sLauncherRegistered(t *testing.T) {
	mk, ok := launchers["k8s"]
	if !ok {
		t.Fatal(`launchers["k8s"] not registered`)
	}
	if _, err := mk(distributeFlags{Distribute: "k8s"}); err == nil || !strings.Contains(err.Error(), "--image") {
		t.Errorf("without --image: %v; want --image named", err)
	}
	// A kubeconfig is read, not dialled: no API server is contacted here.
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: bench
  context: {cluster: c, user: u, namespace: bench}
- name: other
  context: {cluster: c, user: u}
current-context: other
`), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := mk(distributeFlags{Distribute: "k8s", Image: "i", Kubeconfig: kc, KubeContext: "bench"})
	if err != nil || l.Name() != "k8s" {
		t.Fatalf("launcher %v, %v; want the k8s launcher", l, err)
	}
	if p, err := l.(*k8s.Launcher).Params(shard.AgentArgs{Shards: 1}); err != nil || p.Namespace != "bench" || p.Image != "i" {
		t.Errorf("params %+v, %v; want namespace bench from the context, image i", p, err)
	}
	if _, err := mk(distributeFlags{Distribute: "k8s", Image: "i", Kubeconfig: kc, KubeContext: "missing"}); err == nil || !strings.Contains(err.Error(), "--kube-context missing") {
		t.Errorf("unknown context: %v; want --kube-context named", err)
	}
}

// k8sDryRun is what a dry run with --distribute k8s and an image gives in
// this build: accepted.
var k8sDryRun = struct {
	want int
	says string
}{ExitOK, ""}
