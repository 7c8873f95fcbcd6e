package k8s

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/sharebench/sharebench/campaign/shard"
)

// These tests run the launcher against client-go's fake clientset: an
// object store with watches, no controllers. standIn plays the Job
// controller and the kubelet: it creates one pod per completion index when
// the Job is created and moves pods through their phases with Update.

const ns = "bench"

// bound is how long a test waits for something that should happen at once;
// reaching it is a failure, not a measurement.
const bound = 20 * time.Second

type standIn struct {
	t      *testing.T
	client *fake.Clientset
	jobs   chan *batchv1.Job
	// start says how each index's pod looks after creation (default
	// running).
	start func(i int, pod *corev1.Pod)
	// created is closed once every pod exists, started once every pod
	// has its start state.
	created, started chan struct{}
	// quit ends run when the test ends; finished is closed when it has.
	quit, finished chan struct{}
	job            *batchv1.Job
}

func newStandIn(t *testing.T) *standIn {
	s := &standIn{t: t, client: fake.NewClientset(), jobs: make(chan *batchv1.Job, 4),
		created: make(chan struct{}), started: make(chan struct{}),
		quit: make(chan struct{}), finished: make(chan struct{})}
	s.client.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		j := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		select {
		case s.jobs <- j.DeepCopy():
		default:
		}
		return false, nil, nil // let the tracker store it
	})
	go func() { defer close(s.finished); s.run() }()
	t.Cleanup(func() { close(s.quit); <-s.finished })
	return s
}

func (s *standIn) run() {
	var job *batchv1.Job
	select {
	case job = <-s.jobs:
	case <-s.quit:
		return // the test created no Job; it says so itself
	}
	s.job = job
	ctx := context.Background()
	for i := range int(*job.Spec.Completions) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%d-x7k2q", job.Name, i), Namespace: job.Namespace,
			Labels:      maps.Clone(job.Spec.Template.Labels),
			Annotations: map[string]string{CompletionIndexAnnotation: strconv.Itoa(i)},
		}, Spec: job.Spec.Template.Spec, Status: corev1.PodStatus{Phase: corev1.PodPending}}
		pod.Labels[batchv1.JobNameLabel] = job.Name
		if _, err := s.client.CoreV1().Pods(job.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			s.t.Errorf("stand-in: create pod %d: %v", i, err)
			return
		}
	}
	close(s.created)
	for i := range int(*job.Spec.Completions) {
		err := s.update(i, func(p *corev1.Pod) {
			setRunning(p)
			if s.start != nil {
				s.start(i, p)
			}
		})
		if apierrors.IsNotFound(err) {
			return // a cancelled Start deleted the pods already
		}
		if err != nil {
			s.t.Errorf("stand-in: %v", err)
			return
		}
	}
	close(s.started)
}

func (s *standIn) podName(i int) string { return fmt.Sprintf("%s-%d-x7k2q", s.job.Name, i) }

// update changes pod i with Update, as the kubelet reports status.
func (s *standIn) update(i int, change func(*corev1.Pod)) error {
	ctx := context.Background()
	pod, err := s.client.CoreV1().Pods(s.job.Namespace).Get(ctx, s.podName(i), metav1.GetOptions{})
	if err != nil {
		return err
	}
	change(pod)
	_, err = s.client.CoreV1().Pods(s.job.Namespace).Update(ctx, pod, metav1.UpdateOptions{})
	return err
}

// set is update from the test's goroutine.
func (s *standIn) set(i int, change func(*corev1.Pod)) {
	s.t.Helper()
	if err := s.update(i, change); err != nil {
		s.t.Fatalf("stand-in: pod %d: %v", i, err)
	}
}

func setRunning(p *corev1.Pod) {
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: ContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
}

func setExited(code int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodSucceeded
		reason := "Completed"
		if code != 0 {
			p.Status.Phase, reason = corev1.PodFailed, "Error"
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: ContainerName, State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}}}
	}
}

func testArgs(shards int) shard.AgentArgs {
	return shard.AgentArgs{Bootstrap: []string{"kafka.bench.svc:9092"}, ControlTopic: "ctl", ResultsTopic: "res", Shards: shards, Campaign: "flow"}
}

func testLauncher(s *standIn, opts ...Option) *Launcher {
	p := Params{Name: "sharebench-flow", Image: "sharebench-agent:test", ScenarioYAML: []byte("name: flow\n"),
		ConnectionYAML: []byte("sasl:\n  mechanism: PLAIN\n  username: u\n  password: inline\n")}
	return NewLauncher(s.client, ns, p, append([]Option{WithPollInterval(10 * time.Millisecond)}, opts...)...)
}

