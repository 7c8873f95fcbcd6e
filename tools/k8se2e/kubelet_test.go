package k8se2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/sharebench/sharebench/internal/tail"
)

// standInNode is the node the stand-in binds every pod to.
const standInNode = "stand-in"

// kubelet stands in for the scheduler, the kubelet and the container
// runtime of one node: it binds every pending pod of its namespace to
// standInNode, runs the pod's one container as a local process of binary
// (the image's entry point) with the container's arguments and environment
// (field references resolved from the pod, as the kubelet does), with the
// ConfigMap, Secret and emptyDir volumes written to a directory per pod and
// every mount path in the arguments and environment rewritten into it;
// reports Running, then Succeeded or Failed with the exit code; and on a
// pod's deletion sends SIGTERM, SIGKILL after the grace period, and
// confirms the deletion as the kubelet does.
type kubelet struct {
	t      *testing.T
	client kubernetes.Interface
	binary string
	root   string

	// killIndex, when ≥ 0, is the completion index whose process is
	// SIGKILLed once killWhen, called with the container's arguments,
	// returns (a crashed agent).
	killIndex int
	killWhen  func(args []string)

	mu    sync.Mutex
	procs map[types.UID]*proc
	ran   []ranPod
}

// ranPod is what the stand-in saw of a pod it ran.
type ranPod struct {
	Name, Owner, IndexAnnotation, IndexEnv string
	Args                                   []string
	ExitCode                               int
}

type proc struct {
	cmd         *exec.Cmd
	done        chan struct{}
	terminating bool
	stderr      *tail.Writer
}

func newKubelet(t *testing.T, client kubernetes.Interface, binary, root string) *kubelet {
	return &kubelet{t: t, client: client, binary: binary, root: root, killIndex: -1, procs: map[types.UID]*proc{}}
}

// run follows the pods of namespace until ctx ends, then kills whatever it
// still runs.
func (k *kubelet) run(ctx context.Context, namespace string) {
	f := informers.NewSharedInformerFactoryWithOptions(k.client, 0, informers.WithNamespace(namespace))
	inf := f.Core().V1().Pods().Informer()
	handle := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			k.sync(ctx, pod)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    handle,
		UpdateFunc: func(_, obj any) { handle(obj) },
	}); err != nil {
		k.t.Errorf("stand-in kubelet: %v", err)
		return
	}
	f.Start(ctx.Done())
	<-ctx.Done()
	f.Shutdown()
	k.killAll()
}

func (k *kubelet) logf(format string, a ...any) { k.t.Logf("stand-in kubelet: "+format, a...) }

func (k *kubelet) sync(ctx context.Context, pod *corev1.Pod) {
	if pod.Spec.NodeName == "" {
		if pod.DeletionTimestamp == nil {
			k.bind(ctx, pod)
		}
		return
	}
	if pod.Spec.NodeName != standInNode {
		return
	}
	k.mu.Lock()
	p := k.procs[pod.UID]
	switch {
	case pod.DeletionTimestamp != nil:
		if p != nil && p.terminating {
			k.mu.Unlock()
			return
		}
		if p == nil {
			p = &proc{done: make(chan struct{})}
			close(p.done)
			k.procs[pod.UID] = p
		}
		p.terminating = true
		k.mu.Unlock()
		go k.terminate(ctx, pod, p)
	case p == nil && pod.Status.Phase == corev1.PodPending:
		p = &proc{done: make(chan struct{})}
		k.procs[pod.UID] = p
		k.mu.Unlock()
		if err := k.start(ctx, pod, p); err != nil {
			k.logf("pod %s: %v", pod.Name, err)
			close(p.done)
			k.setStatus(ctx, pod, func(s *corev1.PodStatus) {
				s.Phase, s.Reason, s.Message = corev1.PodFailed, "StandInUnsupported", err.Error()
			})
		}
	default:
		k.mu.Unlock()
	}
}

// bind stands in for the scheduler.
func (k *kubelet) bind(ctx context.Context, pod *corev1.Pod) {
	err := k.client.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: standInNode},
	}, metav1.CreateOptions{})
	if err != nil && ctx.Err() == nil {
		k.logf("bind %s: %v", pod.Name, err)
	}
}

