package k8s

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/scenarios"
)

// Defaults of the launcher's bounds.
const (
	DefaultReadyTimeout   = 5 * time.Minute
	DefaultCleanupTimeout = 2 * time.Minute
	DefaultLogLines       = 40
)

// Launcher starts a campaign's agents as an Indexed Job (shard.Launcher).
type Launcher struct {
	client    kubernetes.Interface
	namespace string
	params    Params

	readyTimeout, cleanupTimeout time.Duration
	pollInterval                 time.Duration
	logLines                     int64
	log                          *slog.Logger
}

// Option changes a Launcher's bounds.
type Option func(*Launcher)

// WithReadyTimeout bounds how long Start waits for every pod to run
// (default 5 min).
func WithReadyTimeout(d time.Duration) Option { return func(l *Launcher) { l.readyTimeout = d } }

// WithCleanupTimeout bounds how long deleting the objects and waiting for
// the pods to go may take (default 2 min).
func WithCleanupTimeout(d time.Duration) Option { return func(l *Launcher) { l.cleanupTimeout = d } }

// WithPollInterval sets how often the cleanup checks that the pods are gone
// and a broken watch is re-established (default 1s).
func WithPollInterval(d time.Duration) Option { return func(l *Launcher) { l.pollInterval = d } }

// WithLogLines sets how many last log lines of a failed pod are kept in
// Exit.Output (default 40).
func WithLogLines(n int64) Option { return func(l *Launcher) { l.logLines = n } }

// WithLogger sets where progress lines go (default: discarded).
func WithLogger(log *slog.Logger) Option { return func(l *Launcher) { l.log = log } }

// NewLauncher returns a launcher that creates agents in namespace with
// client. p is the template of every Start: Image, Resources, Labels and the
// bounds are taken from it; Start fills in the AgentArgs, Shards, a Name
// derived from the campaign (unless p.Name is set) and, unless p already
// holds them, the scenario and connection text read from the files the
// AgentArgs name on this machine.
func NewLauncher(client kubernetes.Interface, namespace string, p Params, opts ...Option) *Launcher {
	l := &Launcher{client: client, namespace: namespace, params: p,
		readyTimeout: DefaultReadyTimeout, cleanupTimeout: DefaultCleanupTimeout,
		pollInterval: time.Second, logLines: DefaultLogLines,
		log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Name says where agents run.
func (l *Launcher) Name() string { return "k8s" }

// Params returns the parameters Start renders for a: what `sharebench k8s
// render` prints for the same arguments.
func (l *Launcher) Params(a shard.AgentArgs) (Params, error) {
	p := l.params
	p.Namespace = l.namespace
	p.AgentArgs = a
	p.Shards = a.Shards
	if p.Name == "" {
		p.Name = NameFor(a.Campaign, rand.String(5))
	}
	if len(p.ScenarioYAML) == 0 && a.ScenarioFile != "" {
		b, err := scenarios.ReadFileLimited(a.ScenarioFile)
		if err != nil {
			return p, fmt.Errorf("k8s: scenario for the ConfigMap: %w", err)
		}
		p.ScenarioYAML = b
	}
	if len(p.ConnectionYAML) == 0 && a.ConnectionFile != "" {
		b, err := connection.ReadFile(a.ConnectionFile)
		if err != nil {
			return p, fmt.Errorf("k8s: connection file for the Secret: %w", err)
		}
		p.ConnectionYAML = b
	}
	if len(p.ConnectionYAML) > 0 {
		if err := CheckConnection(a.ConnectionFile, p.ConnectionYAML); err != nil {
			return p, err
		}
	}
	return p, nil
}

// CheckConnection refuses a connection file that only works on this
// machine: the agents read it inside their pods, where files it names and
// ${ENV} values of this shell do not exist.
func CheckConnection(name string, text []byte) error {
	if name == "" {
		name = "connection file"
	}
	var vars []string
	c, err := connection.Parse(name, text, func(v string) (string, bool) {
		vars = append(vars, "${"+v+"}")
		return "x", true
	})
	if err != nil {
		return fmt.Errorf("k8s: %w", err)
	}
	var local []string
	if t := c.TLS; t != nil {
		for _, f := range []struct{ key, v string }{{"tls.ca_file", t.CAFile}, {"tls.cert_file", t.CertFile}, {"tls.key_file", t.KeyFile}} {
			if f.v != "" {
				local = append(local, f.key+" "+f.v)
			}
		}
	}
	if s := c.SASL; s != nil {
		for _, f := range []struct{ key, v string }{{"sasl.password_file", s.PasswordFile}, {"sasl.token_file", s.TokenFile}, {"sasl.token_command", s.TokenCommand}} {
			if f.v != "" {
				local = append(local, f.key+" "+f.v)
			}
		}
	}
	if len(vars) > 0 || len(local) > 0 {
		return fmt.Errorf("k8s: %s: %s: the agents read the connection file inside their pods, where this machine's files and environment are not; "+
			"--distribute k8s takes connection files with inline values only (see docs/how-to/run-on-kubernetes.md#connection-files)",
			name, strings.Join(append(local, vars...), ", "))
	}
	return nil
}

// Start creates the objects, waits until every shard's pod runs (or has
// already ended) and returns the agents. On error, and when ctx ends first,
// every object it created is deleted again.
func (l *Launcher) Start(ctx context.Context, a shard.AgentArgs) (shard.Agents, error) {
	p, err := l.Params(a)
	if err != nil {
		return nil, err
	}
	objs, err := Render(p)
	if err != nil {
		return nil, err
	}
	ag := &agents{l: l, name: p.Name, ns: p.Namespace, shards: p.Shards,
		exited: make(chan shard.Exit, p.Shards), changed: make(chan struct{}, 1),
		pods: map[int]*corev1.Pod{}, reported: make([]bool, p.Shards), done: make(chan struct{})}

	// Watch before creating, so no pod event is missed.
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ag.cancel = cancel
	w, err := ag.watch(fctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("k8s: watch pods in namespace %s: %w%s", ag.ns, err, rbacHint(err))
	}
	go ag.follow(fctx, w)

	fail := func(err error) (shard.Agents, error) {
		if cerr := ag.Stop(ctx); cerr != nil {
			err = fmt.Errorf("%w; cleanup: %v", err, cerr)
		}
		return nil, err
	}
	for _, o := range objs.List() {
		if err := ag.create(ctx, o); err != nil {
			return fail(err)
		}
	}
	l.log.Info("k8s: created agents", "job", ag.ns+"/"+ag.name, "shards", ag.shards, "image", p.Image)

	timer := time.NewTimer(l.readyTimeout)
	defer timer.Stop()
	for {
		waiting := ag.notRunning()
		if len(waiting) == 0 {
			l.log.Info("k8s: every agent pod runs", "job", ag.ns+"/"+ag.name)
			return ag, nil
		}
		select {
		case <-ag.changed:
		case <-timer.C:
			return fail(fmt.Errorf("k8s: %d of %d agent pods of job %s/%s not running after %s: %s",
				len(waiting), ag.shards, ag.ns, ag.name, l.readyTimeout, strings.Join(waiting, "; ")))
		case <-ctx.Done():
			return fail(fmt.Errorf("k8s: start of job %s/%s cancelled (%w); its objects were deleted", ag.ns, ag.name, ctx.Err()))
		}
	}
}

// agents are the pods of one Job.
type agents struct {
	l        *Launcher
	name, ns string
	shards   int
	exited   chan shard.Exit
	changed  chan struct{}
	cancel   context.CancelFunc
	done     chan struct{} // closed when follow returns
	created  []runtime.Object
	mu       sync.Mutex
	pods     map[int]*corev1.Pod
	reported []bool
	closed   bool
}

func (a *agents) Exited() <-chan shard.Exit { return a.exited }

func (a *agents) selector() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: Selector(a.name)}
}