// remaining lists every object of the kinds the launcher creates.
func remaining(t *testing.T, c *fake.Clientset) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	jobs, err1 := c.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
	pods, err2 := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	cms, err3 := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	secs, err4 := c.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	sas, err5 := c.CoreV1().ServiceAccounts(ns).List(ctx, metav1.ListOptions{})
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs.Items {
		out = append(out, "job/"+j.Name)
	}
	for _, p := range pods.Items {
		out = append(out, "pod/"+p.Name)
	}
	for _, o := range cms.Items {
		out = append(out, "configmap/"+o.Name)
	}
	for _, o := range secs.Items {
		out = append(out, "secret/"+o.Name)
	}
	for _, o := range sas.Items {
		out = append(out, "serviceaccount/"+o.Name)
	}
	return out
}

// collect reads Exited until it closes.
func collect(t *testing.T, ag shard.Agents) map[int]shard.Exit {
	t.Helper()
	out := map[int]shard.Exit{}
	timeout := time.After(bound)
	for {
		select {
		case e, ok := <-ag.Exited():
			if !ok {
				return out
			}
			if _, dup := out[e.Shard]; dup {
				t.Errorf("shard %d reported twice", e.Shard)
			}
			out[e.Shard] = e
		case <-timeout:
			t.Fatalf("Exited not closed within %s; got %v", bound, out)
		}
	}
}

func TestLauncherFlow(t *testing.T) {
	s := newStandIn(t)
	l := testLauncher(s)
	ag, err := l.Start(context.Background(), testArgs(3))
	if err != nil {
		t.Fatal(err)
	}
	got := remaining(t, s.client)
	for _, want := range []string{"job/sharebench-flow", "configmap/sharebench-flow-scenario", "secret/sharebench-flow-connection",
		"serviceaccount/sharebench-flow-agent", "pod/sharebench-flow-0-x7k2q", "pod/sharebench-flow-2-x7k2q"} {
		if !slices.Contains(got, want) {
			t.Errorf("after Start: %v lacks %s", got, want)
		}
	}
	job, err := s.client.BatchV1().Jobs(ns).Get(context.Background(), "sharebench-flow", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *job.Spec.Completions != 3 || slices.Contains(job.Spec.Template.Spec.Containers[0].Args, "--shard") {
		t.Errorf("created job: completions %d args %q; want 3 and no --shard", *job.Spec.Completions, job.Spec.Template.Spec.Containers[0].Args)
	}

	s.set(2, setExited(0))
	s.set(1, setExited(2))
	s.set(0, setExited(0))
	exits := collect(t, ag)
	if len(exits) != 3 {
		t.Fatalf("exits %v; want shards 0, 1, 2", exits)
	}
	for _, i := range []int{0, 2} {
		if exits[i].Err != nil {
			t.Errorf("shard %d: %v; want a clean exit", i, exits[i].Err)
		}
	}
	e := exits[1]
	if e.Err == nil || !strings.Contains(e.Err.Error(), "shard 1: pod sharebench-flow-1-x7k2q failed: container agent exited with code 2") {
		t.Errorf("shard 1: %v; want the pod's exit code 2 named", e.Err)
	}
	if e.Output != "fake logs" { // the fake clientset's log body
		t.Errorf("shard 1 output %q; want the pod log", e.Output)
	}

	if err := ag.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := remaining(t, s.client); len(r) != 0 {
		t.Errorf("after Stop: %v left", r)
	}
	if err := ag.Stop(context.Background()); err != nil {
		t.Errorf("second Stop: %v; want nil", err)
	}
}

func TestStopEndsRunningShardsAndReportsThem(t *testing.T) {
	s := newStandIn(t)
	ag, err := testLauncher(s).Start(context.Background(), testArgs(2))
	if err != nil {
		t.Fatal(err)
	}
	s.set(0, setExited(0))
	// A cancelled context (Ctrl-C) must still clean up.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ag.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if r := remaining(t, s.client); len(r) != 0 {
		t.Errorf("after Stop: %v left", r)
	}
	exits := collect(t, ag)
	if exits[0].Err != nil {
		t.Errorf("shard 0 finished before Stop; got %v", exits[0].Err)
	}
	if e, ok := exits[1]; !ok || e.Err == nil {
		t.Errorf("shard 1 was running when Stop deleted it; got %+v, want an error", e)
	}
}

func TestDeletedPodIsReported(t *testing.T) {
	s := newStandIn(t)
	ag, err := testLauncher(s).Start(context.Background(), testArgs(2))
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Stop(context.Background())
	// An eviction or a node loss: the pod goes away without an exit.
	if err := s.client.CoreV1().Pods(ns).Delete(context.Background(), s.podName(1), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-ag.Exited():
		if e.Shard != 1 || e.Err == nil || !strings.Contains(e.Err.Error(), "deleted before it finished") {
			t.Errorf("got %+v; want shard 1 reported as deleted", e)
		}
	case <-time.After(bound):
		t.Fatal("a deleted pod was not reported")
	}
}

