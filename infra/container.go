package infra

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"

	"github.com/sharebench/sharebench/internal/envvars"
)

// ContainerProvider starts Apache Kafka clusters as Docker containers
// through testcontainers-go: one container per KRaft node (1 or 3, each a
// combined broker and controller) on a user-defined network of its own.
// Each broker's client listener and JMX exporter endpoint are published on
// 127.0.0.1 only; the brokers reach each other by network alias on a
// separate internal listener and the controller listener.
//
// The image is the public apache/kafka:<version> when present or pullable,
// else the local sharebench/kafka:<version> that `make image` builds (see
// chooseImage). Both run the same start script, configuration and agent,
// copied into the container: one code path serves both.
//
// Clean-up: every container and network carries the labels sharebench=1,
// the harness pid and a cluster id. Stop removes them (after copying the
// broker logs) on success, error and Ctrl-C. A harness killed with SIGKILL
// cannot; the next Start on this host removes what such harnesses left.
type ContainerProvider struct {
	// Image overrides the image choice (any image with Kafka's jars in
	// /opt/kafka/libs and a java). Empty: chooseImage decides.
	Image string
}

// Name returns "container".
func (*ContainerProvider) Name() string { return "container" }

// Ports inside every broker container.
const (
	ctrClientPort     = 9092  // CLIENT listener, published on 127.0.0.1
	ctrInternalPort   = 19092 // INTERNAL listener, broker to broker
	ctrControllerPort = 9093  // CONTROLLER listener, the KRaft quorum
	ctrMetricsPort    = 9404  // JMX exporter agent, published on 127.0.0.1
	// ctrDir holds what the provider copies in: start script, properties,
	// log4j2 and agent configuration, agent jar.
	ctrDir = "/opt/sharebench"
	// ctrDataDir is writable by the public image's unprivileged user too.
	ctrDataDir = "/tmp/sharebench/data"
)

//go:embed container/start.sh
var containerStartScript []byte

// Start starts a cluster as spec describes and returns once it serves
// clients (the same client-side readiness check as the process provider).
// The jar cache (ResolveJars) supplies the JMX exporter agent. On any
// error, whatever was created is removed before Start returns.
func (p *ContainerProvider) Start(ctx context.Context, spec ClusterSpec) (Cluster, error) {
	spec, cfg, err := spec.prepare("container")
	if err != nil {
		return nil, err
	}
	began := time.Now()
	ctx, cancel := spec.startContext(ctx)
	defer cancel()

	dc, err := dockerClient(ctx)
	if err != nil {
		return nil, fmt.Errorf("container provider: %w", err)
	}
	if err := removeOrphans(ctx, dc, spec.Log); err != nil {
		progress(spec.Log, "leftover clean-up: %v", err)
	}
	image, err := chooseImage(ctx, dc, p.Image, spec.KafkaVersion, spec.Log)
	if err != nil {
		dc.Close()
		return nil, err
	}
	jars, err := ResolveJars(ctx, spec.KafkaVersion, spec.Log)
	if err != nil {
		dc.Close()
		return nil, fmt.Errorf("container provider: JMX exporter agent: %w", err)
	}
	c, err := startContainerCluster(ctx, dc, spec, cfg, image, jars)
	if err != nil {
		return nil, err
	}
	progress(spec.Log, "Kafka %s cluster of %d container(s) (%s) ready in %s at %v",
		spec.KafkaVersion, spec.Nodes, image, time.Since(began).Round(100*time.Millisecond), c.Bootstrap())
	return c, nil
}