func (a *agents) watch(ctx context.Context) (watch.Interface, error) {
	return a.l.client.CoreV1().Pods(a.ns).Watch(ctx, a.selector())
}

func (a *agents) create(ctx context.Context, o runtime.Object) error {
	var err error
	switch o := o.(type) {
	case *corev1.ServiceAccount:
		_, err = a.l.client.CoreV1().ServiceAccounts(a.ns).Create(ctx, o, metav1.CreateOptions{})
	case *corev1.ConfigMap:
		_, err = a.l.client.CoreV1().ConfigMaps(a.ns).Create(ctx, o, metav1.CreateOptions{})
	case *corev1.Secret:
		_, err = a.l.client.CoreV1().Secrets(a.ns).Create(ctx, o, metav1.CreateOptions{})
	case *batchv1.Job:
		_, err = a.l.client.BatchV1().Jobs(a.ns).Create(ctx, o, metav1.CreateOptions{})
	default:
		err = fmt.Errorf("unexpected object %T", o)
	}
	if err != nil {
		name := ""
		if m, merr := meta.Accessor(o); merr == nil {
			name = m.GetName()
		}
		return fmt.Errorf("k8s: create %s %s/%s: %w%s", o.GetObjectKind().GroupVersionKind().Kind, a.ns, name, err, rbacHint(err))
	}
	a.mu.Lock()
	a.created = append(a.created, o)
	a.mu.Unlock()
	return nil
}

// follow keeps the pod states current and reports each shard's end, until
// ctx ends (Stop). A watch the server closes is established again after a
// fresh list.
func (a *agents) follow(ctx context.Context, w watch.Interface) {
	defer close(a.done)
	for w != nil {
		w = a.drain(ctx, w)
	}
}

