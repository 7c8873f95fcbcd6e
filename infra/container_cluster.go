package infra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// containerCluster is a cluster of broker containers started by
// ContainerProvider.
type containerCluster struct {
	spec    ClusterSpec // with defaults applied
	cfg     map[string]string
	image   string
	dc      *testcontainers.DockerClient
	id      string // the sharebench.cluster label
	network string // the cluster's Docker network, by name
	nodes   []*ctrNode
	logDir  string
	tmpDir  string // removed by Stop when the cluster created it

	mu       sync.Mutex // guards ctrNode.down
	stopOnce sync.Once
	stopErr  error
}

// ctrNode is one broker container.
type ctrNode struct {
	id          int
	containerID string // empty until created
	clientPort  int    // host port of the CLIENT listener on 127.0.0.1
	metricsPort int    // host port of the JMX exporter on 127.0.0.1
	down        bool   // stopped on purpose by a fault (KillBroker)
}

// Bootstrap returns every broker's published client address.
func (c *containerCluster) Bootstrap() []string {
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = net.JoinHostPort(loopback, strconv.Itoa(n.clientPort))
	}
	return addrs
}

// Provider returns "container".
func (c *containerCluster) Provider() string { return "container" }

// Image returns the image the broker containers run.
func (c *containerCluster) Image() string { return c.image }

// KafkaVersion returns the version the image was chosen for.
func (c *containerCluster) KafkaVersion() string { return c.spec.KafkaVersion }

// IsKafka returns true.
func (c *containerCluster) IsKafka() bool { return true }

// Nodes returns the number of brokers.
func (c *containerCluster) Nodes() int { return c.spec.Nodes }

// BrokerConfig returns a copy of the configuration applied to every broker.
func (c *containerCluster) BrokerConfig() map[string]string { return maps.Clone(c.cfg) }

// PIDs returns the host process ids of the broker JVMs (the containers'
// main processes: the start script execs java), in node order; 0 for a
// broker that is not running. /proc on the host sees them like any process.
func (c *containerCluster) PIDs() []int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pids := make([]int, len(c.nodes))
	for i, n := range c.nodes {
		if st, err := c.state(ctx, n); err == nil && st.Running {
			pids[i] = st.Pid
		}
	}
	return pids
}

// MetricsURLs returns every broker's JMX exporter endpoint, published on
// 127.0.0.1, in node order.
func (c *containerCluster) MetricsURLs() []string {
	urls := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		urls[i] = "http://" + net.JoinHostPort(loopback, strconv.Itoa(n.metricsPort)) + "/metrics"
	}
	return urls
}

// LogDir returns the directory Stop copies the broker-<id>.log files into.
func (c *containerCluster) LogDir() string { return c.logDir }

// ctrState is what the provider reads of a container's state.
type ctrState struct {
	Running, Paused bool
	Pid, ExitCode   int
	Networks        []string
}

func (c *containerCluster) state(ctx context.Context, n *ctrNode) (ctrState, error) {
	if n.containerID == "" {
		return ctrState{}, fmt.Errorf("broker %d: no container", n.id)
	}
	res, err := c.dc.ContainerInspect(ctx, n.containerID, client.ContainerInspectOptions{})
	if err != nil {
		return ctrState{}, fmt.Errorf("broker %d: inspect: %w", n.id, err)
	}
	var st ctrState
	if s := res.Container.State; s != nil {
		st = ctrState{Running: s.Running, Paused: s.Paused, Pid: s.Pid, ExitCode: s.ExitCode}
	}
	if ns := res.Container.NetworkSettings; ns != nil {
		for name := range ns.Networks {
			st.Networks = append(st.Networks, name)
		}
	}
	return st, nil
}

// containerExitError is a broker container that exited while the cluster
// started.
type containerExitError struct {
	ID       int
	ExitCode int
	Tail     string // the end of its log
}

func (e *containerExitError) Error() string {
	return fmt.Sprintf("broker %d: container exited during start-up (exit code %d); its log ends:\n%s", e.ID, e.ExitCode, e.Tail)
}

// watchExits polls the containers every second and cancels ctx with a
// *containerExitError when one has exited. The returned function ends the
// watch and waits for it.
func (c *containerCluster) watchExits(ctx context.Context, cancel context.CancelCauseFunc) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			for _, n := range c.nodes {
				if st, err := c.state(ctx, n); err == nil && !st.Running {
					cancel(&containerExitError{ID: n.id, ExitCode: st.ExitCode, Tail: c.logTail(ctx, n)})
					return
				}
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
	}
}

// logTail returns the end of node n's container log.
func (c *containerCluster) logTail(ctx context.Context, n *ctrNode) string {
	tail := &tailBuffer{max: logTailBytes}
	if err := c.copyLog(ctx, n, tail); err != nil {
		return fmt.Sprintf("(log unavailable: %v)", err)
	}
	return tail.String()
}