// startContainerCluster creates the network and containers and waits until
// the cluster serves; on error it removes everything it created.
func startContainerCluster(ctx context.Context, dc *testcontainers.DockerClient, spec ClusterSpec, cfg map[string]string, image, jars string) (_ *containerCluster, err error) {
	c := &containerCluster{spec: spec, cfg: cfg, image: image, dc: dc, id: randomHex(4)}
	defer func() {
		if err != nil {
			killNow, cancel := context.WithCancel(context.Background())
			cancel()
			if stopErr := c.Stop(killNow); stopErr != nil {
				err = fmt.Errorf("%w (and while cleaning up: %v)", err, stopErr)
			}
		}
	}()
	kraftID, err := newClusterID()
	if err != nil {
		return nil, fmt.Errorf("cluster: id: %w", err)
	}
	if err := c.layout(); err != nil {
		return nil, err
	}
	nw, err := tcnetwork.New(ctx, tcnetwork.WithLabels(ownLabels(c.id)))
	if err != nil {
		return nil, fmt.Errorf("cluster: docker network: %w", err)
	}
	c.network = nw.Name
	files, err := c.sharedFiles(jars)
	if err != nil {
		return nil, err
	}
	// In parallel: on the vfs storage driver, creating a container copies
	// the whole image.
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Go(func() { errs[i] = c.create(ctx, n, kraftID, files) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := c.waitReady(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// layout picks the host ports and the log directory.
func (c *containerCluster) layout() error {
	c.logDir = c.spec.LogDir
	if c.logDir == "" {
		base := c.spec.WorkDir
		if base == "" {
			var err error
			if c.tmpDir, err = os.MkdirTemp("", "sharebench-containers-"); err != nil {
				return fmt.Errorf("cluster: log dir: %w", err)
			}
			base = c.tmpDir
		}
		c.logDir = filepath.Join(base, "logs")
	}
	if err := os.MkdirAll(c.logDir, 0o755); err != nil {
		return fmt.Errorf("cluster: log dir: %w", err)
	}
	// Host ports are chosen here, not by Docker, because each broker must
	// advertise its client address in its configuration before it starts;
	// fixed bindings also survive a stop and start of the container.
	ports, err := pickPorts(2 * c.spec.Nodes)
	if err != nil {
		return fmt.Errorf("cluster: pick ports: %w", err)
	}
	for i := range c.spec.Nodes {
		c.nodes = append(c.nodes, &ctrNode{id: i + 1, clientPort: ports[2*i], metricsPort: ports[2*i+1]})
	}
	return nil
}

// alias is node n's name on the cluster network.
func (c *containerCluster) alias(n *ctrNode) string { return "broker-" + strconv.Itoa(n.id) }

// containerLayout is node n's listeners: CLIENT advertised as the published
// 127.0.0.1 port, INTERNAL and CONTROLLER by network alias.
func (c *containerCluster) containerLayout(n *ctrNode) nodeLayout {
	voters := ""
	for i, o := range c.nodes {
		if i > 0 {
			voters += ","
		}
		voters += fmt.Sprintf("%d@%s:%d", o.id, c.alias(o), ctrControllerPort)
	}
	alias := c.alias(n)
	return nodeLayout{
		ID: n.id,
		Listeners: []listener{
			{Name: "CLIENT", Bind: anyAddr(ctrClientPort), Advertise: net.JoinHostPort(loopback, strconv.Itoa(n.clientPort))},
			{Name: "INTERNAL", Bind: anyAddr(ctrInternalPort), Advertise: net.JoinHostPort(alias, strconv.Itoa(ctrInternalPort))},
			{Name: controllerListener, Bind: anyAddr(ctrControllerPort), Advertise: net.JoinHostPort(alias, strconv.Itoa(ctrControllerPort))},
		},
		InterBroker: "INTERNAL",
		Voters:      voters,
		DataDir:     ctrDataDir,
	}
}

func anyAddr(port int) string { return "0.0.0.0:" + strconv.Itoa(port) }

// agentJarPath is where the JMX exporter agent is copied in.
const agentJarPath = ctrDir + "/jmx_prometheus_javaagent.jar"

// ctrFile is a file the provider copies into a broker container.
type ctrFile struct {
	path string
	data []byte
	mode int64
}

// sharedFiles are the files every broker container gets besides its own
// server.properties.
func (c *containerCluster) sharedFiles(jars string) ([]ctrFile, error) {
	agent, err := os.ReadFile(filepath.Join(jars, JMXExporterJar()))
	if err != nil {
		return nil, fmt.Errorf("cluster: JMX exporter agent: %w", err)
	}
	return []ctrFile{
		{ctrDir + "/start.sh", containerStartScript, 0o755},
		{ctrDir + "/log4j2.properties", []byte(log4j2Properties), 0o644},
		{ctrDir + "/jmx-exporter.yaml", jmxExporterConfig, 0o644},
		{agentJarPath, agent, 0o644},
	}, nil
}

// containerEnv is a broker container's environment: the KRaft cluster id
// and the feature levels start.sh formats with (FormatFeatures).
func (c *containerCluster) containerEnv(kraftID string) map[string]string {
	env := map[string]string{envvars.ClusterID: kraftID}
	if f := FormatFeatures(c.spec.KafkaVersion); len(f) > 0 {
		env[envvars.FormatFeatures] = strings.Join(f, " ")
	}
	return env
}

// create creates and starts node n's container.
func (c *containerCluster) create(ctx context.Context, n *ctrNode, kraftID string, shared []ctrFile) error {
	props := renderProperties(serverProperties(c.containerLayout(n), c.cfg))
	var files []testcontainers.ContainerFile
	for _, f := range append([]ctrFile{{ctrDir + "/server.properties", props, 0o644}}, shared...) {
		files = append(files, testcontainers.ContainerFile{Reader: bytes.NewReader(f.data), ContainerFilePath: f.path, FileMode: f.mode})
	}
	agent := fmt.Sprintf("-javaagent:%s=%d:%s/jmx-exporter.yaml", agentJarPath, ctrMetricsPort, ctrDir)
	cmd := append([]string{"/bin/sh", ctrDir + "/start.sh"},
		brokerJVMArgs(c.spec.Heap, ctrDir+"/log4j2.properties", agent, "/opt/kafka/libs/*", ctrDir+"/server.properties")...)
	name := fmt.Sprintf("sharebench-%s-%s", c.id, c.alias(n))
	req := testcontainers.ContainerRequest{
		Image:          c.image,
		Name:           name,
		Entrypoint:     []string{},
		Cmd:            cmd,
		Env:            c.containerEnv(kraftID),
		Labels:         ownLabels(c.id),
		Networks:       []string{c.network},
		NetworkAliases: map[string][]string{c.network: {c.alias(n)}},
		ExposedPorts:   []string{strconv.Itoa(ctrClientPort) + "/tcp", strconv.Itoa(ctrMetricsPort) + "/tcp"},
		Files:          files,
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.PortBindings = network.PortMap{
				network.MustParsePort(strconv.Itoa(ctrClientPort) + "/tcp"):  {{HostIP: netip.MustParseAddr(loopback), HostPort: strconv.Itoa(n.clientPort)}},
				network.MustParsePort(strconv.Itoa(ctrMetricsPort) + "/tcp"): {{HostIP: netip.MustParseAddr(loopback), HostPort: strconv.Itoa(n.metricsPort)}},
			}
		},
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		// testcontainers' own step-by-step lines stay quiet; the
		// provider reports progress and errors carry the cause.
		ContainerRequest: req, Started: true, Logger: tclog.NewNoopLogger(),
	})
	if ctr != nil {
		// Recorded even when the start failed, so that Stop removes it.
		n.containerID = ctr.GetContainerID()
	}
	if err != nil {
		return fmt.Errorf("broker %d: container %s (image %s): %w", n.id, name, c.image, err)
	}
	progress(c.spec.Log, "broker %d: container %s started, client port 127.0.0.1:%d, metrics port %d",
		n.id, name, n.clientPort, n.metricsPort)
	return nil
}

// waitReady waits until the cluster serves (waitServing); a container that
// exits meanwhile fails it at once with the end of its log.
func (c *containerCluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := c.watchExits(ctx, cancel)
	defer stop()
	err := waitServing(ctx, c.Bootstrap(), allNodes(len(c.nodes)), c.spec.KafkaVersion, c.spec.Log)
	if err != nil {
		var exit *containerExitError
		if errors.As(context.Cause(ctx), &exit) {
			return exit
		}
	}
	return err
}