// start lays out the pod's volumes and starts its container's process.
func (k *kubelet) start(ctx context.Context, pod *corev1.Pod, p *proc) error {
	if len(pod.Spec.Containers) != 1 || len(pod.Spec.InitContainers) != 0 {
		return fmt.Errorf("the stand-in runs pods of exactly one container, not %d (+%d init)", len(pod.Spec.Containers), len(pod.Spec.InitContainers))
	}
	c := pod.Spec.Containers[0]
	dir := filepath.Join(k.root, pod.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mounts := map[string]string{} // volume name → mount path
	for _, m := range c.VolumeMounts {
		if m.SubPath != "" {
			return fmt.Errorf("volume mount %s: subPath is not stood in", m.Name)
		}
		mounts[m.Name] = m.MountPath
	}
	for _, v := range pod.Spec.Volumes {
		mp, ok := mounts[v.Name]
		if !ok {
			continue
		}
		into := filepath.Join(dir, mp)
		if err := os.MkdirAll(into, 0o755); err != nil {
			return err
		}
		var files map[string][]byte
		var items []corev1.KeyToPath
		switch {
		case v.ConfigMap != nil:
			cm, err := k.client.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			files, items = map[string][]byte{}, v.ConfigMap.Items
			for key, val := range cm.Data {
				files[key] = []byte(val)
			}
			for key, val := range cm.BinaryData {
				files[key] = val
			}
		case v.Secret != nil:
			s, err := k.client.CoreV1().Secrets(pod.Namespace).Get(ctx, v.Secret.SecretName, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
			files, items = s.Data, v.Secret.Items
		case v.EmptyDir != nil:
			continue
		default:
			return fmt.Errorf("volume %s: only configMap, secret and emptyDir volumes are stood in", v.Name)
		}
		if len(items) > 0 {
			picked := map[string][]byte{}
			for _, it := range items {
				picked[it.Path] = files[it.Key]
			}
			files = picked
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(into, name), b, 0o444); err != nil {
				return err
			}
		}
	}
	rewrite := func(s string) string {
		for _, mp := range mounts {
			if s == mp || strings.HasPrefix(s, mp+"/") {
				return filepath.Join(dir, s)
			}
		}
		return s
	}

	env := []string{}
	indexEnv := ""
	for _, e := range c.Env {
		val := rewrite(e.Value)
		if e.ValueFrom != nil {
			if e.ValueFrom.FieldRef == nil {
				return fmt.Errorf("env %s: only fieldRef is stood in", e.Name)
			}
			v, err := fieldValue(pod, e.ValueFrom.FieldRef.FieldPath)
			if err != nil {
				return fmt.Errorf("env %s: %w", e.Name, err)
			}
			val = v
		}
		if e.Name == "JOB_COMPLETION_INDEX" {
			indexEnv = val
		}
		env = append(env, e.Name+"="+val)
	}
	args := append([]string(nil), c.Command...)
	if len(args) > 0 {
		args = args[1:] // the image holds one program: the binary stands in for it
	}
	for _, a := range c.Args {
		args = append(args, rewrite(a))
	}

	logFile, err := os.Create(filepath.Join(dir, "container.log"))
	if err != nil {
		return err
	}
	p.stderr = tail.New(16 << 10)
	cmd := exec.Command(k.binary, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout = logFile
	cmd.Stderr = io.MultiWriter(logFile, p.stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	p.cmd = cmd
	started := metav1.Now()
	owner := ""
	if ref := metav1.GetControllerOf(pod); ref != nil {
		owner = ref.Kind + "/" + ref.Name
	}
	k.mu.Lock()
	k.ran = append(k.ran, ranPod{Name: pod.Name, Owner: owner, IndexAnnotation: pod.Annotations["batch.kubernetes.io/job-completion-index"],
		IndexEnv: indexEnv, Args: c.Args, ExitCode: -1})
	slot := len(k.ran) - 1
	kill := k.killIndex >= 0 && indexEnv == strconv.Itoa(k.killIndex)
	killWhen := k.killWhen
	k.mu.Unlock()
	k.logf("pod %s (index %s): started pid %d", pod.Name, indexEnv, cmd.Process.Pid)

	k.setStatus(ctx, pod, func(s *corev1.PodStatus) {
		s.Phase = corev1.PodRunning
		s.HostIP, s.PodIP = "127.0.0.1", "127.0.0.1"
		s.StartTime = &started
		s.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		}
		s.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image, ImageID: "stand-in://" + c.Image,
			ContainerID: "stand-in://" + strconv.Itoa(cmd.Process.Pid), Ready: true, Started: ptrTo(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}
	})
	if kill {
		go func() {
			killWhen(c.Args)
			select {
			case <-p.done:
			default:
				k.logf("pod %s: SIGKILL (the crash the test asked for)", pod.Name)
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		}()
	}

	go func() {
		err := cmd.Wait()
		logFile.Close()
		code, sig := 0, 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ws := ee.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				sig = int(ws.Signal())
				code = 128 + sig // as a container runtime reports it
			} else {
				code = ws.ExitStatus()
			}
		} else if err != nil {
			code = 128
		}
		k.mu.Lock()
		k.ran[slot].ExitCode = code
		k.mu.Unlock()
		k.logf("pod %s: exited with code %d", pod.Name, code)
		finished := metav1.Now()
		term := &corev1.ContainerStateTerminated{ExitCode: int32(code), Signal: int32(sig), StartedAt: started, FinishedAt: finished,
			ContainerID: "stand-in://" + strconv.Itoa(cmd.Process.Pid), Reason: "Completed"}
		phase := corev1.PodSucceeded
		if code != 0 {
			phase, term.Reason = corev1.PodFailed, "Error"
			if c.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError {
				term.Message = lastLines(p.stderr.String(), 20)
			}
		}
		k.setStatus(context.Background(), pod, func(s *corev1.PodStatus) {
			s.Phase = phase
			for i := range s.Conditions {
				if s.Conditions[i].Type == corev1.PodReady || s.Conditions[i].Type == corev1.ContainersReady {
					s.Conditions[i].Status = corev1.ConditionFalse
				}
			}
			s.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image, ImageID: "stand-in://" + c.Image,
				ContainerID: term.ContainerID, Started: ptrTo(false), State: corev1.ContainerState{Terminated: term}}}
		})
		close(p.done)
	}()
	return nil
}