// drain handles w's events until it closes (then it returns the next
// watch) or ctx ends (then nil).
func (a *agents) drain(ctx context.Context, w watch.Interface) watch.Interface {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return a.rewatch(ctx)
			}
			if pod, isPod := ev.Object.(*corev1.Pod); isPod {
				a.observe(ctx, pod, ev.Type == watch.Deleted)
			}
		}
	}
}

// rewatch lists the pods and watches from there, retrying until ctx ends.
func (a *agents) rewatch(ctx context.Context) watch.Interface {
	for {
		w, err := a.relist(ctx)
		if err == nil {
			return w
		}
		a.l.log.Warn("k8s: watching agent pods again", "job", a.ns+"/"+a.name, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(a.l.pollInterval):
		}
	}
}

func (a *agents) relist(ctx context.Context) (watch.Interface, error) {
	list, err := a.l.client.CoreV1().Pods(a.ns).List(ctx, a.selector())
	if err != nil {
		return nil, err
	}
	for i := range list.Items {
		a.observe(ctx, &list.Items[i], false)
	}
	opts := a.selector()
	opts.ResourceVersion = list.ResourceVersion
	return a.l.client.CoreV1().Pods(a.ns).Watch(ctx, opts)
}

// shardOf is the pod's completion index, or -1.
func (a *agents) shardOf(pod *corev1.Pod) int {
	if pod.Labels[LabelInstance] != a.name {
		return -1
	}
	s, ok := pod.Annotations[CompletionIndexAnnotation]
	if !ok {
		s = pod.Labels[CompletionIndexAnnotation]
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || i >= a.shards {
		return -1
	}
	return i
}

func (a *agents) observe(ctx context.Context, pod *corev1.Pod, deleted bool) {
	i := a.shardOf(pod)
	if i < 0 {
		return
	}
	a.mu.Lock()
	if old := a.pods[i]; old != nil && old.Name != pod.Name && old.CreationTimestamp.After(pod.CreationTimestamp.Time) {
		a.mu.Unlock()
		return // an older pod of this index
	}
	a.pods[i] = pod.DeepCopy()
	done := a.reported[i]
	a.mu.Unlock()
	select {
	case a.changed <- struct{}{}:
	default:
	}
	if done {
		return
	}
	switch {
	case pod.Status.Phase == corev1.PodSucceeded:
		a.report(shard.Exit{Shard: i})
	case pod.Status.Phase == corev1.PodFailed:
		a.report(shard.Exit{Shard: i, Err: fmt.Errorf("shard %d: pod %s failed: %s", i, pod.Name, termination(pod)), Output: a.logTail(ctx, pod)})
	case deleted:
		a.report(shard.Exit{Shard: i, Err: fmt.Errorf("shard %d: pod %s deleted before it finished (phase %s)", i, pod.Name, pod.Status.Phase), Output: a.logTail(ctx, pod)})
	}
}

// report delivers one shard's end once, and closes Exited after the last.
func (a *agents) report(e shard.Exit) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.reported[e.Shard] {
		return
	}
	a.reported[e.Shard] = true
	a.exited <- e // buffered for every shard: never blocks
	if !slices.Contains(a.reported, false) {
		a.closed = true
		close(a.exited)
	}
}

// logTail is the end of the agent container's log, or why there is none.
func (a *agents) logTail(ctx context.Context, pod *corev1.Pod) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := a.l.client.CoreV1().Pods(a.ns).GetLogs(pod.Name, &corev1.PodLogOptions{Container: ContainerName, TailLines: ptr.To(a.l.logLines)}).DoRaw(ctx)
	if err != nil {
		if cs := containerStatus(pod); cs != nil && cs.State.Terminated != nil && cs.State.Terminated.Message != "" {
			return cs.State.Terminated.Message
		}
		return fmt.Sprintf("(no log of pod %s: %v)", pod.Name, err)
	}
	return string(b)
}

