package infra

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/internal/retry"
)

// ProcessProvider starts Apache Kafka clusters as local JVM processes: KRaft
// clusters of 1 or 3 nodes, each node a combined broker and controller,
// listening on free loopback ports, running the jars ResolveJars fetched for
// the requested version. It needs Java 17+ and, the first time a version is
// used, Maven.
//
// Brokers run in their own process groups (a terminal's Ctrl-C reaches only
// the harness, which then stops them in order) and, on Linux, with a
// parent-death signal, so that no broker outlives a harness killed hard.
type ProcessProvider struct{}

// Name returns "process".
func (*ProcessProvider) Name() string { return "process" }

const (
	// stopGrace is how long Stop waits for a controlled shutdown after
	// SIGTERM before it kills the brokers.
	stopGrace = 20 * time.Second
	// killWait bounds the wait for the kernel to reap killed brokers.
	killWait = 10 * time.Second
	// logTailBytes is how much of a broker log an error quotes.
	logTailBytes = 3 << 10
)

// errPortClash marks a start that failed because a port picked as free was
// taken before the broker bound it; Start then retries once with new ports.
var errPortClash = errors.New("port already in use")

// Start starts a cluster as spec describes and returns once it serves
// clients: every broker is in the metadata, a topic replicated on all of
// them accepts a record. Jar resolution counts toward spec.StartTimeout. On
// any error, whatever was started is stopped before Start returns.
func (p *ProcessProvider) Start(ctx context.Context, spec ClusterSpec) (Cluster, error) {
	spec, cfg, err := spec.prepare("process")
	if err != nil {
		return nil, err
	}
	began := time.Now()
	ctx, cancel := spec.startContext(ctx)
	defer cancel()

	java, err := FindJava(ctx)
	if err != nil {
		return nil, err
	}
	jars, err := ResolveJars(ctx, spec.KafkaVersion, spec.Log)
	if err != nil {
		return nil, err
	}
	// A port picked as free may be taken before the broker binds it: one
	// more attempt with new ports; no other failure is retried.
	var c *processCluster
	attempt := 0
	err = retry.Do(ctx, retry.Policy{Attempts: 2}, func(ctx context.Context) error {
		attempt++
		var err error
		if c, err = startProcessCluster(ctx, spec, java, jars, cfg); err == nil {
			return nil
		}
		if attempt > 1 || !errors.Is(err, errPortClash) || ctx.Err() != nil {
			return retry.Permanent(err)
		}
		who := "a broker"
		if exit, ok := errors.AsType[*brokerExitError](err); ok {
			who = fmt.Sprintf("broker %d", exit.ID)
		}
		progress(spec.Log, "%s: port taken by another process; retrying once with new ports", who)
		return err
	})
	if err != nil {
		return nil, err
	}
	progress(spec.Log, "Kafka %s cluster of %d node(s) ready in %s at %v",
		spec.KafkaVersion, spec.Nodes, time.Since(began).Round(100*time.Millisecond), c.Bootstrap())
	return c, nil
}

// processCluster is a cluster of broker JVMs started by ProcessProvider.
type processCluster struct {
	spec     ClusterSpec // with defaults applied
	cfg      map[string]string
	root     string // this cluster's directory: configs and data
	ownsRoot bool   // root is a temporary directory that Stop removes
	logDir   string
	nodes    []nodeAddr
	// metricsPorts are the JMX exporter agents' HTTP ports, in node order.
	metricsPorts []int
	brokers      []*broker // the ones started so far
	java         JavaRuntime
	jars         string // the classpath directory (ResolveJars)

	// mu guards every broker's proc and state, and stopping: faults
	// (process_faults.go) change them while samplers read PIDs and Stop
	// may begin.
	mu       sync.Mutex
	stopping bool // Stop has begun: no broker may be started any more
	// faultMu serialises fault injections, so that two faults on one
	// broker never interleave.
	faultMu sync.Mutex

	stopOnce sync.Once
	stopErr  error

	// The secured client listener (process_security.go); nil: plaintext.
	security       *ClusterSecurity
	secFiles       securityFiles
	conn           connection.Settings
	connClientOpts []kgo.Opt
}