// terminate stops a deleted pod's process (SIGTERM, SIGKILL after the
// grace period) and confirms the deletion.
func (k *kubelet) terminate(ctx context.Context, pod *corev1.Pod, p *proc) {
	if p.cmd != nil {
		grace := 30 * time.Second
		if pod.DeletionGracePeriodSeconds != nil {
			grace = time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
		}
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	}
	err := k.client.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name,
		metav1.DeleteOptions{GracePeriodSeconds: ptrTo(int64(0)), Preconditions: metav1.NewUIDPreconditions(string(pod.UID))})
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		k.logf("confirm deletion of %s: %v", pod.Name, err)
	}
}

// setStatus changes the pod's status as the kubelet does, retrying on a
// conflict.
func (k *kubelet) setStatus(ctx context.Context, pod *corev1.Pod, change func(*corev1.PodStatus)) {
	pods := k.client.CoreV1().Pods(pod.Namespace)
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cur, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.UID != pod.UID {
			return nil
		}
		change(&cur.Status)
		_, err = pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		k.logf("status of %s: %v", pod.Name, err)
	}
}

// killAll kills every process still running (the test is ending).
func (k *kubelet) killAll() {
	k.mu.Lock()
	var left []*proc
	for _, p := range k.procs {
		if p.cmd != nil {
			left = append(left, p)
		}
	}
	k.mu.Unlock()
	for _, p := range left {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// running lists the pids of processes that have not exited.
func (k *kubelet) running() []int {
	k.mu.Lock()
	defer k.mu.Unlock()
	var pids []int
	for _, p := range k.procs {
		if p.cmd == nil {
			continue
		}
		select {
		case <-p.done:
		default:
			pids = append(pids, p.cmd.Process.Pid)
		}
	}
	return pids
}

func (k *kubelet) pods() []ranPod {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]ranPod(nil), k.ran...)
}

var annotationRef = regexp.MustCompile(`^metadata\.(annotations|labels)\['([^']+)'\]$`)

// fieldValue resolves a downward-API field path as the kubelet does.
func fieldValue(pod *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.podIP":
		return "127.0.0.1", nil
	}
	if m := annotationRef.FindStringSubmatch(path); m != nil {
		if m[1] == "annotations" {
			return pod.Annotations[m[2]], nil
		}
		return pod.Labels[m[2]], nil
	}
	return "", fmt.Errorf("field path %q is not stood in", path)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func ptrTo[T any](v T) *T { return &v }
