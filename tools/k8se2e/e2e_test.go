package k8se2e

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit/kafkatest"
	"github.com/sharebench/sharebench/results/runs"
)

const namespace = "sharebench-e2e"

// loopbackHostname is this machine's host name when it resolves to
// loopback addresses only. The launcher refuses loopback bootstrap
// addresses (inside a real pod they name the pod), so the agents are given
// the broker under this name; it still reaches nothing but 127.0.0.1.
func loopbackHostname(t *testing.T) string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := net.LookupHost(host)
	if err != nil || len(addrs) == 0 {
		t.Fatalf("host name %q does not resolve (%v); the test gives the agents the broker under it and needs it to resolve to 127.0.0.1 (an /etc/hosts line)", host, err)
	}
	for _, a := range addrs {
		if ip := net.ParseIP(a); ip == nil || !ip.IsLoopback() {
			t.Fatalf("host name %q resolves to %v; the test needs a name that resolves to loopback addresses only (an /etc/hosts line 127.0.0.1 %s)", host, addrs, host)
		}
	}
	return host
}

// buildSharebench builds the sharebench binary that stands in for the
// agent image and plays the coordinator.
func buildSharebench(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "sharebench")
	cmd := exec.Command("go", "build", "-tags", "k8s", "-o", bin, "./cmd/sharebench") // the launcher needs the tag
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as the agent image builds it
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build sharebench: %v\n%s", err, out)
	}
	return bin
}

// sharebench runs the coordinator; on timeout it is interrupted (Ctrl-C)
// and killed 60 s later.
func sharebench(t *testing.T, bin string, timeout time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = time.Minute
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t.Logf("sharebench %s", strings.Join(args, " "))
	err := cmd.Run()
	return out.String(), err
}

// leftovers lists every sharebench object and pod still in the namespace.
func leftovers(t *testing.T, client kubernetes.Interface) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sel := metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=sharebench"}
	var left []string
	check := func(kind string, names []string, err error) {
		if err != nil {
			t.Fatalf("list %s: %v", kind, err)
		}
		for _, n := range names {
			left = append(left, kind+"/"+n)
		}
	}
	jobs, err := client.BatchV1().Jobs(namespace).List(ctx, sel)
	check("job", namesOf(jobs, err, func(l *batchv1.JobList) []batchv1.Job { return l.Items }), err)
	pods, err := client.CoreV1().Pods(namespace).List(ctx, sel)
	check("pod", namesOf(pods, err, func(l *corev1.PodList) []corev1.Pod { return l.Items }), err)
	cms, err := client.CoreV1().ConfigMaps(namespace).List(ctx, sel)
	check("configmap", namesOf(cms, err, func(l *corev1.ConfigMapList) []corev1.ConfigMap { return l.Items }), err)
	secrets, err := client.CoreV1().Secrets(namespace).List(ctx, sel)
	check("secret", namesOf(secrets, err, func(l *corev1.SecretList) []corev1.Secret { return l.Items }), err)
	sas, err := client.CoreV1().ServiceAccounts(namespace).List(ctx, sel)
	check("serviceaccount", namesOf(sas, err, func(l *corev1.ServiceAccountList) []corev1.ServiceAccount { return l.Items }), err)
	return left
}

// namesOf are the names of a list's items (none when the list failed).
func namesOf[L any, T any, PT interface {
	*T
	GetName() string
}](l *L, err error, items func(*L) []T) []string {
	if err != nil || l == nil {
		return nil
	}
	var out []string
	it := items(l)
	for i := range it {
		out = append(out, PT(&it[i]).GetName())
	}
	return out
}