// broker is one node: its current JVM and what faults did to it.
type broker struct {
	addr         nodeAddr
	index        int // position in the cluster's node list (0-based)
	logPath      string
	proc         *proc // the current JVM; a new one after each start
	state        brokerState
	exitReported bool // an error already told that it died, or it was killed on purpose
	// jars and version are the classpath directory and the Kafka release the
	// broker's JVM runs: the cluster's at start, another after a rolling
	// upgrade (RestartBrokerOn).
	jars, version string
}

// brokerState is what fault injection did to a broker.
type brokerState int

const (
	brokerRunning brokerState = iota
	brokerPaused              // SIGSTOP: frozen until SIGCONT
	brokerKilled              // SIGKILL (or stopped by a restart): no JVM until started again
)

func (s brokerState) String() string {
	return [...]string{"running", "paused", "killed"}[s]
}

// startProcessCluster makes one attempt at starting the cluster; on error
// it stops whatever it started.
func startProcessCluster(ctx context.Context, spec ClusterSpec, java JavaRuntime, jars string, cfg map[string]string) (_ *processCluster, err error) {
	c := &processCluster{spec: spec, cfg: cfg, java: java, jars: jars}
	defer func() {
		if err != nil {
			// The start error is the headline; brokers that died during
			// start-up have told why in their logs.
			for _, b := range c.brokers {
				b.exitReported = b.proc.exited()
			}
			// Nothing of a failed start is worth a controlled shutdown:
			// an ended context makes Stop kill at once.
			killNow, cancel := context.WithCancel(context.Background())
			cancel()
			if stopErr := c.Stop(killNow); stopErr != nil {
				err = fmt.Errorf("%w (and while cleaning up: %v)", err, stopErr)
			}
		}
	}()
	if err := c.layout(); err != nil {
		return nil, err
	}
	if err := c.format(ctx, java, jars); err != nil {
		return nil, err
	}
	for i, n := range c.nodes {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("cluster: start: %w", context.Cause(ctx))
		}
		p, err := c.startJVM(n, i, jars)
		if err != nil {
			return nil, err
		}
		c.brokers = append(c.brokers, &broker{addr: n, index: i, logPath: c.logPath(n), proc: p, jars: jars, version: spec.KafkaVersion})
	}
	if err := c.waitReady(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// layout creates the cluster's directories, picks ports and writes every
// node's server.properties and the shared log4j2 configuration.
func (c *processCluster) layout() error {
	var err error
	if c.spec.WorkDir == "" {
		SweepOrphanedTemp(c.spec.Log) // what killed harnesses left (tempsweep.go)
		c.root, err = os.MkdirTemp("", "sharebench-kafka-")
		c.ownsRoot = err == nil
		if err == nil {
			err = markOwner(c.root)
		}
	} else if err = os.MkdirAll(c.spec.WorkDir, 0o755); err == nil {
		// A fresh directory per cluster: KRaft refuses storage formatted
		// for another cluster, and old data would skew a run.
		c.root, err = os.MkdirTemp(c.spec.WorkDir, "cluster-")
	}
	if err != nil {
		return fmt.Errorf("cluster: work dir: %w", err)
	}
	c.logDir = c.spec.LogDir
	if c.logDir == "" {
		c.logDir = filepath.Join(c.root, "logs")
	}
	if err := os.MkdirAll(c.logDir, 0o755); err != nil {
		return fmt.Errorf("cluster: log dir: %w", err)
	}
	if err := os.WriteFile(c.log4jPath(), []byte(log4j2Properties), 0o644); err != nil {
		return fmt.Errorf("cluster: log4j2 config: %w", err)
	}
	if err := os.WriteFile(c.jmxConfigPath(), jmxExporterConfig, 0o644); err != nil {
		return fmt.Errorf("cluster: jmx exporter config: %w", err)
	}

	// Per node: broker, controller and metrics (JMX exporter) ports.
	ports, err := pickPorts(3 * c.spec.Nodes)
	if err != nil {
		return fmt.Errorf("cluster: pick ports: %w", err)
	}
	for i := range c.spec.Nodes {
		c.nodes = append(c.nodes, nodeAddr{ID: i + 1, BrokerPort: ports[3*i], ControllerPort: ports[3*i+1]})
		c.metricsPorts = append(c.metricsPorts, ports[3*i+2])
	}
	if err := c.setUpSecurity(); err != nil {
		return err
	}
	for _, n := range c.nodes {
		dir := c.nodeDir(n)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
			return fmt.Errorf("broker %d: %w", n.ID, err)
		}
		props := serverProperties(c.securityLayout(processLayout(n, c.nodes, filepath.Join(dir, "data")), n), c.securityProps(c.cfg))
		if err := os.WriteFile(c.propsPath(n), renderProperties(props), 0o600); err != nil {
			return fmt.Errorf("broker %d: server.properties: %w", n.ID, err)
		}
	}
	return nil
}

