package infra

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/internal/retry"
)

// Long-lived clusters for tuning sessions (`sharebench cluster up|status|
// down`). Launch re-executes the harness as a supervisor (its ServeArgs),
// detached in a session of its own with its output in serve.log; the
// supervisor runs Serve, which holds the Cluster, so brokers that die with
// their parent (Pdeathsig) live as long as it does, and stops them when its
// context ends (SIGTERM/SIGINT). Serve publishes the state file once the
// cluster serves; WaitReady waits for that (or for the supervisor's death).
// Later runs use the cluster as an external one, from its state.

// ClusterState is what a supervisor publishes, CacheDir/clusters/NAME.json.
type ClusterState struct {
	Name          string            `json:"name"`
	Provider      string            `json:"provider"`
	KafkaVersion  string            `json:"kafka_version"`
	Nodes         int               `json:"nodes"`
	Bootstrap     []string          `json:"bootstrap"`
	MetricsURLs   []string          `json:"metrics_urls"`
	BrokerConfig  map[string]string `json:"broker_config"`
	SupervisorPID int               `json:"supervisor_pid"`
	LogDir        string            `json:"log_dir"`
	ServeLog      string            `json:"serve_log"`
	StartedAt     string            `json:"started_at"`
	// Connection refers to the client settings of a secured cluster
	// (paths, never secrets); nil: plaintext.
	Connection *connection.Ref `json:"connection,omitempty"`
}

const (
	// supervisorStartTimeout bounds WaitReady: the providers' start
	// timeout plus margin.
	supervisorStartTimeout = DefaultStartTimeout + time.Minute
	// supervisorPoll is how often a supervisor's state or death is checked.
	supervisorPoll = 200 * time.Millisecond
)

// SupervisorStopWait bounds a supervisor's stop (its brokers' controlled
// shutdown, then kill) before StopSupervisor kills it.
const SupervisorStopWait = 90 * time.Second

// errNotYet is the failed attempt of a wait whose condition does not hold
// yet (retry.Do).
var errNotYet = errors.New("not yet")

var errSupervisorExited = errors.New("supervisor exited")

var clusterNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// NamedCluster is where a long-lived cluster lives: its state file and its
// directory (serve.log, the broker logs).
type NamedCluster struct {
	Name      string
	StateFile string // CacheDir/clusters/NAME.json
	Dir       string // CacheDir/clusters/NAME
}

// OpenNamedCluster checks name and returns its paths; nothing need exist.
func OpenNamedCluster(name string) (NamedCluster, error) {
	if !clusterNamePattern.MatchString(name) {
		return NamedCluster{}, fmt.Errorf("--name %q: want letters, digits, '.', '_' or '-' (at most 64)", name)
	}
	cache, err := CacheDir()
	if err != nil {
		return NamedCluster{}, err
	}
	root := filepath.Join(cache, "clusters")
	return NamedCluster{Name: name, StateFile: filepath.Join(root, name+".json"), Dir: filepath.Join(root, name)}, nil
}

// ServeLog is the supervisor's output.
func (n NamedCluster) ServeLog() string { return filepath.Join(n.Dir, "serve.log") }

// ServeArgs are the leading arguments of the supervisor's command line:
// the harness command that runs Serve for this cluster. SupervisorAlive
// recognises the supervisor by them.
func (n NamedCluster) ServeArgs() []string { return []string{"cluster", "serve", "--name", n.Name} }

// ReadState reads the published state; a missing one says how to start it.
func (n NamedCluster) ReadState() (ClusterState, error) {
	b, err := os.ReadFile(n.StateFile)
	if errors.Is(err, os.ErrNotExist) {
		return ClusterState{}, fmt.Errorf("no cluster named %q (no state file %s); start one with `sharebench cluster up --name %s`", n.Name, n.StateFile, n.Name)
	}
	if err != nil {
		return ClusterState{}, fmt.Errorf("cluster %q: %w", n.Name, err)
	}
	var st ClusterState
	if err := json.Unmarshal(b, &st); err != nil {
		return ClusterState{}, fmt.Errorf("cluster %q: state file %s: %w", n.Name, n.StateFile, err)
	}
	if len(st.Bootstrap) == 0 || st.SupervisorPID <= 0 {
		return ClusterState{}, fmt.Errorf("cluster %q: state file %s: bootstrap and supervisor_pid must be set", n.Name, n.StateFile)
	}
	return st, nil
}