// The Kubernetes launcher against a real API server: etcd, kube-apiserver
// and the Job controller run in this process; a stand-in kubelet binds the
// pods and runs them as local sharebench processes; a real Kafka broker
// carries the run. The coordinator is the sharebench binary with
// --distribute k8s and a kubeconfig for the API server.
func TestKubernetesEndToEnd(t *testing.T) {
	host := loopbackHostname(t)
	dir := t.TempDir()
	bin := buildSharebench(t, dir)
	kafka := kafkatest.StartProcess(t, infra.ClusterSpec{Nodes: 1, Heap: "768m"})
	var bootstrap []string
	for _, b := range kafka.Bootstrap() {
		_, port, err := net.SplitHostPort(b)
		if err != nil {
			t.Fatal(err)
		}
		bootstrap = append(bootstrap, net.JoinHostPort(host, port))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cp := startControlPlane(t, ctx, dir)
	kc := filepath.Join(dir, "kubeconfig")
	cp.kubeconfig(t, kc, namespace)
	if _, err := cp.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kl := newKubelet(t, cp.client, bin, filepath.Join(dir, "pods"))
	kubeletDone := make(chan struct{})
	go func() { defer close(kubeletDone); kl.run(ctx, namespace) }()
	// Runs before the control plane's own clean-up (last registered, first run).
	t.Cleanup(func() {
		cancel()
		<-kubeletDone
		if pids := kl.running(); len(pids) > 0 {
			t.Errorf("agent processes %v still running at the end", pids)
		}
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(dir, "control-plane.log")); err == nil {
				t.Logf("control plane log (end):\n%s", lastLines(string(b), 80))
			}
		}
	})

	coordinator := func(extra ...string) []string {
		return append([]string{"run", "--provider", "external", "--bootstrap", strings.Join(bootstrap, ","),
			"--distribute", "k8s", "--kubeconfig", kc, "--image", "sharebench/agent:e2e", "--shards", "2"}, extra...)
	}

	t.Run("smoke over two agents", func(t *testing.T) {
		resultsDir := filepath.Join(dir, "results")
		begin := time.Now()
		out, err := sharebench(t, bin, 6*time.Minute, coordinator("--scenario", "smoke", "--results", resultsDir,
			"--set", "warmup=1s", "--set", "duration=3s")...)
		t.Logf("coordinator took %s", time.Since(begin).Round(time.Second))
		if err != nil {
			t.Fatalf("sharebench run: %v\n%s", err, out)
		}
		files, _ := filepath.Glob(filepath.Join(resultsDir, "smoke-*", "runs", "*", "run.json"))
		if len(files) != 2 {
			t.Fatalf("%d run.json files, want 2 (smoke: consumer and share)\n%s", len(files), out)
		}
		for _, f := range files {
			r, err := runs.ReadRun(f)
			if err != nil {
				t.Fatal(err)
			}
			a := r.Audit
			t.Logf("%s: shards %+v audit %+v", filepath.Base(filepath.Dir(f)), r.Shards, a)
			if r.Shards == nil || r.Shards.Count != 2 || r.Shards.Launcher != "k8s" || len(r.Shards.PerShard) != 2 {
				t.Errorf("%s: shards %+v, want 2 agents launched by k8s", f, r.Shards)
			}
			if !a.Balanced || a.Lost != 0 || a.InFlight != 0 || a.Produced == 0 || a.CompletedOnce+a.Duplicates != a.Produced {
				t.Errorf("%s: audit %+v, want balanced with every produced record completed", f, a)
			}
		}
		// The Job controller made the pods: one per completion index per
		// run, owned by the Job, the index in the annotation and in
		// $JOB_COMPLETION_INDEX (which the controller injects).
		byJob := map[string][]string{}
		for _, p := range kl.pods() {
			if !strings.HasPrefix(p.Owner, "Job/") {
				t.Errorf("pod %s: controller %q, want a Job", p.Name, p.Owner)
			}
			if p.IndexEnv == "" || p.IndexEnv != p.IndexAnnotation {
				t.Errorf("pod %s: $JOB_COMPLETION_INDEX %q, annotation %q: want the same index", p.Name, p.IndexEnv, p.IndexAnnotation)
			}
			if slices.Contains(p.Args, "--shard") {
				t.Errorf("pod %s: arguments %q carry --shard", p.Name, p.Args)
			}
			if p.ExitCode != 0 {
				t.Errorf("pod %s: exit code %d", p.Name, p.ExitCode)
			}
			byJob[p.Owner] = append(byJob[p.Owner], p.IndexEnv)
		}
		if len(byJob) != 2 {
			t.Errorf("pods of %d jobs %v, want one job per run (2)", len(byJob), byJob)
		}
		for j, idx := range byJob {
			if slices.Sort(idx); !slices.Equal(idx, []string{"0", "1"}) {
				t.Errorf("%s ran indexes %v, want [0 1]", j, idx)
			}
		}
		if left := leftovers(t, cp.client); len(left) > 0 {
			t.Errorf("left in the API server after the run: %v", left)
		}
		if pids := kl.running(); len(pids) > 0 {
			t.Errorf("agent processes %v still running after the run", pids)
		}
	})

	t.Run("killed agent fails the run", func(t *testing.T) {
		before := len(kl.pods())
		kl.mu.Lock()
		kl.killIndex = 1
		kl.killWhen = func(args []string) { waitForStart(t, args); time.Sleep(2 * time.Second) }
		kl.mu.Unlock()
		resultsDir := filepath.Join(dir, "results-killed")
		out, err := sharebench(t, bin, 6*time.Minute, coordinator("--scenario", "smoke", "--results", resultsDir,
			"--set", "consumer_type=share", "--set", "warmup=1s", "--set", "duration=20s")...)
		if err == nil {
			t.Fatalf("run with shard 1 killed succeeded:\n%s", out)
		}
		if !strings.Contains(out, "shard 1") || !strings.Contains(out, "exited with code 137") {
			t.Errorf("coordinator output does not name shard 1 and its exit code 137:\n%s", out)
		} else {
			t.Logf("coordinator (exit %v), last lines:\n%s", err, lastLines(out, 15))
		}
		killed := 0
		for _, p := range kl.pods()[before:] {
			if p.IndexEnv == "1" && p.ExitCode == 137 {
				killed++
			}
		}
		if killed != 1 {
			t.Errorf("%d killed pods of index 1, want 1 (no replacement: backoffLimit 0): %+v", killed, kl.pods()[before:])
		}
		if left := leftovers(t, cp.client); len(left) > 0 {
			t.Errorf("left in the API server after the failed run: %v", left)
		}
		if pids := kl.running(); len(pids) > 0 {
			t.Errorf("agent processes %v still running after the failed run", pids)
		}
	})
}

// waitForStart returns once the coordinator has sent the start message on
// the control topic an agent's arguments name (the load begins), or after
// 2 minutes.
func waitForStart(t *testing.T, args []string) {
	var bootstrap, control string
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--bootstrap":
			bootstrap = args[i+1]
		case "--control-topic":
			control = args[i+1]
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.ConsumeTopics(control),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Errorf("control topic reader: %v", err)
		return
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		started := false
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			if m, err := shard.Decode(r.Value); err == nil && m.Type == shard.TypeStart {
				started = true
			}
		})
		if started {
			return
		}
	}
}