func (c *processCluster) nodeDir(n nodeAddr) string {
	return filepath.Join(c.root, "broker-"+strconv.Itoa(n.ID))
}
func (c *processCluster) propsPath(n nodeAddr) string {
	return filepath.Join(c.nodeDir(n), "server.properties")
}
func (c *processCluster) logPath(n nodeAddr) string {
	return filepath.Join(c.logDir, "broker-"+strconv.Itoa(n.ID)+".log")
}
func (c *processCluster) log4jPath() string     { return filepath.Join(c.root, "log4j2.properties") }
func (c *processCluster) jmxConfigPath() string { return filepath.Join(c.root, "jmx-exporter.yaml") }

// jmxExporterConfig is the JMX exporter agent's configuration, written next
// to the broker configurations.
//
//go:embed jmx_exporter.yaml
var jmxExporterConfig []byte

// agentArg is the -javaagent flag that serves node i's metrics on
// 127.0.0.1:<metrics port> (the 1.0.1 agent's [host:]port:config syntax),
// from the jar directory jars (every version's directory holds the agent).
func (c *processCluster) agentArg(i int, jars string) string {
	return fmt.Sprintf("-javaagent:%s=%s:%d:%s", filepath.Join(jars, JMXExporterJar()), loopback, c.metricsPorts[i], c.jmxConfigPath())
}