// writeState writes the state atomically: readers never see half.
func (n NamedCluster) writeState(st ClusterState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := n.StateFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("cluster %q: state file: %w", n.Name, err)
	}
	if err := os.Rename(tmp, n.StateFile); err != nil {
		return fmt.Errorf("cluster %q: state file: %w", n.Name, err)
	}
	return nil
}

// Remove removes the state file and the cluster's directory.
func (n NamedCluster) Remove() {
	os.Remove(n.StateFile)
	os.RemoveAll(n.Dir)
}

// SupervisorAlive reports whether the supervisor st names may still run:
// its pid is alive (ProcessAlive) and runs this cluster's ServeArgs (a
// recycled pid belongs to some other program). Doubt counts as alive (see
// alive.go): err is non-nil when alive is true for want of knowing.
func (n NamedCluster) SupervisorAlive(st ClusterState) (alive bool, err error) {
	alive, doubt := ProcessAlive(st.SupervisorPID)
	if !alive {
		return false, nil
	}
	args, err := processCmdline(st.SupervisorPID)
	if err != nil {
		return true, errors.Join(doubt, fmt.Errorf("cannot tell whether pid %d is this cluster's supervisor: %w", st.SupervisorPID, err))
	}
	want := n.ServeArgs()
	for i := range args {
		if slices.Equal(args[i:min(i+len(want), len(args))], want) {
			return true, doubt
		}
	}
	return false, nil
}

// ClearStale makes way for a new supervisor: it refuses while one of this
// name may run, and removes what a dead one left. It returns the dead one's
// state (nil when there was none), for the caller to say so.
func (n NamedCluster) ClearStale() (stale *ClusterState, err error) {
	st, err := n.ReadState()
	if err != nil {
		return nil, nil // nothing readable to honour: Launch overwrites it
	}
	if alive, doubt := n.SupervisorAlive(st); alive {
		msg := fmt.Sprintf("cluster %q is already up (bootstrap %v, supervisor pid %d)", n.Name, st.Bootstrap, st.SupervisorPID)
		if doubt != nil {
			msg = fmt.Sprintf("cluster %q may be up (bootstrap %v): %v; refusing to start a second one", n.Name, st.Bootstrap, doubt)
		}
		return nil, fmt.Errorf("%s: use it, or stop it with `sharebench cluster down --name %s`", msg, n.Name)
	}
	n.Remove()
	return &st, nil
}

// Supervisor is a supervisor process that Launch started.
type Supervisor struct {
	n      NamedCluster
	cmd    *exec.Cmd
	exited chan error // Wait's result
}