func TestStartTimesOutNamingThePodAndReason(t *testing.T) {
	s := newStandIn(t)
	s.start = func(i int, p *corev1.Pod) {
		switch i {
		case 1:
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: ContainerName, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "ImagePullBackOff", Message: `Back-off pulling image "sharebench-agent:test"`}}}}
		case 2:
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses = nil
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient cpu."}}
		}
	}
	_, err := testLauncher(s, WithReadyTimeout(300*time.Millisecond)).Start(context.Background(), testArgs(3))
	if err == nil {
		t.Fatal("Start succeeded with a pod in ImagePullBackOff")
	}
	for _, want := range []string{
		"2 of 3 agent pods of job bench/sharebench-flow not running after 300ms",
		"pod sharebench-flow-1-x7k2q (shard 1): Pending, container agent waiting: ImagePullBackOff",
		"pod sharebench-flow-2-x7k2q (shard 2): Pending, not scheduled: Unschedulable: 0/3 nodes are available",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "shard 0") {
		t.Errorf("error %q names the running shard 0", err)
	}
	if r := remaining(t, s.client); len(r) != 0 {
		t.Errorf("after a failed Start: %v left", r)
	}
}

func TestStartCancelledCleansUp(t *testing.T) {
	s := newStandIn(t)
	s.start = func(_ int, p *corev1.Pod) { p.Status.Phase = corev1.PodPending; p.Status.ContainerStatuses = nil }
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-s.created:
		case <-time.After(bound): // Start fails the test below
		}
		cancel()
	}()
	_, err := testLauncher(s).Start(ctx, testArgs(2))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v; want context.Canceled", err)
	}
	if r := remaining(t, s.client); len(r) != 0 {
		t.Errorf("after a cancelled Start: %v left", r)
	}
}

func TestStartCreateRefusedDeletesWhatItCreated(t *testing.T) {
	s := newStandIn(t)
	s.client.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "sharebench-flow", errors.New("user cannot create jobs"))
	})
	_, err := testLauncher(s).Start(context.Background(), testArgs(2))
	if err == nil || !strings.Contains(err.Error(), "create Job bench/sharebench-flow") || !strings.Contains(err.Error(), "docs/how-to/run-on-kubernetes.md#rbac") {
		t.Fatalf("Start: %v; want the refused Job named with the RBAC hint", err)
	}
	if r := remaining(t, s.client); len(r) != 0 {
		t.Errorf("after a refused create: %v left", r)
	}
}

// TestWatchReestablished: the API server ends watches now and then; the
// launcher lists and watches again and still sees every exit.
func TestWatchReestablished(t *testing.T) {
	s := newStandIn(t)
	first := watch.NewFake()
	watches := 0
	s.client.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		watches++
		if watches == 1 {
			return true, first, nil
		}
		return false, nil, nil
	})
	l := testLauncher(s)
	done := make(chan struct{})
	var ag shard.Agents
	var err error
	go func() { defer close(done); ag, err = l.Start(context.Background(), testArgs(1)) }()
	select {
	case <-s.started:
	case <-time.After(bound):
		t.Fatal("the stand-in did not start the pod")
	}
	// The server closes the first watch, which delivered nothing: Start can
	// only see the running pod through the list and the new watch.
	first.Stop()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatal("Start did not return after the watch was re-established")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Stop(context.Background())
	s.set(0, setExited(0))
	if exits := collect(t, ag); len(exits) != 1 || exits[0].Err != nil {
		t.Errorf("exits %v; want shard 0 clean", exits)
	}
}

func TestParamsReadsLocalFilesAndChecksConnection(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.yaml")
	conn := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(sc, []byte("name: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conn, []byte("tls:\n  ca_file: /home/me/ca.pem\nsasl:\n  mechanism: PLAIN\n  username: u\n  password: ${KAFKA_PASSWORD}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := NewLauncher(fake.NewClientset(), ns, Params{Image: "i"})
	a := testArgs(2)
	a.ScenarioFile = sc
	p, err := l.Params(a)
	if err != nil {
		t.Fatal(err)
	}
	if string(p.ScenarioYAML) != "name: x\n" || p.Namespace != ns || p.Shards != 2 || !strings.HasPrefix(p.Name, "sharebench-flow-") {
		t.Errorf("params %+v: want the scenario read from %s, namespace %s, 2 shards, a name from the campaign", p, sc, ns)
	}
	a.ConnectionFile = conn
	_, err = l.Params(a)
	if err == nil || !strings.Contains(err.Error(), "tls.ca_file /home/me/ca.pem") || !strings.Contains(err.Error(), "${KAFKA_PASSWORD}") {
		t.Errorf("Params with a connection file naming a local file and ${ENV}: %v; want both named", err)
	}
	if err := CheckConnection("c.yaml", []byte("sasl:\n  mechanism: PLAIN\n  username: u\n  password: inline\n")); err != nil {
		t.Errorf("inline connection refused: %v", err)
	}
}