// format formats every node's storage for one fresh cluster id, in
// parallel (each format is a short JVM run). Its output starts the node's
// log file.
func (c *processCluster) format(ctx context.Context, java JavaRuntime, jars string) error {
	id, err := newClusterID()
	if err != nil {
		return fmt.Errorf("cluster: id: %w", err)
	}
	progress(c.spec.Log, "formatting storage of %d node(s) under %s (cluster id %s)", len(c.nodes), c.root, id)
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Go(func() { errs[i] = c.formatNode(ctx, n, id, java, jars) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (c *processCluster) formatNode(ctx context.Context, n nodeAddr, clusterID string, java JavaRuntime, jars string) error {
	logFile, err := os.Create(c.logPath(n))
	if err != nil {
		return fmt.Errorf("broker %d: log: %w", n.ID, err)
	}
	defer logFile.Close()
	// A short run: the client compiler and serial GC start fastest.
	cmd := exec.Command(java.Path, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
		"-Dlog4j2.configurationFile="+c.log4jPath(),
		"-cp", filepath.Join(jars, "*"),
		"kafka.tools.StorageTool", "format", "-t", clusterID, "-c", c.propsPath(n))
	cmd.Args = append(cmd.Args, formatArgs(c.spec.KafkaVersion)...)
	cmd.Args = append(cmd.Args, c.scramArgs()...)
	cmd.Dir = c.nodeDir(n)
	tail := &tailBuffer{max: logTailBytes}
	if err := runTool(ctx, cmd, io.MultiWriter(logFile, tail)); err != nil {
		return fmt.Errorf("broker %d: format storage: %w: %s", n.ID, err, tail)
	}
	return nil
}

// startJVM starts the JVM of node n (the i-th node), with its JMX exporter
// agent, its output appended to its log file. A node started again after a
// fault runs exactly the same command: same data directory, properties,
// ports and agent port; jars is the classpath directory (the cluster's, or
// another release's after a rolling upgrade).
func (c *processCluster) startJVM(n nodeAddr, i int, jars string) (*proc, error) {
	logPath := c.logPath(n)
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("broker %d: log: %w", n.ID, err)
	}
	// The child holds its own descriptor; ours is not needed after Start.
	defer logFile.Close()
	args := brokerJVMArgs(c.spec.Heap, c.log4jPath(), c.agentArg(i, jars), filepath.Join(jars, "*"), c.propsPath(n))
	cmd := exec.Command(c.java.Path, args...)
	cmd.Dir = c.nodeDir(n)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p, err := startProc(cmd)
	if err != nil {
		return nil, fmt.Errorf("broker %d: start: %w", n.ID, err)
	}
	progress(c.spec.Log, "broker %d: started, pid %d, client address %s, log %s", n.ID, p.pid(), n.bootstrap(), logPath)
	return p, nil
}

// Bootstrap returns every broker's PLAINTEXT address.
func (c *processCluster) Bootstrap() []string {
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = n.bootstrap()
	}
	return addrs
}

// Provider returns "process".
func (c *processCluster) Provider() string { return "process" }

// KafkaVersion returns the version whose jars the brokers run (ResolveJars
// checks that kafka_2.13-<version>.jar is on the classpath).
func (c *processCluster) KafkaVersion() string { return c.spec.KafkaVersion }

// IsKafka returns true.
func (c *processCluster) IsKafka() bool { return true }

// Nodes returns the number of brokers.
func (c *processCluster) Nodes() int { return c.spec.Nodes }

// BrokerConfig returns a copy of the configuration applied to every broker
// (EffectiveBrokerConfig), without the per-node layout settings.
func (c *processCluster) BrokerConfig() map[string]string { return maps.Clone(c.cfg) }

// PIDs returns the process ids of the broker JVMs running now, in node
// order: a broker started again after a fault has a new pid, and a killed
// broker has none until it is started again. Samplers that must follow
// restarts call PIDs at every reading.
func (c *processCluster) PIDs() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	pids := make([]int, 0, len(c.brokers))
	for _, b := range c.brokers {
		if !b.proc.exited() {
			pids = append(pids, b.proc.pid())
		}
	}
	return pids
}

// MetricsURLs returns every broker's JMX exporter endpoint
// (http://127.0.0.1:<port>/metrics, Prometheus text format), in node order.
func (c *processCluster) MetricsURLs() []string {
	urls := make([]string, len(c.metricsPorts))
	for i, p := range c.metricsPorts {
		urls[i] = "http://" + net.JoinHostPort(loopback, strconv.Itoa(p)) + "/metrics"
	}
	return urls
}

// LogDir returns the directory of the broker-<id>.log files.
func (c *processCluster) LogDir() string { return c.logDir }

// Stop asks every broker for a controlled shutdown (SIGTERM), waits up to
// 20 s or until ctx ends, kills the brokers still running (SIGKILL), waits
// until every JVM has been reaped, and removes the temporary work directory
// if the cluster created one. Pass a live context: one that has already
// ended means "kill now". Stop is idempotent (later calls return the first
// result) and safe on a partially started cluster. A broker that had died
// before Stop is reported as an error naming it, unless a fault killed it on
// purpose; paused brokers are resumed first (a frozen JVM cannot shut down).
func (c *processCluster) Stop(ctx context.Context) error {
	c.stopOnce.Do(func() {
		// From here on no fault starts a JVM, so the procs below are final.
		c.mu.Lock()
		c.stopping = true
		c.mu.Unlock()
		c.stopErr = c.stop(ctx)
	})
	return c.stopErr
}