// copyLog writes node n's container output (stdout and stderr, every start
// of the container) to w.
func (c *containerCluster) copyLog(ctx context.Context, n *ctrNode, w io.Writer) error {
	rc, err := c.dc.ContainerLogs(ctx, n.containerID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = stdcopy.StdCopy(w, w, rc)
	return err
}

// saveLog copies node n's container log to LogDir/broker-<id>.log.
func (c *containerCluster) saveLog(ctx context.Context, n *ctrNode) error {
	path := filepath.Join(c.logDir, "broker-"+strconv.Itoa(n.id)+".log")
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("broker %d: log: %w", n.id, err)
	}
	err = c.copyLog(ctx, n, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("broker %d: copy container log to %s: %w", n.id, path, err)
	}
	return nil
}

// containerStopBudget bounds Stop's work after the brokers' grace period:
// copying logs and removing containers and the network.
const containerStopBudget = time.Minute

// Stop stops every broker container (docker stop: SIGTERM, a controlled
// shutdown of up to 20 s, then SIGKILL; an already ended ctx means kill at
// once), copies each broker's log to LogDir/broker-<id>.log, and removes
// the containers and the network. It works on a fresh context, so it
// completes after Ctrl-C cancelled the caller's. Stop is idempotent and
// safe on a partially started cluster. A broker that had exited on its own
// before Stop is reported as an error naming it.
func (c *containerCluster) Stop(ctx context.Context) error {
	c.stopOnce.Do(func() { c.stopErr = c.stop(ctx) })
	return c.stopErr
}

func (c *containerCluster) stop(ctx context.Context) error {
	grace := stopGrace
	if ctx.Err() != nil {
		grace = 0
	}
	work, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace+containerStopBudget)
	defer cancel()
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		if n.containerID == "" {
			continue
		}
		wg.Go(func() { errs[i] = c.stopNode(work, n, grace) })
	}
	wg.Wait()
	errs = append(errs, c.removeByLabel(work))
	if c.tmpDir != "" {
		if err := os.RemoveAll(c.tmpDir); err != nil {
			errs = append(errs, fmt.Errorf("cluster: remove temporary directory: %w", err))
		}
	}
	if err := c.dc.Close(); err != nil {
		errs = append(errs, fmt.Errorf("docker client: %w", err))
	}
	return errors.Join(errs...)
}

// stopNode stops, saves the log of, and removes node n's container.
func (c *containerCluster) stopNode(ctx context.Context, n *ctrNode, grace time.Duration) error {
	var errs []error
	st, err := c.state(ctx, n)
	c.mu.Lock()
	down := n.down
	c.mu.Unlock()
	switch {
	case err != nil:
		errs = append(errs, err)
	case !st.Running && !down:
		errs = append(errs, fmt.Errorf("broker %d: container had exited before stop (exit code %d); log: %s",
			n.id, st.ExitCode, filepath.Join(c.logDir, "broker-"+strconv.Itoa(n.id)+".log")))
	case st.Paused:
		// A frozen broker cannot shut down; thaw it first.
		if _, err := c.dc.ContainerUnpause(ctx, n.containerID, client.ContainerUnpauseOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("broker %d: unpause before stop: %w", n.id, err))
		}
	}
	if st.Running {
		secs := int(grace.Seconds())
		if _, err := c.dc.ContainerStop(ctx, n.containerID, client.ContainerStopOptions{Timeout: &secs}); err != nil {
			errs = append(errs, fmt.Errorf("broker %d: stop container: %w", n.id, err))
		}
	}
	if err := c.saveLog(ctx, n); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.dc.ContainerRemove(ctx, n.containerID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
		errs = append(errs, fmt.Errorf("broker %d: remove container: %w", n.id, err))
	}
	return errors.Join(errs...)
}

// removeByLabel removes whatever still carries this cluster's label: the
// network, and any container whose creation was interrupted before the
// provider learnt its id (a start cancelled mid-request).
func (c *containerCluster) removeByLabel(ctx context.Context) error {
	filter := client.Filters{}.Add("label", labelCluster+"="+c.id)
	var errs []error
	cs, err := c.dc.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: filter})
	if err != nil {
		errs = append(errs, fmt.Errorf("cluster: list containers: %w", err))
	}
	for _, ct := range cs.Items {
		if _, err := c.dc.ContainerRemove(ctx, ct.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, fmt.Errorf("cluster: remove container %s: %w", ct.ID, err))
		}
	}
	ns, err := c.dc.NetworkList(ctx, client.NetworkListOptions{Filters: filter})
	if err != nil {
		errs = append(errs, fmt.Errorf("cluster: list networks: %w", err))
	}
	for _, n := range ns.Items {
		if _, err := c.dc.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("cluster: remove network %s: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}