// Launch starts exe with ServeArgs and then args as the cluster's
// supervisor, in a session of its own (no terminal signal reaches it, and
// it outlives its caller), its output in ServeLog. Call ClearStale first.
func (n NamedCluster) Launch(exe string, args []string) (*Supervisor, error) {
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", n.Name, err)
	}
	logFile, err := os.Create(n.ServeLog())
	if err != nil {
		return nil, fmt.Errorf("cluster %q: serve log: %w", n.Name, err)
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := exec.Command(exe, append(n.ServeArgs(), args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cluster %q: start supervisor: %w", n.Name, err)
	}
	s := &Supervisor{n: n, cmd: cmd, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	return s, nil
}

// Pid is the supervisor's process id.
func (s *Supervisor) Pid() int { return s.cmd.Process.Pid }

// WaitReady returns the state the supervisor publishes once its cluster
// serves. If the supervisor exits first, it fails quoting the end of
// ServeLog (kept; the state is removed). If ctx ends or the start takes
// longer than the providers' start timeout plus a minute, it stops the
// supervisor (which stops what it started) and removes the cluster's files.
func (s *Supervisor) WaitReady(ctx context.Context) (ClusterState, error) {
	var st ClusterState
	var exitErr error
	err := retry.Do(ctx, retry.Policy{Wait: supervisorPoll, Timeout: supervisorStartTimeout}, func(context.Context) error {
		select {
		case exitErr = <-s.exited:
			return retry.Permanent(errSupervisorExited)
		default:
		}
		var err error
		if st, err = s.n.ReadState(); err != nil || st.SupervisorPID != s.Pid() {
			return errNotYet
		}
		return nil
	})
	if err == nil {
		return st, nil
	}
	if errors.Is(err, errSupervisorExited) {
		os.Remove(s.n.StateFile) // the log stays for the user to read
		return ClusterState{}, fmt.Errorf("cluster %q: the supervisor exited (%v) before the cluster was ready; %s ends:\n%s",
			s.n.Name, exitErr, s.n.ServeLog(), fileTail(s.n.ServeLog(), logTailBytes))
	}
	// Interrupted or too slow: the supervisor stops what it started.
	_ = s.cmd.Process.Signal(terminateSignal)
	select {
	case <-s.exited:
	case <-time.After(SupervisorStopWait):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.n.Remove()
	cause := err
	if g, ok := errors.AsType[*retry.GiveUpError](err); ok {
		cause = g.Cause
	}
	return ClusterState{}, fmt.Errorf("cluster %q: not ready: %w", s.n.Name, cause)
}

// Serve is the supervisor: it starts a cluster with p as spec says (broker
// logs under the cluster's directory, progress to spec.Log), publishes its
// state, holds it until ctx ends (SIGTERM or SIGINT), then removes the
// state and stops the cluster.
func (n NamedCluster) Serve(ctx context.Context, p Provider, spec ClusterSpec) error {
	spec.LogDir = filepath.Join(n.Dir, "logs")
	c, err := p.Start(ctx, spec)
	if err != nil {
		return err
	}
	defer func() {
		os.Remove(n.StateFile)
		progress(spec.Log, "stopping the cluster")
		if err := c.Stop(context.Background()); err != nil {
			progress(spec.Log, "stop: %v", err)
		}
		progress(spec.Log, "stopped")
	}()
	st := ClusterState{
		Name: n.Name, Provider: c.Provider(), KafkaVersion: c.KafkaVersion(), Nodes: c.Nodes(),
		Bootstrap: c.Bootstrap(), MetricsURLs: c.MetricsURLs(), BrokerConfig: c.BrokerConfig(),
		SupervisorPID: os.Getpid(), LogDir: c.LogDir(), ServeLog: n.ServeLog(),
		StartedAt: time.Now().UTC().Format(time.RFC3339), Connection: connection.RefOf(ConnectionOf(c)),
	}
	if err := n.writeState(st); err != nil {
		return err
	}
	progress(spec.Log, "cluster %q ready; holding it until SIGTERM", n.Name)
	<-ctx.Done()
	return nil
}

// StopSupervisor stops the supervisor st names: SIGTERM (it stops its
// brokers), up to 90 s for it to exit, then SIGKILL (its brokers die with
// it: parent-death signal); then it removes the cluster's files. killed
// says whether it had to kill. Call it only on a supervisor that
// SupervisorAlive says may run.
func (n NamedCluster) StopSupervisor(ctx context.Context, st ClusterState) (killed bool, err error) {
	pid := st.SupervisorPID
	if err := signalPid(pid, terminateSignal); err != nil {
		return false, fmt.Errorf("cluster %q: signal supervisor pid %d: %w", n.Name, pid, err)
	}
	err = retry.Do(ctx, retry.Policy{Wait: supervisorPoll, Timeout: SupervisorStopWait}, func(context.Context) error {
		if processAlive(pid) {
			return errNotYet
		}
		return nil
	})
	if errors.Is(err, retry.ErrTimeout) {
		_ = signalPid(pid, killSignal)
		killed, err = true, nil
	}
	if err != nil { // ctx ended: the supervisor stops on its own
		return false, fmt.Errorf("cluster %q: waiting for supervisor pid %d: %w", n.Name, pid, err)
	}
	n.Remove()
	return killed, nil
}