func containerStatus(pod *corev1.Pod) *corev1.ContainerStatus {
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == ContainerName {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// termination says how a failed pod ended: exit code and reason, or the
// pod's own reason (Evicted, DeadlineExceeded).
func termination(pod *corev1.Pod) string {
	if cs := containerStatus(pod); cs != nil && cs.State.Terminated != nil {
		t := cs.State.Terminated
		s := fmt.Sprintf("container %s exited with code %d", ContainerName, t.ExitCode)
		if t.Signal != 0 {
			s += fmt.Sprintf(" (signal %d)", t.Signal)
		}
		if t.Reason != "" {
			s += " (" + t.Reason + ")"
		}
		return s
	}
	s := "phase Failed"
	if pod.Status.Reason != "" {
		s += ", " + pod.Status.Reason
	}
	if pod.Status.Message != "" {
		s += ": " + pod.Status.Message
	}
	return s
}

// notRunning describes every shard whose pod neither runs nor has ended.
func (a *agents) notRunning() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for i := range a.shards {
		pod := a.pods[i]
		if a.reported[i] {
			continue
		}
		if pod == nil {
			out = append(out, fmt.Sprintf("shard %d: no pod yet (kubectl describe job %s -n %s says why: quota, admission, pod security)", i, a.name, a.ns))
			continue
		}
		if pod.Status.Phase == corev1.PodRunning && pod.DeletionTimestamp == nil {
			continue
		}
		out = append(out, fmt.Sprintf("pod %s (shard %d): %s", pod.Name, i, pending(pod)))
	}
	return out
}

// pending says why a pod does not run yet.
func pending(pod *corev1.Pod) string {
	s := string(pod.Status.Phase)
	if s == "" {
		s = "no phase"
	}
	if pod.DeletionTimestamp != nil {
		s += ", being deleted"
	}
	if cs := containerStatus(pod); cs != nil && cs.State.Waiting != nil {
		w := cs.State.Waiting
		s += ", container " + ContainerName + " waiting: " + w.Reason
		if w.Message != "" {
			s += ": " + w.Message
		}
		switch w.Reason {
		case "ImagePullBackOff", "ErrImagePull", "InvalidImageName":
			s += " (is the image pushed where the cluster's nodes pull from? see docs/how-to/run-on-kubernetes.md#the-agent-image)"
		}
		return s
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			s += ", not scheduled: " + c.Reason
			if c.Message != "" {
				s += ": " + c.Message
			}
			return s
		}
	}
	if pod.Status.Reason != "" {
		s += ", " + pod.Status.Reason
	}
	return s
}

// Stop deletes the Job, its pods, the Secret, the ConfigMap and the
// ServiceAccount, waits until the pods are gone and reports every shard not
// yet reported as stopped. It uses a fresh context bounded by the cleanup
// timeout, so a cancelled ctx (Ctrl-C) still cleans up.
func (a *agents) Stop(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.l.cleanupTimeout)
	defer cancel()
	err := a.cleanup(cctx)
	a.cancel()
	<-a.done
	for i := range a.shards {
		a.report(shard.Exit{Shard: i, Err: fmt.Errorf("shard %d: stopped: job %s/%s deleted before the agent ended", i, a.ns, a.name)})
	}
	return err
}

func (a *agents) cleanup(ctx context.Context) error {
	var errs []error
	del := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w%s", what, err, rbacHint(err)))
		}
	}
	bg := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &bg}
	c := a.l.client
	del("job "+a.ns+"/"+a.name, c.BatchV1().Jobs(a.ns).Delete(ctx, a.name, opts))
	// The garbage collector deletes the Job's pods too; deleting them here
	// ends them now and does not depend on it.
	if list, err := c.CoreV1().Pods(a.ns).List(ctx, a.selector()); err != nil {
		del("pods "+Selector(a.name), err)
	} else {
		for _, p := range list.Items {
			del("pod "+a.ns+"/"+p.Name, c.CoreV1().Pods(a.ns).Delete(ctx, p.Name, opts))
		}
	}
	del("secret "+a.ns+"/"+a.name+"-connection", c.CoreV1().Secrets(a.ns).Delete(ctx, a.name+"-connection", opts))
	del("configmap "+a.ns+"/"+a.name+"-scenario", c.CoreV1().ConfigMaps(a.ns).Delete(ctx, a.name+"-scenario", opts))
	del("serviceaccount "+a.ns+"/"+a.name+"-agent", c.CoreV1().ServiceAccounts(a.ns).Delete(ctx, a.name+"-agent", opts))
	if len(errs) > 0 {
		return fmt.Errorf("k8s: %w", errors.Join(errs...))
	}
	// Wait for the pods to be gone: Stop returns when no agent runs.
	var names []string
	for {
		list, err := c.CoreV1().Pods(a.ns).List(ctx, a.selector())
		if err == nil && len(list.Items) == 0 {
			return nil
		}
		if err == nil {
			names = names[:0]
			for _, p := range list.Items {
				names = append(names, p.Name)
			}
		}
		select {
		case <-ctx.Done():
			if len(names) == 0 && err != nil {
				names = []string{"(list: " + err.Error() + ")"}
			}
			return fmt.Errorf("k8s: pods of job %s/%s still there after the cleanup bound (%v): %s; delete them with kubectl delete pods -n %s -l %s",
				a.ns, a.name, ctx.Err(), strings.Join(names, ", "), a.ns, Selector(a.name))
		case <-time.After(a.l.pollInterval):
		}
	}
}

// rbacHint adds what a refused request needs.
func rbacHint(err error) string {
	if apierrors.IsForbidden(err) {
		return " (the kube user needs the rights listed in docs/how-to/run-on-kubernetes.md#rbac)"
	}
	return ""
}