func (c *processCluster) stop(ctx context.Context) error {
	var errs []error
	for _, b := range c.brokers {
		c.mu.Lock()
		paused, reported := b.state == brokerPaused, b.exitReported
		c.mu.Unlock()
		if paused {
			if err := b.proc.signal(syscall.SIGCONT); err != nil {
				errs = append(errs, fmt.Errorf("broker %d: resume before stop: %w", b.addr.ID, err))
			}
		}
		if b.proc.exited() {
			if reported {
				continue
			}
			errs = append(errs, fmt.Errorf("broker %d: had exited before stop (%v); %s ends:\n%s",
				b.addr.ID, b.proc.err, b.logPath, fileTail(b.logPath, logTailBytes)))
			continue
		}
		if err := b.proc.signal(syscall.SIGTERM); err != nil {
			errs = append(errs, fmt.Errorf("broker %d: stop: %w", b.addr.ID, err))
		}
	}
	graceCtx, cancel := context.WithTimeout(ctx, stopGrace)
	defer cancel()
	if !c.waitExited(graceCtx) {
		for _, b := range c.brokers {
			if b.proc.exited() {
				continue
			}
			progress(c.spec.Log, "broker %d: still running after SIGTERM; killing pid %d", b.addr.ID, b.proc.pid())
			if err := b.proc.signal(syscall.SIGKILL); err != nil {
				errs = append(errs, fmt.Errorf("broker %d: kill: %w", b.addr.ID, err))
			}
		}
		killCtx, cancel := context.WithTimeout(context.Background(), killWait)
		defer cancel()
		if !c.waitExited(killCtx) {
			for _, b := range c.brokers {
				if !b.proc.exited() {
					errs = append(errs, fmt.Errorf("broker %d: pid %d still running %v after SIGKILL", b.addr.ID, b.proc.pid(), killWait))
				}
			}
		}
	}
	if c.ownsRoot && c.allExited() {
		if err := os.RemoveAll(c.root); err != nil {
			errs = append(errs, fmt.Errorf("cluster: remove work dir: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (c *processCluster) allExited() bool {
	for _, b := range c.brokers {
		if !b.proc.exited() {
			return false
		}
	}
	return true
}

// waitExited waits until every started broker has been reaped, or ctx
// ends; it reports whether all have.
func (c *processCluster) waitExited(ctx context.Context) bool {
	for _, b := range c.brokers {
		select {
		case <-b.proc.done:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// pickPorts returns n distinct ports that were free on the loopback
// interface a moment ago: all are held open together, then released. A
// broker may still lose one to another process before binding it; Start
// retries once with new ports when that happens. A variable so tests can
// force a clash.
var pickPorts = func(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", net.JoinHostPort(loopback, "0"))
		if err != nil {
			return nil, err
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// newClusterID returns a random KRaft cluster id the way Kafka's
// Uuid.randomUuid does (what `kafka-storage random-uuid` prints): a version
// 4 UUID in unpadded URL-safe base64, never starting with '-'. Generating
// it here saves a JVM start per cluster.
func newClusterID() (string, error) {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // IETF variant
		if id := base64.RawURLEncoding.EncodeToString(b[:]); id[0] != '-' {
			return id, nil
		}
	}
}

// brokerJVMArgs are the java arguments that run a broker, for every
// provider: heap, the JVM flags of Kafka's own start scripts (so that
// numbers match a stock broker), logging, the JMX exporter agent flag, the
// classpath and server.properties.
func brokerJVMArgs(heap, log4j, agent, classpath, props string) []string {
	return []string{
		"-Xmx" + heap, "-Xms" + heap,
		"-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
		"-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
		"-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + log4j,
		agent,
		"-cp", classpath,
		"kafka.Kafka", props,
	}
}

// log4j2Properties sends broker logs to stdout, which Start points at the
// node's log file, at Kafka's usual levels (request logging off).
const log4j2Properties = `# Written by sharebench (infra, process provider).
status = warn
name = sharebench-broker
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.target = SYSTEM_OUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.requestchannel.name = kafka.network.RequestChannel$
logger.requestchannel.level = WARN
`
